export { createHttpApp, type HttpApp, type HttpAppDependencies, type HttpAppOptions } from './app.js';
export type { AppState } from './state.js';
export { listen, type ListenOptions, type RunningServer } from './server.js';
export { buildOpenApiDocument, openApiJson } from './openapi.js';
export { silentLogger, type HttpLogger, type RequestLogFields } from './logger.js';
export {
  noMetrics,
  PrometheusMetrics,
  listenMetrics,
  type HttpMetrics,
  type MetricsListener,
  type PrometheusMetricsOptions,
} from './metrics.js';
export { BODY_LIMIT_BYTES } from './body.js';
export { DOCS_CSP } from './docs.js';
export { CORS_EXPOSED_HEADERS, type CorsOrigins } from './middleware/cors.js';
export { UploadAdmission, type UploadBounds, type UploadTicket } from './upload-admission.js';
export { LongPolls } from './events.js';

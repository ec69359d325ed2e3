export { createHttpApp, type HttpApp, type HttpAppDependencies, type HttpAppOptions } from './app.js';
export type { AppState } from './state.js';
export { listen, type ListenOptions, type RunningServer } from './server.js';
export { buildOpenApiDocument } from './openapi.js';
export { ERROR_STATUS } from './errors.js';
export { silentLogger, type HttpLogger } from './logger.js';
export { BODY_LIMIT_BYTES } from './body.js';
export { IDEMPOTENT_CREATES } from './middleware/idempotency.js';
export { CORS_EXPOSED_HEADERS, CORS_ALLOWED_HEADERS, CORS_MAX_AGE_SECONDS, type CorsOrigins } from './middleware/cors.js';

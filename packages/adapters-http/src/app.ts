import Koa, { type ParameterizedContext } from 'koa';
import type {
  Admission,
  Adoption,
  Authenticator,
  CategoryCatalog,
  EventFeed,
  IdempotentRequests,
  KeyAdmin,
  PetCatalog,
  PetMaintenance,
  PhotoLibrary,
  WebhookAdmin,
} from '@petstore/domain';
import { quoteInput } from '@petstore/domain';
import { buildOpenApiDocument, openApiJson } from './openapi.js';
import { answerJson } from './answer.js';
import { addCatalogRoutes } from './routes.js';
import { Routes } from './dispatch.js';
import { addAdminKeyRoutes } from './admin-keys.js';
import { addOwnStatusRoute } from './own-status.js';
import { addPetMaintenanceRoutes } from './pets-maintenance.js';
import { addPhotoRoutes } from './photos.js';
import { addEventRoutes, LongPolls } from './events.js';
import { addWebhookRoutes } from './webhooks.js';
import { compileValidators } from './validation.js';
import { answerError, requestContext, UNAVAILABLE_RETRY_AFTER_SECONDS } from './middleware/request-context.js';
import { gate } from './middleware/gate.js';
import { underIdempotencyKey } from './middleware/idempotency.js';
import { corsMiddleware, type CorsOrigins } from './middleware/cors.js';
import { docs } from './docs.js';
import { clientFaultLevel, silentLogger, type HttpLogger } from './logger.js';
import { loggedClientErrors } from './server.js';
import { noMetrics, type HttpMetrics } from './metrics.js';
import { admitUploads, UploadAdmission } from './upload-admission.js';
import type { AppState } from './state.js';

/** The use cases the HTTP adapter serves, and how it tells whether the store answers. */
export interface HttpAppDependencies {
  readonly catalog: PetCatalog;
  readonly categories: CategoryCatalog;
  readonly adoption: Adoption;
  readonly authenticator: Authenticator;
  readonly admission: Admission;
  /** Issuing, changing and revoking keys (`/v1/admin/keys`, admin keys only). */
  readonly keyAdmin: KeyAdmin;
  /** Correcting and withdrawing pets (`PATCH`, `DELETE /v1/pets/{petId}`, admin keys only, docs/rules.md §12). */
  readonly maintenance: PetMaintenance;
  /**
   * Idempotent creation (docs/rules.md §10) for the creates of `IDEMPOTENT_CREATES`. The server
   * always supplies it; an embedder that leaves it out gets creates that ignore `Idempotency-Key`.
   */
  readonly idempotency?: IdempotentRequests;
  /**
   * The photos of the pets (docs/rules.md §13, `/v1/pets/{petId}/photos`). The server always
   * supplies them; an embedder that leaves them out has no photo routes (404).
   */
  readonly photos?: PhotoLibrary;
  /**
   * How many photo uploads are worked on at once (docs/rules.md §13; `UploadAdmission`): past its
   * bounds an upload is refused 503 before its body is read. Its defaults when absent.
   */
  readonly uploads?: UploadAdmission;
  /**
   * The feed of events (docs/rules.md §15, `GET /v1/events`, admin keys). The server always
   * supplies it; an embedder that leaves it out has no feed route (404).
   */
  readonly events?: EventFeed;
  /**
   * The feed's long polls under way: `close` them when the server stops, and each answers at once
   * (an empty page, with its `Link`). The app keeps its own when absent.
   */
  readonly longPolls?: LongPolls;
  /**
   * Subscriptions that deliver the feed to URLs (docs/rules.md §15, `/v1/webhooks`, admin keys). The
   * server always supplies them; an embedder that leaves them out has no webhook routes (404).
   */
  readonly webhooks?: WebhookAdmin;
  /** Readiness of the store, for `GET /readyz`; must not throw. Always ready when absent. */
  readonly isReady?: () => Promise<boolean>;
  readonly logger?: HttpLogger;
  /** Where requests, rate-limit decisions and order transitions are counted; nothing counted when absent. */
  readonly metrics?: HttpMetrics;
}

export interface HttpAppOptions {
  /** Take the client address from `X-Forwarded-For` (the address the trusted proxy saw). */
  readonly trustProxy?: boolean;
  /** Browser origins allowed to call (docs/rules.md §11); no CORS header at all when absent. */
  readonly corsOrigins?: CorsOrigins;
}

const PROBE_PATHS = new Set(['/healthz', '/readyz', '/v1/openapi.json']);
const PROBE_ALLOW = 'GET, HEAD, OPTIONS';
const DOCS_PREFIX = '/docs';

/** The Koa application of the v1 API (mountable in another Koa app, or served with `listen`). */
export type HttpApp = Koa<AppState>;

/** Builds the Koa application of the v1 API. No globals: everything comes in `deps`. */
export const createHttpApp = (deps: HttpAppDependencies, options: HttpAppOptions = {}): HttpApp => {
  const logger = deps.logger ?? silentLogger;
  const metrics = deps.metrics ?? noMetrics;
  const isReady = deps.isReady ?? (async () => true);
  const openApi = openApiJson(buildOpenApiDocument());
  const validators = compileValidators();
  // Every create of IDEMPOTENT_CREATES runs this step (`Routes.create`), idempotency configured or not.
  const routes = new Routes(underIdempotencyKey(deps.idempotency, logger));
  addCatalogRoutes(routes, deps.catalog, deps.categories, deps.adoption, validators);
  addAdminKeyRoutes(routes, deps.keyAdmin, validators);
  addOwnStatusRoute(routes);
  addPetMaintenanceRoutes(routes, deps.maintenance, validators);
  if (deps.photos !== undefined)
    addPhotoRoutes(routes, deps.photos, admitUploads(deps.uploads ?? new UploadAdmission()));
  if (deps.events !== undefined) addEventRoutes(routes, deps.events, deps.longPolls ?? new LongPolls(), validators);
  if (deps.webhooks !== undefined) addWebhookRoutes(routes, deps.webhooks, validators);

  const app = new Koa<AppState>({ proxy: options.trustProxy === true, maxIpsCount: 1 });
  app.silent = true;
  // Koa reports here what no middleware could answer: in practice the connection failing under a
  // request (a bad chunk size, a request timeout, a client gone mid-body…). Those are the client's
  // faults (`info`/`warn`), logged once (not again when the `clientError` handler already did);
  // anything else is ours (`error`).
  app.on('error', (error: unknown, ctx?: { state?: Partial<AppState> }) => {
    if (typeof error === 'object' && error !== null && loggedClientErrors.has(error)) return;
    const err =
      error instanceof Error
        ? { name: error.name, message: error.message, code: (error as NodeJS.ErrnoException).code ?? null }
        : String(error);
    const fields = { requestId: ctx?.state?.requestId ?? null, err };
    const level = clientFaultLevel(error);
    if (level === undefined) logger.error(fields, 'response error');
    else logger[level](fields, 'client error');
  });

  /** Probes and the description: outside the credential and the rate limit. */
  const probe = async (ctx: ParameterizedContext<AppState>): Promise<void> => {
    // Known paths: OPTIONS and other methods answer as on every other known path (204 / 405 with Allow).
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', PROBE_ALLOW);
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', PROBE_ALLOW);
      answerError(ctx, 'method_not_allowed', `${quoteInput(ctx.method)} is not allowed here; use ${PROBE_ALLOW}`);
      return;
    }
    if (ctx.path === '/healthz') {
      ctx.state.route = 'GET /healthz';
      answerJson(ctx, '{"status":"ok"}');
    } else if (ctx.path === '/readyz') {
      ctx.state.route = 'GET /readyz';
      if (await isReady()) {
        answerJson(ctx, '{"status":"ready"}');
      } else {
        ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        answerError(ctx, 'unavailable', 'the pet store cannot be reached');
      }
    } else if (ctx.path === '/v1/openapi.json') {
      ctx.state.route = 'GET /v1/openapi.json';
      answerJson(ctx, openApi);
    }
  };
  // The documentation page: outside the credential and the rate limit.
  const docsPage = docs();
  // The gate also dispatches the route it matched (`dispatch.ts`).
  const gated = gate(routes, deps.authenticator, deps.admission, { metrics });

  app.use(requestContext(logger, metrics));
  // Preflights are answered here: before the credential and the rate limiter.
  if (options.corsOrigins !== undefined) app.use(corsMiddleware(options.corsOrigins));
  // One middleware for the rest, not three: a probe or docs path is answered here, every other
  // request goes through the gate (fewer Koa layers, and their promises, on every API request).
  app.use(function probeOrGate(ctx, next) {
    if (PROBE_PATHS.has(ctx.path)) return probe(ctx);
    // A request target with no path (authority form, `CONNECT host:port`) has none: it goes to the gate's 404.
    if ((ctx.path ?? '').startsWith(DOCS_PREFIX)) return docsPage(ctx, () => gated(ctx, next));
    return gated(ctx, next);
  });
  return app;
};

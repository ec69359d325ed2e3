import Koa from 'koa';
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
import { buildOpenApiDocument, openApiJson } from './openapi.js';
import { addCatalogRoutes } from './routes.js';
import { ApiRouter, unrouted } from './api-router.js';
import { addAdminKeyRoutes } from './admin-keys.js';
import { addOwnStatusRoute } from './own-status.js';
import { addPetMaintenanceRoutes } from './pets-maintenance.js';
import { addPhotoRoutes } from './photos.js';
import { addEventRoutes, LongPolls } from './events.js';
import { addWebhookRoutes } from './webhooks.js';
import { compileValidators } from './validation.js';
import { requestContext } from './middleware/request-context.js';
import { credential, quota, requestChecks, requireKey } from './middleware/gate.js';
import { photoSignature, type PhotoSignatures } from './middleware/photo-signature.js';
import { addPhotoUrlSecretRoute, type PhotoUrlSecretRotation } from './photo-url-secret.js';
import { underIdempotencyKey } from './middleware/idempotency.js';
import {
  corsMiddleware,
  publishablePreflights,
  type CorsOrigins,
  type PublishableOriginLookup,
} from './middleware/cors.js';
import { publishableKeys } from './middleware/publishable.js';
import { docs } from './docs.js';
import { probes } from './probes.js';
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
   * Idempotent creation (docs/rules.md §10) for the routes registered as idempotent creates. The server
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
  /**
   * The signed photo URLs (docs/rules.md §16): keyless reads of a photo by its URL's `sig`, and
   * `POST /v1/admin/photo-url-secret/rotate`. The server always supplies them; without, a photo
   * needs a key and the rotation route is 404.
   */
  readonly photoUrls?: PhotoSignatures & PhotoUrlSecretRotation;
  /**
   * Whether a live publishable key lists an origin, for CORS preflights (docs/rules.md §16; the
   * domain's `PublishableOrigins`). The server always supplies it; without it only the origins of
   * `corsOrigins` get preflights answered.
   */
  readonly publishableOrigins?: PublishableOriginLookup;
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

/** The Koa application of the v1 API (mountable in another Koa app, or served with `listen`). */
export type HttpApp = Koa<AppState>;

/** Builds the Koa application of the v1 API. No globals: everything comes in `deps`. */
export const createHttpApp = (deps: HttpAppDependencies, options: HttpAppOptions = {}): HttpApp => {
  const logger = deps.logger ?? silentLogger;
  const metrics = deps.metrics ?? noMetrics;
  const isReady = deps.isReady ?? (async () => true);
  const validators = compileValidators();
  // The gate's steps (middleware/gate.ts): `credential` before the routers; these three on every
  // route, after its settings and before its own steps (the first two also before the 404 / 405 /
  // OPTIONS answers of a request no route took). Before them on a photo's route, its signed URL
  // stands for a key (docs/rules.md §16: `photoSignature`).
  const admit = quota(deps.admission, metrics);
  const gate = [admit, requestChecks, requireKey];
  const signedUrl = deps.photoUrls === undefined ? undefined : photoSignature(deps.photoUrls);
  const underKey = underIdempotencyKey(deps.idempotency, logger);
  // One router per area of the API, tried in this order: a router tests a request against each of
  // its routes in turn, so the pets' (which most requests are for) come first.
  const pets = new ApiRouter(gate, underKey, signedUrl); // /v1/pets…
  const store = new ApiRouter(gate, underKey); // /v1/categories…, /v1/store…
  const keys = new ApiRouter(gate, underKey); // /v1/admin/keys…, /v1/me, /v1/events, /v1/webhooks…
  addCatalogRoutes(pets, store, deps.catalog, deps.categories, deps.adoption, validators);
  addPetMaintenanceRoutes(pets, deps.maintenance, validators);
  if (deps.photos !== undefined) addPhotoRoutes(pets, deps.photos, admitUploads(deps.uploads ?? new UploadAdmission()));
  addAdminKeyRoutes(keys, deps.keyAdmin, validators);
  addOwnStatusRoute(keys);
  if (deps.events !== undefined) addEventRoutes(keys, deps.events, deps.longPolls ?? new LongPolls(), validators);
  if (deps.webhooks !== undefined) addWebhookRoutes(keys, deps.webhooks, validators);
  if (deps.photoUrls !== undefined) addPhotoUrlSecretRoute(keys, deps.photoUrls);

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

  // Every request passes these, in this order, until one answers.
  // 1. The request id, the log line and the metrics; any failure below becomes an `Error` body.
  app.use(requestContext(logger, metrics));
  // 2. CORS headers (docs/rules.md §11); a preflight is answered here.
  if (options.corsOrigins !== undefined) app.use(corsMiddleware(options.corsOrigins));
  //    A preflight from an origin of a live publishable key is answered here too (§16).
  if (deps.publishableOrigins !== undefined) app.use(publishablePreflights(deps.publishableOrigins));
  // 3. `/healthz`, `/readyz`, `/v1/openapi.json`, then 4. `/docs`: no credential, not counted.
  app.use(probes(isReady, openApiJson(buildOpenApiDocument())));
  app.use(docs());
  // 5. Who asks: the key's subject, else the address's (nothing refused yet).
  app.use(credential(deps.authenticator));
  //    A publishable key: counted per visitor, its origin checked, CORS headers for its page (§16).
  app.use(publishableKeys);
  // 6. The route of the method and path, in the routers above: its settings, then quota,
  //    requestChecks, requireKey, then its own steps.
  app.use(pets.routes());
  app.use(store.routes());
  app.use(keys.routes());
  // 7. No route: quota, requestChecks, then 404, or for a known path 405 with `Allow` (204 to OPTIONS).
  app.use(unrouted(admit, requestChecks));
  return app;
};

import type { Middleware } from 'koa';
import type { AppState } from '../state.js';

/** Which browser origins may call the API (docs/rules.md §11): a list of origins, or `*` for any. */
export type CorsOrigins = readonly string[] | '*';

/** Whether a live publishable key lists an origin (docs/rules.md §16; the domain's `PublishableOrigins` is one). */
export interface PublishableOriginLookup {
  has(origin: string): Promise<boolean>;
}

/**
 * Every response header of the contract a client reads: the rate-limit fields, `Retry-After`,
 * `Link` (pages, successor), `Location`, the request id, the deprecation fields, the idempotent
 * replay flag, a pet's `ETag` (docs/rules.md §12), and the `Allow` and `WWW-Authenticate` that come with a 405 or a 401.
 */
export const CORS_EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Link',
  'Location',
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'Idempotent-Replayed',
  'ETag',
  'Allow',
  'WWW-Authenticate',
] as const;

/** The request headers a browser may send beyond the CORS-safelisted ones (the conditional ones of docs/rules.md §12, §13 included). */
const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'X-Request-Id',
  'If-Match',
  'If-None-Match',
] as const;
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'];
/** How long a browser may cache a preflight's answer (seconds). */
const CORS_MAX_AGE_SECONDS = 600;

const EXPOSE_HEADERS = CORS_EXPOSED_HEADERS.join(',');
const ALLOW_HEADERS = CORS_ALLOWED_HEADERS.join(',');
const ALLOW_METHODS = ALLOWED_METHODS.join(',');
const MAX_AGE = String(CORS_MAX_AGE_SECONDS);

/**
 * CORS, outermost after the request context: an allowed origin gets `Access-Control-Allow-Origin`
 * (its own origin, never `*`) and the exposed headers on every answer, errors included (the
 * request context answers errors without clearing headers); its preflight (`OPTIONS` +
 * `Access-Control-Request-Method`) is answered 204 here, before the credential and the rate
 * limiter, so it needs no key and is not counted. Any other origin gets no CORS header and goes on
 * as a request like any other. Every answer carries `Vary: Origin` (it depends on the origin).
 *
 * Our own, not `@koa/cors`: an allowed simple request is three headers, and `@koa/cors` added an
 * `async` layer, an awaited origin callback and a try/catch re-await of the rest of the chain to
 * every request (docs/running.md, "CORS"; BENCHMARKS.md has the measurement). Without credentials and with
 * fixed lists, nothing else of `@koa/cors` applies.
 */
export const corsMiddleware = (origins: CorsOrigins): Middleware<AppState> => {
  const allowed = origins === '*' ? undefined : new Set(origins);
  return function cors(ctx, next) {
    ctx.vary('Origin');
    const origin = ctx.headers.origin;
    if (origin === undefined || origin === '' || (allowed !== undefined && !allowed.has(origin))) return next();
    if (ctx.method === 'OPTIONS') {
      // An OPTIONS without Access-Control-Request-Method is no preflight: the API answers it.
      if (!ctx.headers['access-control-request-method']) return next();
      answerPreflight(ctx, origin);
      return Promise.resolve();
    }
    ctx.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSE_HEADERS });
    return next();
  };
};

const answerPreflight = (ctx: Parameters<Middleware<AppState>>[0], origin: string): void => {
  ctx.set({
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Max-Age': MAX_AGE,
    'Access-Control-Allow-Methods': ALLOW_METHODS,
    'Access-Control-Allow-Headers': ALLOW_HEADERS,
  });
  ctx.status = 204;
};

/**
 * Preflights from the origins of publishable keys (docs/rules.md §16), after `corsMiddleware` (which
 * answered those of `PETSTORE_CORS_ORIGINS`): a preflight, which carries no key, from an origin that
 * a live publishable key lists is answered as one from an allowed origin; any other request passes
 * untouched (the publishable key's own requests get their CORS headers with the key:
 * `publishableKeys`). Not counted, like every preflight; what bounds the store's work under a flood
 * of preflights is the lookup's (`PublishableOrigins`: one store read per half second at most).
 */
export const publishablePreflights = (lookup: PublishableOriginLookup): Middleware<AppState> =>
  async function publishablePreflights(ctx, next) {
    const origin = ctx.headers.origin;
    if (ctx.method !== 'OPTIONS' || !origin || !ctx.headers['access-control-request-method']) return next();
    if (!(await lookup.has(origin))) return next();
    ctx.vary('Origin');
    answerPreflight(ctx, origin);
  };

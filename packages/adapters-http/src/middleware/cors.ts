import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { AppState } from '../state.js';

/** Which browser origins may call the API (CONTRACT.md §11): a list of origins, or `*` for any. */
export type CorsOrigins = readonly string[] | '*';

/**
 * Every response header of the contract a client reads: the rate-limit fields, `Retry-After`,
 * `Link` (pages, successor), `Location`, the request id, the deprecation fields, the idempotent
 * replay flag, and the `Allow` and `WWW-Authenticate` that come with a 405 or a 401.
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
  'Allow',
  'WWW-Authenticate',
] as const;

/** The request headers a browser may send beyond the CORS-safelisted ones. */
const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'] as const;
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'];
/** How long a browser may cache a preflight's answer (seconds). */
const CORS_MAX_AGE_SECONDS = 600;

/**
 * CORS with `@koa/cors`, outermost after the request context: an allowed origin gets
 * `Access-Control-Allow-Origin` (its own origin, never `*`, with `Vary: Origin`) and the exposed
 * headers; its preflight (`OPTIONS` + `Access-Control-Request-Method`) is answered 204 here,
 * before the credential and the rate limiter, so it needs no key and is not counted. Any other
 * origin gets no CORS header and goes on as a request like any other.
 */
export const corsMiddleware = (origins: CorsOrigins): Middleware<AppState> => {
  const allowed = origins === '*' ? undefined : new Set(origins);
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return origin !== '' && (allowed === undefined || allowed.has(origin)) ? origin : '';
    },
    exposeHeaders: [...CORS_EXPOSED_HEADERS],
    allowHeaders: [...CORS_ALLOWED_HEADERS],
    allowMethods: ALLOWED_METHODS,
    maxAge: CORS_MAX_AGE_SECONDS,
    credentials: false,
    keepHeadersOnError: true,
  }) as Middleware<AppState>;
};

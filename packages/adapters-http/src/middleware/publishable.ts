import type { Middleware, ParameterizedContext } from 'koa';
import ipaddr from 'ipaddr.js';
import { originAllowed, visitorSubject } from '@petstore/domain';
import { HttpError } from '../errors.js';
import { CORS_EXPOSED_HEADERS } from './cors.js';
import type { AppState } from '../state.js';

/**
 * Publishable keys (docs/rules.md §16): counted per visitor, usable only from their origins, on the
 * routes registered `publishable: true`. `publishableKeys` runs right after `credential`, for every
 * request (its quota, 429 and 404 answers are the visitor's, with CORS headers for the key's page);
 * `refusePublishable` is the gate's check on a route, in `requireKey`.
 */

/** How many leading bits of an IPv6 address name one visitor: a /64 is one site's network. */
const IPV6_VISITOR_BITS = 64;

/**
 * The visitor a client address stands for: an IPv4 address as it is (an IPv4-mapped IPv6 address as
 * its IPv4 one), an IPv6 address by its /64 network (`2001:db8:1:2::/64`), since one host commonly
 * holds a whole /64 and could otherwise count as 2^64 visitors. Text that is no address (a proxy's
 * odd `X-Forwarded-For`) is its own visitor, as for an anonymous caller (§5).
 */
export const visitorOf = (address: string): string => {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${v6.toString()}/${IPV6_VISITOR_BITS}`).toString()}/${IPV6_VISITOR_BITS}`;
};

const EXPOSE_HEADERS = CORS_EXPOSED_HEADERS.join(',');

/**
 * For a request with a publishable key: the subject becomes the visitor's (the key's plan, counted
 * per key and client address), and, when its `Origin` (or `Referer`) is one of the key's, the answer
 * carries CORS headers for that origin whatever it turns out to be. Other requests pass untouched.
 */
export const publishableKeys: Middleware<AppState> = function publishableKeys(ctx, next) {
  const subject = ctx.state.subject;
  const caller = subject?.caller;
  if (caller?.role !== 'publishable' || subject === undefined) return next();
  ctx.state.subject = visitorSubject(subject, visitorOf(ctx.ip));
  const origin = ctx.headers.origin;
  const referer = ctx.headers.referer;
  ctx.state.fromKeyOrigin = originAllowed(caller.origins ?? [], { origin, referer });
  ctx.vary('Origin');
  if (ctx.state.fromKeyOrigin && origin !== undefined)
    ctx.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSE_HEADERS });
  return next();
};

const wrongOrigin = 'this publishable key is not allowed from this origin';
const notPublishable = 'a publishable key may only read the catalogue (pets, categories, photos) and GET /v1/me';

/**
 * A publishable key on a route (docs/rules.md §16), before anything is looked up or the body read:
 * from no origin of the key's → 403; else on a route not registered `publishable` → 403. The origin
 * is decided first, so a page elsewhere learns nothing of what the key could do.
 */
export const refusePublishable = (ctx: ParameterizedContext<AppState>): void => {
  if (ctx.state.fromKeyOrigin !== true) throw new HttpError('forbidden', wrongOrigin);
  if (ctx.state.routeSettings?.publishable !== true) throw new HttpError('forbidden', notPublishable);
};

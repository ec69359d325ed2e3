import type { ServerResponse } from 'node:http';
import type { Middleware, ParameterizedContext } from 'koa';
import type Router from '@koa/router';
import type { Layer } from '@koa/router';
import type { AdmissionDecision, Admission, Authenticator, Caller, Quota, QuotaReading, Subject } from '@petstore/domain';
import { anonymousSubject, deprecationHeaders, GET_PET_DEPRECATION, OWN_STATUS_QUOTA, quoteInput } from '@petstore/domain';
import { HttpError } from '../errors.js';
import { BODY_LIMIT_BYTES, bodyLimitOf, PHOTO_UPLOAD_ROUTE } from '../body.js';
import { answerError } from './request-context.js';
import { IDEMPOTENT_CREATES, type IdempotentRun } from './idempotency.js';
import { noMetrics, type HttpMetrics } from '../metrics.js';
import { OWN_STATUS_ROUTE } from '../own-status.js';
import type { AppState } from '../state.js';

const REALM = 'Bearer realm="petstore"';
const DEPRECATION = deprecationHeaders(GET_PET_DEPRECATION);

const policyCache = new WeakMap<Quota, string>();
/** `RateLimit-Policy` of a quota; computed once per quota object. */
const policyOf = (decision: QuotaReading, quota: Quota): string => {
  let policy = policyCache.get(quota);
  if (policy === undefined) {
    policy = decision.windows.map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(', ');
    policyCache.set(quota, policy);
  }
  return policy;
};

type GateContext = ParameterizedContext<AppState>;

/** The rate-limit headers of docs/rules.md §5, straight onto the response (`ctx.set` ends in the same call). */
const setRateLimitHeaders = (res: ServerResponse, { binding }: QuotaReading, policy: string): void => {
  res.setHeader('X-RateLimit-Limit', String(binding.limit));
  res.setHeader('X-RateLimit-Remaining', String(binding.remaining));
  res.setHeader('X-RateLimit-Reset', String(binding.resetAt));
  res.setHeader('RateLimit-Policy', policy);
  res.setHeader('RateLimit', `"${binding.name}";r=${binding.remaining};t=${binding.resetIn}`);
};

/** Answers a request the rate limiter refused: 429 with `Retry-After`; `what` names a limit other than the plan's. */
const refuse = (ctx: GateContext, decision: AdmissionDecision, what = ''): void => {
  const retryAfter = String(decision.retryAfter ?? 1);
  ctx.res.setHeader('Retry-After', retryAfter);
  if (decision.outcome === 'temporarily_banned') {
    answerError(ctx, 'temporarily_banned', `too many requests after being rate limited; banned for ${retryAfter} more seconds`);
  } else {
    const { binding } = decision;
    answerError(ctx, 'rate_limited', `rate limit of ${binding.limit} requests per ${binding.name}${what} exceeded; retry in ${retryAfter} seconds`);
  }
};

/** RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400. */
const checkHost = (ctx: GateContext): void => {
  if (ctx.req.headers.host === undefined && ctx.req.httpVersion === '1.1') {
    throw new HttpError('validation_failed', 'an HTTP/1.1 request needs a Host header');
  }
};

/** docs/rules.md §6: a declared body over the limit is refused at once, on any path, unread. */
const declaresTooLarge = (ctx: GateContext, limit = BODY_LIMIT_BYTES): boolean => Number(ctx.req.headers['content-length'] ?? 0) > limit;
const tooLarge = (limit = BODY_LIMIT_BYTES): HttpError => new HttpError('payload_too_large', `the body is larger than ${limit} bytes`);

/** A matched route's middleware, as the gate runs it. */
interface RouteLayer {
  readonly stack: unknown;
}

/** Runs the route matched (the router's own dispatch would match it a second time). */
const runRoute = (layer: RouteLayer, ctx: GateContext, next: () => Promise<unknown>): Promise<unknown> => {
  // Our handlers read nothing the router's dispatch adds to the context (no `ctx.params`: getPet reads the raw path).
  const stack = layer.stack as readonly Middleware<AppState>[];
  return stack.length === 1 ? stack[0]!(ctx, next) : runStack(stack, ctx, next);
};

/**
 * Everything between the request and its route, in this order:
 * 1. match the route (the deprecated `getPet` gets its headers on every answer, errors included);
 * 2. identify the subject: the key's when the credential is valid, otherwise the client address;
 * 3. admit it (rate limit and bans), with the rate-limit headers on every answer from here on;
 * 4. no Host (HTTP/1.1) → 400; a declared body over the route's limit (1 MiB; a photo upload 10 MiB)
 *    → 413, unread (on an idempotent create
 *    by a valid key, kept under its `Idempotency-Key`, §10); unknown path → 404,
 *    known path with another method → 405 with `Allow`, `OPTIONS` → 204;
 * 5. a missing or invalid credential → 401 (an address over its limit got 429 at step 3);
 * 6. run the route matched at step 1 (the router's own dispatch would match it a second time),
 *    a create under its `Idempotency-Key` when it has one; a photo upload first passes `uploads`.
 * A refusal at step 3 is answered here, without an exception: it is the path a client hammering
 * past its limit keeps hitting, so it must stay cheaper than the work it refuses.
 *
 * `GET /v1/me` with a valid key (docs/rules.md §14) leaves at step 3 for its own path: no unit of
 * the plan's windows is taken; its own allowance is counted instead, and the headers describe the
 * plan's windows as they stand without it. The one cost to every other request is comparing the
 * matched layer with that route's layer, found once here.
 */
export interface GateOptions {
  /** Runs the creates of `IDEMPOTENT_CREATES` under their `Idempotency-Key`. */
  readonly idempotent?: IdempotentRun;
  /** Counts the rate limiter's decisions. */
  readonly metrics?: HttpMetrics;
  /** Runs before a photo upload's body is read (its `Idempotency-Key` step included): the upload admission (`admitUploads`, docs/rules.md §13). */
  readonly uploads?: Middleware<AppState>;
}

/** What routing decides for a method and a path. */
interface Routing {
  /** The operation's route, when the path has one for this method. */
  readonly layer: Layer | undefined;
  /** `<METHOD> <template>`, the route's name in logs and metrics (made once, not per request). */
  readonly route: string | undefined;
  /** The methods the path has (for 405 and `Allow`); empty when the path is unknown (404). */
  readonly methods: ReadonlySet<string>;
}

/** Paths remembered per method; past it the method's table starts over (random paths cannot grow it). */
const ROUTING_CACHE_PATHS = 1_000;

/**
 * The router's decision for a method and path, remembered: the routes never change once the app
 * is built, and `router.match` tests every route's expression on each request (the cost grows
 * with every route added).
 */
const routingOf = (router: Router<AppState>): ((method: string, path: string) => Routing) => {
  const byMethod = new Map<string, Map<string, Routing>>();
  return (method, path) => {
    let paths = byMethod.get(method);
    if (paths === undefined) byMethod.set(method, (paths = new Map()));
    let routing = paths.get(path);
    if (routing === undefined) {
      const match = router.match(path, method);
      const layer = match.pathAndMethod.find((l) => l.methods.length > 0);
      routing = { layer, route: layer === undefined ? undefined : `${method} ${String(layer.path)}`, methods: new Set(match.path.flatMap((l) => l.methods)) };
      if (paths.size >= ROUTING_CACHE_PATHS) paths.clear();
      paths.set(path, routing);
    }
    return routing;
  };
};

export const gate = (router: Router<AppState>, authenticator: Authenticator, admission: Admission, options: GateOptions = {}): Middleware<AppState> => {
  const route = routingOf(router);
  /** How a request on this route runs under its `Idempotency-Key`: only the creates of `IDEMPOTENT_CREATES` (a POST layer), and only when idempotency is configured. */
  const idempotentRunFor = (layer: { readonly path: unknown; readonly methods: readonly string[] } | undefined): IdempotentRun | undefined =>
    options.idempotent !== undefined && layer !== undefined && layer.methods.includes('POST') && IDEMPOTENT_CREATES.has(String(layer.path)) ? options.idempotent : undefined;
  const metrics = options.metrics ?? noMetrics;
  const ownStatusLayer = router.route(OWN_STATUS_ROUTE) || undefined;

  /** docs/rules.md §14: the key's own allowance, then its status read without counting; rejoins the checks of step 4. */
  const ownStatus = async (ctx: GateContext, subject: Subject, caller: Caller, layer: RouteLayer, next: () => Promise<unknown>): Promise<void> => {
    const look = await admission.lookUp(subject, caller);
    metrics.rateLimitDecision(look.allowance.outcome);
    if (look.status === undefined) {
      // Refused by its allowance (never a ban): the headers are the allowance's, as on any 429.
      setRateLimitHeaders(ctx.res, look.allowance, policyOf(look.allowance, OWN_STATUS_QUOTA));
      refuse(ctx, look.allowance, ' on GET /v1/me');
      return;
    }
    setRateLimitHeaders(ctx.res, look.status, policyOf(look.status, subject.quota));
    checkHost(ctx);
    if (declaresTooLarge(ctx)) throw tooLarge();
    ctx.state.caller = caller;
    ctx.state.ownStatus = look.status;
    await runRoute(layer, ctx, next);
  };

  return async function gate(ctx, next) {
    // A request target with no path (authority form, `CONNECT host:port`) matches nothing.
    const path: string = ctx.path ?? '';
    const { layer, route: name, methods } = route(ctx.method, path);
    if (name !== undefined) ctx.state.route = name;
    if (layer?.name === 'getPet') ctx.set(DEPRECATION);

    // Stores in the process answer at once (`Answer`): await only a promise, one promise turn less each.
    const authenticating = authenticator.authenticate(ctx.req.headers.authorization || undefined);
    const auth = authenticating instanceof Promise ? await authenticating : authenticating;
    const subject = auth.ok ? auth.value : anonymousSubject(ctx.ip);
    ctx.state.subjectTag = subject.caller?.keyId ?? subject.id;
    if (layer === ownStatusLayer && layer !== undefined && subject.caller !== undefined) return ownStatus(ctx, subject, subject.caller, layer, next);

    const admitting = admission.admit(subject);
    const decision = admitting instanceof Promise ? await admitting : admitting;
    metrics.rateLimitDecision(decision.outcome);
    setRateLimitHeaders(ctx.res, decision, policyOf(decision, subject.quota));
    if (decision.outcome !== 'admitted') return refuse(ctx, decision);

    checkHost(ctx);
    // docs/rules.md §6: a declared body over the route's own limit (10 MiB for a photo upload, §13;
    // 1 MiB everywhere else) is refused at once, unread.
    const bodyLimit = bodyLimitOf(layer?.name);
    ctx.state.bodyLimit = bodyLimit;
    if (declaresTooLarge(ctx, bodyLimit)) {
      // docs/rules.md §10 (issue-gaps): on an idempotent create by a valid key this 413 is kept like
      // any answer, under a fingerprint that needs no body (method, path, "over 1 MiB"); still
      // unread and answered at once (the key's own 400 first, as on every create). Every other
      // request (no or invalid credential, other routes) gets the 413 here as before.
      const idempotent = idempotentRunFor(layer);
      if (idempotent !== undefined && auth.ok && auth.value.caller !== undefined) {
        ctx.state.caller = auth.value.caller;
        const refused = tooLarge(bodyLimit);
        await idempotent(ctx, () => Promise.reject(refused));
        return;
      }
      throw tooLarge(bodyLimit);
    }

    if (!layer) {
      if (methods.size === 0) throw new HttpError('not_found', `no such path: ${quoteInput(path || ctx.url)}`);
      const allow = [...methods, 'OPTIONS'].join(', ');
      if (ctx.method === 'OPTIONS') {
        ctx.set('Allow', allow);
        ctx.status = 204;
        return;
      }
      throw new HttpError('method_not_allowed', `${quoteInput(ctx.method)} is not allowed here; use ${allow}`, { Allow: allow });
    }

    if (!auth.ok) {
      const challenge = auth.error.reason === 'invalid' ? `${REALM}, error="invalid_token"` : REALM;
      throw new HttpError('unauthorized', auth.error.message, { 'WWW-Authenticate': challenge });
    }
    if (auth.value.caller) ctx.state.caller = auth.value.caller;
    const run = (): Promise<unknown> => runRoute(layer, ctx, next);
    const idempotent = idempotentRunFor(layer);
    const keyed = idempotent === undefined ? run : () => idempotent(ctx, run);
    if (options.uploads !== undefined && layer.name === PHOTO_UPLOAD_ROUTE) await options.uploads(ctx, keyed);
    else await keyed();
  };
};

/** Runs a route's middleware in order (what the router's dispatch does once it has matched). */
const runStack = (stack: readonly Middleware<AppState>[], ctx: Parameters<Middleware<AppState>>[0], next: () => Promise<unknown>) => {
  const dispatch = async (i: number): Promise<unknown> => (i === stack.length ? next() : stack[i]!(ctx, () => dispatch(i + 1)));
  return dispatch(0);
};

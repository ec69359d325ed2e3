import type { Middleware } from 'koa';
import type Router from '@koa/router';
import type { AdmissionDecision, Admission, Authenticator, Quota } from '@petstore/domain';
import { anonymousSubject, deprecationHeaders, GET_PET_DEPRECATION, quoteInput } from '@petstore/domain';
import { HttpError } from '../errors.js';
import { bodyLimitOf } from '../body.js';
import { answerError } from './request-context.js';
import { IDEMPOTENT_CREATES, type IdempotentRun } from './idempotency.js';
import { noMetrics, type HttpMetrics } from '../metrics.js';
import type { AppState } from '../state.js';

const REALM = 'Bearer realm="petstore"';
const DEPRECATION = deprecationHeaders(GET_PET_DEPRECATION);

const policyCache = new WeakMap<Quota, string>();
/** `RateLimit-Policy` of a quota; computed once per quota object. */
const policyOf = (decision: AdmissionDecision, quota: Quota): string => {
  let policy = policyCache.get(quota);
  if (policy === undefined) {
    policy = decision.windows.map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(', ');
    policyCache.set(quota, policy);
  }
  return policy;
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
 *    a create under its `Idempotency-Key` when it has one.
 * A refusal at step 3 is answered here, without an exception: it is the path a client hammering
 * past its limit keeps hitting, so it must stay cheaper than the work it refuses.
 */
export interface GateOptions {
  /** Runs the creates of `IDEMPOTENT_CREATES` under their `Idempotency-Key`. */
  readonly idempotent?: IdempotentRun;
  /** Counts the rate limiter's decisions. */
  readonly metrics?: HttpMetrics;
}

export const gate = (router: Router<AppState>, authenticator: Authenticator, admission: Admission, options: GateOptions = {}): Middleware<AppState> => {
  /** How a request on this route runs under its `Idempotency-Key`: only the creates of `IDEMPOTENT_CREATES` (a POST layer), and only when idempotency is configured. */
  const idempotentRunFor = (layer: { readonly path: unknown; readonly methods: readonly string[] } | undefined): IdempotentRun | undefined =>
    options.idempotent !== undefined && layer !== undefined && layer.methods.includes('POST') && IDEMPOTENT_CREATES.has(String(layer.path)) ? options.idempotent : undefined;
  const metrics = options.metrics ?? noMetrics;
  return async function gate(ctx, next) {
    // A request target with no path (authority form, `CONNECT host:port`) matches nothing.
    const path: string = ctx.path ?? '';
    const match = router.match(path, ctx.method);
    const layer = match.pathAndMethod.find((l) => l.methods.length > 0);
    if (layer) ctx.state.route = `${ctx.method} ${String(layer.path)}`;
    if (layer?.name === 'getPet') ctx.set(DEPRECATION);

    // Stores in the process answer at once (`Answer`): await only a promise, one promise turn less each.
    const authenticating = authenticator.authenticate(ctx.req.headers.authorization || undefined);
    const auth = authenticating instanceof Promise ? await authenticating : authenticating;
    const subject = auth.ok ? auth.value : anonymousSubject(ctx.ip);
    ctx.state.subjectTag = subject.caller?.keyId ?? subject.id;

    const admitting = admission.admit(subject);
    const decision = admitting instanceof Promise ? await admitting : admitting;
    metrics.rateLimitDecision(decision.outcome);
    const { binding } = decision;
    // Straight onto the response, as the request context does (`ctx.set` ends in the same call).
    const { res } = ctx;
    res.setHeader('X-RateLimit-Limit', String(binding.limit));
    res.setHeader('X-RateLimit-Remaining', String(binding.remaining));
    res.setHeader('X-RateLimit-Reset', String(binding.resetAt));
    res.setHeader('RateLimit-Policy', policyOf(decision, subject.quota));
    res.setHeader('RateLimit', `"${binding.name}";r=${binding.remaining};t=${binding.resetIn}`);
    if (decision.outcome !== 'admitted') {
      const retryAfter = String(decision.retryAfter ?? 1);
      res.setHeader('Retry-After', retryAfter);
      if (decision.outcome === 'temporarily_banned') {
        answerError(ctx, 'temporarily_banned', `too many requests after being rate limited; banned for ${retryAfter} more seconds`);
      } else {
        answerError(ctx, 'rate_limited', `rate limit of ${binding.limit} requests per ${binding.name} exceeded; retry in ${retryAfter} seconds`);
      }
      return;
    }

    // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400.
    if (ctx.req.headers.host === undefined && ctx.req.httpVersion === '1.1') {
      throw new HttpError('validation_failed', 'an HTTP/1.1 request needs a Host header');
    }
    // docs/rules.md §6: a declared body over the limit is refused at once, on any path, unread
    // (the route's own limit: 10 MiB for a photo upload, §13; 1 MiB everywhere else).
    const bodyLimit = bodyLimitOf(layer?.name);
    ctx.state.bodyLimit = bodyLimit;
    if (Number(ctx.req.headers['content-length'] ?? 0) > bodyLimit) {
      const tooLarge = new HttpError('payload_too_large', `the body is larger than ${bodyLimit} bytes`);
      // docs/rules.md §10 (issue-gaps): on an idempotent create by a valid key this 413 is kept like
      // any answer, under a fingerprint that needs no body (method, path, "over 1 MiB"); still
      // unread and answered at once (the key's own 400 first, as on every create). Every other
      // request (no or invalid credential, other routes) gets the 413 here as before.
      const idempotent = idempotentRunFor(layer);
      if (idempotent !== undefined && auth.ok && auth.value.caller !== undefined) {
        ctx.state.caller = auth.value.caller;
        await idempotent(ctx, () => Promise.reject(tooLarge));
        return;
      }
      throw tooLarge;
    }

    if (!layer) {
      const methods = new Set(match.path.flatMap((l) => l.methods));
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
    // Our handlers read nothing the router's dispatch adds to the context (no `ctx.params`: getPet reads the raw path).
    const stack = layer.stack as unknown as readonly Middleware<AppState>[];
    const run = (): Promise<unknown> => (stack.length === 1 ? stack[0]!(ctx, next) : runStack(stack, ctx, next));
    const idempotent = idempotentRunFor(layer);
    if (idempotent !== undefined) await idempotent(ctx, run);
    else await run();
  };
};

/** Runs a route's middleware in order (what the router's dispatch does once it has matched). */
const runStack = (stack: readonly Middleware<AppState>[], ctx: Parameters<Middleware<AppState>>[0], next: () => Promise<unknown>) => {
  const dispatch = async (i: number): Promise<unknown> => (i === stack.length ? next() : stack[i]!(ctx, () => dispatch(i + 1)));
  return dispatch(0);
};

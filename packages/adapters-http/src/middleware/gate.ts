import type { ServerResponse } from 'node:http';
import type { Middleware, ParameterizedContext } from 'koa';
import type {
  AdmissionDecision,
  Admission,
  Authenticator,
  Caller,
  Quota,
  QuotaReading,
  Result,
  Subject,
  Unauthorized,
} from '@petstore/domain';
import {
  anonymousSubject,
  deprecationHeaders,
  GET_PET_DEPRECATION,
  isPromise,
  OWN_STATUS_QUOTA,
  quoteInput,
} from '@petstore/domain';
import { HttpError } from '../errors.js';
import { bodyLimitOf, declaresOverLimit, tooLarge } from '../body.js';
import { dispatch, type Match, type Routes } from '../dispatch.js';
import { answerError } from './request-context.js';
import { noMetrics, type HttpMetrics } from '../metrics.js';
import { OWN_STATUS_ROUTE } from '../own-status.js';
import type { AppState } from '../state.js';

const REALM = 'Bearer realm="petstore"';
const DEPRECATION = deprecationHeaders(GET_PET_DEPRECATION);

type GateContext = ParameterizedContext<AppState>;
type Authentication = Result<Subject, Unauthorized>;

export interface GateOptions {
  /** Counts the rate limiter's decisions. */
  readonly metrics?: HttpMetrics;
}

/**
 * Everything between a request and its route, one named step after another:
 * 1. `routeOf`: the route for the method and path (`dispatch.ts`); the deprecated `getPet` gets
 *    its headers on every answer, errors included;
 * 2. `identify`, `subjectOf`: the subject, the key's when the credential is valid, otherwise the
 *    client address;
 * 3. `admitted`: the rate limit and bans (docs/rules.md §5), with the rate-limit headers on every
 *    answer from here on; a refusal is answered here, without an exception (the path a client
 *    hammering past its limit keeps hitting must stay cheaper than the work it refuses).
 *    `GET /v1/me` with a valid key (§14) leaves here for its own path, `ownStatus`: its own
 *    allowance is counted instead of the plan's windows, then it rejoins step 4;
 * 4. `checkRequest`: no Host (HTTP/1.1) → 400; a declared body over the route's limit (1 MiB, a
 *    photo upload 10 MiB) → 413, unread (§6; a create by a valid key leaves it to its own
 *    `Idempotency-Key` step, which keeps it, §10); then `answerUnrouted`: an unknown path → 404, a
 *    known path with another method → 405 with `Allow`, `OPTIONS` → 204;
 * 5. `callerOf`: a missing or invalid credential → 401 (an address over its limit got 429 at step 3);
 * 6. `dispatch`: the route's steps (a create's `Idempotency-Key` step among them, §10).
 */
export const gate = (
  routes: Routes,
  authenticator: Authenticator,
  admission: Admission,
  options: GateOptions = {},
): Middleware<AppState> => {
  const metrics = options.metrics ?? noMetrics;

  /** Step 1. A request target with no path (authority form, `CONNECT host:port`) matches nothing. */
  const routeOf = (ctx: GateContext): Match => {
    const match = routes.find(ctx.method, ctx.path ?? '');
    if (match.route !== undefined) {
      ctx.state.route = match.label;
      if (match.route.name === 'getPet') ctx.set(DEPRECATION);
    }
    return match;
  };

  /** Step 2 (the key's subject, or the address's). Stores in the process answer at once (`Answer`). */
  const identify = (ctx: GateContext) => authenticator.authenticate(ctx.req.headers.authorization || undefined);
  const subjectOf = (ctx: GateContext, auth: Authentication): Subject => {
    const subject = auth.ok ? auth.value : anonymousSubject(ctx.ip);
    ctx.state.subjectTag = subject.caller?.keyId ?? subject.id;
    return subject;
  };

  /** Step 3: whether the subject may go on; a refusal is answered here (429). */
  const admitted = (ctx: GateContext, subject: Subject, decision: AdmissionDecision): boolean => {
    metrics.rateLimitDecision(decision.outcome);
    setRateLimitHeaders(ctx.res, decision, policyOf(decision, subject.quota));
    if (decision.outcome === 'admitted') return true;
    refuse(ctx, decision);
    return false;
  };

  /** Step 3 for `GET /v1/me` with a valid key (docs/rules.md §14): the key's own allowance, then its status read without counting; then steps 4 and 6. */
  const ownStatus = async (
    ctx: GateContext,
    match: Extract<Match, { route: object }>,
    subject: Subject,
    caller: Caller,
    next: () => Promise<unknown>,
  ): Promise<void> => {
    const look = await admission.lookUp(subject, caller);
    metrics.rateLimitDecision(look.allowance.outcome);
    if (look.status === undefined) {
      // Refused by its allowance (never a ban): the headers are the allowance's, as on any 429.
      setRateLimitHeaders(ctx.res, look.allowance, policyOf(look.allowance, OWN_STATUS_QUOTA));
      refuse(ctx, look.allowance, ' on GET /v1/me');
      return;
    }
    setRateLimitHeaders(ctx.res, look.status, policyOf(look.status, subject.quota));
    checkRequest(ctx, match, caller);
    ctx.state.caller = caller;
    ctx.state.ownStatus = look.status;
    await dispatch(ctx, match, next);
  };

  return async function gate(ctx, next) {
    const match = routeOf(ctx);
    const authenticating = identify(ctx);
    const auth = isPromise(authenticating) ? await authenticating : authenticating;
    const subject = subjectOf(ctx, auth);
    if (match.route !== undefined && match.route.name === OWN_STATUS_ROUTE && subject.caller !== undefined)
      return ownStatus(ctx, match, subject, subject.caller, next);

    const admitting = admission.admit(subject);
    if (!admitted(ctx, subject, isPromise(admitting) ? await admitting : admitting)) return;

    checkRequest(ctx, match, subject.caller);
    if (match.route === undefined) return answerUnrouted(ctx, match.methods);

    const caller = callerOf(auth);
    if (caller !== undefined) ctx.state.caller = caller;
    await dispatch(ctx, match, next);
  };
};

/**
 * Step 4: no Host → 400; a declared body over the route's limit → 413, unread (docs/rules.md §6),
 * except on a create by a known key, whose `Idempotency-Key` step answers it and keeps it (§10).
 */
const checkRequest = (ctx: GateContext, match: Match, caller: Caller | undefined): void => {
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400.
  if (ctx.req.headers.host === undefined && ctx.req.httpVersion === '1.1') {
    throw new HttpError('validation_failed', 'an HTTP/1.1 request needs a Host header');
  }
  // 10 MiB for a photo upload (§13), 1 MiB everywhere else, and for no route at all.
  const limit = bodyLimitOf(match.route?.name);
  ctx.state.bodyLimit = limit;
  if (declaresOverLimit(ctx.req, limit) && !(match.route?.keyed === true && caller !== undefined))
    throw tooLarge(limit);
};

/** Step 4, no route for the method: 404 for an unknown path; else 405 with `Allow`, or 204 to `OPTIONS`. */
const answerUnrouted = (ctx: GateContext, methods: readonly string[]): void => {
  if (methods.length === 0) throw new HttpError('not_found', `no such path: ${quoteInput(ctx.path || ctx.url)}`);
  const allow = [...methods, 'OPTIONS'].join(', ');
  if (ctx.method === 'OPTIONS') {
    ctx.set('Allow', allow);
    ctx.status = 204;
    return;
  }
  throw new HttpError('method_not_allowed', `${quoteInput(ctx.method)} is not allowed here; use ${allow}`, {
    Allow: allow,
  });
};

/** Step 5: the key holder, or 401 with its challenge. */
const callerOf = (auth: Authentication): Caller | undefined => {
  if (!auth.ok) {
    const challenge = auth.error.reason === 'invalid' ? `${REALM}, error="invalid_token"` : REALM;
    throw new HttpError('unauthorized', auth.error.message, { 'WWW-Authenticate': challenge });
  }
  return auth.value.caller;
};

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
    answerError(
      ctx,
      'temporarily_banned',
      `too many requests after being rate limited; banned for ${retryAfter} more seconds`,
    );
  } else {
    const { binding } = decision;
    answerError(
      ctx,
      'rate_limited',
      `rate limit of ${binding.limit} requests per ${binding.name}${what} exceeded; retry in ${retryAfter} seconds`,
    );
  }
};

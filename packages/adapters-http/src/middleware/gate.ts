import type { Middleware, ParameterizedContext } from 'koa';
import type { AdmissionDecision, Admission, Authenticator, Quota, QuotaReading, Subject } from '@petstore/domain';
import { anonymousSubject, OWN_STATUS_QUOTA } from '@petstore/domain';
import { HttpError } from '../errors.js';
import { declaresOverLimit, tooLarge, BODY_LIMIT_BYTES } from '../body.js';
import { answerError } from './request-context.js';
import { refusePublishable } from './publishable.js';
import type { HttpMetrics } from '../metrics.js';
import type { AppState } from '../state.js';

/**
 * The gate: what stands between a request and its route, as named middleware (app.ts lists them
 * in order). `credential` runs before the router; `quota`, `requestChecks` and `requireKey` run as
 * the first steps of every route (after its settings: `ApiRouter`), and the first two also before
 * the 404, 405 and `OPTIONS` answers of a request no route took (`unrouted`). So: an unknown path
 * is 404 with or without a key, yet counted (a client over its limit gets 429 there too); a
 * declared oversize body is 413 before the route; 401 comes only on a route.
 */

const REALM = 'Bearer realm="petstore"';

type GateContext = ParameterizedContext<AppState>;

/**
 * Who asks: the key's subject when the credential is valid, else the client address's (docs/rules.md
 * §4, §5). Nothing is refused here: a missing or invalid credential is 401 only on a route
 * (`requireKey`), after the rate limit, and an unknown path stays 404.
 */
export const credential = (authenticator: Authenticator): Middleware<AppState> =>
  async function credential(ctx, next) {
    const authentication = await authenticator.authenticate(ctx.headers.authorization || undefined);
    const subject = authentication.ok ? authentication.value : anonymousSubject(ctx.ip);
    ctx.state.authentication = authentication;
    ctx.state.subject = subject;
    ctx.state.subjectTag = subject.caller?.keyId ?? subject.id;
    await next();
  };

/** The subject `credential` found (every step of the gate runs after it). */
const subjectOf = (ctx: GateContext): Subject => {
  const { subject } = ctx.state;
  if (subject === undefined) throw new Error('the gate ran before the credential was read');
  return subject;
};

/**
 * The rate limit and bans (docs/rules.md §5), with the rate-limit headers on every answer from
 * here on; a refusal is answered here (429), without an exception: the path a client hammering
 * past its limit keeps hitting stays cheaper than the work it refuses. A route admitted by its own
 * status (`GET /v1/me` with a valid key, §14) spends its own allowance instead of the plan's
 * windows, and finds the key's status read for it in `ctx.state.ownStatus`.
 */
export const quota = (admission: Admission, metrics: HttpMetrics): Middleware<AppState> =>
  async function quota(ctx, next) {
    const subject = subjectOf(ctx);
    const caller = subject.caller;
    if (ctx.state.routeSettings?.admission === 'own-status' && caller !== undefined) {
      const look = await admission.lookUp(subject, caller);
      metrics.rateLimitDecision(look.allowance.outcome);
      if (look.status === undefined) {
        // Refused by its allowance (never a ban): the headers are the allowance's, as on any 429.
        setRateLimitHeaders(ctx, look.allowance, policyOf(look.allowance, OWN_STATUS_QUOTA));
        refuse(ctx, look.allowance, ' on GET /v1/me');
        return;
      }
      setRateLimitHeaders(ctx, look.status, policyOf(look.status, subject.quota));
      ctx.state.ownStatus = look.status;
      await next();
      return;
    }
    const decision = await admission.admit(subject);
    metrics.rateLimitDecision(decision.outcome);
    setRateLimitHeaders(ctx, decision, policyOf(decision, subject.quota));
    if (decision.outcome !== 'admitted') {
      refuse(ctx, decision);
      return;
    }
    await next();
  };

/**
 * No Host (HTTP/1.1) → 400 (RFC 9112 §3.2); a declared body over the route's limit (1 MiB, a photo
 * upload 10 MiB; 1 MiB without a route) → 413, unread (docs/rules.md §6), except on an idempotent
 * create by a known key, whose `Idempotency-Key` step answers that 413 and keeps it (§10).
 */
export const requestChecks: Middleware<AppState> = function requestChecks(ctx, next) {
  if (ctx.headers.host === undefined && ctx.req.httpVersion === '1.1') {
    throw new HttpError('validation_failed', 'an HTTP/1.1 request needs a Host header');
  }
  const settings = ctx.state.routeSettings;
  const limit = settings?.bodyLimit ?? BODY_LIMIT_BYTES;
  if (
    declaresOverLimit(ctx.headers, limit) &&
    !(settings?.idempotentCreate === true && subjectOf(ctx).caller !== undefined)
  )
    throw tooLarge(limit);
  return next();
};

/**
 * A route needs a valid key: the key holder goes on (`ctx.state.caller`), anyone else gets 401 with
 * its challenge; a publishable key only from its origins and on its routes (403, docs/rules.md §16).
 */
export const requireKey: Middleware<AppState> = function requireKey(ctx, next) {
  const authentication = ctx.state.authentication;
  if (authentication === undefined) throw new Error('a route ran before the credential was read');
  if (!authentication.ok) {
    const challenge = authentication.error.reason === 'invalid' ? `${REALM}, error="invalid_token"` : REALM;
    throw new HttpError('unauthorized', authentication.error.message, { 'WWW-Authenticate': challenge });
  }
  const { caller } = authentication.value;
  if (caller?.role === 'publishable') refusePublishable(ctx);
  if (caller !== undefined) ctx.state.caller = caller;
  return next();
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

/** The rate-limit headers of docs/rules.md §5. */
const setRateLimitHeaders = (ctx: GateContext, { binding }: QuotaReading, policy: string): void => {
  ctx.set({
    'X-RateLimit-Limit': String(binding.limit),
    'X-RateLimit-Remaining': String(binding.remaining),
    'X-RateLimit-Reset': String(binding.resetAt),
    'RateLimit-Policy': policy,
    RateLimit: `"${binding.name}";r=${binding.remaining};t=${binding.resetIn}`,
  });
};

/** Answers a request the rate limiter refused: 429 with `Retry-After`; `what` names a limit other than the plan's. */
const refuse = (ctx: GateContext, decision: AdmissionDecision, what = ''): void => {
  const retryAfter = String(decision.retryAfter ?? 1);
  ctx.set('Retry-After', retryAfter);
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

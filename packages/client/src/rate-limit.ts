import { parseList } from 'structured-headers';

/** One window of the key's plan, from `RateLimit-Policy` (`"minute";q=60;w=60`). */
export interface RateLimitPolicy {
  /** `minute` or `day`. */
  readonly name: string;
  /** Requests the window admits. */
  readonly quota: number;
  /** The window's length in seconds. */
  readonly windowSeconds: number;
}

/** What an answer says about the caller's rate limit (docs/rules.md §5). */
export interface RateLimitState {
  /** `X-RateLimit-Limit`: the limit of the binding window (the one with fewer requests left). */
  readonly limit: number;
  /** `X-RateLimit-Remaining`: requests left in the binding window. */
  readonly remaining: number;
  /** `X-RateLimit-Reset`: when the binding window resets. */
  readonly resetAt: Date;
  /** `RateLimit-Policy`: every window of the plan (empty when the header is absent). */
  readonly policies: readonly RateLimitPolicy[];
  /** `RateLimit`: the binding window by name, its remaining requests and seconds to its reset. */
  readonly binding?: { readonly name: string; readonly remaining: number; readonly resetSeconds: number };
  /** `Retry-After` in seconds (on a 429 or 503): wait at least this long before trying again. */
  readonly retryAfterSeconds?: number;
}

const whole = (text: string | null): number | undefined =>
  text !== null && /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;

/**
 * `Retry-After` in seconds: delay-seconds, or an HTTP-date counted from `now` (never below 0);
 * `undefined` when absent or unreadable.
 */
export const retryAfterSeconds = (headers: Headers, now: number = Date.now()): number | undefined => {
  const value = headers.get('Retry-After');
  if (value === null) return undefined;
  const seconds = whole(value);
  if (seconds !== undefined) return seconds;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
};

/** The members of a structured-field list (RFC 9651) with their numeric parameters; none when it does not parse. */
const listMembers = (value: string | null): { name: string; params: ReadonlyMap<string, unknown> }[] => {
  if (value === null) return [];
  try {
    return parseList(value).flatMap(([item, params]) => (typeof item === 'string' ? [{ name: item, params }] : []));
  } catch {
    return [];
  }
};

const numberParam = (params: ReadonlyMap<string, unknown>, key: string): number | undefined => {
  const value = params.get(key);
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
};

/**
 * Reads the rate-limit headers of an answer: `X-RateLimit-*`, `RateLimit-Policy`, `RateLimit`
 * (draft-ietf-httpapi-ratelimit-headers) and `Retry-After`. `undefined` when the answer carries no
 * `X-RateLimit-*` (answers outside the rate limit: the OpenAPI document, the probes).
 */
export const readRateLimit = (answer: Response | Headers, now: number = Date.now()): RateLimitState | undefined => {
  const headers = answer instanceof Headers ? answer : answer.headers;
  const limit = whole(headers.get('X-RateLimit-Limit'));
  const remaining = whole(headers.get('X-RateLimit-Remaining'));
  const reset = whole(headers.get('X-RateLimit-Reset'));
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  const policies = listMembers(headers.get('RateLimit-Policy')).flatMap(({ name, params }) => {
    const quota = numberParam(params, 'q');
    const windowSeconds = numberParam(params, 'w');
    return quota === undefined || windowSeconds === undefined ? [] : [{ name, quota, windowSeconds }];
  });
  const [current] = listMembers(headers.get('RateLimit')).flatMap(({ name, params }) => {
    const left = numberParam(params, 'r');
    const resetSeconds = numberParam(params, 't');
    return left === undefined || resetSeconds === undefined ? [] : [{ name, remaining: left, resetSeconds }];
  });
  const retryAfter = retryAfterSeconds(headers, now);
  return {
    limit,
    remaining,
    resetAt: new Date(reset * 1000),
    policies,
    ...(current === undefined ? {} : { binding: current }),
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
  };
};

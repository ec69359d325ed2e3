import { retryAfterSeconds } from './rate-limit.js';

/** How the client retries an answer 429 or 503 (docs/rules.md §5: back off, retry after `Retry-After`). */
export interface RetryOptions {
  /** Attempts in all, the first one included (default 4). 1 means no retry. */
  readonly maxAttempts?: number;
  /** Jitter window of the first retry in ms, doubled at each further retry (default 500). */
  readonly baseDelayMs?: number;
  /** Largest jitter window in ms (default 30,000). */
  readonly maxDelayMs?: number;
  /**
   * A `Retry-After` longer than this (ms) is not waited for: the answer is returned as it is
   * (default 60,000, so a ban or a spent day's quota comes back to the caller at once).
   */
  readonly maxRetryAfterMs?: number;
  /** Waits `ms` (default: a timer). Tests pass their own clock. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) (default `Math.random`): the jitter. */
  readonly random?: () => number;
  /** The time in ms since the epoch (default `Date.now`), for a `Retry-After` given as a date. */
  readonly now?: () => number;
  /** Told before each wait: which retry is next (1 for the first), how long it waits, and the answer that caused it. */
  readonly onRetry?: (retry: {
    readonly attempt: number;
    readonly delayMs: number;
    readonly response: Response;
  }) => void;
}

const DEFAULTS = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 60_000 } as const;

const timer = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A request may be sent again after a 503 (whose work may or may not have happened) when repeating
 * it is safe: a method HTTP defines as idempotent, or a create under an `Idempotency-Key`
 * (docs/rules.md §10). A 429 did nothing (docs/rules.md §5: a refused request consumes nothing), so
 * any request may be repeated after one.
 */
const repeatable = (request: Request, status: number): boolean =>
  status === 429 ||
  ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'].includes(request.method) ||
  request.headers.has('Idempotency-Key');

/**
 * The wait before retry number `retry` (1 for the first): never before `Retry-After` (the service
 * admits nothing earlier), plus full jitter over a window that doubles with each retry, so that
 * clients turned away together do not all come back at the same instant.
 */
export const backoffDelayMs = (
  retry: number,
  retryAfterMs: number,
  options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'> = {},
): number => {
  const base = options.baseDelayMs ?? DEFAULTS.baseDelayMs;
  const cap = options.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const window = Math.min(cap, base * 2 ** (retry - 1));
  return retryAfterMs + Math.floor((options.random ?? Math.random)() * window);
};

/**
 * Wraps `fetch` so that an answer 429 or 503 is retried after its `Retry-After`, with exponential
 * backoff and full jitter, at most `maxAttempts` times in all. The last answer is returned as it
 * is (never thrown); network errors are not retried.
 */
export const retryingFetch = (
  fetch: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): ((request: Request) => Promise<Response>) => {
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULTS.maxAttempts);
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs;
  const sleep = options.sleep ?? timer;
  const now = options.now ?? Date.now;
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      // Each attempt sends a copy: the body of a request can be read once.
      const response = await fetch(attempt < maxAttempts ? request.clone() : request);
      if (
        (response.status !== 429 && response.status !== 503) ||
        attempt >= maxAttempts ||
        !repeatable(request, response.status)
      )
        return response;
      const retryAfterMs = (retryAfterSeconds(response.headers, now()) ?? 0) * 1000;
      if (retryAfterMs > maxRetryAfterMs || request.signal.aborted) return response;
      const delayMs = backoffDelayMs(attempt, retryAfterMs, options);
      options.onRetry?.({ attempt, delayMs, response });
      await response.body?.cancel();
      await sleep(delayMs);
    }
  };
};

import type { BanRule } from './ban.js';
import type { Quota } from './plans.js';
import { DAY_MS, MINUTE_MS, windowStart } from './windows.js';

/**
 * Everything the rate limiter remembers about one subject (an API key or a client address).
 * Window starts are epoch ms; a count belongs to the window whose start it is stored with.
 */
export interface SubjectState {
  readonly minuteStart: number;
  readonly minuteCount: number;
  /** Requests rejected with 429 `rate_limited` in the current minute window (the ban rule counts these). */
  readonly minuteRejections: number;
  readonly dayStart: number;
  readonly dayCount: number;
  /** Epoch ms at which the ban ends; 0 when the subject has never been banned. */
  readonly bannedUntil: number;
}

export type ConsumeOutcome = 'admitted' | 'rejected' | 'banned';

/** What one attempt to consume a unit did, with the counts after it. */
export interface ConsumeResult {
  readonly outcome: ConsumeOutcome;
  readonly minuteCount: number;
  readonly dayCount: number;
  readonly bannedUntil: number;
}

export interface ConsumeRequest {
  readonly subject: string;
  readonly now: number;
  readonly quota: Quota;
  readonly ban: BanRule;
}

/**
 * Step 1 of `consumeQuota`: the state as it stands at `now`, counting nothing. Windows that have
 * ended are reset; windows never move backwards (when the state already holds a later minute than
 * `now` falls in, that later minute and its day are kept). No state is empty windows at `now`.
 * Reading a subject's status (docs/rules.md §14) goes through this same step.
 */
export const stateAt = (state: SubjectState | undefined, now: number): SubjectState => {
  // The instant whose windows count: `now`, unless the state is already in a later minute.
  const counted = state === undefined ? now : Math.max(now, state.minuteStart);
  const minuteStart = windowStart(counted, MINUTE_MS);
  const dayStart = windowStart(counted, DAY_MS);
  const sameMinute = state !== undefined && state.minuteStart === minuteStart;
  const sameDay = state !== undefined && state.dayStart === dayStart;
  return {
    minuteStart,
    minuteCount: sameMinute ? state.minuteCount : 0,
    minuteRejections: sameMinute ? state.minuteRejections : 0,
    dayStart,
    dayCount: sameDay ? state.dayCount : 0,
    bannedUntil: state?.bannedUntil ?? 0,
  };
};

/**
 * The admission rule as a pure transition: from the subject's state (or none) and a request,
 * the next state and what happened. Stores apply it atomically (the memory store runs this very
 * function; the MongoDB store runs it over the document it read and writes the result on condition
 * that the document is unchanged, with its two commonest steps as single conditional `$inc`s).
 *
 * 1. Windows that have ended are reset (`stateAt`). Windows never move backwards: when the state
 *    already holds a later window than `now` falls in (a request stamped by a clock that is behind
 *    the one that wrote the state), the request counts into that later window instead of resetting it.
 * 2. A subject under a ban is refused and nothing is counted.
 * 3. If both windows have room, one unit of each is consumed: admitted.
 * 4. Otherwise the request is rejected and consumes nothing, but the rejection is counted in
 *    the minute window; the rejection that reaches the ban threshold starts the ban (and the
 *    count starts again), so that request is already answered as banned.
 */
export const consumeQuota = (
  state: SubjectState | undefined,
  request: ConsumeRequest,
): { readonly state: SubjectState; readonly result: ConsumeResult } => {
  const { now, quota, ban } = request;
  const { minuteStart, minuteCount, minuteRejections, dayStart, dayCount, bannedUntil } = stateAt(state, now);

  if (bannedUntil > now) {
    const next = { minuteStart, minuteCount, minuteRejections, dayStart, dayCount, bannedUntil };
    return { state: next, result: { outcome: 'banned', minuteCount, dayCount, bannedUntil } };
  }
  if (minuteCount < quota.perMinute && dayCount < quota.perDay) {
    const next = {
      minuteStart,
      minuteCount: minuteCount + 1,
      minuteRejections,
      dayStart,
      dayCount: dayCount + 1,
      bannedUntil,
    };
    return {
      state: next,
      result: { outcome: 'admitted', minuteCount: next.minuteCount, dayCount: next.dayCount, bannedUntil },
    };
  }
  const rejections = minuteRejections + 1;
  if (rejections >= ban.threshold) {
    const until = now + ban.seconds * 1000;
    const next = { minuteStart, minuteCount, minuteRejections: 0, dayStart, dayCount, bannedUntil: until };
    return { state: next, result: { outcome: 'banned', minuteCount, dayCount, bannedUntil: until } };
  }
  const next = { minuteStart, minuteCount, minuteRejections: rejections, dayStart, dayCount, bannedUntil };
  return { state: next, result: { outcome: 'rejected', minuteCount, dayCount, bannedUntil } };
};

/** True when nothing in the state can matter any more at `now`: its day has ended and no ban runs. */
export const isStateExpired = (state: SubjectState, now: number): boolean =>
  state.dayStart + DAY_MS <= now && state.bannedUntil <= now;

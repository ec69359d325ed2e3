import { stateAt, type ConsumeResult, type SubjectState } from './subject-state.js';
import type { Quota } from './plans.js';
import { DAY_MS, MINUTE_MS, windowStart, type WindowName } from './windows.js';

/** The numbers a response reports for one window. */
export interface WindowView {
  readonly name: WindowName;
  /** The window's quota. */
  readonly limit: number;
  /** Length in seconds (the `w` of `RateLimit-Policy`). */
  readonly seconds: number;
  /** Requests left in the window, never below 0. */
  readonly remaining: number;
  /** Unix seconds at which the window resets. */
  readonly resetAt: number;
  /** Whole seconds from now until it resets, at least 1 (the `t` of `RateLimit`). */
  readonly resetIn: number;
}

export type AdmissionOutcome = 'admitted' | 'rate_limited' | 'temporarily_banned';

/** The decision on one request and everything the rate-limit headers say about it. */
export interface AdmissionDecision {
  readonly outcome: AdmissionOutcome;
  /** Both windows, minute first (the order of `RateLimit-Policy`). */
  readonly windows: readonly [WindowView, WindowView];
  /** The binding window: fewer remaining; on a tie, the one that resets later. */
  readonly binding: WindowView;
  /** Whole seconds the client waits before retrying (≥ 1); only when the request was refused. */
  readonly retryAfter?: number;
}

const ceilSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

const view = (
  name: WindowName,
  lengthMs: number,
  limit: number,
  used: number,
  now: number,
  zero: boolean,
): WindowView => {
  const end = windowStart(now, lengthMs) + lengthMs;
  return {
    name,
    limit,
    seconds: lengthMs / 1000,
    remaining: zero ? 0 : Math.max(0, limit - used),
    resetAt: Math.ceil(end / 1000),
    resetIn: ceilSeconds(end - now),
  };
};

/**
 * The binding window (docs/rules.md §5): the one with fewer remaining; on a tie, the one that resets
 * later, which is always the day: day boundaries are minute boundaries (both windows align to UTC),
 * so the minute never resets after the day (in the day's last minute both reset at once).
 */
const bindingOf = (minute: WindowView, day: WindowView): WindowView =>
  minute.remaining < day.remaining ? minute : day;

/** Turns what the store did into the decision and its header numbers (docs/rules.md §5). */
export const decideAdmission = (result: ConsumeResult, quota: Quota, now: number): AdmissionDecision => {
  const banned = result.outcome === 'banned';
  const minute = view('minute', MINUTE_MS, quota.perMinute, result.minuteCount, now, banned);
  const day = view('day', DAY_MS, quota.perDay, result.dayCount, now, banned);
  const binding = bindingOf(minute, day);
  const windows = [minute, day] as const;
  switch (result.outcome) {
    case 'admitted':
      return { outcome: 'admitted', windows, binding };
    case 'rejected':
      return { outcome: 'rate_limited', windows, binding, retryAfter: binding.resetIn };
    case 'banned':
      return { outcome: 'temporarily_banned', windows, binding, retryAfter: ceilSeconds(result.bannedUntil - now) };
  }
};

/** A subject's windows and ban at one instant, counting nothing: what `GET /v1/me` reports (docs/rules.md §14). */
export interface QuotaReading {
  /** Both windows, minute first, numbered as a request's decision numbers them (0 remaining while a ban runs). */
  readonly windows: readonly [WindowView, WindowView];
  /** The binding window, chosen as for a request's headers. */
  readonly binding: WindowView;
  /** Epoch ms at which the running ban ends; absent when no ban runs at that instant. */
  readonly bannedUntil?: number;
}

/**
 * Reads a subject's stored state (or none) at `now` by the rules of admission, without this
 * reading counting as a request: windows that have ended are reset (`stateAt`, step 1 of
 * `consumeQuota`), a ban counts only while it runs, and the numbers and the binding window are
 * those a request's decision would carry (`decideAdmission`), with no request taken from them.
 */
export const readQuota = (state: SubjectState | undefined, quota: Quota, now: number): QuotaReading => {
  const current = stateAt(state, now);
  const banned = current.bannedUntil > now;
  const minute = view('minute', MINUTE_MS, quota.perMinute, current.minuteCount, now, banned);
  const day = view('day', DAY_MS, quota.perDay, current.dayCount, now, banned);
  const reading = { windows: [minute, day] as const, binding: bindingOf(minute, day) };
  return banned ? { ...reading, bannedUntil: current.bannedUntil } : reading;
};

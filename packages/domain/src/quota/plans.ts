/** Requests a subject may make in each window. */
export interface Quota {
  readonly perMinute: number;
  readonly perDay: number;
}

export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];
export type FixedPlanName = Exclude<PlanName, 'enterprise'>;

/** The plan table (docs/rules.md §5): the one place these numbers live. */
export const PLAN_QUOTAS: Readonly<Record<FixedPlanName, Quota>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

/** Callers without a valid credential are limited per client address with the free plan's numbers. */
export const ANONYMOUS_QUOTA: Quota = PLAN_QUOTAS.free;

/**
 * The allowance of `GET /v1/me` (docs/rules.md §14), per key and apart from its plan's windows:
 * 60 a minute, never a ban. Its day window is what 60 a minute allows, so only the minute binds.
 */
export const OWN_STATUS_QUOTA: Quota = { perMinute: 60, perDay: 60 * 24 * 60 };

export const isPlanName = (value: string): value is PlanName => (PLAN_NAMES as readonly string[]).includes(value);

/** A quota a key may carry: whole numbers, at least one request a minute, no more a minute than a day. */
export const isValidQuota = (quota: Quota): boolean =>
  Number.isSafeInteger(quota.perMinute) &&
  Number.isSafeInteger(quota.perDay) &&
  quota.perMinute >= 1 &&
  quota.perDay >= quota.perMinute;

import type { PlanName, Quota } from '../quota/plans.js';
import { isValidQuota, PLAN_QUOTAS } from '../quota/plans.js';
import { sha256Hex } from './sha256.js';

/** A key as the service keeps it: never the key itself, only its SHA-256. */
export interface ApiKeyRecord {
  /** Lowercase hex SHA-256 of the key's UTF-8 bytes. */
  readonly keyHash: string;
  readonly plan: PlanName;
  readonly quota: Quota;
}

/** Who is making a request, as far as the rate limiter is concerned. */
export interface Subject {
  /** Stable id of the quota bucket: `k:<key hash>` for a key, `a:<address>` for an anonymous caller. */
  readonly id: string;
  readonly plan: PlanName;
  readonly quota: Quota;
  /** Set for key holders: a short, non-reversible tag of the key hash, safe to log. */
  readonly keyTag?: string;
}

/**
 * Builds the record of a key on a plan. Enterprise keys carry their own quota; the other plans
 * take theirs from the plan table. Returns an error message when the combination is not valid.
 */
export const apiKeyRecord = (key: string, plan: PlanName, custom?: Quota): ApiKeyRecord | string => {
  if (key.length === 0) return 'an API key must not be empty';
  if (plan === 'enterprise') {
    if (!custom) return 'an enterprise key needs its per-minute and per-day quota';
    if (!isValidQuota(custom)) return 'an enterprise quota needs whole numbers with 1 ≤ per minute ≤ per day';
    return { keyHash: sha256Hex(key), plan, quota: custom };
  }
  if (custom) return `the ${plan} plan has fixed quotas; only enterprise keys carry their own`;
  return { keyHash: sha256Hex(key), plan, quota: PLAN_QUOTAS[plan] };
};

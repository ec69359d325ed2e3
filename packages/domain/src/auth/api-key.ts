import type { PlanName, Quota } from '../quota/plans.js';
import { isValidQuota, PLAN_QUOTAS } from '../quota/plans.js';
import type { Digests } from '../ports/digests.port.js';

/**
 * What a key may do (docs/rules.md §4): client keys every operation of §1–§8, admin keys also §9 and
 * the order transitions, publishable keys only the catalogue's reads, from their origins (§16).
 */
export const KEY_ROLES = ['client', 'admin', 'publishable'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

/** A key as the service keeps it: never the key itself, only its SHA-256. */
export interface ApiKeyRecord {
  /** Lowercase hex SHA-256 of the key's UTF-8 bytes. */
  readonly keyHash: string;
  readonly role: KeyRole;
  readonly plan: PlanName;
  readonly quota: Quota;
  /** A publishable key's origins (docs/rules.md §16), normalised as `readKeyOrigins` leaves them; absent for other roles. */
  readonly origins?: readonly string[];
}

/** Where a key comes from: the configuration of the service that embeds the domain (`settings`: read-only in the admin API), or the admin API (`api`). */
export const KEY_SOURCES = ['settings', 'api'] as const;
export type KeySource = (typeof KEY_SOURCES)[number];

/**
 * A key as a store keeps it: the grant, where it comes from, when it was made and its place in
 * the key list. Never the key itself.
 */
export interface StoredApiKey extends ApiKeyRecord {
  readonly source: KeySource;
  /**
   * The key's place in the list of keys (ascending): settings keys below `API_KEY_POSITION_BASE`
   * (`settingsKeyPosition`), keys made through the API from it upwards in order of creation, never reused.
   */
  readonly position: number;
  /** Epoch ms of its creation (API keys); settings keys are shown as created at the process's start. */
  readonly createdAt?: number;
  readonly label?: string;
}

/** How many hex digits of the key's SHA-256 its public id shows. */
const PUBLIC_ID_HEX = 12;
/** A public id's form; the `KeyIdSchema` takes its pattern from here. */
export const PUBLIC_ID = new RegExp(`^key_[0-9a-f]{${PUBLIC_ID_HEX}}$`);

/** A key's public id: `key_` + the first 12 hex digits of its SHA-256. It names the key in logs, the admin API and as an order's owner. */
export const publicKeyId = (keyHash: string): string => `key_${keyHash.slice(0, PUBLIC_ID_HEX)}`;

/** True for text shaped like a public key id (`key_` + 12 lowercase hex digits). */
export const isPublicKeyId = (text: string): boolean => PUBLIC_ID.test(text);

/**
 * The first list position of keys made through the API: above every settings key's position
 * (at most 2^48), so settings keys are always listed first (docs/rules.md §9).
 */
export const API_KEY_POSITION_BASE = 2 ** 48 + 1;

/**
 * The list position of a settings key: its public id read as a number, plus one. Settings keys all
 * come into being at the process's start, so any stable order among them is creation order; this
 * one needs no counter, and keys with distinct public ids never share a position.
 */
export const settingsKeyPosition = (keyHash: string): number =>
  Number.parseInt(keyHash.slice(0, PUBLIC_ID_HEX), 16) + 1;

/** A key as the admin API shows it (docs/rules.md §9), and as its events carry it (§15): never the key, never its hash. */
export interface ApiKey {
  readonly id: string;
  readonly role: KeyRole;
  readonly plan: PlanName;
  readonly quota: Quota;
  readonly label?: string;
  /** A publishable key's origins (docs/rules.md §16); absent for other roles. */
  readonly origins?: readonly string[];
  readonly source: KeySource;
  /** RFC 3339, UTC, milliseconds. */
  readonly createdAt: string;
}

/** The public view of a stored key: its public id, never the hash. `startedAt` (epoch ms): shown as `createdAt` of a key without one (settings keys: the process's start). */
export const toApiKey = (record: StoredApiKey, startedAt: number): ApiKey => ({
  id: publicKeyId(record.keyHash),
  role: record.role,
  plan: record.plan,
  quota: { perMinute: record.quota.perMinute, perDay: record.quota.perDay },
  ...(record.label === undefined ? {} : { label: record.label }),
  ...(record.origins === undefined ? {} : { origins: [...record.origins] }),
  source: record.source,
  createdAt: new Date(record.createdAt ?? startedAt).toISOString(),
});

/** The key holder behind a request: its public id and its role (and a publishable key's origins). */
export interface Caller {
  readonly keyId: string;
  readonly role: KeyRole;
  /** A publishable key's origins: the request must come from one of them (docs/rules.md §16). */
  readonly origins?: readonly string[];
}

/** Who is making a request, as far as the rate limiter is concerned. */
export interface Subject {
  /**
   * Stable id of the quota bucket: `k:<key hash>` for a key, `a:<address>` for an anonymous caller,
   * `v:<key hash>:<visitor>` for one visitor of a publishable key (`visitorSubject`).
   */
  readonly id: string;
  readonly plan: PlanName;
  readonly quota: Quota;
  /** Set for key holders (never for an anonymous caller): who holds the key, safe to log. */
  readonly caller?: Caller;
}

/**
 * Builds the record of a key on a plan (its hash by `digests`). Enterprise keys carry their own
 * quota; the other plans take theirs from the plan table. Returns an error message when the
 * combination is not valid.
 */
export const apiKeyRecord = (
  digests: Digests,
  key: string,
  plan: PlanName,
  custom?: Quota,
  role: KeyRole = 'client',
): ApiKeyRecord | string => {
  if (key.length === 0) return 'an API key must not be empty';
  if (plan === 'enterprise') {
    if (!custom) return 'an enterprise key needs its per-minute and per-day quota';
    if (!isValidQuota(custom)) return 'an enterprise quota needs whole numbers with 1 ≤ per minute ≤ per day';
    return { keyHash: digests.sha256Hex(key), role, plan, quota: custom };
  }
  if (custom) return `the ${plan} plan has fixed quotas; only enterprise keys carry their own`;
  return { keyHash: digests.sha256Hex(key), role, plan, quota: PLAN_QUOTAS[plan] };
};

/**
 * The subject of one visitor of a publishable key (docs/rules.md §16): the key's plan and quota,
 * counted per pair of key and visitor. `visitor` is opaque here (the transport says who a visitor
 * is: the client address, an IPv6 one by its /64).
 */
export const visitorSubject = (subject: Subject, visitor: string): Subject => ({
  ...subject,
  id: `v:${subject.id.slice(2)}:${visitor}`,
});

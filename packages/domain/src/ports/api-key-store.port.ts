import type { ApiKeyRecord, StoredApiKey } from '../auth/api-key.js';
import type { PlanName, Quota } from '../quota/plans.js';
import type { Recorder } from '../events/event.js';

/** A key made through the admin API, before the store gives it its list position. */
export interface NewApiKey extends ApiKeyRecord {
  readonly createdAt: number;
  readonly label?: string;
}

/** What `update` changes: the plan and its quota together, the label, a publishable key's origins, or several. */
export interface KeyChanges {
  readonly grant?: { readonly plan: PlanName; readonly quota: Quota };
  readonly label?: string;
  /** Only ever for a publishable key (the use case checks the role). */
  readonly origins?: readonly string[];
}

/**
 * The keys the service accepts, by SHA-256 hash: no implementation ever holds a raw key. Keys are
 * found by hash (authentication) or by public id (`key_` + 12 hex, the admin API). A revoked key
 * is kept (so no list position is ever reused) but is found by nothing and listed nowhere.
 * Implementations throw `StoreUnavailableError` when the store cannot answer.
 *
 * Events (docs/rules.md §15, `EventStore`): `insert`, `update` and `revoke`, given a `record`, call it
 * with the key as the write leaves it (for `revoke`: as it was when revoked) and append the events to
 * the key's outbox in that same atomic write; an `update` that leaves the plan, the quota, the label
 * and the origins as they were records nothing (of two identical changes at once, only the first changes the key); the
 * keys of the settings (`save`, `retainSettingsKeys`) record none.
 */
export interface ApiKeyStore {
  /** The key (not revoked) with this SHA-256 hash: looked up on every request. */
  findByHash(keyHash: string): Promise<StoredApiKey | undefined>;
  /** The key (not revoked) with this public id. */
  findById(keyId: string): Promise<StoredApiKey | undefined>;
  /**
   * Every origin that some live (not revoked) publishable key lists, each once, in no particular
   * order: what a CORS preflight, which carries no key, is answered for (docs/rules.md §16). One
   * query, served by an index; callers cache it (`PublishableOrigins`).
   */
  listPublishableOrigins(): Promise<readonly string[]>;
  /** Keys (not revoked) with `position > afterPosition`, ascending position, at most `limit`. */
  list(afterPosition: number, limit: number): Promise<readonly StoredApiKey[]>;
  /**
   * Seeds a settings key: adds it (source `settings`, at `settingsKeyPosition`) or replaces the
   * role, plan and quota of the key with the same hash (an upsert: idempotent, safe for several
   * processes starting together).
   */
  save(record: ApiKeyRecord): Promise<void>;
  /** Removes every settings key whose hash is not among these (keys of the API are untouched). */
  retainSettingsKeys(keyHashes: readonly string[]): Promise<void>;
  /**
   * Stores a key made through the API (source `api`) at a list position above every position
   * given before (from `API_KEY_POSITION_BASE` on), atomically also under concurrent inserts from
   * several processes. `taken` when a key with the same hash or public id exists (revoked ones too).
   */
  insert(key: NewApiKey, record?: Recorder<StoredApiKey>): Promise<StoredApiKey | 'taken'>;
  /** Changes a key made through the API (not revoked); `undefined` when there is none with this id. */
  update(keyId: string, changes: KeyChanges, record?: Recorder<StoredApiKey>): Promise<StoredApiKey | undefined>;
  /** Revokes a key made through the API: from then on nothing finds it. False when there was none to revoke. */
  revoke(keyId: string, record?: Recorder<StoredApiKey>): Promise<boolean>;
}

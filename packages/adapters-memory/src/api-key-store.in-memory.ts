import type { ApiKeyRecord, ApiKeyStore, KeyChanges, NewApiKey, Recorder, StoredApiKey } from '@petstore/domain';
import type { MemoryOutbox } from './outbox.in-memory.js';
import { API_KEY_POSITION_BASE, publicKeyId, settingsKeyPosition } from '@petstore/domain';

interface Entry {
  record: StoredApiKey;
  revoked: boolean;
}

/**
 * Keys in process memory, by SHA-256 hash only, with an index by public id. A revoked key stays
 * (marked) so that its hash and public id are never issued again and its position never reused.
 * With an `outbox`, `insert`, `update` and `revoke` record their events there in the same step (docs/rules.md §15).
 */
export class ApiKeyStoreInMemory implements ApiKeyStore {
  private readonly byHash = new Map<string, Entry>();
  private readonly byId = new Map<string, Entry>();
  private lastPosition = API_KEY_POSITION_BASE - 1;

  /** Starts with these keys seeded as settings keys. */
  constructor(
    records: Iterable<ApiKeyRecord> = [],
    private readonly outbox?: MemoryOutbox,
  ) {
    for (const record of records) this.saveSync(record);
  }

  async findByHash(keyHash: string): Promise<StoredApiKey | undefined> {
    const entry = this.byHash.get(keyHash);
    return entry === undefined || entry.revoked ? undefined : entry.record;
  }

  async findById(keyId: string): Promise<StoredApiKey | undefined> {
    const entry = this.byId.get(keyId);
    return entry === undefined || entry.revoked ? undefined : entry.record;
  }

  async listPublishableOrigins(): Promise<readonly string[]> {
    const origins = new Set<string>();
    for (const { record, revoked } of this.byHash.values())
      if (!revoked && record.origins !== undefined) for (const origin of record.origins) origins.add(origin);
    return [...origins];
  }

  async list(afterPosition: number, limit: number): Promise<readonly StoredApiKey[]> {
    // Admin listings are rare and short: a sort per call keeps the store one map.
    return [...this.byHash.values()]
      .filter((e) => !e.revoked && e.record.position > afterPosition)
      .map((e) => e.record)
      .sort((a, b) => a.position - b.position)
      .slice(0, limit);
  }

  async save(record: ApiKeyRecord): Promise<void> {
    this.saveSync(record);
  }

  async retainSettingsKeys(keyHashes: readonly string[]): Promise<void> {
    const keep = new Set(keyHashes);
    for (const [hash, entry] of this.byHash) {
      if (entry.record.source === 'settings' && !keep.has(hash)) {
        this.byHash.delete(hash);
        this.byId.delete(publicKeyId(hash));
      }
    }
  }

  async insert(key: NewApiKey, recorder?: Recorder<StoredApiKey>): Promise<StoredApiKey | 'taken'> {
    const id = publicKeyId(key.keyHash);
    if (this.byHash.has(key.keyHash) || this.byId.has(id)) return 'taken';
    const record: StoredApiKey = Object.freeze({ ...key, source: 'api', position: ++this.lastPosition });
    this.index({ record, revoked: false });
    this.outbox?.record(recorder, record);
    return record;
  }

  async update(keyId: string, changes: KeyChanges, record?: Recorder<StoredApiKey>): Promise<StoredApiKey | undefined> {
    const entry = this.byId.get(keyId);
    if (entry === undefined || entry.revoked || entry.record.source !== 'api') return undefined;
    const before = entry.record;
    entry.record = Object.freeze({
      ...before,
      ...(changes.grant === undefined ? {} : { plan: changes.grant.plan, quota: changes.grant.quota }),
      ...(changes.label === undefined ? {} : { label: changes.label }),
      ...(changes.origins === undefined ? {} : { origins: changes.origins }),
    });
    // An update to what the key already is changes nothing, and records nothing.
    const changed =
      entry.record.plan !== before.plan ||
      entry.record.quota.perMinute !== before.quota.perMinute ||
      entry.record.quota.perDay !== before.quota.perDay ||
      entry.record.label !== before.label ||
      entry.record.origins?.join(' ') !== before.origins?.join(' ');
    if (changed) this.outbox?.record(record, entry.record);
    return entry.record;
  }

  async revoke(keyId: string, record?: Recorder<StoredApiKey>): Promise<boolean> {
    const entry = this.byId.get(keyId);
    if (entry === undefined || entry.revoked || entry.record.source !== 'api') return false;
    entry.revoked = true;
    this.outbox?.record(record, entry.record);
    return true;
  }

  private saveSync(record: ApiKeyRecord): void {
    const existing = this.byHash.get(record.keyHash);
    const stored: StoredApiKey = Object.freeze({
      keyHash: record.keyHash,
      role: record.role,
      plan: record.plan,
      quota: record.quota,
      source: 'settings',
      position: settingsKeyPosition(record.keyHash),
    });
    if (existing !== undefined) {
      existing.record = stored;
      existing.revoked = false;
    } else this.index({ record: stored, revoked: false });
  }

  private index(entry: Entry): void {
    this.byHash.set(entry.record.keyHash, entry);
    this.byId.set(publicKeyId(entry.record.keyHash), entry);
  }
}

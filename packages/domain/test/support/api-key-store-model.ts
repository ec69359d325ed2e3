import type { ApiKeyRecord, ApiKeyStore, KeyChanges, NewApiKey, StoredApiKey } from '../../src/index.js';
import { API_KEY_POSITION_BASE, publicKeyId, settingsKeyPosition } from '../../src/index.js';

/** A plain array of keys for use-case tests (the adapters prove themselves with the contract suite). */
export class ApiKeyStoreModel implements ApiKeyStore {
  private readonly keys: Array<{ record: StoredApiKey; revoked: boolean }> = [];
  /** Store calls made so far. */
  calls = 0;

  rows(): readonly StoredApiKey[] {
    return this.keys.map((k) => k.record);
  }

  /** Revokes without going through any cache in front (as another process would). */
  async revokeBehindTheBack(keyHash: string): Promise<void> {
    for (const k of this.keys) if (k.record.keyHash === keyHash) k.revoked = true;
  }

  async findByHash(keyHash: string) {
    this.calls++;
    return this.keys.find((k) => !k.revoked && k.record.keyHash === keyHash)?.record;
  }
  async findById(keyId: string) {
    this.calls++;
    return this.live(keyId)?.record;
  }
  async listPublishableOrigins() {
    this.calls++;
    return [...new Set(this.keys.filter((k) => !k.revoked).flatMap((k) => k.record.origins ?? []))];
  }
  async list(afterPosition: number, limit: number) {
    this.calls++;
    return this.keys
      .filter((k) => !k.revoked && k.record.position > afterPosition)
      .map((k) => k.record)
      .sort((a, b) => a.position - b.position)
      .slice(0, limit);
  }
  async save(record: ApiKeyRecord) {
    this.calls++;
    const stored: StoredApiKey = { ...record, source: 'settings', position: settingsKeyPosition(record.keyHash) };
    const at = this.keys.findIndex((k) => k.record.keyHash === record.keyHash);
    if (at >= 0) this.keys[at] = { record: stored, revoked: false };
    else this.keys.push({ record: stored, revoked: false });
  }
  async retainSettingsKeys(keyHashes: readonly string[]) {
    this.calls++;
    for (let i = this.keys.length - 1; i >= 0; i--) {
      const { record } = this.keys[i]!;
      if (record.source === 'settings' && !keyHashes.includes(record.keyHash)) this.keys.splice(i, 1);
    }
  }
  async insert(key: NewApiKey): Promise<StoredApiKey | 'taken'> {
    this.calls++;
    if (this.keys.some((k) => publicKeyId(k.record.keyHash) === publicKeyId(key.keyHash))) return 'taken';
    const position = Math.max(API_KEY_POSITION_BASE - 1, ...this.keys.map((k) => k.record.position)) + 1;
    const record: StoredApiKey = { ...key, source: 'api', position };
    this.keys.push({ record, revoked: false });
    return record;
  }
  async update(keyId: string, changes: KeyChanges) {
    this.calls++;
    const k = this.live(keyId);
    if (k === undefined || k.record.source !== 'api') return undefined;
    k.record = {
      ...k.record,
      ...(changes.grant ?? {}),
      ...(changes.label === undefined ? {} : { label: changes.label }),
      ...(changes.origins === undefined ? {} : { origins: changes.origins }),
    };
    return k.record;
  }
  async revoke(keyId: string) {
    this.calls++;
    const k = this.live(keyId);
    if (k === undefined || k.record.source !== 'api') return false;
    k.revoked = true;
    return true;
  }

  private live(keyId: string) {
    return this.keys.find((k) => !k.revoked && publicKeyId(k.record.keyHash) === keyId);
  }
}

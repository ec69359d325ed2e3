import type { ApiKeyRecord } from '../auth/api-key.js';

/** The keys the service accepts, by SHA-256 hash: no implementation ever holds a raw key. */
export interface ApiKeyStore {
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** Adds a key or replaces the plan of the key with the same hash (idempotent). */
  save(record: ApiKeyRecord): Promise<void>;
}

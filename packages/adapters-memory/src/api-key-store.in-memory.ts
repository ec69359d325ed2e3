import type { ApiKeyRecord, ApiKeyStore } from '@petstore/domain';

/** Keys in process memory, by SHA-256 hash only. */
export class ApiKeyStoreInMemory implements ApiKeyStore {
  private readonly byHash = new Map<string, ApiKeyRecord>();

  constructor(records: Iterable<ApiKeyRecord> = []) {
    for (const record of records) this.byHash.set(record.keyHash, record);
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.byHash.get(keyHash);
  }

  async save(record: ApiKeyRecord): Promise<void> {
    this.byHash.set(record.keyHash, record);
  }
}

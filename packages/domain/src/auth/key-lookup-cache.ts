import type { Recorder } from '../events/event.js';
import type { ApiKeyRecord, StoredApiKey } from './api-key.js';
import type { ApiKeyStore, KeyChanges, NewApiKey } from '../ports/api-key-store.port.js';
import type { Clock } from '../ports/clock.port.js';

/**
 * How old a cached key lookup may be when it is used. A key revoked or changed through another
 * process sharing the store takes effect here within this bound (docs/rules.md §9 asks for 1 s).
 */
export const KEY_CACHE_MAX_AGE_MS = 500;
/** Lookups kept at most; when full, the cache starts again empty (a flood of unknown keys cannot grow it). */
export const KEY_CACHE_MAX_ENTRIES = 10_000;

interface Entry {
  readonly found: StoredApiKey | undefined;
  /** When the lookup started (by the clock port): an entry is as old as the read behind it. */
  readonly readAt: number;
}

/**
 * An `ApiKeyStore` that remembers `findByHash` answers (found or not) for at most
 * `KEY_CACHE_MAX_AGE_MS`, so that a store behind a network is not asked on every request.
 * Writes go through to the store and empty the cache once they are done, and a lookup that was
 * under way while a write happened is not kept: on this process a change takes effect at once.
 */
export class ApiKeyLookupCache implements ApiKeyStore {
  private readonly entries = new Map<string, Entry>();
  /** Counts finished writes; a lookup is cached only if none finished while it ran. */
  private generation = 0;

  constructor(
    private readonly store: ApiKeyStore,
    private readonly clock: Clock,
    private readonly maxAgeMs: number = KEY_CACHE_MAX_AGE_MS,
    private readonly maxEntries: number = KEY_CACHE_MAX_ENTRIES,
  ) {}

  /** A cached answer, the store not asked; otherwise the store's, kept when no write finished meanwhile. */
  async findByHash(keyHash: string): Promise<StoredApiKey | undefined> {
    const now = this.clock.now();
    const cached = this.entries.get(keyHash);
    if (cached !== undefined && now - cached.readAt < this.maxAgeMs && now >= cached.readAt) return cached.found;
    const generation = this.generation;
    const found = await this.store.findByHash(keyHash);
    if (generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(keyHash, { found, readAt: now });
    }
    return found;
  }

  findById(keyId: string): Promise<StoredApiKey | undefined> {
    return this.store.findById(keyId);
  }

  listPublishableOrigins(): Promise<readonly string[]> {
    return this.store.listPublishableOrigins();
  }

  list(afterPosition: number, limit: number): Promise<readonly StoredApiKey[]> {
    return this.store.list(afterPosition, limit);
  }

  save(record: ApiKeyRecord): Promise<void> {
    return this.write(() => this.store.save(record));
  }

  retainSettingsKeys(keyHashes: readonly string[]): Promise<void> {
    return this.write(() => this.store.retainSettingsKeys(keyHashes));
  }

  insert(key: NewApiKey, record?: Recorder<StoredApiKey>): Promise<StoredApiKey | 'taken'> {
    return this.write(() => this.store.insert(key, record));
  }

  update(keyId: string, changes: KeyChanges, record?: Recorder<StoredApiKey>): Promise<StoredApiKey | undefined> {
    return this.write(() => this.store.update(keyId, changes, record));
  }

  revoke(keyId: string, record?: Recorder<StoredApiKey>): Promise<boolean> {
    return this.write(() => this.store.revoke(keyId, record));
  }

  /** Runs a write; whatever its outcome (it may have landed even if it failed), forgets every lookup. */
  private async write<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } finally {
      this.generation++;
      this.entries.clear();
    }
  }
}

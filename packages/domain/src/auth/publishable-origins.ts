import type { Clock } from '../ports/clock.port.js';

/** What the cache needs of a key store (an `ApiKeyStore` is one). */
export interface PublishableOriginsSource {
  listPublishableOrigins(): Promise<readonly string[]>;
}

/**
 * How old the set of publishable origins may be when a preflight is answered from it: a key made,
 * changed or revoked through any process is heard of within this bound (docs/rules.md §16: 1 s).
 */
export const PUBLISHABLE_ORIGINS_MAX_AGE_MS = 500;

/**
 * Answers "does a live publishable key list this origin?" for CORS preflights, which carry no key
 * and are not rate-limited (docs/rules.md §11, §16). It keeps the whole set of those origins (the
 * store's, bounded by its keys: 20 a key, never what clients send) and reads it again when it is
 * `maxAgeMs` old; lookups that find it stale meanwhile wait for that one read. So a flood of
 * preflights from random origins costs at most one store query per `maxAgeMs`, and nothing grows
 * with the origins asked about. A failed read is not kept: the next lookup tries again.
 */
export class PublishableOrigins {
  private origins: ReadonlySet<string> = new Set();
  /** When the set in hand was read (by the clock port); none yet: never. */
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<ReadonlySet<string>> | undefined;

  constructor(
    private readonly source: PublishableOriginsSource,
    private readonly clock: Clock,
    private readonly maxAgeMs: number = PUBLISHABLE_ORIGINS_MAX_AGE_MS,
  ) {}

  async has(origin: string): Promise<boolean> {
    const now = this.clock.now();
    if (now - this.readAt < this.maxAgeMs && now >= this.readAt) return this.origins.has(origin);
    return (await this.read(now)).has(origin);
  }

  /** One read at a time: a lookup that finds the set stale while a read is under way waits for it. */
  private read(now: number): Promise<ReadonlySet<string>> {
    this.reading ??= this.source
      .listPublishableOrigins()
      .then((origins) => {
        this.origins = new Set(origins);
        this.readAt = now;
        return this.origins;
      })
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }
}

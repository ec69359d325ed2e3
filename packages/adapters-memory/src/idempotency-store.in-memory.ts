import type {
  ClaimOutcome,
  CompletedRecord,
  IdempotencyRecord,
  IdempotencyStore,
  InProgressRecord,
} from '@petstore/domain';
import { settleClaim } from '@petstore/domain';

/** Expired records are swept at most once per this many ms (of the callers' clock). */
const SWEEP_EVERY_MS = 60_000;

/** Whether `held` is the claim `claim` (not a later claim of the same id, nor one that took it over). */
const isClaim = (held: IdempotencyRecord | undefined, claim: InProgressRecord): boolean =>
  held !== undefined &&
  held.state === 'in_progress' &&
  held.fingerprint === claim.fingerprint &&
  held.token === claim.token &&
  held.leaseUntil === claim.leaseUntil;

/**
 * Idempotency records in process memory. Every call runs to completion before another starts
 * (no await inside), so a claim is atomic. Expired records are dropped by a sweep at most once a
 * minute, so memory holds at most a day of records.
 */
export class IdempotencyStoreInMemory implements IdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord>();
  private lastSweep = 0;

  /** Records held, expired ones not yet swept included (for tests). */
  get size(): number {
    return this.records.size;
  }

  async claim(id: string, claim: InProgressRecord, now: number): Promise<ClaimOutcome> {
    if (now - this.lastSweep >= SWEEP_EVERY_MS) this.sweep(now);
    // Free, taken over (the same request once the lease is over, token and all), or held: docs/rules.md §10.
    const outcome = settleClaim(this.records.get(id), claim, now);
    if (outcome.claimed) this.records.set(id, outcome.record);
    return outcome;
  }

  async complete(id: string, claim: InProgressRecord, record: CompletedRecord): Promise<void> {
    if (isClaim(this.records.get(id), claim)) this.records.set(id, record);
  }

  async release(id: string, claim: InProgressRecord): Promise<void> {
    if (isClaim(this.records.get(id), claim)) this.records.set(id, { ...claim, leaseUntil: 0 });
  }

  async discard(id: string, claim: InProgressRecord): Promise<void> {
    if (isClaim(this.records.get(id), claim)) this.records.delete(id);
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [id, record] of this.records) if (record.expiresAt <= now) this.records.delete(id);
  }
}

import type { ClaimOutcome, CompletedRecord, InProgressRecord } from '../idempotency/idempotency.js';

/**
 * Keeps the answers of idempotent requests by id (API key scope + `Idempotency-Key`). A record
 * whose `expiresAt` has passed counts as absent (an adapter may delete it any time after).
 * Implementations throw `StoreUnavailableError` when the store cannot answer.
 */
export interface IdempotencyStore {
  /**
   * Claims `id` for a request about to be processed, atomically: of N simultaneous claims of one
   * id (also across processes sharing a store), exactly one gets `claimed`; the others get the
   * record held. An absent or expired record: `claim` is stored as given. An in-progress record
   * whose lease has ended (`leaseUntil <= now`) with the same fingerprint: taken over, keeping its
   * token and `expiresAt`, with `claim.leaseUntil` (docs/rules.md §10: a repeat of a request that
   * ended 5xx, or whose process died, runs again under the same creation token). Anything else is held.
   */
  claim(id: string, claim: InProgressRecord, now: number): Promise<ClaimOutcome>;
  /** Replaces the claim `claim` (only that one, as `claim` answered it: not a later claim of the same id) by the kept answer. */
  complete(id: string, claim: InProgressRecord, record: CompletedRecord): Promise<void>;
  /**
   * Ends the claim `claim` (only that one) without an answer worth keeping: its lease ends at once
   * (`leaseUntil` 0), so a repeat of the request runs again now, under the same token; the record
   * stays until it expires (a request that ended 5xx may still have created: its token must stay).
   */
  release(id: string, claim: InProgressRecord): Promise<void>;
  /**
   * Removes the claim `claim` (only that one) and its record: the request under it was answered in a
   * way that says nothing about it and wrote nothing (401, 403, 408, 429; docs/rules.md §10), so the
   * key is free for any request, as if it had never been used.
   */
  discard(id: string, claim: InProgressRecord): Promise<void>;
}

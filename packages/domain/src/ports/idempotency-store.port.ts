import type { CompletedRecord, IdempotencyRecord, InProgressRecord } from '../idempotency/idempotency.js';

/** The outcome of a claim: the key is now this request's, or the record that holds it. */
export type ClaimOutcome = { readonly claimed: true } | { readonly claimed: false; readonly held: IdempotencyRecord };

/**
 * Keeps the answers of idempotent requests by id (API key scope + `Idempotency-Key`). A record
 * whose `expiresAt` has passed counts as absent (an adapter may delete it any time after).
 * Implementations throw `StoreUnavailableError` when the store cannot answer.
 */
export interface IdempotencyStore {
  /**
   * Claims `id` for a request about to be processed, atomically: of N simultaneous claims of one
   * id (also across processes sharing a store), exactly one gets `claimed`; the others get the
   * record held. An expired record is replaced as if absent.
   */
  claim(id: string, claim: InProgressRecord, now: number): Promise<ClaimOutcome>;
  /** Replaces the claim `claim` (only that one: not a later claim of the same id) by the kept answer. */
  complete(id: string, claim: InProgressRecord, record: CompletedRecord): Promise<void>;
  /** Drops the claim `claim` (only that one): the answer is not kept, a retry runs again. */
  release(id: string, claim: InProgressRecord): Promise<void>;
}

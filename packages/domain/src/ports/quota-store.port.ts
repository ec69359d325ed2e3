import type { Answer } from './answer.js';
import type { ConsumeRequest, ConsumeResult } from '../quota/subject-state.js';

/**
 * Keeps the rate-limit state of every subject. `consume` applies `consumeQuota` (the rule in
 * `quota/subject-state.ts`) to the subject's state atomically (each call takes effect at one
 * instant, as if calls ran one at a time): with limit L, of N simultaneous calls exactly
 * min(N, L) are admitted, also across processes sharing a store. Implementations throw
 * `StoreUnavailableError` when the store cannot answer.
 */
export interface QuotaStore {
  /** On every request: an in-process store answers with the result itself (`Answer`), a networked one with a promise. */
  consume(request: ConsumeRequest): Answer<ConsumeResult>;
}

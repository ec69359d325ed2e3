import type { ConsumeRequest, ConsumeResult, SubjectState } from '../quota/subject-state.js';

/**
 * Keeps the rate-limit state of every subject. `consume` applies `consumeQuota` (the rule in
 * `quota/subject-state.ts`) to the subject's state atomically (each call takes effect at one
 * instant, as if calls ran one at a time): with limit L, of N simultaneous calls exactly
 * min(N, L) are admitted, also across processes sharing a store. Implementations throw
 * `StoreUnavailableError` when the store cannot answer.
 */
export interface QuotaStore {
  /** Counts one request of the subject (on every request), and answers what the rule made of it. */
  consume(request: ConsumeRequest): Promise<ConsumeResult>;
  /**
   * The subject's state as stored, or undefined when none is kept (never seen, or dropped once
   * it could no longer matter). A read only: it changes nothing a later `consume` sees. Used by
   * `GET /v1/me` (docs/rules.md §14). It may be the state as last written, with windows that
   * have since ended: `readQuota` rolls them as `consume` would.
   */
  peek(subject: string): Promise<SubjectState | undefined>;
}

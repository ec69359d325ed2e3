import type { ConsumeRequest, ConsumeResult, QuotaStore, SubjectState } from '@petstore/domain';
import { consumeQuota, DAY_MS, isStateExpired, windowStart } from '@petstore/domain';

/**
 * Rate-limit state in process memory. `consume` runs the domain's rule synchronously, so it is
 * atomic within the process. State that can no longer matter (its day is over and no ban runs)
 * is dropped once per UTC day, so memory is bounded by the subjects seen in one day.
 */
export class QuotaStoreInMemory implements QuotaStore {
  private readonly states = new Map<string, SubjectState>();
  private sweptDay = Number.NEGATIVE_INFINITY;

  async consume(request: ConsumeRequest): Promise<ConsumeResult> {
    const day = windowStart(request.now, DAY_MS);
    if (day > this.sweptDay) this.sweep(request.now, day);
    const { state, result } = consumeQuota(this.states.get(request.subject), request);
    this.states.set(request.subject, state);
    return result;
  }

  /** The stored state, read only (docs/rules.md §14): no sweep, nothing written. */
  peek(subject: string): Promise<SubjectState | undefined> {
    return Promise.resolve(this.states.get(subject));
  }

  /** Number of subjects whose state is kept. */
  get size(): number {
    return this.states.size;
  }

  private sweep(now: number, day: number): void {
    this.sweptDay = day;
    for (const [subject, state] of this.states) if (isStateExpired(state, now)) this.states.delete(subject);
  }
}

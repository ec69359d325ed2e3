import type { Clock } from '../ports/clock.port.js';
import { andThen, type Answer } from '../ports/answer.js';
import type { QuotaStore } from '../ports/quota-store.port.js';
import type { Subject } from '../auth/api-key.js';
import { decideAdmission, type AdmissionDecision } from '../quota/admission.js';
import { DEFAULT_BAN_RULE, type BanRule } from '../quota/ban.js';
import { ANONYMOUS_QUOTA } from '../quota/plans.js';

/** The subject of a caller without a valid credential: its client address, on the free plan's numbers. */
export const anonymousSubject = (address: string): Subject => ({ id: `a:${address}`, plan: 'free', quota: ANONYMOUS_QUOTA });

/** Rate limiting and bans (docs/rules.md §5): one `consume` of the quota store per request. */
export class Admission {
  constructor(
    private readonly quotas: QuotaStore,
    private readonly clock: Clock,
    private readonly ban: BanRule = DEFAULT_BAN_RULE,
  ) {}

  /** A value at once when the quota store answers at once (in process), else a promise (`Answer`). */
  admit(subject: Subject): Answer<AdmissionDecision> {
    const now = this.clock.now();
    return andThen(this.quotas.consume({ subject: subject.id, now, quota: subject.quota, ban: this.ban }), (result) =>
      decideAdmission(result, subject.quota, now),
    );
  }
}

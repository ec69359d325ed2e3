import type { Clock } from '../ports/clock.port.js';
import type { QuotaStore } from '../ports/quota-store.port.js';
import type { Caller, Subject } from '../auth/api-key.js';
import { decideAdmission, readQuota, type AdmissionDecision, type QuotaReading } from '../quota/admission.js';
import { DEFAULT_BAN_RULE, NO_BAN, type BanRule } from '../quota/ban.js';
import { ANONYMOUS_QUOTA, OWN_STATUS_QUOTA, type PlanName, type Quota } from '../quota/plans.js';

/** The subject of a caller without a valid credential: its client address, on the free plan's numbers. */
export const anonymousSubject = (address: string): Subject => ({
  id: `a:${address}`,
  plan: 'free',
  quota: ANONYMOUS_QUOTA,
});

/** The quota bucket of a key's own-status allowance (docs/rules.md §14): apart from the key's plan windows. */
export const ownStatusSubject = (subject: Subject): string => `me:${subject.id}`;

/** What `GET /v1/me` shows a key holder (docs/rules.md §14): who it is, its plan, and where it stands. */
export interface OwnStatus extends QuotaReading {
  readonly caller: Caller;
  readonly plan: PlanName;
  readonly quota: Quota;
}

/** The answer to one look at a key's own status. */
export interface StatusLook {
  /**
   * The decision of the look's own allowance (`OWN_STATUS_QUOTA`, never a ban): `admitted`, or
   * `rate_limited` past it, with the allowance's numbers for the headers.
   */
  readonly allowance: AdmissionDecision;
  /** The key's status as it stands without this look; only when the allowance admitted it. */
  readonly status?: OwnStatus;
}

/** Rate limiting and bans (docs/rules.md §5): one `consume` of the quota store per request. */
export class Admission {
  constructor(
    private readonly quotas: QuotaStore,
    private readonly clock: Clock,
    private readonly ban: BanRule = DEFAULT_BAN_RULE,
  ) {}

  async admit(subject: Subject): Promise<AdmissionDecision> {
    const now = this.clock.now();
    const result = await this.quotas.consume({ subject: subject.id, now, quota: subject.quota, ban: this.ban });
    return decideAdmission(result, subject.quota, now);
  }

  /**
   * A key holder's own status (docs/rules.md §14), taking nothing from its plan's windows: the
   * look is counted against an allowance of its own (60 a minute per key, `ownStatusSubject`,
   * never a ban), then the plan's state is read (`QuotaStore.peek`) as it stands without this
   * look, over a key that is over its limit or banned as well.
   */
  async lookUp(subject: Subject, caller: Caller): Promise<StatusLook> {
    const now = this.clock.now();
    const counted = await this.quotas.consume({
      subject: ownStatusSubject(subject),
      now,
      quota: OWN_STATUS_QUOTA,
      ban: NO_BAN,
    });
    const allowance = decideAdmission(counted, OWN_STATUS_QUOTA, now);
    if (allowance.outcome !== 'admitted') return { allowance };
    const state = await this.quotas.peek(subject.id);
    return {
      allowance,
      status: { caller, plan: subject.plan, quota: subject.quota, ...readQuota(state, subject.quota, now) },
    };
  }
}

// docs/rules.md §14 in the domain: reading a subject's windows without counting (`stateAt`,
// `readQuota`), and `Admission.lookUp`, the use case of `GET /v1/me`: its own allowance (60 a
// minute, never a ban) and a read of the plan's windows that takes nothing from them.
import { expect } from 'chai';
import fc from 'fast-check';
import {
  Admission,
  consumeQuota,
  DAY_MS,
  decideAdmission,
  MINUTE_MS,
  NO_BAN,
  OWN_STATUS_QUOTA,
  ownStatusSubject,
  PLAN_QUOTAS,
  readQuota,
  stateAt,
  windowStart,
  type BanRule,
  type Caller,
  type ConsumeRequest,
  type ConsumeResult,
  type Quota,
  type QuotaStore,
  type Subject,
  type SubjectState,
} from '../src/index.js';
import { subjectStateArb } from './support/subject-states.js';
import { ManualClock } from '../test-support/index.js';

const T0 = Date.UTC(2027, 2, 3, 10, 15, 0);

/** A quota store over a plain Map, moved by the domain's own rule (the adapters have their contract suite). */
class MapQuotas implements QuotaStore {
  readonly states = new Map<string, SubjectState>();
  async consume(request: ConsumeRequest): Promise<ConsumeResult> {
    const { state, result } = consumeQuota(this.states.get(request.subject), request);
    this.states.set(request.subject, state);
    return result;
  }
  async peek(subject: string): Promise<SubjectState | undefined> {
    return this.states.get(subject);
  }
}

const quotaArb: fc.Arbitrary<Quota> = fc
  .record({ perMinute: fc.integer({ min: 1, max: 6 }), extra: fc.integer({ min: 0, max: 8 }) })
  .map(({ perMinute, extra }) => ({ perMinute, perDay: perMinute + extra }));
const banArb: fc.Arbitrary<BanRule> = fc.record({
  threshold: fc.integer({ min: 1, max: 4 }),
  seconds: fc.integer({ min: 1, max: 1_000 }),
});

/** Any stored state near T0, including one in a later minute than the request's (a clock behind) and ended or running bans. */
const stateArb: fc.Arbitrary<SubjectState | undefined> = fc.option(
  subjectStateArb(T0, { minuteCount: 8, minuteRejections: 4 }),
  { nil: undefined },
);
const nowArb = fc.integer({ min: T0 - DAY_MS, max: T0 + DAY_MS });

describe('reading a subject without counting (docs/rules.md §14)', () => {
  it('property: stateAt is the first step of consumeQuota: rolling the windows first changes nothing, and rolling twice is rolling once', () =>
    fc.assert(
      fc.property(stateArb, nowArb, quotaArb, banArb, (state, now, quota, ban) => {
        const request: ConsumeRequest = { subject: 's', now, quota, ban };
        expect(consumeQuota(stateAt(state, now), request)).to.deep.equal(consumeQuota(state, request));
        expect(stateAt(stateAt(state, now), now)).to.deep.equal(stateAt(state, now));
      }),
    ));

  it('property: a reading says what the next request meets, and is numbered like that request’s decision less its own unit', () =>
    fc.assert(
      fc.property(stateArb, nowArb, quotaArb, banArb, (state, now, quota, ban) => {
        const reading = readQuota(state, quota, now);
        const decision = decideAdmission(consumeQuota(state, { subject: 's', now, quota, ban }).result, quota, now);
        const [minute, day] = reading.windows;
        // Binding window, stated directly: fewer remaining; on a tie, the later reset.
        expect(reading.binding).to.deep.equal(
          minute.remaining < day.remaining || (minute.remaining === day.remaining && minute.resetAt > day.resetAt)
            ? minute
            : day,
        );
        expect(reading.windows.map((w) => [w.name, w.limit, w.seconds, w.resetAt, w.resetIn])).to.deep.equal(
          decision.windows.map((w) => [w.name, w.limit, w.seconds, w.resetAt, w.resetIn]),
        );
        const runningBan = state !== undefined && state.bannedUntil > now;
        if (runningBan) {
          expect(reading.bannedUntil).to.equal(state.bannedUntil);
          expect(
            reading.windows.map((w) => w.remaining),
            'nothing left while a ban runs',
          ).to.deep.equal([0, 0]);
          expect(decision.outcome).to.equal('temporarily_banned');
          return;
        }
        expect(reading.bannedUntil, 'an ended ban is not shown').to.equal(undefined);
        if (reading.binding.remaining > 0) {
          expect(decision.outcome).to.equal('admitted');
          expect(
            decision.windows.map((w) => w.remaining + 1),
            'the request takes one unit of each window',
          ).to.deep.equal(reading.windows.map((w) => w.remaining));
        } else {
          expect(decision.outcome).to.be.oneOf(['rate_limited', 'temporarily_banned']);
          if (decision.outcome === 'rate_limited') expect(decision.windows).to.deep.equal(reading.windows);
        }
      }),
    ));
});

describe('Admission.lookUp: the use case of GET /v1/me (docs/rules.md §14)', () => {
  const caller: Caller = { keyId: 'key_0123456789ab', role: 'client' };
  const free: Subject = { id: 'k:free', plan: 'free', quota: PLAN_QUOTAS.free, caller };
  const other: Subject = {
    id: 'k:other',
    plan: 'free',
    quota: PLAN_QUOTAS.free,
    caller: { keyId: 'key_ba9876543210', role: 'admin' },
  };
  const setup = (now = T0 + 15_500, ban?: BanRule) => {
    const quotas = new MapQuotas();
    const clock = new ManualClock(now);
    return { quotas, clock, admission: new Admission(quotas, clock, ban) };
  };
  it('the allowance is its own row next to the plan table: 60 a minute, a day bound that never binds first, and never a ban', () => {
    expect(OWN_STATUS_QUOTA).to.deep.equal({ perMinute: 60, perDay: 86_400 });
    expect(OWN_STATUS_QUOTA.perDay).to.equal(OWN_STATUS_QUOTA.perMinute * (DAY_MS / MINUTE_MS));
    expect(NO_BAN.threshold).to.equal(Number.POSITIVE_INFINITY);
    expect(ownStatusSubject(free)).to.equal('me:k:free');
  });

  it('takes nothing from the plan’s windows and reports them as they stand without the look', async () => {
    const { admission, quotas } = setup();
    for (let i = 0; i < 3; i++) await admission.admit(free);
    const before = quotas.states.get(free.id);
    for (let i = 0; i < 5; i++) {
      const look = await admission.lookUp(free, caller);
      expect(look.allowance.outcome).to.equal('admitted');
      expect(look.status).to.deep.include({ caller, plan: 'free', quota: PLAN_QUOTAS.free });
      expect(look.status!.windows.map((w) => w.remaining)).to.deep.equal([57, 997]);
      expect(look.status!.binding.name).to.equal('minute');
      expect(look.status!.bannedUntil).to.equal(undefined);
    }
    expect(quotas.states.get(free.id), 'the plan’s state untouched').to.equal(before);
    expect((await admission.admit(free)).binding.remaining).to.equal(56);
  });

  it('answers over the limit and during a ban, with the ban’s end, and never lengthens the ban', async () => {
    const { admission, clock } = setup(T0 + 15_500, { threshold: 2, seconds: 900 });
    const small: Subject = { ...free, quota: { perMinute: 2, perDay: 100 } };
    await admission.admit(small);
    await admission.admit(small);
    expect((await admission.admit(small)).outcome).to.equal('rate_limited');
    const over = await admission.lookUp(small, caller);
    expect(over.status!.windows.map((w) => w.remaining)).to.deep.equal([0, 98]);
    expect(over.status!.bannedUntil).to.equal(undefined);
    expect((await admission.admit(small)).outcome).to.equal('temporarily_banned');
    const bannedAt = clock.now();
    for (let i = 0; i < 20; i++) {
      clock.advance(1_000);
      const look = await admission.lookUp(small, caller);
      expect(look.allowance.outcome).to.equal('admitted');
      expect(look.status!.bannedUntil).to.equal(bannedAt + 900_000);
      expect(look.status!.windows.map((w) => w.remaining)).to.deep.equal([0, 0]);
    }
    clock.set(bannedAt + 900_000);
    expect((await admission.admit(small)).outcome, 'the ban ends when it was to end').to.equal('admitted');
    expect((await admission.lookUp(small, caller)).status!.bannedUntil).to.equal(undefined);
  });

  it('has an allowance of its own per key: 60 a minute, then rate_limited until the minute ends, never a ban; the plan is untouched', async () => {
    const { admission, clock } = setup();
    for (let i = 0; i < 60; i++) expect((await admission.lookUp(free, caller)).allowance.outcome).to.equal('admitted');
    for (let i = 0; i < 500; i++) {
      const refused = await admission.lookUp(free, caller);
      expect(refused.status).to.equal(undefined);
      expect(refused.allowance).to.deep.include({ outcome: 'rate_limited', retryAfter: 45 });
      expect(refused.allowance.binding).to.deep.include({ name: 'minute', limit: 60, remaining: 0 });
    }
    expect((await admission.lookUp(other, other.caller!)).allowance.outcome, 'another key has its own').to.equal(
      'admitted',
    );
    expect((await admission.admit(free)).binding.remaining, 'the plan’s windows are apart').to.equal(59);
    clock.set(windowStart(clock.now(), MINUTE_MS) + MINUTE_MS);
    expect((await admission.lookUp(free, caller)).allowance.outcome, 'the next minute').to.equal('admitted');
  });

  it('property: looks are invisible to admission, and each says what admission would say; the allowance admits the first 60 of each UTC minute', async () => {
    const stepArb = fc.oneof(
      fc.integer({ min: 0, max: 2_000 }),
      fc.integer({ min: 2_000, max: 70_000 }),
      fc.constantFrom(MINUTE_MS, DAY_MS),
    );
    const commandArb = fc.oneof(
      fc.record({ kind: fc.constant('admit' as const), step: stepArb }),
      fc.record({ kind: fc.constant('look' as const), step: stepArb, count: fc.integer({ min: 1, max: 40 }) }),
    );
    await fc.assert(
      fc.asyncProperty(quotaArb, banArb, fc.array(commandArb, { maxLength: 30 }), async (quota, ban, commands) => {
        const subject: Subject = { ...free, quota };
        const withLooks = setup(T0, ban);
        const without = setup(T0, ban);
        let looksInMinute = 0;
        let minute = windowStart(T0, MINUTE_MS);
        for (const command of commands) {
          withLooks.clock.advance(command.step);
          without.clock.advance(command.step);
          const now = withLooks.clock.now();
          if (windowStart(now, MINUTE_MS) !== minute) [minute, looksInMinute] = [windowStart(now, MINUTE_MS), 0];
          if (command.kind === 'admit') {
            expect(await withLooks.admission.admit(subject)).to.deep.equal(await without.admission.admit(subject));
            continue;
          }
          for (let i = 0; i < command.count; i++) {
            const look = await withLooks.admission.lookUp(subject, caller);
            looksInMinute += 1;
            expect(look.allowance.outcome).to.equal(
              looksInMinute <= OWN_STATUS_QUOTA.perMinute ? 'admitted' : 'rate_limited',
            );
            if (look.status !== undefined) {
              expect(look.status).to.deep.equal({
                caller,
                plan: subject.plan,
                quota,
                ...readQuota(without.quotas.states.get(subject.id), quota, now),
              });
            }
          }
        }
      }),
    );
  });
});

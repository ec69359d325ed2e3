import { expect } from 'chai';
import fc from 'fast-check';
import type {
  AdmissionDecision,
  BanRule,
  ConsumeRequest,
  ConsumeResult,
  Quota,
  QuotaStore,
  Subject,
  SubjectState,
} from '../src/index.js';
import { Admission, consumeQuota, DAY_MS, MINUTE_MS, NO_BAN, readQuota, windowStart } from '../src/index.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { ManualClock } from './manual-clock.js';

const T0 = Date.UTC(2027, 2, 3, 10, 15, 0);
const quota: Quota = { perMinute: 3, perDay: 5 };
const ban: BanRule = { threshold: 3, seconds: 120 };
const at = (subject: string, now: number, q: Quota = quota, b: BanRule = ban): ConsumeRequest => ({
  subject,
  now,
  quota: q,
  ban: b,
});

/**
 * Checks a run of admission decisions against the rules of docs/rules.md §5, stated directly:
 * windows are UTC-aligned and fixed; a request is admitted exactly when no ban runs and both
 * windows have room; an admitted request takes one from each window's remaining; a refused one
 * takes nothing; the rejection that reaches the threshold within a minute window starts a ban of
 * exactly `ban.seconds`; `Retry-After` ≥ 1 points at the binding window's reset or the ban's end.
 */
const checkDecisions = (
  q: Quota,
  b: BanRule,
  times: readonly number[],
  decisions: readonly AdmissionDecision[],
): void => {
  let minuteStart = Number.NaN,
    dayStart = Number.NaN;
  let minuteLeft = q.perMinute,
    dayLeft = q.perDay,
    rejections = 0,
    bannedUntil = 0;
  times.forEach((now, i) => {
    const d = decisions[i]!;
    const ms = windowStart(now, MINUTE_MS),
      ds = windowStart(now, DAY_MS);
    if (ms !== minuteStart) [minuteStart, minuteLeft, rejections] = [ms, q.perMinute, 0];
    if (ds !== dayStart) [dayStart, dayLeft] = [ds, q.perDay];
    const [minute, day] = d.windows;
    for (const w of d.windows) expect(w.remaining, `request ${i}: remaining`).to.be.at.least(0);
    expect(minute.limit).to.equal(q.perMinute);
    expect(day.limit).to.equal(q.perDay);
    expect(minute.resetAt).to.equal((minuteStart + MINUTE_MS) / 1000);
    expect(day.resetAt).to.equal((dayStart + DAY_MS) / 1000);
    const expectedBinding = minute.remaining < day.remaining ? minute : day;
    expect(d.binding).to.deep.equal(expectedBinding);
    if (now < bannedUntil) {
      expect(d.outcome, `request ${i} during the ban`).to.equal('temporarily_banned');
      expect(d.retryAfter).to.equal(Math.max(1, Math.ceil((bannedUntil - now) / 1000)));
      return;
    }
    if (minuteLeft > 0 && dayLeft > 0) {
      expect(d.outcome, `request ${i} with room in both windows`).to.equal('admitted');
      minuteLeft -= 1;
      dayLeft -= 1;
      expect([minute.remaining, day.remaining], `request ${i}: remaining after admission`).to.deep.equal([
        minuteLeft,
        dayLeft,
      ]);
      expect(d.retryAfter).to.equal(undefined);
      return;
    }
    rejections += 1;
    if (rejections >= b.threshold) {
      rejections = 0;
      bannedUntil = now + b.seconds * 1000;
      expect(d.outcome, `request ${i} reaching the ban threshold`).to.equal('temporarily_banned');
      expect(d.retryAfter).to.equal(b.seconds);
      return;
    }
    expect(d.outcome, `request ${i} over the limit`).to.equal('rate_limited');
    expect([minute.remaining, day.remaining], `request ${i}: a rejection consumes nothing`).to.deep.equal([
      minuteLeft,
      dayLeft,
    ]);
    expect(d.binding.remaining).to.equal(0);
    expect(d.retryAfter).to.be.at.least(1).and.to.equal(d.binding.resetIn);
  });
};

const stepArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 3_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 3_000, max: 70_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(MINUTE_MS, DAY_MS, 3_600_000) },
);

/**
 * The model of a quota store: a plain Map of subject states, moved by the domain's rule
 * `consumeQuota` (the rule every store applies), and the one clock of the run.
 */
interface QuotaModel {
  readonly states: Map<string, SubjectState>;
  now: number;
}
interface QuotaRun {
  readonly quota: Quota;
  readonly ban: BanRule;
}
type QuotaCommand = fc.AsyncCommand<QuotaModel, QuotaStore>;

/**
 * What a result says that matters: `bannedUntil` only while a ban runs (an ended ban's time may
 * be forgotten once its state expired, as the memory store's daily sweep and MongoDB's TTL do).
 */
const observable = (result: ConsumeResult): ConsumeResult =>
  result.outcome === 'banned' ? result : { ...result, bannedUntil: 0 };

const modelConsume = (model: QuotaModel, request: ConsumeRequest): ConsumeResult => {
  const { state, result } = consumeQuota(model.states.get(request.subject), request);
  model.states.set(request.subject, state);
  return result;
};

/** One request of `subject`, `step` ms after the previous command. */
class ConsumeCommand implements QuotaCommand {
  constructor(
    readonly settings: QuotaRun,
    readonly subject: string,
    readonly step: number,
  ) {}
  check = () => true;
  run = async (model: QuotaModel, store: QuotaStore): Promise<void> => {
    model.now += this.step;
    const request = at(this.subject, model.now, this.settings.quota, this.settings.ban);
    const expected = modelConsume(model, request);
    expect(observable(await store.consume(request)), `${this.toString()} at ${model.now}`).to.deep.equal(
      observable(expected),
    );
  };
  toString = () => `consume(${this.subject}, +${this.step}ms)`;
}

/**
 * A read of `subject`'s state (docs/rules.md §14), `step` ms after the previous command: read by
 * `readQuota`, it says what the model's state says, and it leaves the model as it is, so every
 * later command checks that the read changed nothing the store counts.
 */
class PeekCommand implements QuotaCommand {
  constructor(
    readonly settings: QuotaRun,
    readonly subject: string,
    readonly step: number,
  ) {}
  check = () => true;
  run = async (model: QuotaModel, store: QuotaStore): Promise<void> => {
    model.now += this.step;
    const expected = readQuota(model.states.get(this.subject), this.settings.quota, model.now);
    expect(
      readQuota(await store.peek(this.subject), this.settings.quota, model.now),
      `${this.toString()} at ${model.now}`,
    ).to.deep.equal(expected);
  };
  toString = () => `peek(${this.subject}, +${this.step}ms)`;
}

/**
 * `count` simultaneous requests of `subject` at one instant. Identical requests give the same
 * results in any order, so the store must give exactly the results of applying the rule `count`
 * times (as a multiset) and end in the same state.
 */
class BurstCommand implements QuotaCommand {
  constructor(
    readonly settings: QuotaRun,
    readonly subject: string,
    readonly step: number,
    readonly count: number,
  ) {}
  check = () => true;
  run = async (model: QuotaModel, store: QuotaStore): Promise<void> => {
    model.now += this.step;
    const request = at(this.subject, model.now, this.settings.quota, this.settings.ban);
    const expected = Array.from({ length: this.count }, () => modelConsume(model, request));
    const actual = await Promise.all(Array.from({ length: this.count }, () => store.consume(request)));
    const sorted = (results: readonly ConsumeResult[]) => results.map((r) => JSON.stringify(observable(r))).sort();
    expect(sorted(actual).join(' '), `${this.toString()} at ${model.now}`).to.equal(sorted(expected).join(' '));
  };
  toString = () => `burst(${this.subject}, +${this.step}ms, ×${this.count})`;
}

const quotaCommandsArb = fc
  .record({
    quota: fc
      .record({ perMinute: fc.integer({ min: 1, max: 4 }), extra: fc.integer({ min: 0, max: 6 }) })
      .map(({ perMinute, extra }) => ({ perMinute, perDay: perMinute + extra })),
    ban: fc.record({ threshold: fc.integer({ min: 1, max: 4 }), seconds: fc.integer({ min: 1, max: 150 }) }),
  })
  .chain((run) => {
    const subject = fc.constantFrom('k:a', 'k:b', 'a:127.0.0.1');
    return fc.commands(
      [
        fc.tuple(subject, stepArb).map(([s, step]) => new ConsumeCommand(run, s, step)),
        fc
          .tuple(subject, stepArb, fc.integer({ min: 2, max: 8 }))
          .map(([s, step, n]) => new BurstCommand(run, s, step, n)),
        fc.tuple(subject, stepArb).map(([s, step]) => new PeekCommand(run, s, step)),
      ],
      // 'medium': sequences up to maxCommands long (the default size stops at about 10 commands).
      { maxCommands: 40, size: 'medium' },
    );
  });

/**
 * The `QuotaStore` contract: every adapter runs this same suite. `make` gives a fresh, empty
 * store each time it is called.
 */
export const quotaStoreContract = (
  name: string,
  make: MakeFixture<QuotaStore>,
  options: ContractOptions = {},
): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };

  describe(`QuotaStore contract: ${name}`, function () {
    it('admits while both windows have room, counting one unit in each', () =>
      withFixture(make, async (store) => {
        for (let i = 1; i <= 3; i++) {
          expect(await store.consume(at('s', T0 + i))).to.deep.equal({
            outcome: 'admitted',
            minuteCount: i,
            dayCount: i,
            bannedUntil: 0,
          });
        }
      }));

    it('rejects past the minute limit and a rejection consumes nothing', () =>
      withFixture(make, async (store) => {
        for (let i = 0; i < 3; i++) await store.consume(at('s', T0));
        expect(await store.consume(at('s', T0 + 1))).to.deep.equal({
          outcome: 'rejected',
          minuteCount: 3,
          dayCount: 3,
          bannedUntil: 0,
        });
        expect(await store.consume(at('s', T0 + 2))).to.deep.include({
          outcome: 'rejected',
          minuteCount: 3,
          dayCount: 3,
        });
      }));

    it('starts a new minute window at the UTC minute boundary, keeping the day count', () =>
      withFixture(make, async (store) => {
        for (let i = 0; i < 3; i++) await store.consume(at('s', T0 + 59_999));
        expect((await store.consume(at('s', T0 + 59_999))).outcome).to.equal('rejected');
        expect(await store.consume(at('s', T0 + 60_000))).to.deep.include({
          outcome: 'admitted',
          minuteCount: 1,
          dayCount: 4,
        });
      }));

    it('limits by the UTC day across minutes and starts afresh at midnight', () =>
      withFixture(make, async (store) => {
        for (let i = 0; i < 5; i++)
          expect((await store.consume(at('s', T0 + i * MINUTE_MS))).outcome).to.equal('admitted');
        expect(await store.consume(at('s', T0 + 6 * MINUTE_MS))).to.deep.include({
          outcome: 'rejected',
          minuteCount: 0,
          dayCount: 5,
        });
        const midnight = windowStart(T0, DAY_MS) + DAY_MS;
        expect(await store.consume(at('s', midnight))).to.deep.include({
          outcome: 'admitted',
          minuteCount: 1,
          dayCount: 1,
        });
      }));

    it('bans at the threshold-th rejection within a minute window, for exactly the ban length', () =>
      withFixture(make, async (store) => {
        for (let i = 0; i < 3; i++) await store.consume(at('s', T0));
        expect((await store.consume(at('s', T0 + 1))).outcome).to.equal('rejected');
        expect((await store.consume(at('s', T0 + 2))).outcome).to.equal('rejected');
        const banned = await store.consume(at('s', T0 + 3));
        expect(banned).to.deep.include({ outcome: 'banned', bannedUntil: T0 + 3 + 120_000 });
        // The ban outlives the minute window, and banned requests consume nothing.
        expect((await store.consume(at('s', T0 + 60_000))).outcome).to.equal('banned');
        expect(await store.consume(at('s', T0 + 3 + 119_999))).to.deep.include({ outcome: 'banned', dayCount: 3 });
        expect(await store.consume(at('s', T0 + 3 + 120_000))).to.deep.include({ outcome: 'admitted', dayCount: 4 });
      }));

    it('does not add up rejections from different minute windows', () =>
      withFixture(make, async (store) => {
        const q: Quota = { perMinute: 1, perDay: 100 };
        for (let m = 0; m < 4; m++) {
          const t = T0 + m * MINUTE_MS;
          expect((await store.consume(at('s', t, q))).outcome).to.equal('admitted');
          expect((await store.consume(at('s', t + 1, q))).outcome).to.equal('rejected');
          expect((await store.consume(at('s', t + 2, q))).outcome).to.equal('rejected');
        }
      }));

    it('keeps subjects apart', () =>
      withFixture(make, async (store) => {
        for (let i = 0; i < 3; i++) await store.consume(at('a', T0));
        expect((await store.consume(at('a', T0))).outcome).to.equal('rejected');
        expect(await store.consume(at('b', T0))).to.deep.include({ outcome: 'admitted', minuteCount: 1 });
      }));

    it('counts a request stamped before the stored minute (a clock behind) into that later minute: windows never move backwards', () =>
      withFixture(make, async (store) => {
        expect(await store.consume(at('s', T0 + 60_500))).to.deep.include({
          outcome: 'admitted',
          minuteCount: 1,
          dayCount: 1,
        });
        expect(await store.consume(at('s', T0 + 59_000))).to.deep.include({
          outcome: 'admitted',
          minuteCount: 2,
          dayCount: 2,
        });
        expect(await store.consume(at('s', T0 + 61_000))).to.deep.include({
          outcome: 'admitted',
          minuteCount: 3,
          dayCount: 3,
        });
        expect(await store.consume(at('s', T0 + 59_500))).to.deep.include({ outcome: 'rejected', minuteCount: 3 });
      }));

    it('never bans under a rule without a ban (NO_BAN, the allowance of GET /v1/me): every rejection stays a rejection', () =>
      withFixture(make, async (store) => {
        const q: Quota = { perMinute: 1, perDay: 100 };
        expect((await store.consume(at('s', T0, q, NO_BAN))).outcome).to.equal('admitted');
        for (let i = 1; i <= 40; i++)
          expect(await store.consume(at('s', T0 + i, q, NO_BAN)), `rejection ${i}`).to.deep.equal({
            outcome: 'rejected',
            minuteCount: 1,
            dayCount: 1,
            bannedUntil: 0,
          });
        const burst = await Promise.all(Array.from({ length: 20 }, () => store.consume(at('s', T0 + 50, q, NO_BAN))));
        expect(burst.map((r) => r.outcome)).to.deep.equal(Array.from({ length: 20 }, () => 'rejected'));
        expect((await store.consume(at('s', T0 + MINUTE_MS, q, NO_BAN))).outcome, 'the next minute').to.equal(
          'admitted',
        );
      }));

    it('peek: nothing for a subject never seen; then the stored state, read alike by readQuota', () =>
      withFixture(make, async (store) => {
        expect(await store.peek('s')).to.equal(undefined);
        await store.consume(at('s', T0));
        await store.consume(at('s', T0 + 1));
        const reading = readQuota(await store.peek('s'), quota, T0 + 2);
        expect(reading.windows.map((w) => w.remaining)).to.deep.equal([1, 3]);
        expect(reading.bannedUntil).to.equal(undefined);
        expect(await store.peek('other'), 'subjects apart').to.equal(undefined);
      }));

    it('peek changes nothing a later consume sees: the counts, the rejections toward a ban, the ban', () =>
      withFixture(make, async (store) => {
        for (let i = 0; i < 3; i++) await store.consume(at('s', T0));
        expect((await store.consume(at('s', T0 + 1))).outcome).to.equal('rejected');
        for (let i = 0; i < 5; i++) await store.peek('s');
        // Still one rejection to go before the ban (threshold 3): the reads counted none.
        expect((await store.consume(at('s', T0 + 2))).outcome).to.equal('rejected');
        for (let i = 0; i < 5; i++) await store.peek('s');
        expect(await store.consume(at('s', T0 + 3))).to.deep.include({
          outcome: 'banned',
          bannedUntil: T0 + 3 + 120_000,
          dayCount: 3,
        });
        const during = readQuota(await store.peek('s'), quota, T0 + 60_000);
        expect(during.bannedUntil, 'a read during the ban shows its end').to.equal(T0 + 3 + 120_000);
        expect(
          during.windows.map((w) => w.remaining),
          'nothing left while it runs',
        ).to.deep.equal([0, 0]);
        for (let i = 0; i < 5; i++) await store.peek('s');
        expect(await store.consume(at('s', T0 + 3 + 120_000))).to.deep.include({
          outcome: 'admitted',
          minuteCount: 1,
          dayCount: 4,
        });
        const after = readQuota(await store.peek('s'), quota, T0 + 3 + 120_001);
        expect(after.bannedUntil).to.equal(undefined);
        expect(after.windows.map((w) => w.remaining)).to.deep.equal([2, 1]);
      }));

    it('property: agrees with a plain Map moved by consumeQuota over any sequence of requests, simultaneous bursts and reads', () =>
      fc.assert(
        fc.asyncProperty(quotaCommandsArb, (commands) =>
          withFixture(make, (store) =>
            fc.asyncModelRun(
              () => ({
                model: { states: new Map<string, SubjectState>(), now: Date.UTC(2027, 5, 1, 23, 58) },
                real: store,
              }),
              commands,
            ),
          ),
        ),
        { ...runs },
      ));

    it('property: of N simultaneous requests under limit L, exactly min(N, L) are admitted', () =>
      fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 60 }), (n, limit) =>
          withFixture(make, async (store) => {
            const q: Quota = { perMinute: limit, perDay: limit };
            const wide: BanRule = { threshold: 1_000_000, seconds: 1 };
            const results = await Promise.all(Array.from({ length: n }, () => store.consume(at('hot', T0, q, wide))));
            const admitted = results.filter((r) => r.outcome === 'admitted');
            expect(admitted).to.have.length(Math.min(n, limit));
            expect(new Set(admitted.map((r) => r.minuteCount)).size).to.equal(admitted.length);
          }),
        ),
        { ...runs },
      ));

    it('property: any sequence of timestamped requests follows the admission and ban rules', () =>
      fc.assert(
        fc.asyncProperty(
          fc.record({ perMinute: fc.integer({ min: 1, max: 5 }), extraPerDay: fc.integer({ min: 0, max: 8 }) }),
          fc.record({ threshold: fc.integer({ min: 1, max: 4 }), seconds: fc.integer({ min: 1, max: 200 }) }),
          fc.integer({ min: 0, max: DAY_MS - 1 }),
          fc.array(stepArb, { minLength: 1, maxLength: 60, size: 'medium' }),
          ({ perMinute, extraPerDay }, b, startOffset, steps) =>
            withFixture(make, async (store) => {
              const q: Quota = { perMinute, perDay: perMinute + extraPerDay };
              const clock = new ManualClock(Date.UTC(2027, 5, 1) + startOffset);
              const admission = new Admission(store, clock, b);
              const subject: Subject = { id: 'k:prop', plan: 'enterprise', quota: q };
              const times: number[] = [];
              const decisions: AdmissionDecision[] = [];
              for (const step of steps) {
                clock.advance(step);
                times.push(clock.now());
                decisions.push(await admission.admit(subject));
              }
              checkDecisions(q, b, times, decisions);
            }),
        ),
        { ...runs },
      ));
  });
};

import { expect } from 'chai';
import fc from 'fast-check';
import {
  apiKeyRecord,
  consumeQuota,
  DAY_MS,
  decideAdmission,
  DEFAULT_BAN_RULE,
  isStateExpired,
  MINUTE_MS,
  NO_BAN,
  PLAN_QUOTAS,
  type BanRule,
  type SubjectState,
} from '../src/index.js';
import { isValidQuota } from '../src/quota/plans.js';
import { nodeDigests } from '../test-support/index.js';

const T0 = Date.UTC(2027, 4, 6, 9, 30, 0);

/**
 * Drives one subject with a quota of one request a minute: one admitted request, then `rejections`
 * more in the same minute. Answers every outcome after the admitted one and the state at the end.
 */
const reject = (rejections: number, ban: BanRule, start = T0) => {
  let state: SubjectState | undefined;
  const quota = { perMinute: 1, perDay: 1_000 };
  const first = consumeQuota(state, { subject: 's', now: start, quota, ban });
  expect(first.result.outcome).to.equal('admitted');
  state = first.state;
  const outcomes: { outcome: string; bannedUntil: number }[] = [];
  for (let i = 1; i <= rejections; i++) {
    const step = consumeQuota(state, { subject: 's', now: start + i, quota, ban });
    state = step.state;
    outcomes.push({ outcome: step.result.outcome, bannedUntil: step.result.bannedUntil });
  }
  return { outcomes, state };
};

describe('the default ban rule (docs/rules.md §5): 10 refusals within one UTC minute ban for 900 seconds', () => {
  it('holds those two numbers', () => {
    expect(DEFAULT_BAN_RULE).to.deep.equal({ threshold: 10, seconds: 900 });
  });

  it('the 9th refusal in a minute is still a refusal; the 10th bans, for exactly 900 s from it', () => {
    const { outcomes } = reject(10, DEFAULT_BAN_RULE);
    expect(outcomes.slice(0, 9).map((o) => o.outcome)).to.deep.equal(Array(9).fill('rejected'));
    expect(outcomes[8]!.bannedUntil, 'no ban after the 9th').to.equal(0);
    // The 10th refusal came at T0 + 10.
    expect(outcomes[9]).to.deep.equal({ outcome: 'banned', bannedUntil: T0 + 10 + 900_000 });
  });

  it('the ban holds until its last millisecond, also over new windows, and ends exactly 900 s after it began', () => {
    const { state } = reject(10, DEFAULT_BAN_RULE);
    const until = T0 + 10 + 900_000;
    const quota = { perMinute: 1, perDay: 1_000 };
    const at = (now: number) => consumeQuota(state, { subject: 's', now, quota, ban: DEFAULT_BAN_RULE }).result;
    expect(at(T0 + 2 * MINUTE_MS).outcome, 'a new minute').to.equal('banned');
    expect(at(until - 1)).to.deep.include({ outcome: 'banned', bannedUntil: until });
    expect(at(until).outcome, 'the ban is over').to.equal('admitted');
  });

  it('refusals of different minutes do not add up: 9 in one minute and 9 in the next ban nobody', () => {
    const { state } = reject(9, DEFAULT_BAN_RULE);
    const quota = { perMinute: 1, perDay: 1_000 };
    let next = state;
    const nextMinute = T0 + MINUTE_MS;
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i++) {
      const step = consumeQuota(next, { subject: 's', now: nextMinute + i, quota, ban: DEFAULT_BAN_RULE });
      next = step.state;
      outcomes.push(step.result.outcome);
    }
    expect(outcomes).to.deep.equal(['admitted', ...Array(9).fill('rejected')]);
  });

  it('a rule without a ban (NO_BAN) has a threshold no count of refusals reaches: a store comparing numbers never bans', () => {
    expect(NO_BAN.threshold > Number.MAX_SAFE_INTEGER).to.equal(true);
    const { outcomes } = reject(50, NO_BAN);
    expect(outcomes.every((o) => o.outcome === 'rejected' && o.bannedUntil === 0)).to.equal(true);
  });
});

describe('quota bounds (docs/rules.md §5): whole numbers, 1 ≤ per minute ≤ per day ≤ 2^53 − 1', () => {
  it('allows per day equal to per minute, and a single request a minute', () => {
    expect(isValidQuota({ perMinute: 1, perDay: 1 })).to.equal(true);
    expect(isValidQuota({ perMinute: 5, perDay: 5 })).to.equal(true);
    expect(isValidQuota({ perMinute: 1, perDay: 5 })).to.equal(true);
    expect(isValidQuota({ perMinute: Number.MAX_SAFE_INTEGER, perDay: Number.MAX_SAFE_INTEGER })).to.equal(true);
    expect(apiKeyRecord(nodeDigests, 'k', 'enterprise', { perMinute: 7, perDay: 7 })).to.deep.include({
      quota: { perMinute: 7, perDay: 7 },
    });
  });

  it('refuses zero a minute, more a minute than a day, fractions and numbers past 2^53 − 1 in either field', () => {
    const refused = [
      { perMinute: 0, perDay: 0 },
      { perMinute: 0, perDay: 5 },
      { perMinute: -1, perDay: 5 },
      { perMinute: 6, perDay: 5 },
      { perMinute: 1.5, perDay: 5 },
      { perMinute: 1, perDay: 5.5 },
      { perMinute: 1, perDay: 2 ** 53 },
      { perMinute: 2 ** 53, perDay: 2 ** 53 },
      { perMinute: 1, perDay: Number.POSITIVE_INFINITY },
      { perMinute: Number.NaN, perDay: 5 },
    ];
    for (const quota of refused) {
      expect(isValidQuota(quota), JSON.stringify(quota)).to.equal(false);
      expect(apiKeyRecord(nodeDigests, 'k', 'enterprise', quota), JSON.stringify(quota)).to.be.a('string');
    }
  });

  it('property: a quota is valid exactly when both are safe integers with 1 ≤ per minute ≤ per day', () => {
    const number = fc.oneof(
      fc.integer({ min: -3, max: 12 }),
      fc.double({ min: -3, max: 12, noNaN: true }),
      fc.constantFrom(2 ** 53, 2 ** 53 - 1),
    );
    fc.assert(
      fc.property(number, number, (perMinute, perDay) => {
        const whole = Number.isSafeInteger(perMinute) && Number.isSafeInteger(perDay);
        expect(isValidQuota({ perMinute, perDay })).to.equal(whole && perMinute >= 1 && perMinute <= perDay);
      }),
    );
  });

  it('the fixed plans of the table are valid quotas themselves', () => {
    for (const quota of Object.values(PLAN_QUOTAS)) expect(isValidQuota(quota)).to.equal(true);
  });
});

describe('isStateExpired: a stored state matters until its day has ended and no ban runs', () => {
  const dayStart = Date.UTC(2027, 4, 6);
  const state = (bannedUntil: number): SubjectState => ({
    minuteStart: dayStart,
    minuteCount: 1,
    minuteRejections: 0,
    dayStart,
    dayCount: 1,
    bannedUntil,
  });

  it('expires at the first millisecond of the next day, not before', () => {
    expect(isStateExpired(state(0), dayStart + DAY_MS - 1)).to.equal(false);
    expect(isStateExpired(state(0), dayStart + DAY_MS)).to.equal(true);
    expect(isStateExpired(state(0), dayStart)).to.equal(false);
  });

  it('a ban that runs past the day keeps the state until the ban ends', () => {
    const until = dayStart + DAY_MS + 5_000;
    expect(isStateExpired(state(until), dayStart + DAY_MS)).to.equal(false);
    expect(isStateExpired(state(until), until - 1)).to.equal(false);
    expect(isStateExpired(state(until), until)).to.equal(true);
    expect(isStateExpired(state(dayStart + 1), dayStart + DAY_MS), 'a ban that ended within the day').to.equal(true);
  });
});

describe('the binding window (docs/rules.md §5): fewer requests left, or on a tie the one that resets later', () => {
  it('property: at any instant, for any counts, the binding window is the one the rule names', () =>
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2027, 0, 1), max: Date.UTC(2027, 0, 4) }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom('admitted' as const, 'rejected' as const),
        (now, perMinute, minuteCount, extra, outcome) => {
          const quota = { perMinute, perDay: perMinute + 3 };
          const d = decideAdmission(
            { outcome, minuteCount, dayCount: minuteCount + extra, bannedUntil: 0 },
            quota,
            now,
          );
          const [minute, day] = d.windows;
          expect(minute.resetAt).to.be.at.most(day.resetAt);
          const expected =
            minute.remaining !== day.remaining
              ? minute.remaining < day.remaining
                ? minute
                : day
              : minute.resetAt > day.resetAt
                ? minute
                : day;
          expect(d.binding).to.deep.equal(expected);
          if (minute.remaining === day.remaining) expect(d.binding.name, 'a tie: the day').to.equal('day');
        },
      ),
    ));

  it('a tie in the day’s last minute, when both reset at once, reports the day', () => {
    const lastMinute = Date.UTC(2027, 0, 1, 23, 59, 30);
    const d = decideAdmission(
      { outcome: 'rejected', minuteCount: 5, dayCount: 10, bannedUntil: 0 },
      { perMinute: 5, perDay: 10 },
      lastMinute,
    );
    expect(d.windows[0].resetAt).to.equal(d.windows[1].resetAt);
    expect(d.binding.name).to.equal('day');
  });
});

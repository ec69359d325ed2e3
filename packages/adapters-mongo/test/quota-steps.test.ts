import { expect } from 'chai';
import fc from 'fast-check';
import { consumeQuota, DAY_MS, MINUTE_MS, windowStart, type ConsumeRequest, type SubjectState } from '@petstore/domain';
import { quotaFastSteps } from '../src/quota-store.mongo.js';

// The Mongo quota store answers its two common cases with single conditional `$inc`s whose filters
// restate branch conditions of `consumeQuota` (everything else is decided by `consumeQuota`
// itself). This checks those two steps against the rule over random states, without a database,
// by evaluating their filters and updates with MongoDB's semantics for the few operators they use
// (equality, $lt, $lte, $gte, $or over numbers; $inc). The contract suite runs the whole store on a
// server.

type Doc = Readonly<Record<string, number | string>>;

const matches = (filter: Readonly<Record<string, unknown>>, doc: Doc): boolean =>
  Object.entries(filter).every(([key, condition]) => {
    if (key === '$or') return (condition as Record<string, unknown>[]).some((branch) => matches(branch, doc));
    const value = doc[key];
    if (typeof condition !== 'object' || condition === null) return value === condition;
    return Object.entries(condition).every(([op, bound]) => {
      if (typeof value !== 'number' || typeof bound !== 'number') throw new Error(`${op} is modelled on numbers only`);
      switch (op) {
        case '$lt':
          return value < bound;
        case '$lte':
          return value <= bound;
        case '$gte':
          return value >= bound;
        default:
          throw new Error(`operator ${op} is not modelled`);
      }
    });
  });

const applyUpdate = (update: Readonly<Record<string, unknown>>, doc: Doc): Doc => {
  const next: Record<string, number | string> = { ...doc };
  for (const [op, fields] of Object.entries(update)) {
    if (op !== '$inc') throw new Error(`update operator ${op} is not modelled`);
    for (const [field, by] of Object.entries(fields as Record<string, number>))
      next[field] = (next[field] as number) + by;
  }
  return next;
};

const T0 = Date.UTC(2027, 2, 3, 23, 58, 30);

/** A request and a state near it: often in the same windows, sometimes older or newer, with and without a ban. */
const caseArb = fc
  .record({
    now: fc.integer({ min: T0, max: T0 + 5 * MINUTE_MS }),
    stateAt: fc.oneof(
      { weight: 4, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: -2 * MINUTE_MS, max: 2 * MINUTE_MS }) },
    ),
    perMinute: fc.integer({ min: 1, max: 5 }),
    extraPerDay: fc.integer({ min: 0, max: 5 }),
    threshold: fc.integer({ min: 1, max: 4 }),
    seconds: fc.integer({ min: 1, max: 120 }),
    minuteCount: fc.integer({ min: 0, max: 6 }),
    extraDay: fc.integer({ min: 0, max: 6 }),
    minuteRejections: fc.integer({ min: 0, max: 4 }),
    /** Where the ban ends relative to `now` (null: never banned); 0, the ban's last instant, comes up often. */
    ban: fc.oneof(fc.constant(null), fc.constant(0), fc.integer({ min: -3 * MINUTE_MS, max: 3 * MINUTE_MS })),
  })
  .map((c) => {
    const request: ConsumeRequest = {
      subject: 'k:s',
      now: c.now,
      quota: { perMinute: c.perMinute, perDay: c.perMinute + c.extraPerDay },
      ban: { threshold: c.threshold, seconds: c.seconds },
    };
    const at = c.now + c.stateAt;
    const state: SubjectState = {
      minuteStart: windowStart(at, MINUTE_MS),
      minuteCount: c.minuteCount,
      minuteRejections: c.minuteRejections,
      dayStart: windowStart(at, DAY_MS),
      dayCount: c.minuteCount + c.extraDay,
      bannedUntil: c.ban === null ? 0 : c.now + c.ban,
    };
    return { request, state };
  });

describe('QuotaStoreMongo fast steps: the two conditional $inc are consumeQuota (no database)', () => {
  it("property: where a step applies, it gives consumeQuota's outcome and next state; the steps never both apply", () =>
    fc.assert(
      fc.property(caseArb, ({ request, state }) => {
        const doc: Doc = { _id: request.subject, ...state };
        const { admit, reject } = quotaFastSteps(request);
        const expected = consumeQuota(state, request);
        const admits = matches(admit.filter, doc);
        const rejects = matches(reject.filter, doc);
        expect(admits && rejects, 'both steps apply').to.equal(false);
        if (admits) {
          expect(expected.result.outcome).to.equal('admitted');
          expect(applyUpdate(admit.update, doc)).to.deep.equal({ _id: request.subject, ...expected.state });
        }
        if (rejects) {
          expect(expected.result.outcome).to.equal('rejected');
          expect(applyUpdate(reject.update, doc)).to.deep.equal({ _id: request.subject, ...expected.state });
        }
      }),
      { numRuns: 2_000 },
    ));

  it('property: an admission or a rejection in the current windows is always served by its one step', () =>
    fc.assert(
      fc.property(caseArb, ({ request, state }) => {
        const inWindows =
          state.minuteStart === windowStart(request.now, MINUTE_MS) &&
          state.dayStart === windowStart(request.now, DAY_MS);
        const { result } = consumeQuota(state, request);
        fc.pre(inWindows && result.outcome !== 'banned');
        const doc: Doc = { _id: request.subject, ...state };
        const { admit, reject } = quotaFastSteps(request);
        expect(matches(result.outcome === 'admitted' ? admit.filter : reject.filter, doc), result.outcome).to.equal(
          true,
        );
      }),
      { numRuns: 500 },
    ));

  it("never applies to another subject's document", () => {
    const request: ConsumeRequest = {
      subject: 'k:a',
      now: T0,
      quota: { perMinute: 5, perDay: 5 },
      ban: { threshold: 3, seconds: 60 },
    };
    const state = {
      minuteStart: windowStart(T0, MINUTE_MS),
      minuteCount: 0,
      minuteRejections: 0,
      dayStart: windowStart(T0, DAY_MS),
      dayCount: 0,
      bannedUntil: 0,
    };
    expect(matches(quotaFastSteps(request).admit.filter, { _id: 'k:a', ...state })).to.equal(true);
    expect(matches(quotaFastSteps(request).admit.filter, { _id: 'k:b', ...state })).to.equal(false);
  });
});

import { expect } from 'chai';
import fc from 'fast-check';
import { consumeQuota, DAY_MS, MINUTE_MS, windowStart, type ConsumeRequest, type SubjectState } from '../src/index.js';
import { subjectStateArb } from './support/subject-states.js';

const T0 = Date.UTC(2027, 2, 3, 10, 15, 0);
const request = (now: number): ConsumeRequest => ({
  subject: 's',
  now,
  quota: { perMinute: 3, perDay: 10 },
  ban: { threshold: 2, seconds: 60 },
});

const stateArb = subjectStateArb(T0, { minuteCount: 5, minuteRejections: 3 });

describe('consumeQuota: windows never move backwards', () => {
  it('a request stamped before the stored minute counts into that later minute instead of resetting it', () => {
    const later: SubjectState = {
      minuteStart: T0 + MINUTE_MS,
      minuteCount: 2,
      minuteRejections: 0,
      dayStart: windowStart(T0, DAY_MS),
      dayCount: 7,
      bannedUntil: 0,
    };
    const { state, result } = consumeQuota(later, request(T0 + 30_000));
    expect(result).to.deep.equal({ outcome: 'admitted', minuteCount: 3, dayCount: 8, bannedUntil: 0 });
    expect(state.minuteStart).to.equal(T0 + MINUTE_MS);
    expect(consumeQuota(state, request(T0 + 30_001)).result.outcome).to.equal('rejected');
  });

  it('a request stamped on the previous day counts into the stored later day', () => {
    const midnight = windowStart(T0, DAY_MS) + DAY_MS;
    const nextDay: SubjectState = {
      minuteStart: midnight,
      minuteCount: 1,
      minuteRejections: 0,
      dayStart: midnight,
      dayCount: 1,
      bannedUntil: 0,
    };
    const { state, result } = consumeQuota(nextDay, request(midnight - 5));
    expect(result).to.deep.include({ outcome: 'admitted', minuteCount: 2, dayCount: 2 });
    expect([state.minuteStart, state.dayStart]).to.deep.equal([midnight, midnight]);
  });

  it('property: from any state and any time, the next state is never in an earlier window', () =>
    fc.assert(
      fc.property(stateArb, fc.integer({ min: T0 - 2 * DAY_MS, max: T0 + 2 * DAY_MS }), (state, now) => {
        const next = consumeQuota(state, request(now)).state;
        expect(next.minuteStart).to.be.at.least(state.minuteStart);
        expect(next.dayStart).to.be.at.least(state.dayStart);
        expect(next.minuteStart - next.dayStart).to.be.within(0, DAY_MS - MINUTE_MS);
      }),
    ));
});

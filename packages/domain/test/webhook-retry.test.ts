import { expect } from 'chai';
import fc from 'fast-check';
import type { Random } from '../src/index.js';
import {
  afterFailure,
  spanText,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_RETRY_JITTER,
  WEBHOOK_RETRY_SPAN_MS,
} from '../src/index.js';
import { SeededRandom } from '../test-support/index.js';

const fixed = (bytes: readonly number[]): Random => ({ bytes: () => Uint8Array.from(bytes) });

describe('the webhook retry schedule (docs/rules.md §15, "Retries")', () => {
  it('the table: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then a pause: 8 attempts in all', () => {
    expect(WEBHOOK_RETRY_DELAYS_MS).to.deep.equal([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(WEBHOOK_MAX_ATTEMPTS).to.equal(8);
    expect(WEBHOOK_RETRY_JITTER).to.equal(0.2);
    expect(spanText(WEBHOOK_RETRY_SPAN_MS)).to.equal('27 h 35 min');
  });

  it('property: after the n-th failure (n ≤ 7) the wait is within ±20 % of the n-th entry', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.uint8Array({ minLength: 4, maxLength: 4 }), (failures, bytes) => {
        const decision = afterFailure(failures, fixed([...bytes]));
        if (!decision.retry) throw new Error('paused early');
        const entry = WEBHOOK_RETRY_DELAYS_MS[failures - 1]!;
        expect(decision.delayMs).to.be.within(entry * 0.8, entry * 1.2);
        expect(Number.isInteger(decision.delayMs)).to.equal(true);
      }),
    );
  });

  it('property: the jitter spreads over the whole ±20 % (uniform: every tenth of the range is hit, none twice as often as fair)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.string({ minLength: 1, maxLength: 8 }), (failures, seed) => {
        const random = new SeededRandom(seed);
        const entry = WEBHOOK_RETRY_DELAYS_MS[failures - 1]!;
        const bins = Array.from({ length: 10 }, () => 0);
        const draws = 2000;
        for (let i = 0; i < draws; i++) {
          const decision = afterFailure(failures, random);
          if (!decision.retry) throw new Error('paused early');
          const place = (decision.delayMs / entry - 0.8) / 0.4;
          bins[Math.min(9, Math.floor(place * 10))]!++;
        }
        for (const count of bins) expect(count).to.be.within(draws / 10 / 2, (draws / 10) * 2);
      }),
      { numRuns: 20 },
    );
    // The ends of the range: the smallest and largest draws.
    expect(afterFailure(1, fixed([0, 0, 0, 0]))).to.deep.equal({ retry: true, delayMs: 4000 });
    expect(afterFailure(7, fixed([255, 255, 255, 255]))).to.deep.equal({ retry: true, delayMs: 43_200_000 });
  });

  it('property: a pause exactly after the 8th failed attempt, never before', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.string(), (failures, seed) => {
        const decision = afterFailure(failures, new SeededRandom(seed));
        expect(decision.retry).to.equal(failures < WEBHOOK_MAX_ATTEMPTS);
      }),
    );
    expect(() => afterFailure(0, new SeededRandom())).to.throw(RangeError);
  });

  it('spans read as people read them', () => {
    expect(spanText(0)).to.equal('0 s');
    expect(spanText(4_000)).to.equal('4 s');
    expect(spanText(303_000)).to.equal('5 min 3 s');
    expect(spanText(3_600_000)).to.equal('1 h');
    expect(spanText(99_300_000)).to.equal('27 h 35 min');
  });
});

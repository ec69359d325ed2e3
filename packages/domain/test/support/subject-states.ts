import fc from 'fast-check';
import { DAY_MS, MINUTE_MS, windowStart, type SubjectState } from '../../src/index.js';

/**
 * Any stored rate-limit state within two days of `t0` (docs/rules.md §5): windows aligned to their
 * UTC minute and day, a day count at least the minute's, and no ban, an ended one or a running one.
 * A state may lie in a later minute than the request a test makes (a clock that went back).
 */
export const subjectStateArb = (
  t0: number,
  most: { readonly minuteCount: number; readonly minuteRejections: number },
): fc.Arbitrary<SubjectState> =>
  fc
    .record({
      at: fc.integer({ min: t0 - 2 * DAY_MS, max: t0 + 2 * DAY_MS }),
      minuteCount: fc.integer({ min: 0, max: most.minuteCount }),
      minuteRejections: fc.integer({ min: 0, max: most.minuteRejections }),
      extraDay: fc.integer({ min: 0, max: 12 }),
      bannedUntil: fc.oneof(fc.constant(0), fc.integer({ min: t0 - DAY_MS, max: t0 + DAY_MS })),
    })
    .map(({ at, minuteCount, minuteRejections, extraDay, bannedUntil }) => ({
      minuteStart: windowStart(at, MINUTE_MS),
      minuteCount,
      minuteRejections,
      dayStart: windowStart(at, DAY_MS),
      dayCount: minuteCount + extraDay,
      bannedUntil,
    }));

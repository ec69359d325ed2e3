// What one webhook attempt comes to (docs/rules.md §15, "Retries and pauses", "Behind the
// retention", the deliveries log), as the pure rules of webhooks/delivery-outcome.ts state it.
import { expect } from 'chai';
import fc from 'fast-check';
import type { DeliveryCursor, WebhookResult } from '../src/index.js';
import { DELIVERY_OUTCOMES, WEBHOOK_RETRY_SPAN_MS, type RetryDecision } from '../src/index.js';
import { attemptOutcome, attemptsSpan, evictedPause, spentPause } from '../src/webhooks/delivery-outcome.js';

const cursorArb: fc.Arbitrary<DeliveryCursor> = fc.record({
  delivered: fc.nat(1_000),
  failures: fc.nat(7),
  retryAt: fc.nat(10_000),
});
const resultArb: fc.Arbitrary<WebhookResult> = fc.record(
  {
    outcome: fc.constantFrom(...DELIVERY_OUTCOMES),
    status: fc.option(fc.constantFrom(200, 204, 301, 404, 410, 500, 503), { nil: null }),
    durationMs: fc.nat(10_000),
    error: fc.constantFrom('the receiver answered 500', 'connection refused'),
  },
  { requiredKeys: ['outcome', 'status', 'durationMs'] },
);
/** An attempt at an event after the cursor (just after it, or further on when those between are of other types or left). */
const madeArb = fc
  .record({ cursor: cursorArb, ahead: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 50 })) })
  .chain(({ cursor, ahead }) =>
    fc.record({
      cursor: fc.constant(cursor),
      event: fc.constant({ id: `evt_${cursor.delivered + ahead}`, sequence: cursor.delivered + ahead }),
      at: fc.integer({ min: 0, max: 1e12 }),
      result: resultArb,
    }),
  );
/** A schedule that waits `delay` after any failure, or none (spent). */
const scheduleArb = fc.option(fc.nat(100_000), { nil: undefined });
const scheduleOf =
  (delay: number | undefined, asked: number[]) =>
  (failures: number): RetryDecision => {
    asked.push(failures);
    return delay === undefined ? { retry: false } : { retry: true, delayMs: delay };
  };

describe('attemptOutcome: an attempt’s log entry and the cursor’s move (docs/rules.md §15)', () => {
  it('property: the attempt counts the failures at the event just after the cursor, else it is the first; the log entry is the attempt as made', () =>
    fc.assert(
      fc.property(madeArb, scheduleArb, fc.nat(1e6), (made, delay, now) => {
        const { logged } = attemptOutcome(made, scheduleOf(delay, []), now);
        const { cursor, event, at, result } = made;
        const attempt = event.sequence === cursor.delivered + 1 ? cursor.failures + 1 : 1;
        expect(logged).to.deep.equal({
          eventId: event.id,
          sequence: event.sequence,
          attempt,
          at,
          status: result.status,
          outcome: result.outcome,
          durationMs: result.durationMs,
          ...(result.error === undefined ? {} : { error: result.error }),
        });
      }),
    ));

  it('property: delivered moves the cursor on to the event, with no failures and no wait, whatever the schedule', () =>
    fc.assert(
      fc.property(madeArb, scheduleArb, fc.nat(1e6), (made, delay, now) => {
        const asked: number[] = [];
        const delivered = { ...made, result: { ...made.result, outcome: 'delivered' as const } };
        expect(attemptOutcome(delivered, scheduleOf(delay, asked), now).move).to.deep.equal({
          kind: 'advance',
          next: { delivered: made.event.sequence, failures: 0, retryAt: 0 },
        });
        expect(asked, 'the schedule is not asked').to.deep.equal([]);
      }),
    ));

  it('property: a 410 that did not deliver pauses at once at the event, saying so; the schedule is not asked', () =>
    fc.assert(
      fc.property(madeArb, scheduleArb, fc.nat(1e6), (made, delay, now) => {
        fc.pre(made.result.outcome !== 'delivered');
        const asked: number[] = [];
        const gone = { ...made, result: { ...made.result, status: 410 } };
        expect(attemptOutcome(gone, scheduleOf(delay, asked), now).move).to.deep.equal({
          kind: 'pause',
          pause: {
            reason: `the receiver answered 410 Gone to event ${made.event.id} (sequence ${made.event.sequence}): it wants no more deliveries; enabling the subscription again resumes at that event`,
            delivered: made.cursor.delivered,
          },
        });
        expect(asked).to.deep.equal([]);
      }),
    ));

  it('property: any other failure asks the schedule for this attempt’s number: a wait puts the cursor just before the event with that many failures and the next attempt that long from now; none, the schedule is spent', () =>
    fc.assert(
      fc.property(madeArb, scheduleArb, fc.nat(1e6), (made, delay, now) => {
        fc.pre(made.result.outcome !== 'delivered' && made.result.status !== 410);
        const asked: number[] = [];
        const { logged, move } = attemptOutcome(made, scheduleOf(delay, asked), now);
        expect(asked).to.deep.equal([logged.attempt]);
        expect(move).to.deep.equal(
          delay === undefined
            ? { kind: 'spent' }
            : {
                kind: 'advance',
                next: { delivered: made.event.sequence - 1, failures: logged.attempt, retryAt: now + delay },
              },
        );
      }),
    ));
});

describe('the pauses a delivery makes (docs/rules.md §15)', () => {
  const last = {
    eventId: 'evt_7',
    sequence: 7,
    attempt: 8,
    at: 100_000_000,
    status: 500,
    outcome: 'failed' as const,
    durationMs: 7,
  };

  it('a spent schedule pauses at the event, naming the attempts, the span and what the last one came to', () => {
    const cursor = { delivered: 6, failures: 7, retryAt: 5 };
    expect(spentPause(cursor, last, 99_300_000)).to.deep.equal({
      reason: '8 attempts at event evt_7 (sequence 7) failed over 27 h 35 min; the last: the receiver answered 500',
      delivered: 6,
    });
    expect(spentPause(cursor, { ...last, error: 'connection refused' }, 4_000).reason).to.match(
      /failed over 4 s; the last: connection refused$/,
    );
    expect(spentPause(cursor, { ...last, status: null, outcome: 'timeout' }, 4_000).reason).to.match(
      /; the last: timeout$/,
    );
  });

  it('the span of the attempts at an event runs from its attempt 1 in the log to the end of the last; the schedule’s span when the log has it no longer, whatever other events’ first attempts it holds', () => {
    const row = (sequence: number, attempt: number, at: number) => ({ ...last, sequence, attempt, at });
    const recent = [last, row(7, 2, 50_000), row(7, 1, 1_000), row(6, 1, 500)];
    expect(attemptsSpan(recent, last)).to.equal(last.at + last.durationMs - 1_000);
    // Its first attempt's row lost (its log write failed): another event's attempt 1 is not it.
    expect(attemptsSpan([last, row(7, 2, 50_000), row(6, 1, 500)], last)).to.equal(WEBHOOK_RETRY_SPAN_MS);
    expect(attemptsSpan([last, row(8, 1, 500)], last)).to.equal(WEBHOOK_RETRY_SPAN_MS);
  });

  it('events lost for lack of room pause with the cursor just before the first event kept, saying so', () => {
    expect(evictedPause(40, 57)).to.deep.equal({
      reason:
        'events of its types up to sequence 40 left the feed before they were delivered (the store keeps only its newest events, and it was full); enabling the subscription again resumes at event 57, the first kept',
      delivered: 56,
    });
  });
});

import type { WebhookResult } from '../ports/webhook-sender.port.js';
import { spanText, WEBHOOK_RETRY_SPAN_MS, type RetryDecision } from './retry-schedule.js';
import type { DeliveryAttempt, DeliveryCursor, WebhookPause } from './webhook.js';

/**
 * What one attempt at an event comes to (docs/rules.md §15, "Retries and pauses", "Behind the
 * retention"), as plain rules: the attempt's number, its entry in the deliveries log, and where the
 * subscription's cursor goes, from the cursor the attempt started from, the sender's result, the
 * retry schedule and the clock. The dispatcher's workers make the writes.
 */

/**
 * The number of an attempt at event `sequence` from `cursor`: the failures a cursor counts are those
 * at the event just after its `delivered`; at any other (that one left the feed during its retries)
 * the attempt is a first one, with the whole schedule before it.
 */
const attemptNumber = (cursor: DeliveryCursor, sequence: number): number =>
  (sequence === cursor.delivered + 1 ? cursor.failures : 0) + 1;

/** Where an attempt moves the cursor. */
export type CursorMove =
  /** Delivered: on to the event. Failed with retries left: just before it, with its failures and wait. */
  | { readonly kind: 'advance'; readonly next: DeliveryCursor }
  /** A 410 Gone: paused at once, at the event. */
  | { readonly kind: 'pause'; readonly pause: WebhookPause }
  /** The last retry failed: paused at the event, its reason naming the attempts' span (`spentPause`). */
  | { readonly kind: 'spent' };

/** An attempt made: at which event, from which cursor, when, and what the sender answered. */
export interface AttemptMade {
  /** The subscription's cursor as the attempt found it. */
  readonly cursor: DeliveryCursor;
  readonly event: { readonly id: string; readonly sequence: number };
  /** Epoch ms it started. */
  readonly at: number;
  readonly result: WebhookResult;
}

/** What an attempt comes to: its log entry and the cursor's move. */
export interface AttemptOutcome {
  readonly logged: DeliveryAttempt;
  readonly move: CursorMove;
}

/**
 * The outcome of `made` at `now`: delivered → on to the event; a 410 → paused at once; another
 * failure → the next attempt after the wait `schedule` gives for the failures so far (the one table
 * of `retry-schedule.ts`, its jitter drawn), or, when it gives none, the schedule is spent.
 */
export const attemptOutcome = (
  made: AttemptMade,
  schedule: (failures: number) => RetryDecision,
  now: number,
): AttemptOutcome => {
  const { cursor, event, at, result } = made;
  const attempt = attemptNumber(cursor, event.sequence);
  const logged: DeliveryAttempt = {
    eventId: event.id,
    sequence: event.sequence,
    attempt,
    at,
    status: result.status,
    outcome: result.outcome,
    durationMs: result.durationMs,
    ...(result.error === undefined ? {} : { error: result.error }),
  };
  if (result.outcome === 'delivered')
    return { logged, move: { kind: 'advance', next: { delivered: event.sequence, failures: 0, retryAt: 0 } } };
  if (result.status === 410)
    return {
      logged,
      move: {
        kind: 'pause',
        pause: {
          reason: `the receiver answered 410 Gone to event ${event.id} (sequence ${event.sequence}): it wants no more deliveries; enabling the subscription again resumes at that event`,
          delivered: cursor.delivered,
        },
      },
    };
  const decision = schedule(attempt);
  if (!decision.retry) return { logged, move: { kind: 'spent' } };
  // Just before the event: every event between the cursor and it is of other types.
  const next = { delivered: event.sequence - 1, failures: attempt, retryAt: now + decision.delayMs };
  return { logged, move: { kind: 'advance', next } };
};

/**
 * How long the attempts at the event of `last` took: from the start of its first attempt (attempt 1
 * of that event among `recent`, the newest rows of the log) to the end of `last`; the schedule's
 * whole span when the log no longer has that first attempt.
 */
export const attemptsSpan = (recent: readonly DeliveryAttempt[], last: DeliveryAttempt): number => {
  const first = recent.find((row) => row.sequence === last.sequence && row.attempt === 1);
  return first === undefined ? WEBHOOK_RETRY_SPAN_MS : last.at + last.durationMs - first.at;
};

/** What an attempt that did not deliver came to, in a few words (never the answer's body). */
const failureText = (last: DeliveryAttempt): string =>
  last.error ?? (last.status === null ? last.outcome : `the receiver answered ${last.status}`);

/**
 * The pause once the schedule is spent, at the event (a resume sends it again): the attempts made,
 * over `spanMs` (from the first one's start to the end of `last`), and what `last` came to.
 */
export const spentPause = (cursor: DeliveryCursor, last: DeliveryAttempt, spanMs: number): WebhookPause => ({
  reason: `${last.attempt} attempts at event ${last.eventId} (sequence ${last.sequence}) failed over ${spanText(spanMs)}; the last: ${failureText(last)}`,
  delivered: cursor.delivered,
});

/**
 * The pause of a subscription some of whose events (of its types, up to sequence `evicted`) left the
 * feed for lack of room before it delivered them: its cursor just before `firstKept`, the first event
 * kept, where a resume goes on (the lost events cannot come back).
 */
export const evictedPause = (evicted: number, firstKept: number): WebhookPause => ({
  reason: `events of its types up to sequence ${evicted} left the feed before they were delivered (the store keeps only its newest events, and it was full); enabling the subscription again resumes at event ${firstKept}, the first kept`,
  delivered: firstKept - 1,
});

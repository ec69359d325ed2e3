import type { EventType } from '../events/event.js';
import type { Lease } from '../lease.js';

/**
 * Webhooks (docs/rules.md §15, "Webhooks"): subscriptions that deliver the event feed to a URL,
 * signed (Standard Webhooks 1.0), in `sequence` order, one event at a time per subscription, retried
 * on a fixed schedule and paused (never dropped) when the schedule runs out. This file holds the
 * types and the numbers; `retry-schedule.ts` when an attempt is made again; the use cases
 * `WebhookAdmin` (the API) and `WebhookDispatcher` (delivery); the ports `WebhookStore`,
 * `WebhookSender` and `WebhookTargets`.
 */

/** Longest URL a subscription may have. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** Random bytes in a secret (`whsec_` + their standard base64). */
export const WEBHOOK_SECRET_BYTES = 32;
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** How long the secret a rotation replaced still signs deliveries, with the new one. */
export const WEBHOOK_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** A delivery succeeds with a 2xx answered within this time (the whole exchange: connect, send, headers, body). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** At most this much of a receiver's answer is read (and dropped). */
export const WEBHOOK_MAX_ANSWER_BYTES = 64 * 1024;
/** Attempts kept in a subscription's deliveries log (the newest). */
export const WEBHOOK_DELIVERIES_KEPT = 1000;
/** How long a process's hold on a subscription (its lease) lasts unless renewed. */
export const WEBHOOK_LEASE_MS = 30_000;
/** Longest `description`. */
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;

/** What a delivery attempt came to (docs/rules.md §15, the deliveries log). */
export type DeliveryOutcome =
  /** A 2xx within the time limit. */
  | 'delivered'
  /** An answer with another status (a redirect among them: never followed). */
  | 'failed'
  /** No complete answer within the time limit (a receiver that hangs, or drips its answer). */
  | 'timeout'
  /** No connection, or it broke before an answer: refused, reset, no such host. */
  | 'unreachable'
  /** The URL's host is, or now resolves to, an address a delivery may not go to: nothing was sent. */
  | 'refused';

export const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = [
  'delivered',
  'failed',
  'timeout',
  'unreachable',
  'refused',
];

/** A signing secret of a subscription. */
export interface WebhookSecret {
  /** `whsec_` + base64 of `WEBHOOK_SECRET_BYTES` random bytes. */
  readonly secret: string;
  /** Epoch ms after which it no longer signs (a secret a rotation replaced); absent: the current one. */
  readonly expiresAt?: number;
}

/** Where a subscription stands in the feed, and its current attempt. */
export interface DeliveryCursor {
  /** Every event up to this `sequence` was delivered (or does not match the subscription's types): the next one delivered is the first matching after it. */
  readonly delivered: number;
  /** Failed attempts made so far at the next event (0: none yet). */
  readonly failures: number;
  /** Epoch ms before which the next attempt is not made (0: at once). */
  readonly retryAt: number;
}

/** A subscription as a store keeps it. */
export interface StoredWebhook extends DeliveryCursor {
  /** `wh_` + 24 lowercase hex. */
  readonly id: string;
  /** Its place in the list (ascending in order of creation; never reused). */
  readonly position: number;
  readonly url: string;
  /** Only events of these types (never empty); every type when absent. */
  readonly types?: readonly EventType[];
  readonly description: string;
  readonly enabled: boolean;
  /** Why it was paused (`enabled: false` by a delivery that gave up, or a 410); null when enabled or disabled by an admin. */
  readonly pausedReason: string | null;
  /** Epoch ms. */
  readonly createdAt: number;
  /** The current secret first, then those a rotation replaced that still sign (with `expiresAt`). */
  readonly secrets: readonly WebhookSecret[];
  /** Bumped by every change of the fields above or of the cursor (not by a lease's renewal). */
  readonly revision: number;
  /** The process delivering it, while one holds it (`WebhookStore.lease`; `leaseAllows` says who may take it). */
  readonly lease?: Lease;
}

/** How a delivery pauses a subscription (`WebhookStore.pause`): why, and where its cursor then stands. */
export interface WebhookPause {
  /** Its `pausedReason`. */
  readonly reason: string;
  /**
   * Its `delivered` while paused, a resume delivering the events after it: the one it had (the event
   * that failed is sent again), or, when events after it left the feed for lack of room, the one
   * just before the first event kept.
   */
  readonly delivered: number;
}

/** A subscription before the store gives it its list position. */
export type NewWebhook = Omit<StoredWebhook, 'position' | 'revision' | 'lease'>;

/** What an admin's `PATCH` (or a rotation) changes; absent fields stay as they are. */
export interface WebhookChanges {
  readonly url?: string;
  /** `null`: every type again. */
  readonly types?: readonly EventType[] | null;
  readonly description?: string;
  /** `true` resumes a paused or disabled subscription at the event it stands at (its failures and wait cleared, `pausedReason` null); `false` disables it (`pausedReason` null). */
  readonly enabled?: boolean;
  readonly secrets?: readonly WebhookSecret[];
}

/** One attempt, as the deliveries log keeps it (nothing of the receiver's answer body). */
export interface DeliveryAttempt {
  readonly eventId: string;
  readonly sequence: number;
  /** 1 for the first attempt at this event, 2 for its first retry, … (counted again from 1 after a resume). */
  readonly attempt: number;
  /** Epoch ms the attempt started. */
  readonly at: number;
  /** The receiver's HTTP status; null when none came. */
  readonly status: number | null;
  readonly outcome: DeliveryOutcome;
  readonly durationMs: number;
  /** Why it failed, in a few words (never the answer's body, never a secret). */
  readonly error?: string;
}

/** A logged attempt with its place in the subscription's log (ascending; the log is read newest first). */
export interface StoredDelivery extends DeliveryAttempt {
  readonly number: number;
}

/** A subscription as the API shows it: never a secret. */
export interface Webhook {
  readonly id: string;
  readonly url: string;
  readonly types?: readonly EventType[];
  readonly description: string;
  readonly enabled: boolean;
  readonly pausedReason: string | null;
  /** ISO 8601. */
  readonly createdAt: string;
}

/** The answer to a create or a rotation: the only places a secret ever appears. */
export interface WebhookWithSecret extends Webhook {
  readonly secret: string;
}

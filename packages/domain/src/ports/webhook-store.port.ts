import type {
  DeliveryAttempt,
  DeliveryCursor,
  NewWebhook,
  StoredDelivery,
  StoredWebhook,
  WebhookChanges,
  WebhookPause,
} from '../webhooks/webhook.js';

/**
 * The subscriptions of docs/rules.md §15 ("Webhooks"), their place in the feed, their leases and
 * their deliveries logs. Each method is safe under concurrent callers in several processes sharing
 * the store, with no transaction: `update` and the delivery writes (`lease`, `release`, `advance`,
 * `pause`) are each one atomic single-document write; the others are a few steps, each atomic on
 * its own and ordered so that any prefix of them is harmless (MongoDB's `insert` takes a position
 * from a counter, then inserts under the unique id; `remove` marks the subscription removed, then
 * deletes its log; `log` numbers the attempt on the subscription, inserts it, then trims the log).
 * Implementations throw `StoreUnavailableError` when the store cannot answer. A removed subscription
 * is found by nothing (its log and lease go with it).
 *
 * **Leases.** One process at a time delivers a subscription: it holds the subscription's lease
 * (`holder`, `until`), taken with `lease` and renewed by calling it again. The delivery writes
 * (`advance`, `pause`) are conditional on the caller still holding it and on the cursor being the one
 * it read, so a process whose lease lapsed (paused, partitioned) cannot overwrite the work of the
 * process that took over: at worst an event is sent twice, never skipped.
 */
export interface WebhookStore {
  // --- The API's operations (WebhookAdmin) ---

  /**
   * Stores a new subscription at a list position above every position given before (1, 2, 3, …),
   * atomically also under concurrent inserts from several processes; `revision` 1, no lease.
   * `taken` when a subscription with this id exists (or existed: ids are never reused).
   */
  insert(webhook: NewWebhook): Promise<StoredWebhook | 'taken'>;
  findById(id: string): Promise<StoredWebhook | undefined>;
  /** Subscriptions with `position > afterPosition`, ascending position, at most `limit`. */
  list(afterPosition: number, limit: number): Promise<readonly StoredWebhook[]>;
  /**
   * Applies `changes` and bumps `revision`; `enabled: true` also clears `failures`, `retryAt` and
   * `pausedReason` (the cursor's `delivered` stays: the subscription resumes at the event it stands
   * at); `enabled: false` sets `pausedReason` to null. `undefined` when there is no such subscription.
   */
  update(id: string, changes: WebhookChanges): Promise<StoredWebhook | undefined>;
  /** Removes the subscription, its lease and its deliveries log. False when there was none. */
  remove(id: string): Promise<boolean>;

  // --- Delivery (WebhookDispatcher) ---

  /** Every enabled subscription, in list order (the dispatcher looks among them for work). */
  enabled(): Promise<readonly StoredWebhook[]>;
  /**
   * Takes or renews the lease of subscription `id` for `holder` until `until`, atomically: when it
   * is enabled and its lease is free, held by `holder`, or has run out (`until <= now`). Answers the
   * subscription as it is after the write when `holder` holds it now, else `undefined` (no such
   * subscription, disabled, or another holder's lease runs). Of N simultaneous takes of a free lease
   * exactly one succeeds, also across processes.
   */
  lease(id: string, holder: string, now: number, until: number): Promise<StoredWebhook | undefined>;
  /** Gives the lease up when `holder` holds it (another process may take it at once); else nothing. */
  release(id: string, holder: string): Promise<void>;
  /**
   * Moves the cursor from `from` to `next` (bumping `revision`), atomically and only when the
   * subscription is enabled, `holder` holds its lease, and its cursor still equals `from`
   * (`delivered` and `failures`). Answers the subscription after the write, or `undefined` when a
   * condition failed (nothing written).
   */
  advance(id: string, holder: string, from: DeliveryCursor, next: DeliveryCursor): Promise<StoredWebhook | undefined>;
  /**
   * Pauses the subscription under the conditions of `advance` (bumping `revision`): `enabled: false`,
   * `pausedReason` `pause.reason`, `delivered` `pause.delivered`, `failures` and `retryAt` 0.
   */
  pause(id: string, holder: string, from: DeliveryCursor, pause: WebhookPause): Promise<StoredWebhook | undefined>;
  /**
   * Appends an attempt to the subscription's log with the next `number` (1, 2, 3, …), keeping only
   * the newest `WEBHOOK_DELIVERIES_KEPT`; nothing when there is no such subscription.
   */
  log(id: string, attempt: DeliveryAttempt): Promise<void>;
  /** The subscription's logged attempts with `number < before` (all when absent), newest first, at most `limit`. */
  deliveries(id: string, before: number | undefined, limit: number): Promise<readonly StoredDelivery[]>;
}

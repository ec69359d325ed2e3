import type { Clock } from '../ports/clock.port.js';
import type { EventStore } from '../ports/event-store.port.js';
import type { Random } from '../ports/random.port.js';
import type { WebhookStore } from '../ports/webhook-store.port.js';
import type { WebhookSender } from '../ports/webhook-sender.port.js';
import { leaseAllows } from '../lease.js';
import { WEBHOOK_LEASE_MS, type DeliveryAttempt } from '../webhooks/webhook.js';
import type { Timers } from './event-relay.js';
import { Sleeps, type DispatchContext } from './dispatch-context.js';
import { FeedWatcher } from './feed-watcher.js';
import { SubscriptionWorker } from './subscription-worker.js';

export interface DispatcherOptions {
  /** Told of every attempt once it is made (for `petstore_webhook_deliveries_total{outcome}`). */
  readonly onAttempt?: (webhookId: string, attempt: DeliveryAttempt) => void;
  /**
   * Told of a scan, a worker or the feed watcher that failed (a store that did not answer): the scan
   * runs again, the worker ends and is restarted by a scan, the watcher looks again a second later.
   */
  readonly onError?: (error: unknown) => void;
  /**
   * How long a lease taken or renewed lasts (default `WEBHOOK_LEASE_MS`); renewed at least every
   * third of it, and just before each attempt, so it must exceed the sender's `WEBHOOK_TIMEOUT_MS`
   * (an attempt is not interrupted to renew it).
   */
  readonly leaseMs?: number;
  /** How often it looks for subscriptions to take (default 1000 ms). */
  readonly scanMs?: number;
}

const SCAN_MS = 1000;

/**
 * Delivers the subscriptions of docs/rules.md §15 ("Webhooks"), with the dispatchers of the other
 * processes sharing the store: every `scanMs` it takes the lease of each enabled subscription whose
 * lease is free, lapsed or its own and that it is not working on, and starts a `SubscriptionWorker`
 * for it; one `FeedWatcher` wakes the workers for the events of their types. docs/design.md
 * ("Webhooks: one cursor per subscription, one holder at a time") says how and why.
 */
export class WebhookDispatcher {
  private readonly context: DispatchContext;
  private readonly scanMs: number;
  private readonly sleeps: Sleeps;
  /** Each subscription this process works on, its worker. */
  private readonly workers = new Map<string, SubscriptionWorker>();
  private readonly watcher: FeedWatcher;
  private stopped = true;
  private scanTimer: unknown;
  private scanning: Promise<void> | undefined;
  /** The current chain of scans (`start` begins a new one): a token compared by identity. */
  private chain: object = {};

  constructor(
    webhooks: WebhookStore,
    events: EventStore,
    sender: WebhookSender,
    clock: Clock,
    private readonly timers: Timers,
    random: Random,
    /** This process's name in the leases (unique per process: several share one store). */
    holder: string,
    options: DispatcherOptions = {},
  ) {
    const leaseMs = options.leaseMs ?? WEBHOOK_LEASE_MS;
    this.scanMs = options.scanMs ?? SCAN_MS;
    this.sleeps = new Sleeps(timers);
    this.context = {
      webhooks,
      events,
      sender,
      clock,
      timers,
      random,
      holder,
      leaseMs,
      renewMs: Math.max(1, Math.floor(leaseMs / 3)),
      onAttempt: options.onAttempt,
      onError: options.onError,
      stopped: () => this.stopped,
      sleep: (ms) => this.sleeps.sleep(ms),
    };
    this.watcher = new FeedWatcher(this.context, this.workers);
  }

  /**
   * Starts the scans (one at once) and the feed watcher. A start after a stop that is still under way
   * begins a new chain of scans; the old one ends with the scan it was in (never two chains, which
   * could start two workers for one subscription).
   */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const chain = {};
    this.chain = chain;
    this.watcher.start();
    this.runScan(chain);
  }

  /**
   * Takes no more work, ends every wait at once, waits for the attempts under way (their outcome
   * still recorded), and releases its leases: another process may take its subscriptions at once.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.clearTimeout(this.scanTimer);
    this.scanTimer = undefined;
    const watched = this.watcher.stop();
    this.sleeps.cancelAll();
    for (const worker of this.workers.values()) worker.wake();
    await watched;
    await this.scanning;
    await Promise.all([...this.workers.values()].map((worker) => worker.ended));
  }

  /**
   * `petstore_webhook_lag_seconds`: the age, by the clock, of the oldest event an enabled
   * subscription has not yet delivered (its next matching event); 0 when none waits.
   */
  async lagSeconds(): Promise<number> {
    const { webhooks, events, clock } = this.context;
    let oldest: number | undefined;
    for (const webhook of await webhooks.enabled()) {
      const [next] = await events.after(webhook.delivered, {
        // Stryker disable next-line ConditionalExpression: { types: undefined } reads every type, as no types does
        ...(webhook.types === undefined ? {} : { types: webhook.types }),
        limit: 1,
      });
      if (next === undefined) continue;
      const at = Date.parse(next.occurredAt);
      oldest = Math.min(oldest ?? at, at);
    }
    return oldest === undefined ? 0 : Math.max(0, (clock.now() - oldest) / 1000);
  }

  /**
   * One scan of chain `chain`, then the next after `scanMs` while this chain is the current one and
   * no stop came (a stop clears the timer of the next; a start after a stop begins another chain).
   */
  private runScan(chain: object): void {
    this.scanTimer = undefined;
    this.scanning = this.scan().then(() => {
      if (!this.stopped && chain === this.chain)
        this.scanTimer = this.timers.setTimeout(() => this.runScan(chain), this.scanMs);
    });
  }

  /** Takes the subscriptions it may, and starts a worker for each one taken. */
  private async scan(): Promise<void> {
    const { webhooks, clock, holder, leaseMs, onError } = this.context;
    try {
      for (const webhook of await webhooks.enabled()) {
        if (this.stopped) return;
        if (this.workers.has(webhook.id)) continue;
        const now = clock.now();
        if (!leaseAllows(webhook.lease, holder, now)) continue;
        const leased = await webhooks.lease(webhook.id, holder, now, now + leaseMs);
        if (leased === undefined) continue;
        // It starts from the cursor as stored. Stopped meanwhile: it gives the lease up at once, and `stop` waits for it.
        const worker = new SubscriptionWorker(
          this.context,
          () => this.watcher.seenThrough,
          leased,
          now,
          () => this.workers.delete(webhook.id),
        );
        this.workers.set(webhook.id, worker);
        worker.start();
        this.watcher.workerAdded();
      }
    } catch (error) {
      onError?.(error);
    }
  }
}

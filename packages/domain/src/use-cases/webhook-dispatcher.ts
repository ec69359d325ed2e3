import type { Clock } from '../ports/clock.port.js';
import { isPromise } from '../ports/answer.js';
import type { EventStore } from '../ports/event-store.port.js';
import type { Random } from '../ports/random.port.js';
import type { WebhookStore } from '../ports/webhook-store.port.js';
import type { WebhookRequest, WebhookResult, WebhookSender } from '../ports/webhook-sender.port.js';
import { eventJson, type Event } from '../events/event.js';
import type { Timers } from './event-relay.js';
import { afterFailure, spanText, WEBHOOK_RETRY_SPAN_MS } from '../webhooks/retry-schedule.js';
import {
  WEBHOOK_LEASE_MS,
  type DeliveryAttempt,
  type DeliveryCursor,
  type StoredWebhook,
} from '../webhooks/webhook.js';

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

/**
 * Events read per look at the feed (the next matching event is searched among them). The read asks
 * for every type, not the subscription's: a read that ends at the end of the feed says by itself how
 * far it looked (a filtered read that finds nothing would need the last sequence read before it),
 * and in memory a read of the one new event is a slice of the feed, cheaper than a filtered read
 * (which merges the lists of the types asked).
 */
const FEED_PAGE = 100;
const SCAN_MS = 1000;
/**
 * The feed watcher's wait on the feed: without a timeout (an event ends it, `stop` at once), so that
 * an event costs the process no timer set and cleared (Node files timers by their duration: one
 * that comes and goes makes and drops its list each time).
 */
const WATCH_MS = Number.POSITIVE_INFINITY;
/** How long the feed watcher waits after its store failed before it looks again (`stop` ends it). */
const WATCH_RETRY_MS = 1000;

const cursorOf = (webhook: StoredWebhook): DeliveryCursor => ({
  delivered: webhook.delivered,
  failures: webhook.failures,
  retryAt: webhook.retryAt,
});

/** What an attempt that did not deliver came to, in a few words (never the answer's body). */
const failureText = (result: WebhookResult): string =>
  result.error ?? (result.status === null ? result.outcome : `the receiver answered ${result.status}`);

/** What a worker knows between its turns (one per subscription this process holds). */
interface Worker {
  /**
   * The subscription as the store last answered it (the renewal of the lease, or a move of the
   * cursor): its `delivered` is the cursor as stored, its types, URL and secrets those in force.
   */
  held: StoredWebhook;
  /**
   * How far the worker looked through the feed: every event in (`held.delivered`, `position`] is of
   * none of `held.types`. Kept here, not written per event; the next renewal on the lease's period,
   * or the next attempt, writes it.
   */
  position: number;
  /** Events after `position` read and not yet looked at (of every type, in order, without a gap). */
  ahead: readonly Event[];
  /**
   * Whether `ahead` reaches the end of the feed as it was at the read (a page that was not full), and
   * the worker was not woken since: once `ahead` is spent, a read would find nothing, so it waits.
   */
  atEnd: boolean;
  /** Epoch ms the lease is due for its renewal: a third of `leaseMs` after the last one. */
  renewAt: number;
  /**
   * Ends the worker's wait under way: set only while it waits (it is idle), so the feed watcher wakes
   * only idle workers; `undefined` while the worker is busy.
   */
  wake: (() => void) | undefined;
  /** A wake that came while the worker was busy (its renewal, or `stop`): its next wait returns at once. */
  woken: boolean;
  /** The timer that wakes the worker for its renewal (`undefined` when none is set). */
  renewal: unknown;
}

/**
 * Delivers the subscriptions of docs/rules.md §15 ("Webhooks"), together with the dispatchers of the
 * other processes sharing the store. Every `scanMs` it reads the enabled subscriptions and takes the
 * lease of each one whose lease is free, lapsed or its own and that it is not working already; each
 * subscription it holds gets a worker of its own, so a receiver that hangs delays only its own
 * deliveries. A worker holds the subscription as the store last answered it and its own position in
 * the feed, and turns: it reads the feed after its position (a page of every type, used until spent)
 * and steps over the events none of whose types match, in memory only; when none is left, it waits
 * on a promise, no timer. One feed watcher per dispatcher waits on the feed (the store's wait, one
 * for the whole process), reads each new event once, and wakes only the idle workers that have an
 * event of their types among them beyond their position; the others sleep on, and read the events
 * they slept through at their next turn. So an event of other types costs a subscription nothing
 * (ten of them, each with its own wait and read per event, added a third to a `POST /v1/pets`), and
 * one of its types a wake. A worker does not sleep on events the watcher examined while it was busy
 * (reading, or sending): it reads them first, and a wake that came while it was busy ends its next
 * wait at once, so no wake is lost. Its other wake is the timer of its lease's renewal, set once per
 * period: the lease is renewed on its period, every third of `leaseMs`, also while the worker waits
 * for a retry; that renewal, after a read of what the worker slept through, also writes the position
 * it stepped to (one write per period, not per event).
 * For an event of its types, the worker renews the lease just before the attempt and works from the
 * subscription as the renewal answered it, so an admin's change (URL, types, secrets, `enabled`)
 * counts before anything is sent; it sends the event (the same `webhook-id` on every attempt), logs
 * the attempt, and moves the cursor, which records its position too: on to the event on success,
 * else just before it with its failures and retry time by the retry schedule, or a pause after the
 * last retry, or at once on a 410. A position is worth only the types it was computed with: a
 * renewal that answers the subscription changed (its `revision`: new types, a cursor another holder
 * moved) throws it away, and the worker goes on from the `delivered` stored, reading those events
 * again. Every write is conditional on the lease and on the cursor it read: when one answers
 * nothing (another process took over, an admin disabled or removed the subscription), or the lease
 * is lost, or the store fails, the worker ends (the position it did not write is lost: it is only
 * read again) and a later scan starts it again from the store. So one event at a time, in order, per
 * subscription, and at least once: an attempt whose recording was lost is made again.
 *
 * Events purged while a subscription stood behind them (paused, or disabled, longer than the
 * retention): the feed's reads start at the first event kept, so the subscription goes on with that
 * one; the purged events are not delivered (docs/rules.md §15 promises every event only within the
 * retention). No pause: a resume could never bring them back, and pausing again would only stop
 * the events that can still be delivered. Failures counted at an event purged during its retries
 * (possible only with a retention shorter than the schedule's 27 h) do not count for the next one.
 */
export class WebhookDispatcher {
  private readonly leaseMs: number;
  private readonly scanMs: number;
  private readonly renewMs: number;
  /** Each subscription this process works on: its worker's state, and the worker's end. */
  private readonly workers = new Map<string, { readonly worker: Worker; readonly ended: Promise<void> }>();
  /** The sleeps under way (for a retry), each one's `cancel`: `stop` ends them at once. */
  private readonly sleeps = new Set<() => void>();
  private stopped = true;
  private scanTimer: unknown;
  private scanning: Promise<void> | undefined;
  /** Which chain of scans (and feed watcher) is the current one (`start` begins a new one). */
  private chain = 0;
  /**
   * The last sequence the feed watcher has examined (`-Infinity` until it has learned where the feed
   * ends): every idle worker was woken for an event up to it of its types beyond its position.
   */
  private seen = Number.NEGATIVE_INFINITY;
  /** Ends the feed watcher's wait for a first worker (a scan calls it whenever it starts one). */
  private workerStarted: () => void = () => undefined;
  /** Ends the feed watcher's wait on the feed under way: `stop` calls it. */
  private endWatch: () => void = () => undefined;
  /** The feed watcher's loop, until `stop`. */
  private watching: Promise<void> | undefined;

  constructor(
    private readonly webhooks: WebhookStore,
    private readonly events: EventStore,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly random: Random,
    /** This process's name in the leases (unique per process: several share one store). */
    private readonly holder: string,
    private readonly options: DispatcherOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? WEBHOOK_LEASE_MS;
    this.scanMs = options.scanMs ?? SCAN_MS;
    this.renewMs = Math.max(1, Math.floor(this.leaseMs / 3));
  }

  /**
   * Starts the scans (one at once). A start after a stop that is still under way begins a new chain
   * of scans; the old one ends with the scan it was in (never two chains, which could start two
   * workers for one subscription).
   */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const chain = ++this.chain;
    this.seen = Number.NEGATIVE_INFINITY;
    const stopping = new Promise<void>((resolve) => (this.endWatch = resolve));
    this.watching = this.watch(chain, stopping);
    this.runScan(chain);
  }

  /**
   * Takes no more work, ends every wait at once, waits for the attempts under way (their outcome
   * still recorded), and releases its leases: another process may take its subscriptions at once.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.scanTimer !== undefined) {
      this.timers.clearTimeout(this.scanTimer);
      this.scanTimer = undefined;
    }
    this.endWatch();
    for (const cancel of [...this.sleeps]) cancel();
    for (const { worker } of this.workers.values()) this.wakeWorker(worker);
    await this.watching;
    await this.scanning;
    await Promise.all([...this.workers.values()].map(({ ended }) => ended));
  }

  /**
   * `petstore_webhook_lag_seconds`: the age, by the clock, of the oldest event an enabled
   * subscription has not yet delivered (its next matching event); 0 when none waits.
   */
  async lagSeconds(): Promise<number> {
    let oldest: number | undefined;
    for (const webhook of await this.webhooks.enabled()) {
      const [next] = await this.events.after(webhook.delivered, {
        ...(webhook.types === undefined ? {} : { types: webhook.types }),
        limit: 1,
      });
      if (next === undefined) continue;
      const at = Date.parse(next.occurredAt);
      if (oldest === undefined || at < oldest) oldest = at;
    }
    return oldest === undefined ? 0 : Math.max(0, (this.clock.now() - oldest) / 1000);
  }

  /** One scan of chain `chain`, then the next after `scanMs`, while this chain is the current one and no stop came. */
  private runScan(chain: number): void {
    this.scanTimer = undefined;
    if (this.stopped || chain !== this.chain) return;
    const scanning = this.scan().then(() => {
      if (this.scanning === scanning) this.scanning = undefined;
      if (!this.stopped && chain === this.chain)
        this.scanTimer = this.timers.setTimeout(() => this.runScan(chain), this.scanMs);
    });
    this.scanning = scanning;
  }

  /** Takes the subscriptions it may, and starts a worker for each one taken. */
  private async scan(): Promise<void> {
    try {
      const enabled = await this.webhooks.enabled();
      for (const webhook of enabled) {
        if (this.stopped) return;
        if (this.workers.has(webhook.id)) continue;
        const now = this.clock.now();
        const lease = webhook.lease;
        if (lease !== undefined && lease.holder !== this.holder && lease.until > now) continue;
        const leased = await this.webhooks.lease(webhook.id, this.holder, now, now + this.leaseMs);
        if (leased === undefined) continue;
        // It starts from the cursor as stored; the lease, just taken, is due for renewal a third of it on.
        const worker: Worker = {
          held: leased,
          position: leased.delivered,
          ahead: [],
          atEnd: false,
          renewAt: now + this.renewMs,
          wake: undefined,
          woken: false,
          renewal: undefined,
        };
        this.armRenewal(worker);
        // Stopped meanwhile: the worker gives the lease up at once, and `stop` waits for it.
        this.workers.set(webhook.id, { worker, ended: this.work(worker) });
        this.workerStarted();
      }
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  /** One subscription's worker: turns until it has to end, then gives the lease up. */
  private async work(worker: Worker): Promise<void> {
    const id = worker.held.id;
    try {
      while (!this.stopped && (await this.step(worker)));
    } catch (error) {
      this.options.onError?.(error);
    }
    this.timers.clearTimeout(worker.renewal);
    try {
      await this.webhooks.release(id, this.holder);
    } catch (error) {
      this.options.onError?.(error);
    }
    // After the release: a scan meanwhile saw this worker and left the subscription alone.
    this.workers.delete(id);
  }

  /**
   * One turn of a worker: false when it has to end. A renewal that is due comes after the turn's read
   * (not during a retry's wait, when nothing is read): the events the watcher let it sleep through
   * are stepped over first, so the renewal writes the position past them.
   */
  private async step(worker: Worker): Promise<boolean> {
    const now = this.clock.now();
    const due = now >= worker.renewAt;
    const held = worker.held;
    if (held.retryAt > now) {
      if (due) return this.renewAndRecord(worker);
      await this.sleep(Math.min(held.retryAt, worker.renewAt) - now);
      return true;
    }
    if (worker.ahead.length === 0 && !worker.atEnd) {
      const read = this.events.after(worker.position, { limit: FEED_PAGE });
      const got = isPromise(read) ? await read : read;
      // Events after its position left the feed: by the retention it carries on, for lack of room it pauses.
      const first = got[0];
      if (first !== undefined && first.sequence > worker.position + 1) {
        const evicted = await this.events.evictedThrough(held.types);
        if (evicted > worker.position) return this.pauseBehind(worker, evicted, first.sequence);
      }
      worker.ahead = got;
      worker.atEnd = got.length < FEED_PAGE;
    }
    const page = worker.ahead;
    const types = held.types;
    const next = page.find((event) => types === undefined || types.includes(event.type));
    // Its renewal just before the attempt is the one due.
    if (next !== undefined) return this.deliver(worker, next);
    const last = page.at(-1);
    if (last !== undefined) {
      // Read, and none of them matches: they never change, so the worker steps over them, here only
      // (the store learns it at the next renewal or attempt).
      worker.position = last.sequence;
      worker.ahead = [];
    }
    if (due) return this.renewAndRecord(worker);
    // After a full page, the next one at once.
    if (!worker.atEnd) return true;
    await this.waitForWake(worker);
    // Woken: for new events, or its renewal (the events it slept through), or a stop.
    worker.atEnd = false;
    return true;
  }

  /**
   * Waits until the feed watcher sees an event of the worker's types beyond its position, or its
   * renewal timer fires, or `stop`: a promise, no timer of its own. A wake that came while the worker
   * was busy returns at once. So does a wait whose position the watcher has already examined events
   * beyond (they came while the worker read, or before its first turn: the watcher, seeing it busy,
   * did not wake it): the worker reads them first, and sleeps only once it stands where the watcher
   * does, so the watcher sees every later event with the worker idle.
   */
  private async waitForWake(worker: Worker): Promise<void> {
    if (worker.woken) {
      worker.woken = false;
      return;
    }
    if (this.seen > worker.position) return;
    await new Promise<void>((resolve) => (worker.wake = resolve));
  }

  /** Ends the worker's wait, or, when it is busy, its next one. */
  private wakeWorker(worker: Worker): void {
    const wake = worker.wake;
    if (wake === undefined) {
      worker.woken = true;
      return;
    }
    worker.wake = undefined;
    wake();
  }

  /**
   * Sets the timer that wakes the worker for its renewal, unless one is set: a renewal before an
   * attempt moves `renewAt` on without a timer of its own, and the timer, firing before the new
   * `renewAt`, sets itself again for it. So one timer per renewal period, none per event.
   */
  private armRenewal(worker: Worker): void {
    if (worker.renewal !== undefined) return;
    worker.renewal = this.timers.setTimeout(() => {
      worker.renewal = undefined;
      if (this.clock.now() >= worker.renewAt) this.wakeWorker(worker);
      else this.armRenewal(worker);
    }, worker.renewAt - this.clock.now());
  }

  /**
   * The feed watcher, one per dispatcher: it waits on the feed, reads each new event once, and wakes
   * only the idle workers that have an event of their types among them beyond their position. So an
   * event costs a subscription that does not ask for it nothing at all (the worker reads and steps
   * over it at its next turn, at its renewal or its next event), and one that does a wake, no timer.
   * A store failure is told to `onError`, and it looks again a little later.
   */
  private async watch(chain: number, stopping: Promise<void>): Promise<void> {
    const current = (): boolean => !this.stopped && chain === this.chain;
    while (current()) {
      try {
        if (this.workers.size === 0) {
          // No subscription held here (none exists, or other processes deliver them): nothing to wake,
          // so no wait on the feed, which would cost the process a read and a timer per event. A
          // scan that starts a worker ends this wait; the watcher then learns the feed's end afresh.
          await new Promise<void>((resolve) => {
            this.workerStarted = resolve;
            void stopping.then(resolve);
          });
          this.seen = Number.NEGATIVE_INFINITY;
          continue;
        }
        const seen = this.seen;
        if (seen === Number.NEGATIVE_INFINITY) {
          // The workers that went idle before the watcher knew where the feed ends, short of it, look
          // again (once): events up to it may have come after their read. (A stop meanwhile: they
          // wake to end, as they would anyway.) Those at the end or past it have read all there was.
          const last = await this.events.lastSequence();
          this.seen = last;
          for (const { worker } of this.workers.values()) if (worker.position < last) this.wakeWorker(worker);
          continue;
        }
        await this.events.waitBeyond(seen, WATCH_MS, stopping);
        await this.readFeed(current);
      } catch (error) {
        this.options.onError?.(error);
        if (current()) await this.sleep(WATCH_RETRY_MS);
      }
    }
  }

  /** Reads the feed after `seen`, page after page until its end, waking the workers each page concerns. */
  private async readFeed(current: () => boolean): Promise<void> {
    for (;;) {
      const read = this.events.after(this.seen, { limit: FEED_PAGE });
      const page = isPromise(read) ? await read : read;
      if (!current()) return;
      const last = page.at(-1);
      if (last === undefined) return;
      this.seen = last.sequence;
      for (const { worker } of this.workers.values()) {
        if (worker.wake === undefined) continue;
        const { position, held } = worker;
        const types = held.types;
        if (page.some((event) => event.sequence > position && (types === undefined || types.includes(event.type))))
          this.wakeWorker(worker);
      }
      if (page.length < FEED_PAGE) return;
    }
  }

  /**
   * Renews the lease. The subscription as the renewal answers it is what the worker goes on with: an
   * admin's change counts from here on. When it changed since the answer the worker's position was
   * computed from (`revision`: its types, or its cursor moved by another holder while this one's
   * lease had lapsed, or anything else), the position is thrown away: the worker goes on from the
   * `delivered` the store holds, so no event of new types is passed over. False when the lease is
   * lost, or the subscription disabled or removed: the worker ends.
   */
  private async renew(worker: Worker): Promise<boolean> {
    const now = this.clock.now();
    const renewed = await this.webhooks.lease(worker.held.id, this.holder, now, now + this.leaseMs);
    if (renewed === undefined) return false;
    if (renewed.revision !== worker.held.revision) {
      worker.position = renewed.delivered;
      worker.ahead = [];
      // Stryker disable next-line BooleanLiteral: its next wait reads anyway: the stored cursor is behind what the watcher examined, or the watcher has yet to read past it and wakes it then
      worker.atEnd = false;
    }
    worker.held = renewed;
    worker.renewAt = now + this.renewMs;
    this.armRenewal(worker);
    return true;
  }

  /**
   * The renewal on its period (while the worker waits, on the feed or for a retry), which also writes
   * how far the worker stepped over events none of which match: a write per period, not per event.
   */
  private async renewAndRecord(worker: Worker): Promise<boolean> {
    if (!(await this.renew(worker))) return false;
    const held = worker.held;
    if (worker.position === held.delivered) return true;
    const moved = await this.webhooks.advance(held.id, this.holder, cursorOf(held), {
      delivered: worker.position,
      failures: 0,
      retryAt: 0,
    });
    if (moved === undefined) return false;
    worker.held = moved;
    return true;
  }

  /**
   * Pauses a subscription some of whose events (up to `evicted`) left the feed for lack of room
   * before it delivered them, its cursor just before `firstKept`: a resume goes on from there. The
   * lease is renewed first, as before an attempt: a change meanwhile (its types) is looked at again.
   */
  private async pauseBehind(worker: Worker, evicted: number, firstKept: number): Promise<boolean> {
    const revision = worker.held.revision;
    if (!(await this.renew(worker))) return false;
    if (worker.held.revision !== revision) return true;
    const reason = `events of its types up to sequence ${evicted} left the feed before they were delivered (the store keeps only its newest events, and it was full); enabling the subscription again resumes at event ${firstKept}, the first kept`;
    await this.webhooks.pause(worker.held.id, this.holder, cursorOf(worker.held), {
      reason,
      delivered: firstKept - 1,
    });
    return false;
  }

  /**
   * The matching path: renews the lease just before the attempt (so an admin's change of URL, secrets,
   * types or `enabled` counts before anything is sent), then makes the attempt at `event` with the
   * subscription as the renewal answered it, unless that changed: then it looks again from there.
   */
  private async deliver(worker: Worker, event: Event): Promise<boolean> {
    const revision = worker.held.revision;
    if (!(await this.renew(worker))) return false;
    if (worker.held.revision !== revision) return true;
    const moved = await this.attempt(worker.held, event);
    if (moved === undefined) return false;
    worker.held = moved;
    worker.position = moved.delivered;
    // What was read ahead and is still after the cursor: the failed event itself, for its retry.
    worker.ahead = worker.ahead.filter((ahead) => ahead.sequence > moved.delivered);
    return true;
  }

  /**
   * Sends `event`, logs the attempt, and moves the cursor by its outcome. Every event before `event`
   * after `webhook.delivered` is of none of its types, so both writes record the worker's position: on
   * to the event on success, and just before it on a failure (its retries then start from a cursor
   * that holds nothing to read again, and the worker keeps no position of its own while it waits).
   */
  private async attempt(webhook: StoredWebhook, event: Event): Promise<StoredWebhook | undefined> {
    const at = this.clock.now();
    // The failures counted are those at the event just after `delivered`: at another (it left the
    // feed during its retries), this one is a first attempt, with the whole schedule before it.
    const attempt = (event.sequence === webhook.delivered + 1 ? webhook.failures : 0) + 1;
    const result = await this.send({
      url: webhook.url,
      webhookId: event.id,
      timestamp: Math.floor(at / 1000),
      // The same text as `GET /v1/events` serves, made once per event for every subscription.
      body: eventJson(event),
      secrets: webhook.secrets
        .filter((secret) => secret.expiresAt === undefined || secret.expiresAt > at)
        .map((secret) => secret.secret),
    });
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
    this.options.onAttempt?.(webhook.id, logged);
    await this.webhooks.log(webhook.id, logged);
    const from = cursorOf(webhook);
    if (result.outcome === 'delivered')
      return this.webhooks.advance(webhook.id, this.holder, from, {
        delivered: event.sequence,
        failures: 0,
        retryAt: 0,
      });
    if (result.status === 410) {
      const reason = `the receiver answered 410 Gone to event ${event.id} (sequence ${event.sequence}): it wants no more deliveries; enabling the subscription again resumes at that event`;
      await this.webhooks.pause(webhook.id, this.holder, from, { reason, delivered: from.delivered });
      return undefined;
    }
    const decision = afterFailure(attempt, this.random);
    if (decision.retry)
      return this.webhooks.advance(webhook.id, this.holder, from, {
        delivered: event.sequence - 1,
        failures: attempt,
        retryAt: this.clock.now() + decision.delayMs,
      });
    const span = await this.spanOf(webhook.id, logged);
    const reason = `${attempt} attempts at event ${event.id} (sequence ${event.sequence}) failed over ${spanText(span)}; the last: ${failureText(result)}`;
    await this.webhooks.pause(webhook.id, this.holder, from, { reason, delivered: from.delivered });
    return undefined;
  }

  /**
   * The sender's answer. It never throws by its contract; one that does (a bug) is told to `onError`
   * and counted as an attempt that reached nothing, so the event follows the retry schedule instead
   * of being tried again at every scan.
   */
  private async send(request: WebhookRequest): Promise<WebhookResult> {
    const started = this.clock.now();
    try {
      return await this.sender.send(request);
    } catch (error) {
      this.options.onError?.(error);
      return {
        outcome: 'unreachable',
        status: null,
        durationMs: this.clock.now() - started,
        error: 'the delivery failed inside this service (its error is in the logs)',
      };
    }
  }

  /** From the first attempt at the event of `last` to the end of `last` (the schedule's span when the log no longer has it). */
  private async spanOf(id: string, last: DeliveryAttempt): Promise<number> {
    const recent = await this.webhooks.deliveries(id, undefined, last.attempt);
    const first = recent.find((row) => row.sequence === last.sequence && row.attempt === 1);
    return first === undefined ? WEBHOOK_RETRY_SPAN_MS : last.at + last.durationMs - first.at;
  }

  /**
   * A wait of `ms` on the injected timers, which `stop` ends at once. A worker's turn (for a retry)
   * and the feed watcher (after a failure) sleep, each getting here without awaiting anything since
   * it saw no stop: a stop can only come later, and ends it.
   */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const end = (): void => {
        this.sleeps.delete(cancel);
        resolve();
      };
      const handle = this.timers.setTimeout(end, ms);
      const cancel = (): void => {
        this.timers.clearTimeout(handle);
        end();
      };
      this.sleeps.add(cancel);
    });
  }
}

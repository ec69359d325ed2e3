import { isPromise } from '../ports/answer.js';
import type { WebhookRequest, WebhookResult } from '../ports/webhook-sender.port.js';
import { eventJson, type Event, type EventType } from '../events/event.js';
import { afterFailure } from '../webhooks/retry-schedule.js';
import { attemptOutcome, attemptsSpan, evictedPause, spentPause } from '../webhooks/delivery-outcome.js';
import type { DeliveryAttempt, DeliveryCursor, StoredWebhook } from '../webhooks/webhook.js';
import type { DispatchContext } from './dispatch-context.js';

/**
 * Events read per look at the feed, of every type (the next matching one is searched among them): a
 * read that ends at the end of the feed says by itself how far it looked, and in memory a read of
 * the one new event is a slice of the feed, cheaper than a filtered read.
 */
export const FEED_PAGE = 100;

const cursorOf = (webhook: StoredWebhook): DeliveryCursor => ({
  delivered: webhook.delivered,
  failures: webhook.failures,
  retryAt: webhook.retryAt,
});

/** Whether a subscription of `types` (every type when absent) asks for `event`. */
export const asksFor = (types: readonly EventType[] | undefined, event: Event): boolean =>
  types === undefined || types.includes(event.type);

/**
 * The delivery of one subscription this process holds the lease of (docs/rules.md §15): it turns,
 * one event at a time, until its lease is lost, a write of it is refused, the store fails or the
 * dispatcher stops, then gives the lease up. Between events it waits on a promise: the feed watcher
 * wakes it for an event of its types, its renewal timer (one per renewal period) for the renewal.
 * docs/design.md ("Webhooks") says why it works this way.
 */
export class SubscriptionWorker {
  /**
   * The subscription as the store last answered it (a renewal, or a move of the cursor): its
   * `delivered` is the cursor as stored, its types, URL and secrets those in force.
   */
  private held: StoredWebhook;
  /**
   * How far it looked through the feed: every event in (`held.delivered`, `position`] is of none of
   * its types. Written by the next renewal or attempt, not per event.
   */
  private at: number;
  /** Events after `position` read and not yet looked at (of every type, in order, without a gap). */
  private ahead: readonly Event[] = [];
  /** Whether `ahead` reaches the end of the feed as it was read, and no wake came since. */
  private atEnd = false;
  /** Epoch ms the lease is due for its renewal. */
  private renewAt: number;
  /** Ends its wait under way: set only while it waits (it is idle). */
  private wakeUp: (() => void) | undefined;
  /** A wake that came while it was busy: its next wait returns at once. */
  private woken = false;
  /** The timer that wakes it for its renewal (`undefined` when none is set). */
  private renewal: unknown;
  /** Settles once it has ended and given the lease up (`start`). */
  ended: Promise<void> = Promise.resolve();

  constructor(
    private readonly context: DispatchContext,
    /** The last sequence the dispatcher's feed watcher has examined (`-Infinity` until it knows). */
    private readonly seen: () => number,
    /** The subscription as the lease just taken answered it, at `now`. */
    leased: StoredWebhook,
    now: number,
    /** Told once it has ended and given the lease up. */
    private readonly onEnd: () => void,
  ) {
    this.held = leased;
    this.at = leased.delivered;
    this.renewAt = now + context.renewMs;
  }

  /** How far it looked through the feed (the events up to it are delivered, or of other types). */
  get position(): number {
    return this.at;
  }

  /** The types it delivers (every type when absent). */
  get types(): readonly EventType[] | undefined {
    return this.held.types;
  }

  /** Whether it waits for a wake (not reading, sending or writing). */
  get idle(): boolean {
    return this.wakeUp !== undefined;
  }

  /** Starts its turns (its renewal timer first). */
  start(): void {
    this.armRenewal();
    this.ended = this.run();
  }

  /** Ends its wait, or, when it is busy, its next one. */
  wake(): void {
    const wake = this.wakeUp;
    if (wake === undefined) {
      this.woken = true;
      return;
    }
    this.wakeUp = undefined;
    wake();
  }

  private async run(): Promise<void> {
    const { context } = this;
    try {
      while (!context.stopped() && (await this.step()));
    } catch (error) {
      context.onError?.(error);
    }
    context.timers.clearTimeout(this.renewal);
    try {
      await context.webhooks.release(this.held.id, context.holder);
    } catch (error) {
      context.onError?.(error);
    }
    // After the release: a scan meanwhile saw this worker and left the subscription alone.
    this.onEnd();
  }

  /**
   * One turn: false when it has to end. A renewal that is due comes after the turn's read (not
   * during a retry's wait, when nothing is read), so that it writes the position past the events the
   * watcher let it sleep through.
   */
  private async step(): Promise<boolean> {
    const now = this.context.clock.now();
    const due = now >= this.renewAt;
    const held = this.held;
    if (held.retryAt > now) {
      if (due) return this.renewAndRecord();
      await this.context.sleep(Math.min(held.retryAt, this.renewAt) - now);
      return true;
    }
    if (this.ahead.length === 0 && !this.atEnd) {
      const read = this.context.events.after(this.at, { limit: FEED_PAGE });
      const got = isPromise(read) ? await read : read;
      // Events after its position left the feed: by the retention it carries on, for lack of room it pauses.
      const first = got[0];
      if (first !== undefined && first.sequence > this.at + 1) {
        const evicted = await this.context.events.evictedThrough(held.types);
        if (evicted > this.at) return this.pauseBehind(evicted, first.sequence);
      }
      this.ahead = got;
      this.atEnd = got.length < FEED_PAGE;
    }
    const page = this.ahead;
    const types = held.types;
    const next = page.find((event) => asksFor(types, event));
    // Its renewal just before the attempt is the one due.
    if (next !== undefined) return this.deliver(next);
    const last = page.at(-1);
    if (last !== undefined) {
      // None of them matches: they never change, so it steps over them, here only (the store learns
      // it at the next renewal or attempt).
      this.at = last.sequence;
      this.ahead = [];
    }
    if (due) return this.renewAndRecord();
    // After a full page, the next one at once.
    if (!this.atEnd) return true;
    await this.waitForWake();
    // Woken: for new events, or its renewal (the events it slept through), or a stop.
    this.atEnd = false;
    return true;
  }

  /**
   * Waits for a wake (the watcher, the renewal timer, a stop), unless one came while it was busy, or
   * the watcher has examined events beyond its position already (they came while it read, or before
   * its first turn): it reads those first, and sleeps only where the watcher stands, so the watcher
   * sees every later event with it idle.
   */
  private async waitForWake(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return;
    }
    if (this.seen() > this.at) return;
    await new Promise<void>((resolve) => (this.wakeUp = resolve));
  }

  /**
   * Sets the timer of its renewal unless one is set: a renewal before an attempt moves `renewAt` on
   * without a timer of its own, and the timer, firing before the new `renewAt`, sets itself again.
   * So one timer per renewal period, none per event.
   */
  private armRenewal(): void {
    if (this.renewal !== undefined) return;
    const { clock, timers } = this.context;
    this.renewal = timers.setTimeout(() => {
      this.renewal = undefined;
      if (clock.now() >= this.renewAt) this.wake();
      else this.armRenewal();
    }, this.renewAt - clock.now());
  }

  /**
   * Renews the lease; the subscription as the renewal answers it is what it goes on with (an admin's
   * change counts from here on). When that changed since its position was computed (`revision`), the
   * position is thrown away: it goes on from the stored `delivered`, so no event of new types is
   * passed over. False when the lease is lost, or the subscription disabled or removed.
   */
  private async renew(): Promise<boolean> {
    const { clock, webhooks, holder, leaseMs, renewMs } = this.context;
    const now = clock.now();
    const renewed = await webhooks.lease(this.held.id, holder, now, now + leaseMs);
    if (renewed === undefined) return false;
    if (renewed.revision !== this.held.revision) {
      this.at = renewed.delivered;
      this.ahead = [];
      // Stryker disable next-line BooleanLiteral: its next wait reads anyway: the stored cursor is behind what the watcher examined, or the watcher has yet to read past it and wakes it then
      this.atEnd = false;
    }
    this.held = renewed;
    this.renewAt = now + renewMs;
    this.armRenewal();
    return true;
  }

  /** The renewal on its period, which also writes how far it stepped over events of other types. */
  private async renewAndRecord(): Promise<boolean> {
    if (!(await this.renew())) return false;
    const held = this.held;
    if (this.at === held.delivered) return true;
    const next = { delivered: this.at, failures: 0, retryAt: 0 };
    const moved = await this.context.webhooks.advance(held.id, this.context.holder, cursorOf(held), next);
    if (moved === undefined) return false;
    this.held = moved;
    return true;
  }

  /** Pauses it behind events of its types that left the feed for lack of room (after a renewal, as before an attempt). */
  private async pauseBehind(evicted: number, firstKept: number): Promise<boolean> {
    const revision = this.held.revision;
    if (!(await this.renew())) return false;
    if (this.held.revision !== revision) return true;
    const pause = evictedPause(evicted, firstKept);
    await this.context.webhooks.pause(this.held.id, this.context.holder, cursorOf(this.held), pause);
    return false;
  }

  /**
   * Renews the lease just before the attempt (so that an admin's change of URL, secrets, types or
   * `enabled` counts before anything is sent), then makes it, unless the subscription changed: then
   * it looks again from there.
   */
  private async deliver(event: Event): Promise<boolean> {
    const revision = this.held.revision;
    if (!(await this.renew())) return false;
    if (this.held.revision !== revision) return true;
    const moved = await this.attempt(this.held, event);
    if (moved === undefined) return false;
    this.held = moved;
    this.at = moved.delivered;
    // What was read ahead and is still after the cursor: the failed event itself, for its retry.
    this.ahead = this.ahead.filter((ahead) => ahead.sequence > moved.delivered);
    return true;
  }

  /**
   * Sends `event`, logs the attempt and moves the cursor by its outcome (`attemptOutcome`): the
   * subscription after the move, or `undefined` when it paused or a write was refused.
   */
  private async attempt(webhook: StoredWebhook, event: Event): Promise<StoredWebhook | undefined> {
    const { clock, random, webhooks, holder } = this.context;
    const at = clock.now();
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
    const from = cursorOf(webhook);
    const { logged, move } = attemptOutcome(
      { cursor: from, event, at, result },
      (failures) => afterFailure(failures, random),
      clock.now(),
    );
    this.context.onAttempt?.(webhook.id, logged);
    await webhooks.log(webhook.id, logged);
    if (move.kind === 'advance') return webhooks.advance(webhook.id, holder, from, move.next);
    const pause = move.kind === 'pause' ? move.pause : spentPause(from, logged, await this.spanOf(webhook.id, logged));
    await webhooks.pause(webhook.id, holder, from, pause);
    return undefined;
  }

  /**
   * The sender's answer. It never throws by its contract; one that does (a bug) is told to `onError`
   * and counted as an attempt that reached nothing, so the event follows the retry schedule instead
   * of being tried again at every scan.
   */
  private async send(request: WebhookRequest): Promise<WebhookResult> {
    const { clock, sender, onError } = this.context;
    const started = clock.now();
    try {
      return await sender.send(request);
    } catch (error) {
      onError?.(error);
      return {
        outcome: 'unreachable',
        status: null,
        durationMs: clock.now() - started,
        error: 'the delivery failed inside this service (its error is in the logs)',
      };
    }
  }

  /** How long the attempts at the event of `last` took, by the newest rows of the log (`attemptsSpan`). */
  private async spanOf(id: string, last: DeliveryAttempt): Promise<number> {
    return attemptsSpan(await this.context.webhooks.deliveries(id, undefined, last.attempt), last);
  }
}

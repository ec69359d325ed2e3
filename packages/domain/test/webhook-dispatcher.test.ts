import { expect } from 'chai';
import fc from 'fast-check';
import type {
  Caller,
  DeliveryAttempt,
  Event,
  EventStore,
  EventType,
  WebhookRequest,
  WebhookResult,
  WebhookSender,
  WebhookStore,
} from '../src/index.js';
import {
  spanText,
  StoreUnavailableError,
  timestamp,
  WEBHOOK_LEASE_MS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_ROTATION_OVERLAP_MS,
  WEBHOOK_TIMEOUT_MS,
  WebhookAdmin,
  WebhookDispatcher,
  type DispatcherOptions,
} from '../src/index.js';
import { ManualClock, SeededRandom } from '../test-support/index.js';
import { EventStoreModel } from './support/event-store-model.js';
import { runUntil, settle, VirtualTimers } from './support/virtual-time.js';
import { WebhookStoreModel } from './support/webhook-store-model.js';

const ADMIN: Caller = { keyId: 'key_000000000000', role: 'admin' };
const T0 = Date.UTC(2027, 0, 1, 12);
const DELIVERED: WebhookResult = { outcome: 'delivered', status: 204, durationMs: 3 };
const FAILED: WebhookResult = { outcome: 'failed', status: 500, durationMs: 7, error: 'the receiver answered 500' };

interface Sent extends WebhookRequest {
  /** Clock time the attempt started. */
  readonly at: number;
  readonly holder: string;
}

/**
 * The dispatcher's `WebhookSender`, scripted: `answer` decides each attempt (it may hold it as long
 * as it likes). Records every request, and any two attempts to one URL at the same time.
 */
class ScriptedSender implements WebhookSender {
  readonly sent: Sent[] = [];
  readonly results: { request: Sent; result: WebhookResult }[] = [];
  private readonly inFlight = new Map<string, number>();
  overlaps = 0;

  constructor(
    private readonly clock: ManualClock,
    private readonly holder: string,
    readonly answer: { next: (request: Sent) => WebhookResult | Promise<WebhookResult> } = { next: () => DELIVERED },
    private readonly shared?: ScriptedSender,
  ) {}

  async send(request: WebhookRequest): Promise<WebhookResult> {
    const log = this.shared ?? this;
    const running = (log.inFlight.get(request.url) ?? 0) + 1;
    if (running > 1) log.overlaps++;
    log.inFlight.set(request.url, running);
    const sent = { ...request, at: this.clock.now(), holder: this.holder };
    log.sent.push(sent);
    try {
      const result = await this.answer.next(sent);
      log.results.push({ request: sent, result });
      return result;
    } finally {
      log.inFlight.set(request.url, log.inFlight.get(request.url)! - 1);
    }
  }

  /** The event ids delivered to `url`, in order. */
  deliveredTo(url: string): string[] {
    return this.results
      .filter(({ request, result }) => request.url === url && result.outcome === 'delivered')
      .map(({ request }) => request.webhookId);
  }
}

/** A held answer: the test settles it. */
const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
};

const world = (seed = 'dispatcher-test') => {
  const clock = new ManualClock(T0);
  const timers = new VirtualTimers(clock);
  const store = new WebhookStoreModel();
  const events = new EventStoreModel(timers);
  const random = new SeededRandom(seed);
  const admin = new WebhookAdmin(store, events, { check: async () => undefined }, random, clock);
  const attempts: [string, DeliveryAttempt][] = [];
  const errors: unknown[] = [];
  const dispatchers: WebhookDispatcher[] = [];
  const dispatcher = (
    sender: WebhookSender,
    holder = 'p1',
    options: DispatcherOptions = {},
    webhooks: WebhookStore = store,
  ): WebhookDispatcher => {
    const made = new WebhookDispatcher(webhooks, events, sender, clock, timers, random, holder, {
      onAttempt: (id, attempt) => attempts.push([id, attempt]),
      onError: (error) => errors.push(error),
      ...options,
    });
    dispatchers.push(made);
    return made;
  };
  const publish = (...types: EventType[]): Event[] =>
    types.map((type) => {
      const sequence = events.lastSeq + 1;
      const event = {
        id: `evt_${sequence}`,
        sequence,
        type,
        occurredAt: timestamp(clock.now()),
        data: { id: sequence },
      } as Event;
      void events.append(event);
      return event;
    });
  const subscribe = async (body: Record<string, unknown> = {}) => {
    const made = await admin.create(ADMIN, { url: 'https://a.example/hook', after: 0, ...body });
    if (!made.ok) throw new Error(made.error.message);
    return made.value;
  };
  const row = (id: string) => store.rows.get(id)!;
  const stopAll = () => Promise.all(dispatchers.map((d) => d.stop()));
  return { clock, timers, store, events, admin, attempts, errors, dispatcher, publish, subscribe, row, stopAll };
};

/** `inner` with each call failing as `mode` says: before reaching the store, or after it applied the call (the answer lost). */
const faulty = (inner: WebhookStore, mode: () => 'pass' | 'fail' | 'fail-after-write'): WebhookStore =>
  new Proxy(inner, {
    get: (target, name) => {
      const method = target[name as keyof WebhookStore] as unknown;
      if (typeof method !== 'function') return method;
      return async (...args: unknown[]): Promise<unknown> => {
        const now = mode();
        if (now === 'fail')
          throw new StoreUnavailableError(`injected fault: ${String(name)} could not reach the store`);
        const answer: unknown = await (method as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (now === 'fail-after-write')
          throw new StoreUnavailableError(`injected fault: ${String(name)} was applied but its answer was lost`);
        return answer;
      };
    },
  });

const types = (count: number): EventType[] =>
  Array.from({ length: count }, (_, i) => (['pet.created', 'order.placed', 'pet.updated'] as const)[i % 3]!);

describe('WebhookDispatcher (docs/rules.md §15, "Delivery")', () => {
  it('delivers every event in order, one at a time, with the body of GET /v1/events, the webhook-id and the secrets', async () => {
    const w = world();
    const hook = await w.subscribe();
    // More than a page: the worker delivers from its page without reading again.
    const feed = w.publish(...types(130));
    const after = w.events.after;
    let reads = 0;
    w.events.after = (sequence, query) => (reads++, after(sequence, query));
    const sender = new ScriptedSender(w.clock, 'p1');
    const d = w.dispatcher(sender);
    d.start();
    await runUntil(w.timers, () => w.row(hook.id).delivered === 130);
    // More events while it waits on the feed: delivered as they come.
    feed.push(...w.publish(...types(5)));
    await runUntil(w.timers, () => w.row(hook.id).delivered === 135);
    await w.stopAll();
    expect(sender.sent.map((s) => s.webhookId)).to.deep.equal(feed.map((e) => e.id));
    expect(sender.overlaps).to.equal(0);
    for (const [i, sent] of sender.sent.entries()) {
      const { id, sequence, type, occurredAt, data } = feed[i]!;
      expect(sent.body).to.equal(JSON.stringify({ id, sequence, type, occurredAt, data }));
      expect(sent.timestamp).to.equal(Math.floor(sent.at / 1000));
      expect(sent.secrets).to.deep.equal([hook.secret]);
      expect(sent.url).to.equal('https://a.example/hook');
    }
    expect(w.attempts.map(([id, a]) => [id, a.sequence, a.attempt, a.outcome])).to.deep.equal(
      feed.map((e) => [hook.id, e.sequence, 1, 'delivered']),
    );
    expect(w.store.logs.get(hook.id)!.map((row) => row.eventId)).to.deep.equal(feed.map((e) => e.id));
    expect(w.errors).to.deep.equal([]);
    // The feed is read a page at a time, not once per event.
    expect(reads).to.be.below(10);
  });

  it('event n + 1 is sent only after n was delivered: a failing event holds back the ones after it', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish(...types(4));
    let failures = 2;
    const sender = new ScriptedSender(w.clock, 'p1', {
      next: (request) => (request.webhookId === 'evt_2' && failures-- > 0 ? FAILED : DELIVERED),
    });
    w.dispatcher(sender).start();
    await runUntil(w.timers, () => w.row(hook.id).delivered === 4);
    await w.stopAll();
    expect(sender.sent.map((s) => s.webhookId)).to.deep.equal(['evt_1', 'evt_2', 'evt_2', 'evt_2', 'evt_3', 'evt_4']);
    expect(w.store.logs.get(hook.id)!.map((row) => [row.sequence, row.attempt])).to.deep.equal([
      [1, 1],
      [2, 1],
      [2, 2],
      [2, 3],
      [3, 1],
      [4, 1],
    ]);
  });

  it('the whole retry schedule in test time: each wait within ±20 % of its entry, a pause after the 8th attempt, and enabled: true resumes at the same event with the same webhook-id', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish('pet.created', 'pet.updated');
    const answer = { next: (_request: Sent): WebhookResult => FAILED };
    const sender = new ScriptedSender(w.clock, 'p1', answer);
    // (Scans once a minute: the schedule's waits are the worker's own.)
    w.dispatcher(sender, 'p1', { scanMs: 60_000 }).start();
    await runUntil(w.timers, () => !w.row(hook.id).enabled, 50_000);
    expect(sender.sent.map((s) => s.webhookId)).to.deep.equal(Array.from({ length: 8 }, () => 'evt_1'));
    for (const [i, entry] of WEBHOOK_RETRY_DELAYS_MS.entries()) {
      const wait = sender.sent[i + 1]!.at - sender.sent[i]!.at;
      expect(wait, `wait ${i + 1}`).to.be.within(entry * 0.8, entry * 1.2);
    }
    const paused = w.row(hook.id);
    expect(paused).to.include({ delivered: 0, failures: 0, retryAt: 0, enabled: false });
    expect(paused.pausedReason).to.match(
      /^8 attempts at event evt_1 \(sequence 1\) failed over \d+ h( \d+ min)?; the last: the receiver answered 500$/,
    );
    const span = sender.sent[7]!.at + FAILED.durationMs - sender.sent[0]!.at;
    expect(paused.pausedReason).to.include(`${Math.floor(span / 3_600_000)} h`);
    expect(w.store.logs.get(hook.id)!.map((row) => row.attempt)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
    // Paused: nothing more is sent, however long.
    w.clock.advance(3_600_000);
    await runUntil(w.timers, () => w.clock.now() > T0 + 60 * 3_600_000, 50_000);
    expect(sender.sent).to.have.length(8);
    // Resumed by PATCH: the same event again, the same webhook-id, its attempts counted from 1.
    answer.next = () => DELIVERED;
    const resumed = await w.admin.patch(ADMIN, hook.id, { enabled: true });
    expect(resumed).to.have.nested.property('value.pausedReason', null);
    await runUntil(w.timers, () => w.row(hook.id).delivered === 2);
    await w.stopAll();
    expect(sender.sent.slice(8).map((s) => s.webhookId)).to.deep.equal(['evt_1', 'evt_2']);
    expect(
      w.store.logs
        .get(hook.id)!
        .slice(8)
        .map((row) => [row.eventId, row.attempt]),
    ).to.deep.equal([
      ['evt_1', 1],
      ['evt_2', 1],
    ]);
  });

  it('a sender that throws (against its contract) is an attempt that reached nothing: told to onError, retried on the schedule', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish('pet.created');
    let calls = 0;
    const sender = new ScriptedSender(w.clock, 'p1', {
      next: () => {
        if (calls++ === 0) throw new Error('a bug in the sender');
        return DELIVERED;
      },
    });
    w.dispatcher(sender).start();
    await runUntil(w.timers, () => w.row(hook.id).delivered === 1);
    await w.stopAll();
    expect(w.errors.map((e) => (e as Error).message)).to.deep.equal(['a bug in the sender']);
    expect(w.store.logs.get(hook.id)!.map((row) => [row.outcome, row.attempt])).to.deep.equal([
      ['unreachable', 1],
      ['delivered', 2],
    ]);
    expect(sender.sent[1]!.at - sender.sent[0]!.at).to.be.within(4000, 6000);
  });

  it('a 410 Gone pauses at once, saying so; nothing more is sent', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish('pet.created', 'pet.created');
    const sender = new ScriptedSender(w.clock, 'p1', {
      next: () => ({ outcome: 'failed', status: 410, durationMs: 2, error: 'the receiver answered 410' }),
    });
    w.dispatcher(sender).start();
    await runUntil(w.timers, () => !w.row(hook.id).enabled);
    await runUntil(w.timers, () => w.clock.now() > T0 + 3_600_000);
    await w.stopAll();
    expect(sender.sent).to.have.length(1);
    expect(w.row(hook.id).pausedReason).to.match(/410 Gone.*evt_1/);
    expect(w.row(hook.id).delivered).to.equal(0);
  });

  it('a receiver that hangs delays only its own subscription', async () => {
    const w = world();
    const slow = await w.subscribe({ url: 'https://slow.example/' });
    const fast = await w.subscribe({ url: 'https://fast.example/' });
    w.publish(...types(5));
    const held = deferred<WebhookResult>();
    const sender = new ScriptedSender(w.clock, 'p1', {
      next: (request) =>
        request.url === 'https://slow.example/' && request.webhookId === 'evt_1' ? held.promise : DELIVERED,
    });
    w.dispatcher(sender).start();
    const started = w.clock.now();
    await runUntil(w.timers, () => w.row(fast.id).delivered === 5);
    expect(w.clock.now() - started, 'no wait on the slow one').to.be.below(WEBHOOK_LEASE_MS / 3);
    expect(sender.deliveredTo('https://fast.example/')).to.have.length(5);
    expect(sender.sent.filter((s) => s.url === 'https://slow.example/')).to.have.length(1);
    held.resolve(DELIVERED);
    await runUntil(w.timers, () => w.row(slow.id).delivered === 5);
    await w.stopAll();
    expect(sender.deliveredTo('https://slow.example/')).to.deep.equal(['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5']);
  });

  it('types: only the events of its types are sent, and the cursor steps over pages that hold none', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed', 'key.created'] });
    const all = Array.from({ length: 250 }, (_, i): EventType =>
      i === 4 ? 'order.placed' : i === 239 ? 'key.created' : 'pet.created',
    );
    w.publish(...all);
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender).start();
    await runUntil(w.timers, () => w.row(hook.id).delivered === 250);
    await w.stopAll();
    expect(sender.sent.map((s) => s.webhookId)).to.deep.equal(['evt_5', 'evt_240']);
  });

  it('rotation: both secrets, the new one first, for 24 h; then only the new one', async () => {
    const w = world();
    const hook = await w.subscribe();
    const rotated = await w.admin.rotateSecret(ADMIN, hook.id);
    if (!rotated.ok) throw new Error(rotated.error.message);
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender).start();
    w.publish('pet.created');
    await runUntil(w.timers, () => sender.sent.length === 1);
    w.clock.advance(WEBHOOK_ROTATION_OVERLAP_MS - 1 - (w.clock.now() - T0));
    w.publish('pet.created');
    await runUntil(w.timers, () => sender.sent.length === 2);
    await runUntil(w.timers, () => w.clock.now() >= T0 + WEBHOOK_ROTATION_OVERLAP_MS);
    w.publish('pet.created');
    await runUntil(w.timers, () => sender.sent.length === 3);
    await w.stopAll();
    expect(sender.sent.map((s) => s.secrets)).to.deep.equal([
      [rotated.value.secret, hook.secret],
      [rotated.value.secret, hook.secret],
      [rotated.value.secret],
    ]);
  });

  it('a change under a worker (the URL) counts from its next attempt', async () => {
    const w = world();
    const hook = await w.subscribe();
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender).start();
    w.publish('pet.created');
    await runUntil(w.timers, () => w.row(hook.id).delivered === 1);
    await w.admin.patch(ADMIN, hook.id, { url: 'https://b.example/' });
    w.publish('pet.created');
    await runUntil(w.timers, () => w.row(hook.id).delivered === 2);
    await w.stopAll();
    expect(sender.sent.map((s) => [s.webhookId, s.url])).to.deep.equal([
      ['evt_1', 'https://a.example/hook'],
      ['evt_2', 'https://b.example/'],
    ]);
  });

  it('events purged while a subscription stood behind them: it goes on with the first event kept', async () => {
    const w = world();
    const hook = await w.subscribe();
    await w.admin.patch(ADMIN, hook.id, { enabled: false });
    w.publish(...types(10));
    await w.events.purge(6);
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender).start();
    await w.admin.patch(ADMIN, hook.id, { enabled: true });
    await runUntil(w.timers, () => w.row(hook.id).delivered === 10);
    await w.stopAll();
    expect(sender.sent.map((s) => s.webhookId)).to.deep.equal(['evt_7', 'evt_8', 'evt_9', 'evt_10']);
  });

  it('the event after one that left the feed during its retries starts at attempt 1 with the whole schedule', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish('pet.created', 'pet.created');
    const sender = new ScriptedSender(w.clock, 'p1', { next: () => FAILED });
    const first = w.dispatcher(sender, 'p1', { scanMs: 60_000 });
    first.start();
    await runUntil(w.timers, () => w.store.logs.get(hook.id)!.length === 2);
    await first.stop();
    // A restart three days on: the first event left the feed (a retention of one day) while it was retried.
    w.clock.advance(3 * 24 * 3_600_000);
    await w.events.purge(1);
    w.dispatcher(sender, 'p1', { scanMs: 60_000 }).start();
    await runUntil(w.timers, () => !w.row(hook.id).enabled, 50_000);
    await w.stopAll();
    const log = w.store.logs.get(hook.id)!;
    expect(log.map((row) => [row.sequence, row.attempt])).to.deep.equal([
      [1, 1],
      [1, 2],
      ...Array.from({ length: 8 }, (_, i) => [2, i + 1]),
    ]);
    const second = sender.sent.filter((s) => s.webhookId === 'evt_2');
    for (const [i, entry] of WEBHOOK_RETRY_DELAYS_MS.entries()) {
      const wait = second[i + 1]!.at - second[i]!.at;
      expect(wait, `wait ${i + 1}`).to.be.within(entry * 0.8, entry * 1.2);
    }
    expect(w.row(hook.id).pausedReason).to.match(/^8 attempts at event evt_2 \(sequence 2\) failed over /);
  });

  it('events of its types that left the feed for lack of room pause the subscription, saying so, its cursor before the first kept; a resume goes on from there; one whose types lost nothing carries on', async () => {
    const w = world();
    const behind = await w.subscribe({ types: ['pet.created'] });
    const spared = await w.subscribe({ url: 'https://b.example/hook', types: ['order.placed'] });
    w.publish('pet.created', 'pet.updated', 'pet.created', 'pet.updated', 'pet.created', 'order.placed');
    // A store bounded in size drops the oldest events, 1 to 3: two pet.created, no order.placed.
    w.events.evict(3);
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender).start();
    await runUntil(w.timers, () => !w.row(behind.id).enabled && w.row(spared.id).delivered === 6);
    expect(w.row(behind.id)).to.include({
      delivered: 3,
      failures: 0,
      pausedReason:
        'events of its types up to sequence 3 left the feed before they were delivered (the store keeps only its newest events, and it was full); enabling the subscription again resumes at event 4, the first kept',
    });
    expect(sender.deliveredTo('https://a.example/hook')).to.deep.equal([]);
    expect(w.row(spared.id)).to.include({ enabled: true, pausedReason: null });
    expect(sender.deliveredTo('https://b.example/hook')).to.deep.equal(['evt_6']);
    await w.admin.patch(ADMIN, behind.id, { enabled: true });
    await runUntil(w.timers, () => w.row(behind.id).delivered === 6);
    await w.stopAll();
    expect(sender.deliveredTo('https://a.example/hook')).to.deep.equal(['evt_5']);
  });

  it('a removed subscription is dropped by its worker without harm', async () => {
    const w = world();
    const hook = await w.subscribe();
    const held = deferred<WebhookResult>();
    const sender = new ScriptedSender(w.clock, 'p1', { next: () => held.promise });
    w.dispatcher(sender).start();
    w.publish('pet.created');
    await runUntil(w.timers, () => sender.sent.length === 1);
    await w.admin.remove(ADMIN, hook.id);
    held.resolve(DELIVERED);
    await settle();
    await w.stopAll();
    expect(w.store.rows.size).to.equal(0);
    expect(w.errors).to.deep.equal([]);
  });

  it('stop ends its waits at once, waits for the attempt under way, records it, and releases its leases', async () => {
    const w = world();
    const idle = await w.subscribe({ url: 'https://idle.example/', types: ['pet.created'] });
    const busy = await w.subscribe({ url: 'https://busy.example/', types: ['order.placed'] });
    w.publish('order.placed');
    const held = deferred<WebhookResult>();
    const sender = new ScriptedSender(w.clock, 'p1', { next: () => held.promise });
    const d = w.dispatcher(sender);
    d.start();
    await runUntil(w.timers, () => sender.sent.length === 1 && w.row(idle.id).delivered === 1);
    let stopped = false;
    const stopping = d.stop().then(() => (stopped = true));
    await settle();
    expect(stopped, 'waits for the attempt under way').to.equal(false);
    held.resolve(DELIVERED);
    await stopping;
    expect(w.row(busy.id).delivered, 'its outcome recorded').to.equal(1);
    expect(w.row(idle.id).lease).to.equal(undefined);
    expect(w.row(busy.id).lease).to.equal(undefined);
    expect(w.timers.pending, 'no timer left behind').to.equal(0);
  });

  it('a stopped holder’s subscriptions are taken at the next scan of another; a frozen holder’s once its lease lapses', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish('pet.created');
    const frozen = deferred<WebhookResult>();
    const first = new ScriptedSender(w.clock, 'p1', { next: () => frozen.promise });
    const p1 = w.dispatcher(first, 'p1');
    p1.start();
    await runUntil(w.timers, () => first.sent.length === 1);
    const until = w.row(hook.id).lease!.until;
    const second = new ScriptedSender(w.clock, 'p2');
    const p2 = w.dispatcher(second, 'p2');
    p2.start();
    await runUntil(w.timers, () => second.sent.length === 1);
    expect(second.sent[0]!.at, 'not before the lease lapsed').to.be.at.least(until);
    expect(second.sent[0]!.at, 'within a scan after').to.be.at.most(until + 1000);
    await runUntil(w.timers, () => w.row(hook.id).delivered === 1);
    // The frozen one wakes: its writes find another holder, and change nothing.
    frozen.resolve(DELIVERED);
    w.publish('pet.created');
    await runUntil(w.timers, () => w.row(hook.id).delivered === 2);
    expect(second.sent.map((s) => s.webhookId)).to.deep.equal(['evt_1', 'evt_2']);
    expect(first.sent.map((s) => s.webhookId)).to.deep.equal(['evt_1']);
    // p2 stops: p1 (awake again) takes over at its next scan, not a lease later.
    await p2.stop();
    const stoppedAt = w.clock.now();
    w.publish('pet.created');
    await runUntil(w.timers, () => w.row(hook.id).delivered === 3);
    await w.stopAll();
    expect(first.sent.map((s) => s.webhookId)).to.deep.equal(['evt_1', 'evt_3']);
    expect(first.sent[1]!.at - stoppedAt).to.be.at.most(1000);
  });

  it('lagSeconds: the age of the oldest event an enabled subscription has not delivered; 0 when none', async () => {
    const w = world();
    const d = w.dispatcher(new ScriptedSender(w.clock, 'p1'));
    expect(await d.lagSeconds()).to.equal(0);
    const all = await w.subscribe();
    const orders = await w.subscribe({ types: ['order.placed'] });
    const off = await w.subscribe();
    await w.admin.patch(ADMIN, off.id, { enabled: false });
    for (const type of ['pet.created', 'pet.created', 'order.placed', 'pet.created'] as const) {
      w.publish(type);
      w.clock.advance(10_000);
    }
    // Now T0 + 40 s; the events occurred at T0, +10, +20, +30 s.
    w.store.rows.set(all.id, { ...w.row(all.id), delivered: 1 });
    expect(await d.lagSeconds()).to.equal(30);
    w.store.rows.set(all.id, { ...w.row(all.id), delivered: 4 });
    expect(await d.lagSeconds()).to.equal(20);
    w.store.rows.set(orders.id, { ...w.row(orders.id), delivered: 3 });
    expect(await d.lagSeconds()).to.equal(0);
    w.clock.advance(500);
    w.store.rows.set(orders.id, { ...w.row(orders.id), delivered: 2 });
    expect(await d.lagSeconds()).to.equal(20.5);
  });

  it('property: two dispatchers on one store, through store faults, failing and slow receivers and a stop, never send to a subscription twice at once, and together deliver every event at least once, in order', async () => {
    const kinds: EventType[] = ['pet.created', 'order.placed', 'pet.updated', 'key.created'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...kinds), { minLength: 1, maxLength: 20 }),
        fc.array(fc.nat({ max: 30_000 }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.constantFrom('pass', 'pass', 'pass', 'fail', 'fail-after-write'), { minLength: 1, maxLength: 40 }),
        fc.array(fc.record({ ok: fc.boolean(), ms: fc.nat({ max: 5000 }) }), { minLength: 1, maxLength: 20 }),
        fc.nat({ max: 120_000 }),
        async (feedTypes, publishAt, faults, script, stopAt) => {
          const w = world();
          const hooks = [
            { hook: await w.subscribe({ url: 'https://h0.example/' }), only: undefined },
            { hook: await w.subscribe({ url: 'https://h1.example/', types: ['pet.created'] }), only: ['pet.created'] },
            {
              hook: await w.subscribe({ url: 'https://h2.example/', types: ['order.placed', 'key.created'] }),
              only: ['order.placed', 'key.created'],
            },
          ];
          // Faults and failures for the first 10 minutes; then a calm in which everything must arrive.
          let calm = false;
          let fault = 0;
          let step = 0;
          const store = faulty(w.store, () => (calm ? 'pass' : faults[fault++ % faults.length]!));
          const answer = {
            next: (): WebhookResult | Promise<WebhookResult> => {
              const { ok, ms } = script[step++ % script.length]!;
              const result = calm || ok ? DELIVERED : FAILED;
              return ms === 0 ? result : new Promise((resolve) => w.timers.setTimeout(() => resolve(result), ms));
            },
          };
          const all = new ScriptedSender(w.clock, 'all');
          const p1 = w.dispatcher(new ScriptedSender(w.clock, 'p1', answer, all), 'p1', {}, store);
          const p2 = w.dispatcher(new ScriptedSender(w.clock, 'p2', answer, all), 'p2', {}, store);
          p1.start();
          p2.start();
          for (const [i, type] of feedTypes.entries())
            w.timers.setTimeout(() => w.publish(type), publishAt[i % publishAt.length]!);
          w.timers.setTimeout(() => void p1.stop(), stopAt);
          w.timers.setTimeout(() => (calm = true), 10 * 60_000);
          const matching = (only: readonly string[] | undefined) =>
            w.events.feed.filter((e) => only === undefined || only.includes(e.type)).map((e) => e.id);
          const lastMatching = (only: readonly string[] | undefined) =>
            w.events.feed.filter((e) => only === undefined || only.includes(e.type)).at(-1)?.sequence ?? 0;
          await runUntil(
            w.timers,
            () =>
              calm &&
              w.events.lastSeq === feedTypes.length &&
              hooks.every(({ hook, only }) => w.row(hook.id).delivered >= lastMatching(only)),
            100_000,
          );
          await w.stopAll();
          expect(all.overlaps, 'two attempts at one subscription at once').to.equal(0);
          for (const { hook, only } of hooks) {
            const url = w.row(hook.id).url;
            const sends = all.results.filter((r) => r.request.url === url);
            const sequences = sends.map((r) => Number(r.request.webhookId.slice(4)));
            expect(sequences, 'in order').to.deep.equal([...sequences].sort((a, b) => a - b));
            const wanted = matching(only);
            expect(
              all.deliveredTo(url).filter((id, i, ids) => ids.indexOf(id) === i),
              'every event',
            ).to.deep.equal(wanted);
            // Event n + 1 first sent only after n was delivered.
            for (const [k, id] of wanted.entries()) {
              if (k === 0) continue;
              const firstSend = sends.findIndex((r) => r.request.webhookId === id);
              const delivered = sends.findIndex(
                (r) => r.request.webhookId === wanted[k - 1] && r.result.outcome === 'delivered',
              );
              expect(delivered, `${wanted[k - 1]} delivered before ${id} is sent`).to.be.within(0, firstSend - 1);
            }
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});

/** `inner` with `before` run ahead of every call (by the method's name): it may hold the call, or throw in its place. */
const intercept = (inner: WebhookStore, before: (name: string) => void | Promise<void>): WebhookStore =>
  new Proxy(inner, {
    get: (target, name) => {
      const method = target[name as keyof WebhookStore] as unknown;
      if (typeof method !== 'function') return method;
      return async (...args: unknown[]): Promise<unknown> => {
        await before(String(name));
        return (method as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });

/** `inner` whose first call of each method named in `names` fails (the store did not answer). */
const failingOnce = (inner: WebhookStore, names: readonly string[]): WebhookStore => {
  const failed = new Set<string>();
  return intercept(inner, (name) => {
    if (!names.includes(name) || failed.has(name)) return;
    failed.add(name);
    throw new StoreUnavailableError(`injected fault: ${name} could not reach the store`);
  });
};

describe('WebhookDispatcher: leases, stops, failures and what an attempt leaves (docs/rules.md §15)', () => {
  it('a pause after the last retry says what the last attempt came to, without an error from the sender too, over the span from the first attempt’s start to the last one’s end', async () => {
    // (A seed under which the text of the span shows whether it ends with the last attempt's end or its start.)
    const w = world('pause-2');
    const slow = await w.subscribe({ url: 'https://slow.example/' });
    const busy = await w.subscribe({ url: 'https://busy.example/' });
    w.publish('pet.created');
    const timeout: WebhookResult = { outcome: 'timeout', status: null, durationMs: WEBHOOK_TIMEOUT_MS };
    const sender = new ScriptedSender(w.clock, 'p1', {
      next: (request) =>
        request.url === 'https://slow.example/'
          ? new Promise((resolve) => w.timers.setTimeout(() => resolve(timeout), WEBHOOK_TIMEOUT_MS))
          : { outcome: 'failed', status: 503, durationMs: 4 },
    });
    w.dispatcher(sender, 'p1', { scanMs: 60_000 }).start();
    await runUntil(w.timers, () => !w.row(slow.id).enabled && !w.row(busy.id).enabled, 50_000);
    await w.stopAll();
    const to = (url: string) => sender.sent.filter((s) => s.url === url);
    const [s, b] = [to('https://slow.example/'), to('https://busy.example/')];
    expect(s).to.have.length(8);
    expect(b).to.have.length(8);
    expect(w.row(slow.id).pausedReason).to.equal(
      `8 attempts at event evt_1 (sequence 1) failed over ${spanText(s[7]!.at + WEBHOOK_TIMEOUT_MS - s[0]!.at)}; the last: timeout`,
    );
    expect(w.row(busy.id).pausedReason).to.equal(
      `8 attempts at event evt_1 (sequence 1) failed over ${spanText(b[7]!.at + 4 - b[0]!.at)}; the last: the receiver answered 503`,
    );
  });

  it('an attempt made twice (its cursor move was lost) still ends in a pause after the 8th attempt', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish('pet.created');
    let advances = 0;
    const store = intercept(w.store, (name) => {
      if (name === 'advance' && advances++ === 1)
        throw new StoreUnavailableError('injected fault: advance could not reach the store');
    });
    const sender = new ScriptedSender(w.clock, 'p1', { next: () => FAILED });
    w.dispatcher(sender, 'p1', { scanMs: 60_000 }, store).start();
    await runUntil(w.timers, () => !w.row(hook.id).enabled, 50_000);
    await w.stopAll();
    expect(w.store.logs.get(hook.id)!.map((row) => row.attempt)).to.deep.equal([1, 2, 2, 3, 4, 5, 6, 7, 8]);
    expect(w.row(hook.id).pausedReason).to.match(
      /^8 attempts at event evt_1 \(sequence 1\) failed over \d+ h( \d+ min)?; the last: the receiver answered 500$/,
    );
    expect(w.errors.map((e) => (e as Error).message)).to.deep.equal([
      'injected fault: advance could not reach the store',
    ]);
  });

  it('a lease another process holds is left alone until its `until`, then taken for now + leaseMs; this process’s own lease is taken at once', async () => {
    const w = world();
    const other = await w.subscribe({ url: 'https://other.example/' });
    const own = await w.subscribe({ url: 'https://own.example/' });
    w.publish('pet.created');
    const until = T0 + 3000;
    w.store.rows.set(other.id, { ...w.row(other.id), lease: { holder: 'p9', until } });
    w.store.rows.set(own.id, { ...w.row(own.id), lease: { holder: 'p1', until: T0 + 60_000 } });
    // The worker's first renewal of `other` is held: the lease the scan took is what the store shows meanwhile.
    let leases = 0;
    const renewal = deferred<void>();
    let seen: unknown;
    const store = intercept(w.store, async (name) => {
      if (name !== 'lease' || w.clock.now() !== until || leases++ !== 1) return;
      seen = w.row(other.id).lease;
      await renewal.promise;
    });
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', { leaseMs: 12_000 }, store).start();
    await runUntil(w.timers, () => seen !== undefined);
    expect(seen).to.deep.equal({ holder: 'p1', until: until + 12_000 });
    renewal.resolve();
    await runUntil(w.timers, () => w.row(other.id).delivered === 1 && w.row(own.id).delivered === 1);
    await w.stopAll();
    const at = (url: string) => sender.sent.find((s) => s.url === url)!.at;
    expect(at('https://own.example/'), 'its own lease: at once').to.equal(T0);
    expect(at('https://other.example/'), 'not before the other lease lapsed, and at the scan when it did').to.equal(
      until,
    );
  });

  it('a worker renews its lease at least every third of it while it waits (on the feed, or for a retry): no other process takes the subscription; disabled meanwhile, the worker ends quietly', async () => {
    const w = world();
    const idle = await w.subscribe({ url: 'https://idle.example/', types: ['order.placed'] });
    const retrying = await w.subscribe({ url: 'https://retry.example/', types: ['pet.created'] });
    w.publish('pet.created');
    let failures = 2;
    const first = new ScriptedSender(w.clock, 'p1', {
      next: (request) => (request.url === 'https://retry.example/' && failures-- > 0 ? FAILED : DELIVERED),
    });
    const leaseMs = 9000;
    w.dispatcher(first, 'p1', { leaseMs }).start();
    await settle();
    const second = new ScriptedSender(w.clock, 'p2');
    w.dispatcher(second, 'p2', { leaseMs }).start();
    let lapsed = 0;
    await runUntil(
      w.timers,
      () => {
        for (const id of [idle.id, retrying.id]) {
          const lease = w.row(id).lease;
          if (lease === undefined || lease.holder !== 'p1' || lease.until <= w.clock.now()) lapsed++;
        }
        return w.row(retrying.id).delivered === 1 && w.clock.now() >= T0 + 10 * 60_000;
      },
      50_000,
    );
    expect(lapsed, 'lease checks that found it lapsed or held by another').to.equal(0);
    expect(second.sent).to.deep.equal([]);
    expect(first.sent.map((s) => s.url)).to.deep.equal(Array.from({ length: 3 }, () => 'https://retry.example/'));
    expect(first.sent[2]!.at - first.sent[1]!.at, 'the second retry waited its 5 min').to.be.at.least(240_000);
    await w.admin.patch(ADMIN, idle.id, { enabled: false });
    w.clock.advance(1);
    await runUntil(w.timers, () => w.clock.now() >= T0 + 11 * 60_000);
    w.publish('order.placed');
    await runUntil(w.timers, () => w.clock.now() >= T0 + 12 * 60_000);
    await w.stopAll();
    expect(first.sent).to.have.length(3);
    expect(w.errors).to.deep.equal([]);
  });

  it('a stop during a scan takes nothing more, releases what the scan took, and leaves no scan scheduled', async () => {
    for (const holdAt of ['enabled', 'lease'] as const) {
      const w = world();
      const a = await w.subscribe({ url: 'https://a.example/' });
      const b = await w.subscribe({ url: 'https://b.example/' });
      w.publish('pet.created');
      const calls: string[] = [];
      const gate = deferred<void>();
      let held = false;
      const store = intercept(w.store, async (name) => {
        calls.push(name);
        if (name !== holdAt || held) return;
        held = true;
        await gate.promise;
      });
      const sender = new ScriptedSender(w.clock, 'p1');
      const d = w.dispatcher(sender, 'p1', {}, store);
      d.start();
      await settle();
      expect(held).to.equal(true);
      const stopping = d.stop();
      gate.resolve();
      await stopping;
      expect(
        calls.filter((name) => name === 'lease'),
        holdAt,
      ).to.have.length(holdAt === 'enabled' ? 0 : 1);
      expect(sender.sent).to.deep.equal([]);
      expect(w.row(a.id).lease, holdAt).to.equal(undefined);
      expect(w.row(b.id).lease, holdAt).to.equal(undefined);
      expect(w.timers.pending, holdAt).to.equal(0);
      const made = calls.length;
      w.clock.advance(60_000);
      await settle();
      expect(calls, holdAt).to.have.length(made);
    }
  });

  it('a stop while a worker renews its lease ends the worker at once, without a wait', async () => {
    const w = world();
    const hook = await w.subscribe();
    let hold: { promise: Promise<void>; resolve: (value: void) => void } | undefined;
    let reached = false;
    const store = intercept(w.store, async (name) => {
      if (name !== 'lease' || hold === undefined) return;
      reached = true;
      await hold.promise;
    });
    const d = w.dispatcher(new ScriptedSender(w.clock, 'p1'), 'p1', { leaseMs: 3000 }, store);
    d.start();
    await settle();
    expect(w.row(hook.id).lease).to.include({ holder: 'p1' });
    hold = deferred<void>();
    await runUntil(w.timers, () => reached);
    let stopped = false;
    const stopping = d.stop().then(() => (stopped = true));
    hold.resolve();
    await settle();
    expect(stopped, 'no timer needed').to.equal(true);
    await stopping;
    expect(w.timers.pending).to.equal(0);
    expect(w.row(hook.id).lease).to.equal(undefined);
    expect(w.errors).to.deep.equal([]);
  });

  it('a store failure in a scan or a worker is told to onError, and the dispatcher goes on: the attempt whose recording failed is made again', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish('pet.created');
    let calls = 0;
    const sender = new ScriptedSender(w.clock, 'p1', {
      next: () => {
        if (calls++ === 0) throw new Error('a bug in the sender');
        return DELIVERED;
      },
    });
    const store = failingOnce(w.store, ['enabled', 'advance', 'release']);
    w.dispatcher(sender, 'p1', {}, store).start();
    await runUntil(w.timers, () => w.row(hook.id).delivered === 1, 5000);
    await w.stopAll();
    expect(w.errors.map((e) => (e as Error).message)).to.deep.equal([
      'injected fault: enabled could not reach the store',
      'a bug in the sender',
      'injected fault: advance could not reach the store',
      'injected fault: release could not reach the store',
    ]);
    expect(w.store.logs.get(hook.id)!.map((row) => [row.outcome, row.attempt])).to.deep.equal([
      ['unreachable', 1],
      ['delivered', 1],
    ]);
  });

  it('without onError and onAttempt the dispatcher works the same, through the same failures', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish('pet.created', 'pet.created');
    let calls = 0;
    const sender = new ScriptedSender(w.clock, 'p1', {
      next: () => {
        if (calls++ === 0) throw new Error('a bug in the sender');
        return DELIVERED;
      },
    });
    const store = failingOnce(w.store, ['enabled', 'advance', 'release']);
    // The feed watcher's store fails once too.
    const lastSequence = w.events.lastSequence;
    let watcherFailures = 1;
    w.events.lastSequence = () =>
      watcherFailures-- > 0 ? Promise.reject(new StoreUnavailableError('injected fault')) : lastSequence();
    const d = new WebhookDispatcher(store, w.events, sender, w.clock, w.timers, new SeededRandom('bare'), 'p1');
    d.start();
    await runUntil(w.timers, () => w.row(hook.id).delivered === 2, 5000);
    w.publish('pet.created');
    await runUntil(w.timers, () => w.row(hook.id).delivered === 3, 5000);
    await d.stop();
    expect(watcherFailures).to.be.below(0);
    expect(w.store.logs.get(hook.id)!.map((row) => [row.sequence, row.outcome, row.attempt])).to.deep.equal([
      [1, 'unreachable', 1],
      [1, 'delivered', 1],
      [2, 'delivered', 1],
      [3, 'delivered', 1],
    ]);
  });

  it('a sender that throws: the attempt lasted until it threw, and its error in the log tells nothing of the thrown one', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish('pet.created');
    let calls = 0;
    const sender = new ScriptedSender(w.clock, 'p1', {
      next: async () => {
        if (calls++ > 0) return DELIVERED;
        w.clock.advance(1234);
        throw new Error('a bug in the sender, whsec_c2VjcmV0');
      },
    });
    w.dispatcher(sender).start();
    await runUntil(w.timers, () => w.row(hook.id).delivered === 1);
    await w.stopAll();
    const [failed] = w.store.logs.get(hook.id)!;
    expect(failed).to.include({ outcome: 'unreachable', status: null, durationMs: 1234 });
    expect(failed!.error).to.match(/^the delivery failed inside this service/);
    expect(failed!.error).to.not.include('whsec_');
  });

  it('the log keeps each attempt as it was made, its error only when the sender gave one; onAttempt is told of each', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish('pet.created');
    let calls = 0;
    const sender = new ScriptedSender(w.clock, 'p1', { next: () => (calls++ === 0 ? FAILED : DELIVERED) });
    w.dispatcher(sender).start();
    await runUntil(w.timers, () => w.row(hook.id).delivered === 1);
    await w.stopAll();
    const [first, second] = sender.sent;
    const made: DeliveryAttempt[] = [
      {
        eventId: 'evt_1',
        sequence: 1,
        attempt: 1,
        at: first!.at,
        status: 500,
        outcome: 'failed',
        durationMs: 7,
        error: 'the receiver answered 500',
      },
      { eventId: 'evt_1', sequence: 1, attempt: 2, at: second!.at, status: 204, outcome: 'delivered', durationMs: 3 },
    ];
    expect(w.store.logs.get(hook.id)).to.deep.equal(made.map((attempt, i) => ({ ...attempt, number: i + 1 })));
    expect(w.attempts).to.deep.equal(made.map((attempt) => [hook.id, attempt]));
  });

  it('a replaced secret expiring at the attempt’s very time signs no more; one expiring a millisecond later still does', async () => {
    for (const [expiresAt, used] of [
      [T0, ['whsec_new']],
      [T0 + 1, ['whsec_new', 'whsec_old']],
    ] as const) {
      const w = world();
      const hook = await w.subscribe();
      w.store.rows.set(hook.id, {
        ...w.row(hook.id),
        secrets: [{ secret: 'whsec_new' }, { secret: 'whsec_old', expiresAt }],
      });
      w.publish('pet.created');
      const sender = new ScriptedSender(w.clock, 'p1');
      w.dispatcher(sender).start();
      await runUntil(w.timers, () => sender.sent.length === 1);
      await w.stopAll();
      expect(sender.sent[0]!.at).to.equal(T0);
      expect(sender.sent[0]!.secrets, String(expiresAt - T0)).to.deep.equal(used);
    }
  });

  it('lagSeconds: the oldest across subscriptions with types, whichever comes first in the list', async () => {
    const w = world();
    const d = w.dispatcher(new ScriptedSender(w.clock, 'p1'));
    const all = await w.subscribe();
    await w.subscribe({ types: ['order.placed'] });
    for (const type of ['pet.created', 'pet.created', 'order.placed', 'pet.created'] as const) {
      w.publish(type);
      w.clock.advance(10_000);
    }
    // Now T0 + 40 s: `all` waits for the event of +30 s, `orders` for the one of +20 s.
    w.store.rows.set(all.id, { ...w.row(all.id), delivered: 3 });
    expect(await d.lagSeconds()).to.equal(20);
  });

  it('start twice starts once: one scan a second, and a stop leaves none scheduled', async () => {
    const w = world();
    let scans = 0;
    const store = intercept(w.store, (name) => {
      if (name === 'enabled') scans++;
    });
    const d = w.dispatcher(new ScriptedSender(w.clock, 'p1'), 'p1', {}, store);
    d.start();
    d.start();
    await runUntil(w.timers, () => w.clock.now() >= T0 + 10_000);
    expect(scans).to.equal(11);
    await d.stop();
    expect(w.timers.pending).to.equal(0);
  });

  it('a start while a stop is still under way (a scan in progress) runs one chain of scans, not two', async () => {
    const w = world();
    let scans = 0;
    const store = intercept(w.store, (name) => {
      if (name === 'enabled') scans++;
    });
    const d = w.dispatcher(new ScriptedSender(w.clock, 'p1'), 'p1', {}, store);
    d.start();
    // The first scan is under way (it awaits the store); a stop not awaited, and a start at once.
    const stopping = d.stop();
    d.start();
    await stopping;
    await runUntil(w.timers, () => w.clock.now() >= T0 + 10_000);
    // The first scan, then the new chain's eleven (at 0, 1, …, 10 s); two chains would make about twice as many.
    expect(scans).to.equal(12);
    await d.stop();
    expect(w.timers.pending).to.equal(0);
  });

  it('a lease another process takes between a scan’s read and its take is left alone, quietly', async () => {
    const w = world();
    const hook = await w.subscribe();
    const store = intercept(w.store, (name) => {
      if (name === 'lease' && w.row(hook.id).lease === undefined)
        w.store.rows.set(hook.id, { ...w.row(hook.id), lease: { holder: 'p2', until: T0 + 60_000 } });
    });
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', {}, store).start();
    w.publish('pet.created');
    await runUntil(w.timers, () => w.clock.now() >= T0 + 5000);
    await w.stopAll();
    expect(sender.sent).to.deep.equal([]);
    expect(w.row(hook.id).lease).to.deep.equal({ holder: 'p2', until: T0 + 60_000 });
    expect(w.errors).to.deep.equal([]);
  });
});

describe('WebhookDispatcher: a worker’s position in the feed, its renewals and its stops (docs/rules.md §15)', () => {
  /** The lease and cursor writes among `calls`, in order. */
  const writes = (calls: readonly string[]) => calls.filter((name) => name === 'lease' || name === 'advance');

  it('events of other types cost the worker nothing (the feed watcher reads each once, with one wait for the whole dispatcher), no store write and no timer of its own; the renewal on the lease’s period reads them and writes the position, and one with nothing new writes the lease alone', async () => {
    // (Before the feed watcher, each worker read and waited once per event: this test counted those.)
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    // A backlog of another type: read a page at a time, without a wait between the pages.
    w.publish(...Array.from({ length: 250 }, (): EventType => 'pet.created'));
    const calls: string[] = [];
    const store = intercept(w.store, (name) => void calls.push(name));
    const after = w.events.after;
    let reads = 0;
    w.events.after = (sequence, query) => (reads++, after(sequence, query));
    const waits = () => w.events.calls.filter((call) => call.startsWith('waitBeyond')).length;
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }, store).start();
    await settle();
    expect(writes(calls), 'the scan’s lease').to.deep.equal(['lease']);
    expect([reads, waits()], 'the worker’s three pages, then the watcher’s wait').to.deep.equal([3, 1]);
    expect(w.timers.pending, 'the next scan’s timer and the renewal’s (the watcher’s wait has none)').to.equal(2);
    for (let n = 1; n <= 20; n++) {
      w.publish('pet.created');
      await settle();
      expect([writes(calls).length, reads, waits(), w.timers.pending], `event ${250 + n}`).to.deep.equal([
        1,
        3 + n,
        1 + n,
        2,
      ]);
    }
    const read = reads;
    expect(w.row(hook.id).delivered, 'nothing written yet').to.equal(0);
    await runUntil(w.timers, () => w.row(hook.id).delivered === 270);
    expect(w.clock.now(), 'at the renewal, a third of the lease on').to.equal(T0 + 3000);
    expect(reads - read, 'the worker reads the events it slept through once, at its renewal').to.equal(1);
    expect(writes(calls)).to.deep.equal(['lease', 'lease', 'advance']);
    expect(w.row(hook.id)).to.include({ failures: 0, retryAt: 0 });
    await runUntil(w.timers, () => w.clock.now() >= T0 + 6000);
    await settle();
    expect(writes(calls), 'the next renewal: nothing new to write').to.deep.equal([
      'lease',
      'lease',
      'advance',
      'lease',
    ]);
    await w.stopAll();
    expect(sender.sent).to.deep.equal([]);
    expect(w.errors).to.deep.equal([]);
  });

  it('types changed by an admin after the worker stepped over events of the new types: those events are still delivered, in order (at the next renewal, or at the next event)', async () => {
    for (const next of [[], ['order.placed']] as EventType[][]) {
      const w = world();
      const hook = await w.subscribe({ types: ['order.placed'] });
      const sender = new ScriptedSender(w.clock, 'p1');
      w.dispatcher(sender, 'p1', { leaseMs: 9000 }).start();
      await settle();
      w.publish('pet.created', 'pet.updated', 'pet.created');
      await settle();
      await w.admin.patch(ADMIN, hook.id, { types: ['pet.created', 'pet.updated', 'order.placed'] });
      w.publish(...next);
      await runUntil(w.timers, () => w.clock.now() >= T0 + 60_000);
      await w.stopAll();
      const all = ['evt_1', 'evt_2', 'evt_3', ...next.map((_, i) => `evt_${4 + i}`)];
      expect(
        sender.sent.map((s) => s.webhookId),
        String(next),
      ).to.deep.equal(all);
      // At the renewal on the lease's period (a third of it), or at once with the next event: not a scan later.
      const at = next.length === 0 ? T0 + 3000 : T0;
      expect(
        sender.sent.map((s) => s.at),
        String(next),
      ).to.deep.equal(all.map(() => at));
      expect(w.row(hook.id).delivered, String(next)).to.equal(all.length);
      expect(w.errors).to.deep.equal([]);
    }
  });

  it('a failure’s cursor records the position just before the failing event; the renewals while the retry waits write nothing more, and the deliveries go on from there', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    w.publish('pet.created', 'pet.created', 'order.placed', 'pet.created', 'order.placed');
    let failures = 1;
    const sender = new ScriptedSender(w.clock, 'p1', { next: () => (failures-- > 0 ? FAILED : DELIVERED) });
    const calls: string[] = [];
    const store = intercept(w.store, (name) => void calls.push(name));
    w.dispatcher(sender, 'p1', { leaseMs: 3000 }, store).start();
    await runUntil(w.timers, () => w.row(hook.id).failures === 1);
    expect(w.row(hook.id)).to.include({ delivered: 2 });
    await runUntil(w.timers, () => w.row(hook.id).delivered === 5);
    await w.stopAll();
    expect(sender.sent.map((s) => s.webhookId)).to.deep.equal(['evt_3', 'evt_3', 'evt_5']);
    expect(w.store.logs.get(hook.id)!.map((row) => [row.sequence, row.attempt])).to.deep.equal([
      [3, 1],
      [3, 2],
      [5, 1],
    ]);
    expect(sender.sent[1]!.at - sender.sent[0]!.at, 'the retry’s wait').to.be.within(4000, 6000);
    // A renewal a second (a third of the lease) while the retry waits, and the three attempts' writes alone.
    expect(calls.filter((name) => name === 'lease').length).to.be.at.least(5);
    expect(calls.filter((name) => name === 'advance')).to.have.length(3);
  });

  it('a stop while a worker reads the feed (a store that answers later): the worker ends at once, with no wait', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    w.publish('order.placed');
    const after = w.events.after;
    let gate: ReturnType<typeof deferred<void>> | undefined;
    // Every read answers a promise (as MongoDB's does); one of them is held by the test.
    (w.events as { after: EventStore['after'] }).after = async (sequence, query) => {
      await gate?.promise;
      return after(sequence, query);
    };
    const sender = new ScriptedSender(w.clock, 'p1');
    const d = w.dispatcher(sender);
    d.start();
    await runUntil(w.timers, () => w.row(hook.id).delivered === 1);
    gate = deferred<void>();
    w.publish('pet.created');
    await settle();
    let stopped = false;
    const stopping = d.stop().then(() => (stopped = true));
    gate.resolve();
    await settle();
    expect(stopped, 'no timer needed').to.equal(true);
    await stopping;
    expect(w.timers.pending).to.equal(0);
    expect(w.row(hook.id).lease).to.equal(undefined);
    expect(sender.sent.map((s) => s.webhookId)).to.deep.equal(['evt_1']);
  });

  it('a lease lost while the worker stepped over events: it ends without a write, and the next holder reads them again', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    const calls: string[] = [];
    const store = intercept(w.store, (name) => void calls.push(name));
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }, store).start();
    await settle();
    w.publish('pet.created', 'pet.created', 'pet.created');
    await settle();
    // Another process took the subscription (as after a pause of this one longer than its lease).
    const taken = { holder: 'p2', until: T0 + 20_000 };
    w.store.rows.set(hook.id, { ...w.row(hook.id), lease: taken });
    await runUntil(w.timers, () => w.clock.now() >= T0 + 5000);
    expect(w.row(hook.id)).to.deep.include({ delivered: 0, lease: taken });
    expect(writes(calls), 'its renewal, refused').to.deep.equal(['lease', 'lease']);
    // The other lease lapses: a scan takes the subscription again, from the cursor as stored.
    w.publish('order.placed');
    await runUntil(w.timers, () => w.row(hook.id).delivered === 4);
    await w.stopAll();
    expect(sender.sent.map((s) => [s.webhookId, s.at])).to.deep.equal([['evt_4', T0 + 20_000]]);
    expect(w.errors).to.deep.equal([]);
  });

  it('a subscription disabled between the renewal and the write of the position: nothing is written, and the worker ends quietly', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    const calls: string[] = [];
    const store = intercept(w.store, async (name) => {
      calls.push(name);
      if (name === 'advance') await w.admin.patch(ADMIN, hook.id, { enabled: false });
    });
    w.dispatcher(new ScriptedSender(w.clock, 'p1'), 'p1', { leaseMs: 9000 }, store).start();
    await settle();
    w.publish('pet.created');
    await runUntil(w.timers, () => w.clock.now() >= T0 + 10_000);
    await w.stopAll();
    expect(w.row(hook.id)).to.include({ delivered: 0, enabled: false });
    expect(w.row(hook.id).lease).to.equal(undefined);
    expect(
      calls.filter((name) => name !== 'enabled'),
      'the refused write ends the worker: only its release after it',
    ).to.deep.equal(['lease', 'lease', 'advance', 'release']);
    expect(w.errors).to.deep.equal([]);
  });

  it('a subscription disabled, or its lease taken, while its worker waits on the feed: the renewal before the next attempt is refused, nothing is sent, and the worker ends', async () => {
    for (const change of ['disabled', 'taken'] as const) {
      const w = world();
      const hook = await w.subscribe();
      const calls: string[] = [];
      const store = intercept(w.store, (name) => void calls.push(name));
      const sender = new ScriptedSender(w.clock, 'p1');
      w.dispatcher(sender, 'p1', {}, store).start();
      await settle();
      if (change === 'disabled') await w.admin.patch(ADMIN, hook.id, { enabled: false });
      else w.store.rows.set(hook.id, { ...w.row(hook.id), lease: { holder: 'p2', until: T0 + 60_000 } });
      w.publish('pet.created');
      await settle();
      expect(sender.sent, change).to.deep.equal([]);
      expect(
        calls.filter((name) => name !== 'enabled'),
        change,
      ).to.deep.equal(['lease', 'lease', 'release']);
      await w.stopAll();
      expect(w.errors).to.deep.equal([]);
    }
  });

  it('a worker whose attempt’s write is refused (the subscription disabled during the attempt) ends: only its release after it', async () => {
    const w = world();
    const hook = await w.subscribe();
    const held = deferred<WebhookResult>();
    const sender = new ScriptedSender(w.clock, 'p1', { next: () => held.promise });
    const calls: string[] = [];
    const store = intercept(w.store, (name) => void calls.push(name));
    w.dispatcher(sender, 'p1', {}, store).start();
    w.publish('pet.created', 'pet.created');
    await runUntil(w.timers, () => sender.sent.length === 1);
    await w.admin.patch(ADMIN, hook.id, { enabled: false });
    held.resolve(DELIVERED);
    await settle();
    expect(calls.filter((name) => name !== 'enabled')).to.deep.equal(['lease', 'lease', 'log', 'advance', 'release']);
    await w.stopAll();
    expect(sender.sent.map((s) => s.webhookId)).to.deep.equal(['evt_1']);
    expect(w.row(hook.id)).to.include({ delivered: 0, enabled: false });
    expect(w.errors).to.deep.equal([]);
  });

  it('a stop while a worker waits for a retry ends the wait at once, keeps the failure recorded, and releases the lease', async () => {
    const w = world();
    const hook = await w.subscribe();
    w.publish('pet.created');
    const sender = new ScriptedSender(w.clock, 'p1', { next: () => FAILED });
    const d = w.dispatcher(sender);
    d.start();
    await runUntil(w.timers, () => w.row(hook.id).failures === 1);
    await settle();
    let stopped = false;
    const stopping = d.stop().then(() => (stopped = true));
    await settle();
    expect(stopped, 'no timer needed').to.equal(true);
    await stopping;
    expect(w.timers.pending).to.equal(0);
    expect(w.row(hook.id)).to.include({ delivered: 0, failures: 1 });
    expect(w.row(hook.id).lease).to.equal(undefined);
    expect(sender.sent).to.have.length(1);
  });
});

describe('WebhookDispatcher: the feed watcher, one per dispatcher (docs/rules.md §15)', () => {
  /** `w.events.after` and `w.timers.setTimeout`, counted. */
  const counted = (w: ReturnType<typeof world>) => {
    const counts = { reads: 0, timers: 0 };
    const after = w.events.after;
    w.events.after = (sequence, query) => (counts.reads++, after(sequence, query));
    const setTimer = w.timers.setTimeout.bind(w.timers);
    w.timers.setTimeout = (callback, ms) => (counts.timers++, setTimer(callback, ms));
    return counts;
  };

  it('with no subscription held, the watcher waits on nothing: events cost no read, no wait and no timer; a subscription taken later gets every event from its start, and a stop ends the idle watcher at once', async () => {
    const w = world();
    const sender = new ScriptedSender(w.clock, 'p1');
    const idle = w.dispatcher(sender, 'idle');
    idle.start();
    await settle();
    await idle.stop();
    expect(w.timers.pending, 'the idle watcher ended with the stop, no timer left').to.equal(0);
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }).start();
    await settle();
    const counts = counted(w);
    const waits = () => w.events.calls.filter((call) => call.startsWith('waitBeyond')).length;
    const waited = waits();
    const feed = w.publish(...Array.from({ length: 20 }, (): EventType => 'pet.created'));
    for (let m = 0; m < 5; m++) {
      feed.push(...w.publish('pet.created'));
      await settle();
    }
    expect([counts.reads, counts.timers, waits() - waited]).to.deep.equal([0, 0, 0]);
    const hook = await w.subscribe({ types: ['pet.created'], after: 0 });
    await runUntil(w.timers, () => w.row(hook.id).delivered === 25);
    // Taken: the watcher follows the feed again, and wakes the worker for the next event.
    const at = w.clock.now();
    feed.push(...w.publish('pet.created'));
    await settle();
    expect(w.row(hook.id).delivered).to.equal(26);
    expect(w.clock.now(), 'at once, not at a renewal').to.equal(at);
    await w.stopAll();
    expect(sender.sent.map((sent) => sent.webhookId)).to.deep.equal(feed.map((event) => event.id));
    expect(w.errors).to.deep.equal([]);
  });

  it('with N subscriptions none of which match, M new events cost no worker a turn: one read per event (the watcher’s), no timer, no store call; each worker reads them at its renewal', async () => {
    const w = world();
    const hooks: { id: string }[] = [];
    for (let i = 0; i < 10; i++)
      hooks.push(await w.subscribe({ url: `https://h${i}.example/`, types: ['order.placed', 'key.created'] }));
    const calls: string[] = [];
    const store = intercept(w.store, (name) => void calls.push(name));
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }, store).start();
    await settle();
    expect(calls.filter((name) => name === 'lease')).to.have.length(10);
    const counts = counted(w);
    const made = calls.length;
    for (let m = 1; m <= 30; m++) {
      w.publish(m % 2 === 0 ? 'pet.created' : 'pet.updated');
      await settle();
      expect([counts.reads, counts.timers, calls.length], `event ${m}`).to.deep.equal([m, 0, made]);
    }
    // A burst longer than a page: the watcher reads it page after page, after one wait.
    const waits = () => w.events.calls.filter((call) => call.startsWith('waitBeyond')).length;
    const waited = waits();
    w.publish(...Array.from({ length: 250 }, (): EventType => 'pet.created'));
    await settle();
    expect([counts.reads, counts.timers, calls.length, waits() - waited]).to.deep.equal([33, 0, made, 1]);
    expect(w.clock.now()).to.equal(T0);
    await runUntil(w.timers, () => hooks.every((hook) => w.row(hook.id).delivered === 280));
    // The first renewal writes the first page's position, the second the rest.
    expect(w.clock.now(), 'at the second renewal').to.equal(T0 + 6000);
    expect(counts.reads - 33, 'three pages per worker at its first renewal, one (empty) at its second').to.equal(40);
    await w.stopAll();
    expect(sender.sent).to.deep.equal([]);
    expect(w.errors).to.deep.equal([]);
  });

  it('a subscription that matches every k-th event is woken for those only, with no timer, and delivers each at once, in order', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    const other = await w.subscribe({ url: 'https://other.example/', types: ['key.created'] });
    const calls: string[] = [];
    const store = intercept(w.store, (name) => void calls.push(name));
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }, store).start();
    await settle();
    const counts = counted(w);
    const leases = () => calls.filter((name) => name === 'lease').length;
    const scanned = leases();
    const k = 3;
    const feed: Event[] = [];
    for (let m = 1; m <= 12; m++) {
      feed.push(...w.publish(m % k === 0 ? 'order.placed' : 'pet.created'));
      await settle();
      const matched = Math.floor(m / k);
      // The watcher's read per event; the woken worker's one read (the events it slept through and
      // the matching one) per matching event, and its renewal before the attempt; no timer at all.
      expect([counts.reads, counts.timers, leases() - scanned], `event ${m}`).to.deep.equal([m + matched, 0, matched]);
      expect(w.row(hook.id).delivered, `event ${m}`).to.equal(matched * k);
    }
    // Several at once, the matching one among others: one wake for them.
    feed.push(...w.publish('pet.created', 'order.placed', 'pet.created'));
    await settle();
    expect([counts.reads, counts.timers, leases() - scanned]).to.deep.equal([18, 0, 5]);
    expect(w.row(hook.id).delivered).to.equal(14);
    expect(w.clock.now()).to.equal(T0);
    await w.stopAll();
    expect(sender.sent.map((s) => s.webhookId)).to.deep.equal(
      feed.filter((e) => e.type === 'order.placed').map((e) => e.id),
    );
    expect(w.row(other.id).delivered, 'the other one slept through them all').to.equal(0);
    expect(w.errors).to.deep.equal([]);
  });

  it('an event appended while a worker is between its read and its wait (the watcher passed it, the worker busy) is delivered at once, not at the renewal', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    w.publish('pet.created');
    const after = w.events.after;
    const gate = deferred<void>();
    let held = false;
    // The worker's first read answers later, with the feed as it was when asked.
    (w.events as { after: EventStore['after'] }).after = (sequence, query) => {
      const page = after(sequence, query);
      if (sequence !== 0 || held) return page;
      held = true;
      return gate.promise.then(() => page);
    };
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }).start();
    await settle();
    expect(held).to.equal(true);
    w.publish('order.placed');
    await settle();
    gate.resolve();
    await runUntil(w.timers, () => w.row(hook.id).delivered === 2);
    await w.stopAll();
    expect(sender.sent.map((s) => [s.webhookId, s.at])).to.deep.equal([['evt_2', T0]]);
    expect(w.errors).to.deep.equal([]);
  });

  it('the watcher wakes only idle workers, for events beyond their position: a busy one finds its event by its own read, and one that delivered an event before the watcher read it is not woken for it', async () => {
    for (const staged of ['busy', 'ahead'] as const) {
      const w = world();
      const hook = await w.subscribe({ types: ['order.placed'] });
      const after = w.events.after;
      const gate = deferred<void>();
      let reads = 0;
      let hold = staged === 'busy' ? 1 : 0;
      // The held read answers later, with the feed as it is then.
      (w.events as { after: EventStore['after'] }).after = (sequence, query) => {
        reads++;
        if (hold-- !== 1) return after(sequence, query);
        return gate.promise.then(() => after(sequence, query));
      };
      const sender = new ScriptedSender(w.clock, 'p1');
      w.dispatcher(sender, 'p1', { leaseMs: 9000 }).start();
      await settle();
      expect(reads, staged).to.equal(1);
      if (staged === 'ahead') hold = 1;
      w.publish('order.placed');
      await settle();
      // busy: the worker's first read is held, the watcher read the event; ahead: the watcher's read is held.
      expect(reads, staged).to.equal(2);
      if (staged === 'ahead') {
        // The renewal wakes the worker, which delivers the event the watcher has not read yet.
        await runUntil(w.timers, () => w.row(hook.id).delivered === 1);
        expect(reads, staged).to.equal(3);
      }
      gate.resolve();
      await settle();
      await settle();
      expect(w.row(hook.id).delivered, staged).to.equal(1);
      expect(reads, `${staged}: no read more`).to.equal(staged === 'busy' ? 2 : 3);
      await w.stopAll();
      expect(
        sender.sent.map((s) => [s.webhookId, s.at]),
        staged,
      ).to.deep.equal([['evt_1', staged === 'busy' ? T0 : T0 + 3000]]);
      expect(w.errors).to.deep.equal([]);
    }
  });

  it('a worker that went idle before the watcher learned where the feed ends is woken when it does, for the events beyond its position', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    const lastSequence = w.events.lastSequence;
    const gate = deferred<void>();
    w.events.lastSequence = async () => {
      await gate.promise;
      return lastSequence();
    };
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }).start();
    await settle();
    w.publish('pet.created', 'order.placed');
    await settle();
    expect(sender.sent).to.deep.equal([]);
    gate.resolve();
    await runUntil(w.timers, () => w.row(hook.id).delivered === 2);
    await w.stopAll();
    expect(sender.sent.map((s) => [s.webhookId, s.at])).to.deep.equal([['evt_2', T0]]);
  });

  it('a stop while the watcher reads: it ends with that read (no page more, no back-off after its failure)', async () => {
    for (const answer of ['a full page', 'a failure'] as const) {
      const w = world();
      await w.subscribe({ types: ['order.placed'] });
      const d = w.dispatcher(new ScriptedSender(w.clock, 'p1'));
      d.start();
      await settle();
      const after = w.events.after;
      const gate = deferred<void>();
      let reads = 0;
      (w.events as { after: EventStore['after'] }).after = async (sequence, query) => {
        reads++;
        await gate.promise;
        if (answer === 'a failure') throw new StoreUnavailableError('injected fault: after');
        return after(sequence, query);
      };
      w.publish(...Array.from({ length: 150 }, (): EventType => 'pet.created'));
      await settle();
      expect(reads, answer).to.equal(1);
      let stopped = false;
      const stopping = d.stop().then(() => (stopped = true));
      gate.resolve();
      await settle();
      expect(stopped, answer).to.equal(true);
      await stopping;
      expect(reads, answer).to.equal(1);
      expect(w.timers.pending, answer).to.equal(0);
    }
  });

  it('a worker reads a backlog longer than a page page after page by itself, without waiting for the watcher (whose read is held)', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }).start();
    await settle();
    const after = w.events.after;
    const gate = deferred<void>();
    let held = false;
    (w.events as { after: EventStore['after'] }).after = (sequence, query) => {
      if (held) return after(sequence, query);
      held = true;
      return gate.promise.then(() => after(sequence, query));
    };
    w.publish(...Array.from({ length: 149 }, (): EventType => 'pet.created'), 'order.placed');
    await settle();
    expect(held).to.equal(true);
    // The renewal wakes the worker: it reads on past the first page, and delivers.
    await runUntil(w.timers, () => w.row(hook.id).delivered === 150);
    expect(sender.sent.map((s) => [s.webhookId, s.at])).to.deep.equal([['evt_150', T0 + 3000]]);
    gate.resolve();
    await w.stopAll();
  });

  it('a worker’s first turn reads a backlog longer than a page at once, without the watcher (which has not learned where the feed ends)', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'], after: 0 });
    w.publish(...Array.from({ length: 149 }, (): EventType => 'pet.created'), 'order.placed');
    const lastSequence = w.events.lastSequence;
    const gate = deferred<void>();
    w.events.lastSequence = async () => {
      await gate.promise;
      return lastSequence();
    };
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }).start();
    await settle();
    expect(w.row(hook.id).delivered).to.equal(150);
    expect(sender.sent.map((s) => [s.webhookId, s.at])).to.deep.equal([['evt_150', T0]]);
    gate.resolve();
    await w.stopAll();
  });

  it('a renewal due while the worker reads (a store that answers later) is not lost: the worker renews once the read answers', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    const calls: string[] = [];
    const store = intercept(w.store, (name) => void calls.push(name));
    const after = w.events.after;
    const gate = deferred<void>();
    let held = false;
    (w.events as { after: EventStore['after'] }).after = (sequence, query) => {
      if (held) return after(sequence, query);
      held = true;
      return gate.promise.then(() => after(sequence, query));
    };
    w.dispatcher(new ScriptedSender(w.clock, 'p1'), 'p1', { leaseMs: 9000 }, store).start();
    await settle();
    expect(held).to.equal(true);
    // The renewal's timer fires while the worker's first read is held.
    await runUntil(w.timers, () => w.clock.now() >= T0 + 3000);
    await settle();
    const leases = () => calls.filter((name) => name === 'lease').length;
    expect(leases()).to.equal(1);
    gate.resolve();
    await settle();
    expect(leases(), 'renewed at once').to.equal(2);
    expect(w.row(hook.id).lease!.until).to.equal(T0 + 3000 + 9000);
    await w.stopAll();
    expect(w.errors).to.deep.equal([]);
  });

  it('a stop during the watcher’s wait, or during its back-off after a failure, ends it at once and leaves no timer', async () => {
    for (const during of ['wait', 'back-off'] as const) {
      const w = world();
      await w.subscribe();
      if (during === 'back-off')
        w.events.lastSequence = () => Promise.reject(new StoreUnavailableError('injected fault: lastSequence'));
      const d = w.dispatcher(new ScriptedSender(w.clock, 'p1'));
      d.start();
      await settle();
      expect(w.errors, during).to.have.length(during === 'back-off' ? 1 : 0);
      let stopped = false;
      const stopping = d.stop().then(() => (stopped = true));
      await settle();
      expect(stopped, during).to.equal(true);
      await stopping;
      expect(w.timers.pending, during).to.equal(0);
      expect(w.clock.now(), during).to.equal(T0);
    }
  });

  it('the watcher’s store failure is told to onError, and the watcher goes on after its back-off: the event it failed to read wakes the worker then, not at the renewal', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }).start();
    await settle();
    const after = w.events.after;
    let failures = 1;
    w.events.after = (sequence, query) => {
      if (failures-- > 0) throw new StoreUnavailableError('injected fault: after could not reach the store');
      return after(sequence, query);
    };
    w.publish('order.placed');
    await runUntil(w.timers, () => w.row(hook.id).delivered === 1);
    await w.stopAll();
    expect(w.errors.map((e) => (e as Error).message)).to.deep.equal([
      'injected fault: after could not reach the store',
    ]);
    expect(sender.sent.map((s) => [s.webhookId, s.at])).to.deep.equal([['evt_1', T0 + 1000]]);
  });
});

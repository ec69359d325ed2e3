import { expect } from 'chai';
import type { EventStore, EventType, WebhookResult } from '../src/index.js';
import { runUntil, settle } from './support/virtual-time.js';
import {
  ADMIN,
  deferred,
  DELIVERED,
  FAILED,
  intercept,
  ScriptedSender,
  T0,
  world,
} from './support/dispatcher-world.js';

// A subscription's worker (docs/rules.md §15): its position in the feed, the renewals of its lease,
// and how it ends (a stop, a lease lost, a write refused).
describe('SubscriptionWorker: its position in the feed, its lease’s renewals and its end (docs/rules.md §15)', () => {
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

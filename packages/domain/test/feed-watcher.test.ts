import { expect } from 'chai';
import type { Event, EventStore, EventType, WebhookResult } from '../src/index.js';
import { StoreUnavailableError } from '../src/index.js';
import { runUntil, settle } from './support/virtual-time.js';
import { deferred, DELIVERED, intercept, ScriptedSender, T0, world } from './support/dispatcher-world.js';

// The feed watcher, one per dispatcher (docs/rules.md §15): one wait on the feed for the process,
// each new event read once, only the idle workers it concerns woken; none while nothing is held.
describe('FeedWatcher: one per dispatcher (docs/rules.md §15)', () => {
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

  it('a worker busy with an attempt when the watcher reads its next event (so not woken) reads it once the attempt is done, at once, not at the renewal', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    const first = deferred<WebhookResult>();
    let calls = 0;
    const sender = new ScriptedSender(w.clock, 'p1', {
      next: () => (calls++ === 0 ? first.promise : DELIVERED),
    });
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }).start();
    await settle();
    w.publish('order.placed');
    await runUntil(w.timers, () => sender.sent.length === 1);
    // The watcher reads the next event while the worker waits for its receiver.
    w.publish('pet.created', 'order.placed');
    await settle();
    first.resolve(DELIVERED);
    await runUntil(w.timers, () => w.row(hook.id).delivered === 3);
    await w.stopAll();
    expect(sender.sent.map((s) => [s.webhookId, s.at])).to.deep.equal([
      ['evt_1', T0],
      ['evt_3', T0],
    ]);
  });

  it('a wait on the feed that ends with nothing new (its store answered early) costs nothing: the watcher waits again, no error, and the next event still wakes the worker at once', async () => {
    const w = world();
    const hook = await w.subscribe({ types: ['order.placed'] });
    const waitBeyond = w.events.waitBeyond;
    let early = 1;
    w.events.waitBeyond = (sequence, timeoutMs, until) =>
      early-- > 0 ? Promise.resolve(w.events.lastSeq) : waitBeyond(sequence, timeoutMs, until);
    const sender = new ScriptedSender(w.clock, 'p1');
    w.dispatcher(sender, 'p1', { leaseMs: 9000 }).start();
    await settle();
    expect(early, 'the early answer was given').to.equal(-1);
    w.publish('order.placed');
    await runUntil(w.timers, () => w.row(hook.id).delivered === 1);
    await w.stopAll();
    expect(sender.sent.map((s) => s.at)).to.deep.equal([T0]);
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
      expect(w.events.waits, `${during}: no wait on the feed is left`).to.equal(0);
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

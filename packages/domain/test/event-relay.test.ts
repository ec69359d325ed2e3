import { expect } from 'chai';
import type { Event, EventRelay as Relay, NewEvent, Order } from '../src/index.js';
import { EventFeed, EventRelay, EventRetention, RelayLoop, StoreUnavailableError } from '../src/index.js';
import { ManualClock } from '../test-support/index.js';
import { EventStoreModel } from './support/event-store-model.js';
import { ManualTimers } from './support/manual-timers.js';

const T0 = Date.UTC(2027, 0, 1);
const AT = new Date(T0).toISOString();
const petEvent = (id: number, name = 'Rex', status: 'available' | 'pending' = 'available'): NewEvent => ({
  type: 'pet.updated',
  occurredAt: AT,
  data: { id, name, categoryId: 1, status },
});
const order = (id: number, petId: number): Order => ({ id, petId, status: 'placed', placedAt: AT, updatedAt: AT });
const placed = (id: number, petId: number): NewEvent => ({
  type: 'order.placed',
  occurredAt: AT,
  data: order(id, petId),
  follows: [{ kind: 'pet', id: petId }],
});
const flush = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe('EventRelay (docs/rules.md §15): moves the outboxes into the feed', () => {
  it('under its lease: each resource in its order, at the next sequences, then clears what it moved; tells of each event appended', async () => {
    const store = new EventStoreModel();
    const clock = new ManualClock(T0);
    const [a1, a2] = store.record(petEvent(1, 'A'), petEvent(1, 'B'));
    const [b1] = store.record(petEvent(2));
    const told: Event[] = [];
    expect(await new EventRelay(store, clock, 'me', { onAppended: (event) => told.push(event) }).run()).to.equal(3);
    expect(store.feed.map((e) => [e.id, e.sequence])).to.deep.equal([
      [a1!.id, 1],
      [a2!.id, 2],
      [b1!.id, 3],
    ]);
    expect(told).to.deep.equal(store.feed);
    expect(store.waiting).to.equal(0);
    expect(store.calls).to.deep.equal([
      'lease me',
      'lastSequence',
      'pending 100',
      `append ${a1!.id}@1`,
      `append ${a2!.id}@2`,
      `clear pet:1 ${a1!.id},${a2!.id}`,
      `append ${b1!.id}@3`,
      `clear pet:2 ${b1!.id}`,
    ]);
    expect(store.currentLease).to.deep.equal({ holder: 'me', until: T0 + 2_000 });
  });

  it('moves nothing without the lease; takes it once it has run out, for its own lease time', async () => {
    const store = new EventStoreModel();
    const clock = new ManualClock(T0);
    store.record(petEvent(1));
    store.currentLease = { holder: 'other', until: T0 + 10 };
    const relay = new EventRelay(store, clock, 'me', { leaseMs: 500 });
    expect(await relay.run()).to.equal(0);
    expect(store.calls).to.deep.equal(['lease me']);
    clock.advance(10);
    expect(await relay.run()).to.equal(1);
    expect(store.currentLease).to.deep.equal({ holder: 'me', until: T0 + 510 });
  });

  it("an entry's follows first: the waiting entries of the resources it names, once each", async () => {
    const store = new EventStoreModel();
    const clock = new ManualClock(T0);
    const [order1] = store.record(placed(10, 1));
    const [pet1, pet1b] = store.record(petEvent(1, 'Rex', 'pending'), petEvent(1, 'Max', 'pending'));
    expect(await new EventRelay(store, clock, 'me').run()).to.equal(3);
    expect(
      store.feed.map((e) => e.id),
      "the pet's events before the order that follows it",
    ).to.deep.equal([pet1!.id, pet1b!.id, order1!.id]);
    expect(
      store.calls.filter((c) => c.startsWith('append')),
      'each appended once',
    ).to.have.length(3);
    expect(store.calls).to.include('pendingOf pet:1');
    expect(store.waiting).to.equal(0);
    // A followed resource with nothing waiting: looked at, nothing to clear.
    const alone = new EventStoreModel();
    alone.record(placed(11, 2));
    expect(await new EventRelay(alone, clock, 'me').run()).to.equal(1);
    expect(alone.calls.filter((c) => c.includes('pet:2'))).to.deep.equal(['pendingOf pet:2']);
  });

  it('follows through a mark: only the entries up to the marked one; none when it no longer waits; cause before effect across an order and its pet', async () => {
    const clock = new ManualClock(T0);
    const reserved = (petId: number, orderId: number): NewEvent => ({
      ...petEvent(petId, 'Rex', 'pending'),
      mark: `order:${orderId}`,
    });
    const placedThrough = (orderId: number, petId: number): NewEvent => ({
      ...placed(orderId, petId),
      follows: [{ kind: 'pet', id: petId, through: `order:${orderId}` }],
    });
    const prefix = new EventStoreModel();
    const [order10] = prefix.record(placedThrough(10, 1));
    const [reserving, later] = prefix.record(reserved(1, 10), petEvent(1, 'Max', 'pending'));
    await new EventRelay(prefix, clock, 'me').run();
    expect(
      prefix.feed.map((e) => e.id),
      'the marked entry and what came before it; the later one in its turn',
    ).to.deep.equal([reserving!.id, order10!.id, later!.id]);

    const gone = new EventStoreModel();
    const [order11] = gone.record(placedThrough(11, 2));
    const [other] = gone.record(petEvent(2, 'Max'));
    await new EventRelay(gone, clock, 'me').run();
    expect(
      gone.feed.map((e) => e.id),
      'the marked entry is no longer waiting: nothing to wait for',
    ).to.deep.equal([order11!.id, other!.id]);
    expect(gone.calls.slice(0, 6)).to.deep.equal([
      'lease me',
      'lastSequence',
      'pending 100',
      'pendingOf pet:2',
      `append ${order11!.id}@1`,
      `clear order:11 ${order11!.id}`,
    ]);

    const chain = new EventStoreModel();
    const [pending] = chain.record(reserved(3, 12));
    const [sold] = chain.record({ ...petEvent(3, 'Rex'), follows: [{ kind: 'order', id: 12, through: 'delivered' }] });
    const [p12, a12, d12] = chain.record(
      { ...placedThrough(12, 3), mark: 'placed' },
      { type: 'order.approved', occurredAt: AT, data: { ...order(12, 3), status: 'approved' }, mark: 'approved' },
      { type: 'order.delivered', occurredAt: AT, data: { ...order(12, 3), status: 'delivered' }, mark: 'delivered' },
    );
    await new EventRelay(chain, clock, 'me').run();
    expect(
      chain.feed.map((e) => e.id),
      'reserved, placed, approved, delivered, then released',
    ).to.deep.equal([pending!.id, p12!.id, a12!.id, d12!.id, sold!.id]);
    expect(chain.waiting).to.equal(0);
  });

  it('a sequence taken by another relay: reads the last sequence again and appends after it', async () => {
    const store = new EventStoreModel();
    const clock = new ManualClock(T0);
    const [mine] = store.record(petEvent(1));
    const append = store.append;
    let raced = false;
    store.append = async (event) => {
      if (!raced) {
        raced = true;
        store.feed.push({ id: 'evt_other', sequence: 1, type: 'pet.withdrawn', occurredAt: AT, data: { id: 9 } });
        store.lastSeq = 1;
      }
      return append(event);
    };
    expect(await new EventRelay(store, clock, 'me').run()).to.equal(1);
    expect(store.feed.map((e) => [e.id, e.sequence])).to.deep.equal([
      ['evt_other', 1],
      [mine!.id, 2],
    ]);
    expect(store.calls.filter((c) => c === 'lastSequence' || c.startsWith('append'))).to.deep.equal([
      'lastSequence',
      `append ${mine!.id}@1`,
      'lastSequence',
      `append ${mine!.id}@2`,
    ]);
  });

  it('an entry already in the feed (a run that stopped before clearing) is not appended again, only cleared; it is not told', async () => {
    const store = new EventStoreModel();
    const clock = new ManualClock(T0);
    const [moved, fresh] = store.record(petEvent(1, 'A'), petEvent(1, 'B'));
    store.feed.push({ ...(moved as Event), sequence: 1 } as Event);
    store.lastSeq = 1;
    const told: string[] = [];
    expect(await new EventRelay(store, clock, 'me', { onAppended: (e) => told.push(e.id) }).run()).to.equal(1);
    expect(store.feed.map((e) => [e.id, e.sequence])).to.deep.equal([
      [moved!.id, 1],
      [fresh!.id, 2],
    ]);
    expect(told).to.deep.equal([fresh!.id]);
    expect(store.waiting).to.equal(0);
  });

  it('gives up with StoreUnavailableError after 32 taken sequences in a row; a store whose follows go round in a circle is an error', async () => {
    const store = new EventStoreModel();
    const clock = new ManualClock(T0);
    store.record(petEvent(1));
    store.append = async () => 'taken' as const;
    const taken = await Promise.resolve(new EventRelay(store, clock, 'me').run()).catch((error: unknown) => error);
    expect(taken).to.be.instanceOf(StoreUnavailableError);
    expect((taken as Error).message).to.equal(
      "the feed's next sequence was taken 32 times in a row (other relays at work); retry",
    );
    expect(store.calls.filter((c) => c === 'lastSequence')).to.have.length(33);

    const circle = new EventStoreModel();
    circle.record({ ...petEvent(1), follows: [{ kind: 'pet', id: 1 }] });
    const error = await Promise.resolve(new EventRelay(circle, clock, 'me').run()).catch((e: unknown) => e);
    expect((error as Error).message).to.equal(
      "the outboxes' follows lead deeper than 8 resources (at pet 1): a store that records events out of its rules",
    );
    expect(circle.calls.filter((c) => c.startsWith('pendingOf'))).to.have.length(8);
  });

  it('reads batch after batch, renewing its lease between them once half of it has passed; stops when the lease is lost, and after 16 batches', async () => {
    const store = new EventStoreModel();
    const clock = new ManualClock(T0);
    for (let i = 1; i <= 3; i++) store.record(petEvent(i));
    // Each read takes 600 ms: the lease (2 s) is renewed before the round that starts past its half.
    const pending = store.pending;
    store.pending = async (limit) => {
      clock.advance(600);
      return pending(limit);
    };
    expect(await new EventRelay(store, clock, 'me', { batch: 1 }).run()).to.equal(3);
    expect(store.calls.filter((c) => c.startsWith('lease') || c.startsWith('pending'))).to.deep.equal([
      'lease me',
      'pending 1',
      'pending 1',
      'lease me',
      'pending 1',
      'pending 1',
    ]);
    expect(store.currentLease).to.deep.equal({ holder: 'me', until: T0 + 1200 + 2000 });

    const lost = new EventStoreModel();
    for (let i = 1; i <= 3; i++) lost.record(petEvent(i));
    let leases = 0;
    const lease = lost.lease;
    lost.lease = async (holder, now, until) => (leases++ === 0 ? lease(holder, now, until) : false);
    const slowly = lost.pending;
    lost.pending = async (limit) => {
      clock.advance(1001);
      return slowly(limit);
    };
    expect(await new EventRelay(lost, clock, 'me', { batch: 1 }).run()).to.equal(1);
    expect(lost.waiting).to.equal(2);

    const stuck = new EventStoreModel();
    stuck.record(petEvent(1));
    stuck.clear = async () => {};
    const relay = new EventRelay(stuck, clock, 'me', { batch: 1 });
    expect(relay.hasMore).to.equal(false);
    expect(await relay.run()).to.equal(1);
    expect(stuck.calls.filter((c) => c.startsWith('pending'))).to.have.length(16);
    expect(
      stuck.calls.filter((c) => c.startsWith('lease')),
      'no time passed: taken once',
    ).to.have.length(1);
    expect(relay.hasMore, 'full batches to the last round: more may wait').to.equal(true);
    clock.advance(2000);
    stuck.currentLease = { holder: 'other', until: clock.now() + 1 };
    expect(await relay.run()).to.equal(0);
    expect(relay.hasMore, 'without the lease').to.equal(false);
    const short = new EventRelay(store, clock, 'me', { batch: 1 });
    await short.run();
    expect(short.hasMore, 'a short batch: all that waited').to.equal(false);
  });

  it('while it holds the lease, a run neither renews it before half of it has passed nor reads the last sequence again; after a break, a failure or a lost lease it does both', async () => {
    const store = new EventStoreModel();
    const clock = new ManualClock(T0);
    const relay = new EventRelay(store, clock, 'me');
    const steps = () => store.calls.splice(0).filter((c) => !c.startsWith('clear') && !c.startsWith('pendingOf'));
    const [e1] = store.record(petEvent(1));
    expect(await relay.run()).to.equal(1);
    expect(steps()).to.deep.equal(['lease me', 'lastSequence', 'pending 100', `append ${e1!.id}@1`]);
    clock.advance(999);
    const [e2] = store.record(petEvent(2));
    expect(await relay.run()).to.equal(1);
    expect(steps(), 'more than half of the lease left: held, the last sequence known').to.deep.equal([
      'pending 100',
      `append ${e2!.id}@2`,
    ]);
    clock.advance(1);
    const [e3] = store.record(petEvent(3));
    expect(await relay.run()).to.equal(1);
    expect(steps(), 'half of it left: renewed while held, the last sequence still known').to.deep.equal([
      'lease me',
      'pending 100',
      `append ${e3!.id}@3`,
    ]);
    expect(store.currentLease).to.deep.equal({ holder: 'me', until: T0 + 1000 + 2000 });

    // Ran out, to the millisecond (a pause): another relay appended meanwhile; this one reads the last sequence first.
    clock.advance(2000);
    store.lastSeq += 5;
    const [e4] = store.record(petEvent(4));
    expect(await relay.run()).to.equal(1);
    expect(steps()).to.deep.equal(['lease me', 'lastSequence', 'pending 100', `append ${e4!.id}@9`]);

    // A failure: the next run assumes nothing (its error is the store's own).
    const failure = new StoreUnavailableError('down');
    const append = store.append;
    store.append = async () => Promise.reject(failure);
    const [e5] = store.record(petEvent(5));
    expect(await Promise.resolve(relay.run()).catch((e: unknown) => e)).to.equal(failure);
    store.append = append;
    store.lastSeq += 1;
    steps();
    expect(await relay.run()).to.equal(1);
    expect(steps()).to.deep.equal(['lease me', 'lastSequence', 'pending 100', `append ${e5!.id}@11`]);

    // Lost to another holder (once it had run out): the last sequence is read when it is taken again.
    clock.advance(2001);
    store.currentLease = { holder: 'other', until: clock.now() + 100 };
    const [e6] = store.record(petEvent(6));
    expect(await relay.run()).to.equal(0);
    clock.advance(100);
    store.lastSeq += 1;
    expect(await relay.run()).to.equal(1);
    expect(steps()).to.deep.equal(['lease me', 'lease me', 'lastSequence', 'pending 100', `append ${e6!.id}@13`]);

    // Held, but another relay (whose lease ran out under it) appended: the taken sequence is read again.
    store.lastSeq += 1;
    const [e7] = store.record(petEvent(7));
    expect(await relay.run()).to.equal(1);
    expect(steps()).to.deep.equal(['pending 100', `append ${e7!.id}@14`, 'lastSequence', `append ${e7!.id}@15`]);
  });
});

describe('EventRelay on a store that answers at once (the memory store)', () => {
  it('a run is one synchronous pass: it answers the count itself, not a promise, with the same steps', () => {
    const store = new EventStoreModel().answerAtOnce();
    const clock = new ManualClock(T0);
    const [a] = store.record(petEvent(1));
    const [p] = store.record(placed(5, 1));
    const answer = new EventRelay(store, clock, 'me').run();
    expect(answer).to.equal(2);
    expect(store.feed.map((e) => [e.id, e.sequence])).to.deep.equal([
      [a!.id, 1],
      [p!.id, 2],
    ]);
    expect(store.waiting).to.equal(0);
    store.currentLease = { holder: 'other', until: T0 + 10 };
    expect(new EventRelay(store, clock, 'me').run(), 'no lease: 0, at once').to.equal(0);
  });

  it('a store step that throws at once: run rejects (never throws); what was moved stays moved; a store that turns slow midway is awaited', async () => {
    const store = new EventStoreModel().answerAtOnce();
    const clock = new ManualClock(T0);
    const [first] = store.record(petEvent(1));
    store.record(petEvent(2));
    const failure = new StoreUnavailableError('down');
    const append = store.append;
    store.append = (event) =>
      event.sequence === 2
        ? (() => {
            throw failure;
          })()
        : append(event);
    let answer: number | Promise<number> | undefined;
    expect(() => (answer = new EventRelay(store, clock, 'me').run())).not.to.throw();
    expect(answer).to.be.instanceOf(Promise);
    expect(await Promise.resolve(answer).catch((error: unknown) => error)).to.equal(failure);
    expect(store.feed.map((e) => e.id)).to.deep.equal([first!.id]);

    store.append = async (event) => append(event);
    const slow = new EventRelay(store, clock, 'me').run();
    expect(slow, 'from its first promise on, the run awaits').to.be.instanceOf(Promise);
    expect(await slow).to.equal(1);
    expect(store.feed.map((e) => e.sequence)).to.deep.equal([1, 2]);
    expect(store.waiting).to.equal(0);
  });
});

describe('RelayLoop: keeps a relay running in a process', () => {
  /** `atOnce`: the relay answers each run at once (a run on the memory store), a failure as a rejected promise (`run` never throws). */
  const loopWith = (results: (number | Error | { more: number })[], atOnce = false) => {
    const store = new EventStoreModel();
    const timers = new ManualTimers();
    const errors: unknown[] = [];
    let runs = 0;
    let release: (() => void) | undefined;
    const relay = {
      hasMore: false,
      run: (): number | Promise<number> => {
        if (!atOnce) return relay.slowRun();
        runs++;
        relay.hasMore = false;
        const next = results.shift() ?? 0;
        if (next instanceof Error) return Promise.reject(next);
        if (typeof next === 'number') return next;
        relay.hasMore = true;
        return next.more;
      },
      slowRun: async () => {
        runs++;
        relay.hasMore = false;
        if (release === undefined && results[0] === -1) {
          results.shift();
          await new Promise<void>((resolve) => (release = resolve));
        }
        const next = results.shift() ?? 0;
        if (next instanceof Error) throw next;
        if (typeof next === 'number') return next;
        relay.hasMore = true;
        return next.more;
      },
    };
    const loop = new RelayLoop(relay as unknown as Relay, store, timers, { onError: (error) => errors.push(error) });
    return { store, timers, errors, loop, runs: () => runs, release: () => release?.() };
  };

  it('runs at once, again at once while the relay has more; after a run that moved something it looks again in 25 ms, then 50, 100, 200, 400, 400 while none does', async () => {
    const { timers, loop, runs } = loopWith([{ more: 100 }, { more: 100 }, 2, 1, 0]);
    loop.start();
    expect(runs(), 'not inside the caller’s turn').to.equal(0);
    await flush();
    expect(runs(), 'while the relay has more').to.equal(3);
    for (const ms of [25, 25, 50, 100, 200, 400, 400]) {
      expect(timers.live.map((t) => t.ms)).to.deep.equal([ms]);
      timers.fireLast();
      await flush();
    }
    expect(runs()).to.equal(10);
    await loop.stop();
    expect(timers.live).to.deep.equal([]);
  });

  it('a write recorded in this process wakes it at once, and the idle wait starts over (a longer wait replaced by 25 ms); once stopped, nothing wakes it', async () => {
    const { store, timers, loop, runs } = loopWith([0, 0, 0]);
    loop.start();
    loop.start();
    await flush();
    timers.fireLast();
    await flush();
    expect(timers.live.map((t) => t.ms)).to.deep.equal([50]);
    store.record(petEvent(1));
    await flush();
    expect(runs()).to.equal(3);
    expect(
      timers.live.map((t) => t.ms),
      'started over: the 50 ms wait gave way to 25 ms',
    ).to.deep.equal([25]);
    await loop.stop();
    store.record(petEvent(2));
    loop.wake();
    await flush();
    expect(runs()).to.equal(3);
    expect(timers.live).to.deep.equal([]);
  });

  it('under a stream of writes, one timer: a wait already due as soon is kept, not set again; one firing during a run starts no second run', async () => {
    const { store, timers, loop, runs, release } = loopWith([1, 1, 1, -1, 0, 0]);
    loop.start();
    await flush();
    expect(timers.live.map((t) => t.ms)).to.deep.equal([25]);
    const first = timers.live[0];
    for (let i = 1; i <= 2; i++) {
      store.record(petEvent(i));
      await flush();
    }
    expect(runs(), 'each write ran the relay at once').to.equal(3);
    expect(timers.live, 'the same 25 ms timer throughout').to.deep.equal([first]);
    expect(timers.scheduled, 'no timer set again').to.have.length(1);
    // The next run hangs; the kept timer fires during it: nothing starts beside it.
    store.record(petEvent(3));
    await flush();
    expect(runs()).to.equal(4);
    timers.fireLast();
    await flush();
    expect(runs(), 'no second run during the first').to.equal(4);
    release();
    await flush();
    expect(runs()).to.equal(4);
    expect(
      timers.live.map((t) => t.ms),
      'the run under way schedules the next look',
    ).to.deep.equal([25]);
    await loop.stop();
  });

  it('woken during a run: runs again right after it; stop waits for the run under way', async () => {
    const { loop, runs, release, timers } = loopWith([-1, 0, 0]);
    loop.start();
    await flush();
    expect(runs()).to.equal(1);
    loop.wake();
    loop.wake();
    await flush();
    expect(runs(), 'still in the first run').to.equal(1);
    release();
    await flush();
    expect(runs(), 'once more after it').to.equal(2);
    expect(timers.live.map((t) => t.ms)).to.deep.equal([25]);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await stopping;
    expect(stopped).to.equal(true);
  });

  it('a failed run is reported and the loop goes on after the idle wait', async () => {
    const failure = new StoreUnavailableError('down');
    const { loop, runs, errors, timers } = loopWith([failure, failure, 1, 0]);
    loop.start();
    await flush();
    expect(errors).to.deep.equal([failure]);
    expect(timers.live.map((t) => t.ms)).to.deep.equal([25]);
    timers.fireLast();
    await flush();
    expect(errors).to.deep.equal([failure, failure]);
    expect(
      timers.live.map((t) => t.ms),
      'later and later',
    ).to.deep.equal([50]);
    timers.fireLast();
    await flush();
    expect(runs()).to.equal(3);
    expect(
      timers.live.map((t) => t.ms),
      'soon again after a run that moved something',
    ).to.deep.equal([25]);
    await loop.stop();
  });

  it('a timer that fires after stop starts nothing; a loop stopped during a run sets no timer after it; stop before start is harmless', async () => {
    const { loop, runs, timers } = loopWith([0]);
    loop.start();
    await flush();
    expect(runs(), 'one run: nothing woke it again').to.equal(1);
    const [timer] = timers.live;
    await loop.stop();
    timer!.fire();
    await flush();
    expect(runs()).to.equal(1);

    const during = loopWith([-1, 0]);
    during.loop.start();
    await flush();
    const stopping = during.loop.stop();
    during.release();
    await stopping;
    await flush();
    expect(during.timers.live).to.deep.equal([]);
    expect(during.runs()).to.equal(1);

    await loopWith([]).loop.stop();
  });

  it('started twice, it listens once: one write, one run', async () => {
    const { store, loop, runs } = loopWith([0, 0, 0, 0]);
    loop.start();
    await flush();
    loop.start();
    await flush();
    expect(runs()).to.equal(1);
    store.record(petEvent(1));
    await flush();
    expect(runs()).to.equal(2);
    await loop.stop();
  });

  it('without onError, a failed run is dropped and the loop goes on', async () => {
    const store = new EventStoreModel();
    const timers = new ManualTimers();
    let runs = 0;
    const relay = {
      run: async () => (runs++ === 0 ? Promise.reject(new StoreUnavailableError('down')) : 0),
    } as unknown as Relay;
    const loop = new RelayLoop(relay, store, timers);
    loop.start();
    await flush();
    timers.fireLast();
    await flush();
    expect(runs).to.equal(2);
    await loop.stop();
  });

  it('on a relay that answers at once: the same runs and waits, a failure reported, a wake during the caller’s turn still waits for it', async () => {
    const failure = new StoreUnavailableError('down');
    const { store, timers, loop, runs, errors } = loopWith([{ more: 100 }, 2, failure, 0, 1, 0], true);
    loop.start();
    expect(runs(), 'not inside the caller’s turn').to.equal(0);
    await flush();
    expect(runs(), 'again at once while the relay has more').to.equal(2);
    expect(timers.live.map((t) => t.ms)).to.deep.equal([25]);
    timers.fireLast();
    expect(runs(), 'a timer runs it in a turn of its own').to.equal(2);
    await flush();
    expect(errors).to.deep.equal([failure]);
    expect(timers.live.map((t) => t.ms)).to.deep.equal([50]);
    timers.fireLast();
    await flush();
    expect(runs()).to.equal(4);
    expect(timers.live.map((t) => t.ms)).to.deep.equal([100]);
    store.record(petEvent(1));
    expect(runs()).to.equal(4);
    await flush();
    expect(runs(), 'the write woke it: it ran, and is not left running').to.equal(5);
    expect(timers.live.map((t) => t.ms)).to.deep.equal([25]);
    store.record(petEvent(2));
    await flush();
    expect(runs()).to.equal(6);
    expect(timers.live.map((t) => t.ms)).to.deep.equal([25]);
    await loop.stop();
    expect(timers.live).to.deep.equal([]);
  });
});

describe('EventFeed: pages of the feed, long polls, and following it', () => {
  const ADMIN = { keyId: 'key_ad00000000ad', role: 'admin' } as const;

  const feedOf = (count: number) => {
    const store = new EventStoreModel();
    for (let i = 1; i <= count; i++) {
      store.feed.push({
        id: `evt_${i}`,
        sequence: i,
        type: i % 2 === 0 ? 'pet.withdrawn' : 'category.created',
        occurredAt: AT,
        data: i % 2 === 0 ? { id: i } : { id: i, name: `c${i}` },
      } as Event);
    }
    store.lastSeq = count;
    return store;
  };
  const add = async (store: EventStoreModel, type: 'pet.withdrawn' | 'category.created'): Promise<void> => {
    const sequence = store.lastSeq + 1;
    await store.append({
      id: `evt_${sequence}`,
      sequence,
      type,
      occurredAt: AT,
      data: type === 'pet.withdrawn' ? { id: sequence } : { id: sequence, name: 'n' },
    } as Event);
  };

  it('admin keys only, decided before anything is read', () => {
    const feed = new EventFeed(new EventStoreModel(), new ManualClock());
    expect(feed.authorize(ADMIN)).to.deep.equal({ ok: true, value: undefined });
    expect(feed.authorize({ keyId: 'key_aaaaaaaaaaaa', role: 'client' })).to.deep.equal({
      ok: false,
      error: { code: 'forbidden', message: 'only an admin key may read the events' },
    });
    expect(feed.authorize(undefined).ok).to.equal(false);
  });

  it('the events after a sequence, of some types, at most limit; next is the last returned, or after itself', async () => {
    const feed = new EventFeed(feedOf(5), new ManualClock(T0));
    const page = await feed.read({ after: 1, limit: 2, waitMs: 0 });
    expect(page.ok && page.value.events.map((e) => e.sequence)).to.deep.equal([2, 3]);
    expect(page.ok && page.value.next).to.equal(3);
    const typed = await feed.read({ after: 0, types: ['pet.withdrawn'], limit: 10, waitMs: 0 });
    expect(typed.ok && typed.value.events.map((e) => e.sequence)).to.deep.equal([2, 4]);
    expect(await feed.read({ after: 5, limit: 10, waitMs: 0 })).to.deep.equal({
      ok: true,
      value: { events: [], next: 5 },
    });
    const store = feedOf(3);
    const asked: object[] = [];
    const after = store.after;
    store.after = (sequence, query) => (asked.push(query), after(sequence, query));
    await new EventFeed(store, new ManualClock(T0)).read({ after: 0, limit: 3, waitMs: 0 });
    await new EventFeed(store, new ManualClock(T0)).read({ after: 0, types: ['pet.withdrawn'], limit: 3, waitMs: 0 });
    expect(asked, 'the store is asked for types only when some are').to.deep.equal([
      { limit: 3 },
      { types: ['pet.withdrawn'], limit: 3 },
    ]);
    expect(Object.keys(asked[0]!)).to.deep.equal(['limit']);
  });

  it('gone when the event after `after` was purged, with the first kept sequence; also when the purge came between the read and the check', async () => {
    const store = feedOf(5);
    await store.purge(2);
    const feed = new EventFeed(store, new ManualClock(T0));
    expect(await feed.read({ after: 1, limit: 10, waitMs: 0 })).to.deep.equal({
      ok: false,
      error: {
        code: 'gone',
        message:
          'events after 1 are no longer kept; the first kept event is 3: read on from after=2 (what came between is lost to this reader)',
      },
    });
    expect((await feed.read({ after: 2, limit: 10, waitMs: 0 })).ok).to.equal(true);
    const racing = feedOf(5);
    const after = racing.after;
    racing.after = (sequence, query) => {
      const read = after(sequence, query);
      racing.feed.splice(0, 3);
      return read;
    };
    expect((await new EventFeed(racing, new ManualClock(T0)).read({ after: 1, limit: 10, waitMs: 0 })).ok).to.equal(
      false,
    );
  });

  it('a long poll answers as soon as a matching event arrives, waiting past events of other types; [] at its end', async () => {
    const store = feedOf(2);
    const clock = new ManualClock(T0);
    const feed = new EventFeed(store, clock);
    const reading = feed.read({ after: 2, types: ['pet.withdrawn'], limit: 10, waitMs: 30_000 });
    await flush();
    expect(store.calls).to.deep.equal(['waitBeyond 2 30000']);
    clock.advance(1_000);
    await add(store, 'category.created');
    await flush();
    expect(
      store.calls.slice(-1),
      'a category is not what it waits for: it waits past it, for the time left',
    ).to.deep.equal(['waitBeyond 3 29000']);
    await add(store, 'pet.withdrawn');
    const page = await reading;
    expect(page.ok && page.value).to.deep.equal({ events: [store.feed[3]], next: 4 });

    const quiet = feedOf(1);
    const timedOut = await new EventFeed(quiet, new ManualClock(T0)).read({ after: 1, limit: 10, waitMs: 5 });
    expect(timedOut).to.deep.equal({ ok: true, value: { events: [], next: 1 } });
    let told!: () => void;
    const ended = new EventFeed(quiet, new ManualClock(T0)).read(
      { after: 1, limit: 10, waitMs: 30_000 },
      new Promise<void>((resolve) => (told = resolve)),
    );
    told();
    expect(await ended, 'ended by its caller').to.deep.equal({ ok: true, value: { events: [], next: 1 } });
    const late = feedOf(1);
    const lateClock = new ManualClock(T0);
    const lateRead = new EventFeed(late, lateClock).read({
      after: 1,
      types: ['pet.withdrawn'],
      limit: 10,
      waitMs: 1_000,
    });
    await flush();
    lateClock.advance(1_000);
    await add(late, 'category.created');
    expect(await lateRead, 'past its deadline: no second wait').to.deep.equal({
      ok: true,
      value: { events: [], next: 1 },
    });
    expect(late.calls.filter((c) => c.startsWith('waitBeyond'))).to.have.length(1);
  });

  it('follow: every event from a sequence on, a batch at a time, then each new one as it arrives, until told to stop', async () => {
    const store = feedOf(5);
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const seen: number[] = [];
    const following = (async () => {
      for await (const event of new EventFeed(store, new ManualClock(T0)).follow(1, {
        batch: 2,
        until,
        types: ['pet.withdrawn', 'category.created'],
      })) {
        seen.push(event.sequence);
        if (seen.length === 5) stop();
      }
    })();
    await flush();
    expect(seen).to.deep.equal([2, 3, 4, 5]);
    await add(store, 'pet.withdrawn');
    await following;
    expect(seen).to.deep.equal([2, 3, 4, 5, 6]);
    expect(store.calls.filter((c) => c.startsWith('waitBeyond'))[0]).to.equal('waitBeyond 5 30000');

    const asked: object[] = [];
    const quiet = feedOf(2);
    const after = quiet.after;
    quiet.after = (sequence, query) => (asked.push(query), after(sequence, query));
    const all: number[] = [];
    for await (const event of new EventFeed(quiet, new ManualClock(T0)).follow(0, { until: Promise.resolve() }))
      all.push(event.sequence);
    expect(all, 'told to stop before it began: what is there, then the end').to.deep.equal([1, 2]);
    expect(asked[0], 'a hundred at a time, every type').to.deep.equal({ limit: 100 });
    for await (const _ of new EventFeed(quiet, new ManualClock(T0)).follow(2, {
      types: ['pet.withdrawn'],
      until: Promise.reject(new Error('gone away')),
    }))
      expect.fail('nothing after 2');
    expect(asked[asked.length - 1]).to.deep.equal({ types: ['pet.withdrawn'], limit: 100 });

    const purged = feedOf(5);
    await purged.purge(3);
    const behind = await (async () => {
      for await (const _ of new EventFeed(purged, new ManualClock(T0)).follow()) return 'an event';
      return 'none';
    })().catch((error: unknown) => (error as Error).message);
    expect(behind).to.equal(
      'events after 0 are no longer kept; the first kept event is 4: read on from after=3 (what came between is lost to this reader)',
    );
  });
});

describe('EventRetention: the start of the feed goes, never its middle, never the newest', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const feedAt = (...days: number[]) => {
    const store = new EventStoreModel();
    days.forEach((day, i) =>
      store.feed.push({
        id: `evt_${i + 1}`,
        sequence: i + 1,
        type: 'pet.withdrawn',
        occurredAt: new Date(T0 + day * DAY).toISOString(),
        data: { id: i },
      }),
    );
    store.lastSeq = days.length;
    return store;
  };

  it('removes the events older than the retention up to the first younger one (default 30 days)', async () => {
    const store = feedAt(0, 1, 40, 2, 41);
    expect(await new EventRetention(store, new ManualClock(T0 + 40 * DAY)).purge()).to.equal(2);
    const purges = () => store.calls.filter((c) => c.startsWith('purge'));
    expect(purges()).to.deep.equal(['purge 2']);
    expect(
      await new EventRetention(store, new ManualClock(T0 + 40 * DAY)).purge(),
      'the old event after a young one stays',
    ).to.equal(0);
    expect(purges(), 'and nothing is asked of the store').to.deep.equal(['purge 2']);
    expect(await new EventRetention(store, new ManualClock(T0 + 100 * DAY), 7).purge(), 'never the newest').to.equal(2);
    expect(store.feed.map((e) => e.sequence)).to.deep.equal([5]);
    expect(await new EventRetention(store, new ManualClock(T0 + 100 * DAY), 7).purge()).to.equal(0);
    expect(await new EventRetention(new EventStoreModel(), new ManualClock(T0)).purge(), 'an empty feed').to.equal(0);
    const one = feedAt(0, 40, 41);
    const reads: number[] = [];
    const after = one.after;
    one.after = (sequence, query) => (reads.push(sequence), after(sequence, query));
    expect(await new EventRetention(one, new ManualClock(T0 + 40 * DAY)).purge(), 'exactly the first').to.equal(1);
    expect(reads, 'one page read: a young event ends the look').to.deep.equal([0]);
  });

  it('reads a page of 100 at a time, at most 50 pages a call', async () => {
    const store = feedAt(...Array.from({ length: 5_050 }, () => 0), 31);
    const clock = new ManualClock(T0 + 30 * DAY + 1);
    const reads: number[] = [];
    const after = store.after;
    store.after = (sequence, query) => {
      reads.push(sequence);
      expect(query).to.deep.equal({ limit: 100 });
      return after(sequence, query);
    };
    expect(await new EventRetention(store, clock).purge()).to.equal(5_000);
    expect(reads).to.have.length(50);
    expect(reads.slice(0, 3)).to.deep.equal([0, 100, 200]);
    expect(await new EventRetention(store, clock).purge()).to.equal(50);
    expect(store.feed.map((e) => e.sequence)).to.deep.equal([5_051]);
  });
});

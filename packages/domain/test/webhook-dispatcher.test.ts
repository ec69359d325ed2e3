import { expect } from 'chai';
import fc from 'fast-check';
import type { EventType, WebhookResult } from '../src/index.js';
import { StoreUnavailableError, WEBHOOK_LEASE_MS, WebhookDispatcher } from '../src/index.js';
import { SeededRandom } from '../test-support/index.js';
import { runUntil, settle } from './support/virtual-time.js';
import {
  ADMIN,
  deferred,
  DELIVERED,
  FAILED,
  failingOnce,
  faulty,
  intercept,
  ScriptedSender,
  T0,
  types,
  world,
} from './support/dispatcher-world.js';

// WebhookDispatcher (docs/rules.md §15, "Several processes"): its scans, the leases it takes, its
// starts and stops, takeovers by another process, the lag metric, and the delivery as a whole.
describe('WebhookDispatcher: scans, leases, starts, stops and takeovers (docs/rules.md §15)', () => {
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

import { expect } from 'chai';
import type { DeliveryAttempt, EventType, WebhookResult } from '../src/index.js';
import {
  spanText,
  StoreUnavailableError,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_ROTATION_OVERLAP_MS,
  WEBHOOK_TIMEOUT_MS,
} from '../src/index.js';
import { runUntil } from './support/virtual-time.js';
import {
  ADMIN,
  DELIVERED,
  FAILED,
  intercept,
  ScriptedSender,
  T0,
  types,
  world,
  type Sent,
} from './support/dispatcher-world.js';

// A subscription's worker (docs/rules.md §15, "In order, one at a time", "Retries and pauses",
// "Behind the retention", the deliveries log): its attempts, retries, pauses and what it logs.
describe('SubscriptionWorker: attempts, retries, pauses and the log (docs/rules.md §15)', () => {
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

  it('a pause for lack of room comes after a renewal, as an attempt would, and is the worker’s last write (then only its release); a subscription disabled meanwhile is not paused, and one whose types changed meanwhile is looked at again with its new types', async () => {
    for (const meanwhile of ['nothing', 'disabled', 'types changed'] as const) {
      const w = world();
      const hook = await w.subscribe({ types: ['pet.created'] });
      w.publish('pet.created', 'pet.created', 'order.placed');
      w.events.evict(2);
      // What an admin does between the worker's look at what left the feed and its renewal.
      const evictedThrough = w.events.evictedThrough;
      let once = true;
      w.events.evictedThrough = async (types) => {
        const answer = await evictedThrough(types);
        if (once && meanwhile === 'disabled') await w.admin.patch(ADMIN, hook.id, { enabled: false });
        if (once && meanwhile === 'types changed') await w.admin.patch(ADMIN, hook.id, { types: ['order.placed'] });
        once = false;
        return answer;
      };
      const calls: string[] = [];
      const store = intercept(w.store, (name) => void calls.push(name));
      const sender = new ScriptedSender(w.clock, 'p1');
      w.dispatcher(sender, 'p1', {}, store).start();
      await runUntil(w.timers, () => calls.includes('release') || w.row(hook.id).delivered === 3);
      await w.stopAll();
      const row = w.row(hook.id);
      if (meanwhile === 'nothing') {
        expect(row, meanwhile).to.include({ enabled: false, delivered: 2 });
        expect(calls.slice(calls.indexOf('pause') - 1), meanwhile).to.deep.equal(['lease', 'pause', 'release']);
      }
      if (meanwhile === 'disabled') {
        expect(row, meanwhile).to.include({ enabled: false, pausedReason: null, delivered: 0 });
        expect(calls, meanwhile).to.not.include('pause');
      }
      if (meanwhile === 'types changed') {
        expect(row, meanwhile).to.include({ enabled: true, pausedReason: null, delivered: 3 });
        expect(
          sender.sent.map((s) => [s.webhookId, s.at]),
          meanwhile,
        ).to.deep.equal([['evt_3', T0]]);
      }
    }
  });

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
});

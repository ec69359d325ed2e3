import { expect } from 'chai';
import fc from 'fast-check';
import type { Caller, Event, EventStore, Random, WebhookStore, WebhookTargets } from '../src/index.js';
import {
  decodeCursor,
  pageScope,
  WEBHOOK_ID_PATTERN,
  WEBHOOK_ROTATION_OVERLAP_MS,
  WebhookAdmin,
} from '../src/index.js';
import { ManualClock, SeededRandom } from '../test-support/index.js';
import { EventStoreModel } from './support/event-store-model.js';
import { expectRefusal } from './support/refusals.js';
import { WebhookStoreModel } from '../test-support/webhook-store-model.js';

const ADMIN: Caller = { keyId: 'key_000000000000', role: 'admin' };
const CLIENT: Caller = { keyId: 'key_111111111111', role: 'client' };
const T0 = Date.UTC(2027, 0, 1, 12);
const URL_OK = 'https://hooks.example.com/petstore';

/** A `WebhookTargets` that refuses what `refuse` names, and records what it was asked. */
class ScriptedTargets implements WebhookTargets {
  readonly asked: string[] = [];
  constructor(private readonly refuse: (url: string) => string | undefined = () => undefined) {}
  async check(url: string): Promise<string | undefined> {
    this.asked.push(url);
    return this.refuse(url);
  }
}

const eventAt = (sequence: number): Event => ({
  id: `evt_${sequence}`,
  sequence,
  type: 'pet.withdrawn',
  occurredAt: new Date(T0 + sequence).toISOString(),
  data: { id: sequence },
});

const setup = (options: { events?: number; purgedThrough?: number } = {}) => {
  const store = new WebhookStoreModel();
  const events = new EventStoreModel();
  for (let sequence = 1; sequence <= (options.events ?? 0); sequence++) void events.append(eventAt(sequence));
  if (options.purgedThrough !== undefined) void events.purge(options.purgedThrough);
  const targets = new ScriptedTargets((url) =>
    url.startsWith('http://') ? 'url must use https (http only for the hosts allowed by the settings)' : undefined,
  );
  const clock = new ManualClock(T0);
  const admin = new WebhookAdmin(store, events, targets, new SeededRandom('webhook-admin-test'), clock);
  return { store, events, targets, clock, admin };
};

const created = async (admin: WebhookAdmin, body: unknown = { url: URL_OK }) => {
  const made = await admin.create(ADMIN, body);
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
};

/** A port whose every method throws: proof that nothing was read. */
const untouchable = <T extends object>(name: string): T =>
  new Proxy({} as T, {
    get: (_target, method) => () => {
      throw new Error(`${name}.${String(method)} was called`);
    },
  });

describe('WebhookAdmin (docs/rules.md §15)', () => {
  it('client keys and no key are forbidden before anything is read or checked', async () => {
    const admin = new WebhookAdmin(
      untouchable<WebhookStore>('webhooks'),
      untouchable<EventStore>('events'),
      untouchable<WebhookTargets>('targets'),
      untouchable<Random>('random'),
      new ManualClock(T0),
    );
    const id = 'wh_0123456789abcdef01234567';
    for (const caller of [CLIENT, undefined]) {
      const refusal = admin.authorize(caller);
      if (refusal.ok) throw new Error('authorized');
      expect(refusal.error.code).to.equal('forbidden');
      const answers = [
        admin.authorize(caller),
        await admin.create(caller, { url: 'not a body' }),
        await admin.list(caller, { limit: 'x' }),
        await admin.get(caller, 'bad'),
        await admin.patch(caller, id, {}),
        await admin.remove(caller, id),
        await admin.rotateSecret(caller, id),
        await admin.deliveries(caller, id),
      ];
      for (const answer of answers) expect(answer).to.deep.equal(refusal);
    }
  });

  it('creates a subscription: enabled, starting at the end of the feed, the secret in the answer only', async () => {
    const { admin, store } = setup({ events: 7 });
    const made = await created(admin, { url: URL_OK, types: ['pet.created'], description: 'shelter site' });
    const { secret, ...view } = made;
    expect(view).to.deep.equal({
      id: view.id,
      url: URL_OK,
      types: ['pet.created'],
      description: 'shelter site',
      enabled: true,
      pausedReason: null,
      createdAt: '2027-01-01T12:00:00.000Z',
    });
    expect(view.id).to.match(WEBHOOK_ID_PATTERN);
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = store.rows.get(view.id)!;
    expect(row).to.include({ delivered: 7, failures: 0, retryAt: 0 });
    expect(row.secrets).to.deep.equal([{ secret }]);
    // Reads never show it again.
    const got = await admin.get(ADMIN, view.id);
    expect(got).to.deep.equal({ ok: true, value: view });
    const listed = await admin.list(ADMIN);
    expect(JSON.stringify(listed)).not.to.include(secret);
    expect(JSON.stringify(listed)).not.to.include(secret.slice(6));
  });

  it('an id already taken is drawn again; a random source that repeats itself is an error', async () => {
    const { admin, store } = setup();
    const repeating = new WebhookAdmin(
      store,
      new EventStoreModel(),
      new ScriptedTargets(),
      { bytes: (n) => new Uint8Array(n) },
      new ManualClock(T0),
    );
    const zero = await repeating.create(ADMIN, { url: URL_OK });
    expect(zero).to.have.nested.property('value.id', 'wh_000000000000000000000000');
    let error: unknown;
    await repeating.create(ADMIN, { url: URL_OK }).catch((caught: unknown) => (error = caught));
    expect(error)
      .to.be.instanceOf(Error)
      .with.property('message')
      .that.matches(/repeats itself/);
    const insert = store.insert;
    let taken = 1;
    store.insert = async (webhook) => (taken-- > 0 ? 'taken' : insert(webhook));
    const again = await created(admin);
    expect(store.rows.has(again.id)).to.equal(true);
  });

  it('without types the subscription has none (every type); a description defaults to ""', async () => {
    const { admin } = setup();
    const made = await created(admin);
    expect(made).not.to.have.property('types');
    expect(made.description).to.equal('');
  });

  it('the URL goes to WebhookTargets once its shape is right; its reason is a refusal of url', async () => {
    const { admin, targets, store } = setup();
    const refused = await admin.create(ADMIN, { url: 'http://hooks.example.com/' });
    expect(expectRefusal(refused, 'validation_failed', 'url')).to.include('https');
    expect(targets.asked).to.deep.equal(['http://hooks.example.com/']);
    await admin.create(ADMIN, { url: '' });
    await admin.create(ADMIN, { url: URL_OK, types: [] });
    expect(targets.asked).to.have.length(1);
    expect(store.rows.size).to.equal(0);
  });

  it('after: within the events kept (from the first kept − 1 to the last), else refused naming the range', async () => {
    const { admin, store } = setup({ events: 10, purgedThrough: 3 });
    for (const after of [2, 11, 1000]) {
      expect(expectRefusal(await admin.create(ADMIN, { url: URL_OK, after }), 'validation_failed', 'after')).to.include(
        'from 3 to 10',
      );
    }
    for (const after of [3, 5, 10]) {
      const made = await created(admin, { url: URL_OK, after });
      expect(store.rows.get(made.id)!.delivered).to.equal(after);
    }
  });

  it('after 0 on an empty feed, and no after, both start at 0', async () => {
    const { admin, store } = setup();
    const a = await created(admin, { url: URL_OK, after: 0 });
    const b = await created(admin);
    expect(store.rows.get(a.id)!.delivered).to.equal(0);
    expect(store.rows.get(b.id)!.delivered).to.equal(0);
  });

  it('a malformed id is refused on webhookId by every operation that takes one; an unknown one is not found', async () => {
    const { admin } = setup();
    for (const answer of [
      await admin.get(ADMIN, 'wh_1'),
      await admin.patch(ADMIN, 'wh_1', { enabled: true }),
      await admin.remove(ADMIN, 'wh_1'),
      await admin.rotateSecret(ADMIN, 'wh_1'),
      await admin.deliveries(ADMIN, 'wh_1'),
    ])
      expectRefusal(answer, 'validation_failed', 'webhookId');
    const unknown = 'wh_0123456789abcdef01234567';
    for (const answer of [
      await admin.get(ADMIN, unknown),
      await admin.patch(ADMIN, unknown, { enabled: true }),
      await admin.remove(ADMIN, unknown),
      await admin.rotateSecret(ADMIN, unknown),
      await admin.deliveries(ADMIN, unknown),
    ])
      expect(expectRefusal(answer, 'not_found')).to.include(unknown);
  });

  it('property: the list pages through every subscription once, in order of creation, with the one pager', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 5 }), async (count, limit) => {
        const { admin } = setup();
        const ids: string[] = [];
        for (let i = 0; i < count; i++) ids.push((await created(admin)).id);
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let pages = 0; pages <= count; pages++) {
          const page = await admin.list(ADMIN, cursor === undefined ? { limit } : { limit, cursor });
          if (!page.ok) throw new Error(page.error.message);
          expect(page.value.items.length).to.be.at.most(limit);
          seen.push(...page.value.items.map((item) => item.id));
          cursor = page.value.nextCursor;
          if (cursor === undefined) break;
          expect(decodeCursor(cursor, pageScope('webhooks'))).to.be.a('number');
        }
        expect(seen).to.deep.equal(ids);
      }),
      { numRuns: 30 },
    );
  });

  it('a bad limit or a cursor of another list is refused', async () => {
    const { admin } = setup();
    expectRefusal(await admin.list(ADMIN, { limit: 0 }), 'validation_failed', 'limit');
    expectRefusal(await admin.list(ADMIN, { cursor: 'abc' }), 'validation_failed', 'cursor');
  });

  it('PATCH: url checked again, types null for every type, description; nothing else moves', async () => {
    const { admin, targets, store } = setup({ events: 4 });
    const made = await created(admin, { url: URL_OK, types: ['pet.created'] });
    expectRefusal(await admin.patch(ADMIN, made.id, { url: 'http://10.0.0.1/' }), 'validation_failed', 'url');
    expect(targets.asked).to.deep.equal([URL_OK, 'http://10.0.0.1/']);
    const changed = await admin.patch(ADMIN, made.id, {
      url: 'https://other.example/',
      types: null,
      description: 'new',
    });
    if (!changed.ok) throw new Error(changed.error.message);
    expect(changed.value).to.deep.equal({
      id: made.id,
      url: 'https://other.example/',
      description: 'new',
      enabled: true,
      pausedReason: null,
      createdAt: made.createdAt,
    });
    expect(store.rows.get(made.id)).to.include({ delivered: 4 });
    expect(store.rows.get(made.id)!.secrets).to.deep.equal([{ secret: made.secret }]);
  });

  it('PATCH enabled: true resumes a paused subscription at the same event; on an enabled one it restarts nothing', async () => {
    const { admin, store } = setup({ events: 4 });
    const made = await created(admin, { url: URL_OK, after: 2 });
    const row = store.rows.get(made.id)!;
    store.rows.set(made.id, { ...row, failures: 3, retryAt: T0 + 60_000 });
    const unchanged = await admin.patch(ADMIN, made.id, { enabled: true });
    expect(unchanged.ok).to.equal(true);
    expect(store.rows.get(made.id)).to.include({ failures: 3, retryAt: T0 + 60_000, revision: row.revision });
    store.rows.set(made.id, { ...row, enabled: false, pausedReason: 'the receiver answered 410 Gone', failures: 0 });
    const resumed = await admin.patch(ADMIN, made.id, { enabled: true });
    if (!resumed.ok) throw new Error(resumed.error.message);
    expect(resumed.value).to.include({ enabled: true, pausedReason: null });
    expect(store.rows.get(made.id)).to.include({ delivered: 2, failures: 0, retryAt: 0 });
    const disabled = await admin.patch(ADMIN, made.id, { enabled: false });
    expect(disabled).to.have.nested.property('value.enabled', false);
  });

  it('PATCH enabled: false on a paused subscription changes nothing: the pause keeps its reason', async () => {
    const { admin, store } = setup();
    const made = await created(admin);
    const row = store.rows.get(made.id)!;
    store.rows.set(made.id, { ...row, enabled: false, pausedReason: 'the receiver answered 410 Gone' });
    const answer = await admin.patch(ADMIN, made.id, { enabled: false });
    expect(answer).to.have.nested.property('value.pausedReason', 'the receiver answered 410 Gone');
    expect(store.rows.get(made.id)).to.include({
      pausedReason: 'the receiver answered 410 Gone',
      revision: row.revision,
    });
  });

  it('PATCH: a refused body changes nothing', async () => {
    const { admin, store } = setup();
    const made = await created(admin);
    expectRefusal(await admin.patch(ADMIN, made.id, { enabled: 'yes' }), 'validation_failed', 'enabled');
    expect(store.rows.get(made.id)).to.include({ enabled: true });
  });

  it('a subscription removed while a PATCH or a rotation is under way: not found', async () => {
    const { admin, store } = setup();
    const made = await created(admin);
    const update = store.update;
    store.update = async (id, changes) => {
      await store.remove(id);
      return update(id, changes);
    };
    expect(await admin.patch(ADMIN, made.id, { description: 'x' })).to.have.nested.property('error.code', 'not_found');
    const again = await created(admin);
    expect(await admin.rotateSecret(ADMIN, again.id)).to.have.nested.property('error.code', 'not_found');
  });

  it('the last page of the list has no next cursor', async () => {
    const { admin } = setup();
    await created(admin);
    expect(await admin.list(ADMIN, { limit: 5 }))
      .to.have.property('value')
      .that.has.all.keys('items');
  });

  it('DELETE removes the subscription and its log', async () => {
    const { admin, store } = setup();
    const made = await created(admin);
    expect(await admin.remove(ADMIN, made.id)).to.deep.equal({ ok: true, value: undefined });
    expect(store.rows.has(made.id)).to.equal(false);
    expectRefusal(await admin.get(ADMIN, made.id), 'not_found');
    expectRefusal(await admin.remove(ADMIN, made.id), 'not_found');
  });

  it('rotation: the new secret first and shown once, the replaced one kept 24 h, expired ones dropped', async () => {
    const { admin, store, clock } = setup();
    const made = await created(admin);
    const first = await admin.rotateSecret(ADMIN, made.id);
    if (!first.ok) throw new Error(first.error.message);
    expect(first.value.secret)
      .to.match(/^whsec_/)
      .and.not.equal(made.secret);
    expect(store.rows.get(made.id)!.secrets).to.deep.equal([
      { secret: first.value.secret },
      { secret: made.secret, expiresAt: T0 + WEBHOOK_ROTATION_OVERLAP_MS },
    ]);
    const got = await admin.get(ADMIN, made.id);
    expect(JSON.stringify(got)).not.to.include(first.value.secret.slice(6));
    clock.advance(WEBHOOK_ROTATION_OVERLAP_MS - 1);
    const second = await admin.rotateSecret(ADMIN, made.id);
    if (!second.ok) throw new Error(second.error.message);
    const at = clock.now();
    expect(store.rows.get(made.id)!.secrets).to.deep.equal([
      { secret: second.value.secret },
      { secret: first.value.secret, expiresAt: at + WEBHOOK_ROTATION_OVERLAP_MS },
      { secret: made.secret, expiresAt: T0 + WEBHOOK_ROTATION_OVERLAP_MS },
    ]);
    clock.advance(1);
    const third = await admin.rotateSecret(ADMIN, made.id);
    if (!third.ok) throw new Error(third.error.message);
    expect(store.rows.get(made.id)!.secrets.map((s) => s.secret)).to.deep.equal([
      third.value.secret,
      second.value.secret,
      first.value.secret,
    ]);
  });

  it('deliveries: newest first, paged by the one pager, ISO times, a cursor bound to the subscription', async () => {
    const { admin, store } = setup();
    const made = await created(admin);
    const other = await created(admin);
    for (let i = 1; i <= 25; i++) {
      await store.log(made.id, {
        eventId: `evt_${i}`,
        sequence: i,
        attempt: 1,
        at: T0 + i * 1000,
        status: i % 5 === 0 ? 500 : 204,
        outcome: i % 5 === 0 ? 'failed' : 'delivered',
        durationMs: i,
        ...(i % 5 === 0 ? { error: 'the receiver answered 500' } : {}),
      });
    }
    const seen: number[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await admin.deliveries(ADMIN, made.id, cursor === undefined ? { limit: 10 } : { limit: 10, cursor });
      if (!page.ok) throw new Error(page.error.message);
      seen.push(...page.value.items.map((item) => item.sequence));
      if (seen.length === 25) {
        expect(page.value.items.at(-1)).to.deep.equal({
          eventId: 'evt_1',
          sequence: 1,
          attempt: 1,
          at: new Date(T0 + 1000).toISOString(),
          status: 204,
          outcome: 'delivered',
          durationMs: 1,
        });
      }
      if (page.value.nextCursor === undefined) break;
      cursor = page.value.nextCursor;
      expectRefusal(await admin.deliveries(ADMIN, other.id, { cursor }), 'validation_failed', 'cursor');
    }
    expect(seen).to.deep.equal(Array.from({ length: 25 }, (_, i) => 25 - i));
    const first = await admin.deliveries(ADMIN, made.id, { limit: 1 });
    expect(first).to.have.nested.property('value.items[0].error', 'the receiver answered 500');
    expect(await admin.deliveries(ADMIN, other.id)).to.deep.equal({ ok: true, value: { items: [] } });
  });
});

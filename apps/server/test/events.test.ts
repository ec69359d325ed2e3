// docs/rules.md §15 through the composition root: every change made by a real request has exactly
// one event in GET /v1/events (every type of the table: pets, categories, orders, photos, keys — never
// a key's secret), a create replayed under its Idempotency-Key makes none, a create answered 5xx
// whose write landed makes exactly one; PETSTORE_EVENT_RETENTION_DAYS is applied from the start; when
// the server stops, a long poll under way is answered at once and the relay stops after a last run.
import { expect } from 'chai';
import { IN_PROGRESS_LEASE_MS, toEvent, type Event } from '@petstore/domain';
import { EventStoreInMemory, MemoryOutbox } from '@petstore/adapters-memory';
import { silentLogger } from '@petstore/adapters-http';
import { ManualClock } from '@petstore/domain/testing';
import { testImage } from '@petstore/adapters-sharp/testing';
import { parseSettings } from '../src/settings.js';
import { startServer, type StartedServer } from '../src/server.js';
import { errorOf, startHarness, waitFor } from './hardening/support.js';

const ADMIN = 'events-admin-key-0123456789';
const CLIENT = 'events-client-key-0123456789';
const ENV = { HOST: '127.0.0.1', PORT: '0', PETSTORE_API_KEYS: `${CLIENT}:pro`, PETSTORE_ADMIN_KEYS: ADMIN };

const call = async (
  url: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; bytes?: Buffer; headers?: Record<string, string> } = {},
) => {
  const headers: Record<string, string> = { Authorization: `Bearer ${options.key ?? ADMIN}`, ...options.headers };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.bytes !== undefined) headers['Content-Type'] = 'image/jpeg';
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    body: options.bytes ?? (options.body === undefined ? null : JSON.stringify(options.body)),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
};

/** Every event of the feed, page after page (following `Link: rel="next"`, no wait). */
const readFeed = async (url: string): Promise<Event[]> => {
  const all: Event[] = [];
  let next = '/v1/events?limit=100';
  for (;;) {
    const res = await call(url, 'GET', next);
    expect(res.status, res.text).to.equal(200);
    const page = JSON.parse(res.text) as Event[];
    all.push(...page);
    next = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')![1]!;
    if (page.length === 0) return all;
  }
};

/** The feed once it holds `count` events (a long poll waits for the last; the relay runs at once after each write). */
const feedOf = async (url: string, count: number): Promise<Event[]> => {
  const last = await call(url, 'GET', `/v1/events?after=${count - 1}&wait=30`);
  expect(JSON.parse(last.text), `event ${count}`).to.have.length(1);
  const all = await readFeed(url);
  expect(all.map((e) => e.sequence)).to.deep.equal(Array.from({ length: all.length }, (_, i) => i + 1));
  return all;
};

describe('events through the server (docs/rules.md §15)', function () {
  this.timeout(120_000);

  it('every change made by a request has exactly one event, in order, of every type of the table; a key event never holds its secret', async () => {
    const server: StartedServer = await startServer(parseSettings(ENV), { logger: silentLogger });
    const url = server.url;
    try {
      const category = (await call(url, 'POST', '/v1/categories', { body: { name: 'Dogs' } })).json();
      const rex = (
        await call(url, 'POST', '/v1/pets', { key: CLIENT, body: { name: 'Rex', categoryId: category['id'] } })
      ).json();
      const patched = await call(url, 'PATCH', `/v1/pets/${String(rex['id'])}`, { body: { name: 'Max' } });
      expect(patched.status, patched.text).to.equal(200);
      // A PATCH that changes nothing records nothing.
      expect((await call(url, 'PATCH', `/v1/pets/${String(rex['id'])}`, { body: { name: 'Max' } })).status).to.equal(
        200,
      );
      const order = (await call(url, 'POST', '/v1/store/orders', { key: CLIENT, body: { petId: rex['id'] } })).json();
      const approved = (await call(url, 'POST', `/v1/store/orders/${String(order['id'])}/approve`)).json();
      const delivered = (await call(url, 'POST', `/v1/store/orders/${String(order['id'])}/deliver`)).json();
      const bo = (
        await call(url, 'POST', '/v1/pets', { key: CLIENT, body: { name: 'Bo', categoryId: category['id'] } })
      ).json();
      const second = (await call(url, 'POST', '/v1/store/orders', { key: CLIENT, body: { petId: bo['id'] } })).json();
      const cancelled = (
        await call(url, 'POST', `/v1/store/orders/${String(second['id'])}/cancel`, { key: CLIENT })
      ).json();
      const image = await testImage({ format: 'jpeg', width: 320, height: 240, content: 'photo', seed: 5 });
      const photo = (await call(url, 'POST', `/v1/pets/${String(bo['id'])}/photos`, { bytes: image })).json();
      expect((await call(url, 'DELETE', `/v1/pets/${String(bo['id'])}/photos/${String(photo['id'])}`)).status).to.equal(
        204,
      );
      const kept = (await call(url, 'POST', `/v1/pets/${String(bo['id'])}/photos`, { bytes: image })).json();
      expect((await call(url, 'DELETE', `/v1/pets/${String(bo['id'])}`)).status).to.equal(204);
      const issued = (
        await call(url, 'POST', '/v1/admin/keys', { body: { plan: 'pro', label: 'shelter site' } })
      ).json();
      const secret = String(issued['key']);
      expect(secret).to.match(/^pet_/);
      expect(
        (await call(url, 'PATCH', `/v1/admin/keys/${String(issued['id'])}`, { body: { plan: 'business' } })).status,
      ).to.equal(200);
      expect((await call(url, 'DELETE', `/v1/admin/keys/${String(issued['id'])}`)).status).to.equal(204);

      const feed = await feedOf(url, 21);
      const pet = (id: unknown, name: string, status: string) => ({ id, name, categoryId: category['id'], status });
      const { key: _secret, ...publicKey } = issued;
      expect(feed.map((e) => [e.type, e.data])).to.deep.equal([
        ['category.created', category],
        ['pet.created', pet(rex['id'], 'Rex', 'available')],
        ['pet.updated', pet(rex['id'], 'Max', 'available')],
        ['pet.updated', pet(rex['id'], 'Max', 'pending')],
        ['order.placed', order],
        ['order.approved', approved],
        ['order.delivered', delivered],
        ['pet.updated', pet(rex['id'], 'Max', 'sold')],
        ['pet.created', pet(bo['id'], 'Bo', 'available')],
        ['pet.updated', pet(bo['id'], 'Bo', 'pending')],
        ['order.placed', second],
        ['order.cancelled', cancelled],
        ['pet.updated', pet(bo['id'], 'Bo', 'available')],
        ['photo.added', photo],
        ['photo.removed', { id: photo['id'], petId: bo['id'] }],
        ['photo.added', kept],
        ['pet.withdrawn', { id: bo['id'] }],
        ['photo.removed', { id: kept['id'], petId: bo['id'] }],
        ['key.created', publicKey],
        ['key.updated', { ...publicKey, plan: 'business', quota: { perMinute: 1000, perDay: 100000 } }],
        ['key.revoked', { ...publicKey, plan: 'business', quota: { perMinute: 1000, perDay: 100000 } }],
      ]);
      const text = JSON.stringify(feed);
      expect(text).not.to.include(secret);
      expect(text).not.to.include('keyHash');
    } finally {
      await server.stop();
    }
  });

  it('a create replayed under its Idempotency-Key makes no second event; one answered 503 after its write landed makes exactly one, and its retry none', async () => {
    const clock = new ManualClock(Date.UTC(2027, 0, 1));
    const h = await startHarness({ env: ENV, events: true, clock });
    try {
      const create = (idempotencyKey: string, name: string) =>
        call(h.url, 'POST', '/v1/pets', {
          key: CLIENT,
          body: { name, categoryId: 1 },
          headers: { 'Idempotency-Key': idempotencyKey },
        });
      const first = await create('replayed-create-1', 'Rex');
      expect(first.status, first.text).to.equal(201);
      const replay = await create('replayed-create-1', 'Rex');
      expect(replay.status).to.equal(201);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.json()).to.deep.equal(first.json());

      // The store applies the create, and its answer is lost on the way back: 503, the pet exists.
      let struck = false;
      h.faults.use((call) => {
        if (struck || call.port !== 'PetRepository' || call.method !== 'create') return undefined;
        struck = true;
        return 'fail-after-write';
      });
      const lost = await create('lost-answer-1', 'Mia');
      expect(lost.status, lost.text).to.equal(503);
      h.faults.use(undefined);
      // The store circuit stays open a second after a failure (docs/rules.md §6); then the relay's next run moves the
      // event. The attempt's claim on its key was left in progress (its release met the open circuit): a retry takes it over once its lease ran out (§10).
      clock.advance(Math.max(1_000, IN_PROGRESS_LEASE_MS));
      await waitFor(() => h.events!.outbox.size === 0, 'the event of the create that landed moved into the feed');
      const retried = await create('lost-answer-1', 'Mia');
      expect(retried.status, retried.text).to.equal(201);
      expect(retried.json()['id']).to.equal(2);

      const feed = await feedOf(h.url, 2);
      expect(feed.map((e) => [e.type, (e.data as { id: number; name: string }).name])).to.deep.equal([
        ['pet.created', 'Rex'],
        ['pet.created', 'Mia'],
      ]);
      // Nothing more comes: nothing else is waiting to be moved.
      expect(h.events!.outbox.size).to.equal(0);
      expect(await h.events!.lastSequence()).to.equal(2);
    } finally {
      await h.stop();
    }
  });

  it('types naming a type twice: 400 on the feed as on a webhook create, naming the repeat (one rule for both)', async () => {
    const server = await startServer(parseSettings(ENV), { logger: silentLogger });
    try {
      const feed = await call(server.url, 'GET', '/v1/events?types=pet.created,pet.created');
      expect(feed.status, feed.text).to.equal(400);
      const create = await call(server.url, 'POST', '/v1/webhooks', {
        body: { url: 'https://hooks.example/h', types: ['pet.created', 'pet.created'] },
      });
      expect(create.status, create.text).to.equal(400);
      for (const res of [feed, create]) {
        expect(errorOf(res.text)).to.include({ code: 'validation_failed', status: 400 });
        expect(errorOf(res.text).message).to.match(/^types must be .*: pet\.created is named twice$/);
      }
    } finally {
      await server.stop();
    }
  });

  it('PETSTORE_EVENT_RETENTION_DAYS applies from the start: events older than it leave the start of the feed (410 gone behind it), the newest stays', async () => {
    const OLD = Date.UTC(2027, 0, 1);
    const old = async (days: string) => {
      const events = new EventStoreInMemory(new MemoryOutbox());
      for (let i = 1; i <= 3; i++) {
        const at = new Date(OLD + i * 60_000).toISOString();
        expect(
          await events.append(
            toEvent(
              { id: `evt_old${i}`, type: 'category.created', occurredAt: at, data: { id: i, name: `Old ${i}` } },
              i,
            ),
          ),
        ).to.equal('appended');
      }
      const h = await startHarness({
        env: { ...ENV, PETSTORE_EVENT_RETENTION_DAYS: days },
        events,
        clock: new ManualClock(OLD + 31 * 86_400_000),
      });
      return { h, events };
    };
    const month = await old('30');
    try {
      // The retention's first run starts with the server.
      await waitFor(() => month.events.size === 1, 'the retention at start');
      const res = await call(month.h.url, 'GET', '/v1/events');
      expect(res.status).to.equal(410);
      expect(errorOf(res.text).message).to.include('the first kept event is 3');
      expect((await call(month.h.url, 'GET', '/v1/events?after=2')).json()).to.have.length(1);
    } finally {
      await month.h.stop();
    }
    const year = await old('365');
    try {
      const all = await readFeed(year.h.url);
      expect(all.map((e) => e.sequence)).to.deep.equal([1, 2, 3]);
    } finally {
      await year.h.stop();
    }
  });

  it('when the server stops, a long poll under way is answered at once (an empty page and its Link), and the relay moves what was recorded before it stops', async () => {
    const h = await startHarness({ env: ENV, events: true });
    let stopped: Promise<void> | undefined;
    try {
      expect(
        (await call(h.url, 'POST', '/v1/pets', { key: CLIENT, body: { name: 'Rex', categoryId: 1 } })).status,
      ).to.equal(201);
      await feedOf(h.url, 1);
      const polling = call(h.url, 'GET', '/v1/events?after=1&wait=30');
      await waitFor(() => h.events!.waiting === 1, 'the long poll waiting');
      stopped = h.stop();
      // Ended at once: its wait is given up within the promise turns that follow, not when its 30 s are over.
      await new Promise((resolve) => setImmediate(resolve));
      expect(h.events!.waiting).to.equal(0);
      const answer = await polling;
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json()).to.deep.equal([]);
      expect(answer.headers.get('link')).to.equal('</v1/events?after=1&wait=30>; rel="next"');
      await stopped;
      expect(h.events!.waiting).to.equal(0);
      expect(h.events!.outbox.size).to.equal(0);
    } finally {
      await (stopped ?? h.stop());
    }
  });
});

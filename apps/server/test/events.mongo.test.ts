// docs/rules.md §15 on MongoDB, through two servers on one database (two processes' worth: each its
// own container, connection, relay and long polls): a long poll on one is answered by a change made
// through the other; following `next` on one while both take writes reads every event exactly once,
// in order; and `petstore_events_total`, summed over the two, counts each event once. Needs
// MONGODB_URI (skipped without it: no MongoDB can run on this machine otherwise).
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { EVENT_TYPES, type Event } from '@petstore/domain';
import { silentLogger } from '@petstore/adapters-http';
import { parseSettings } from '../src/settings.js';
import { startServer, type StartedServer } from '../src/server.js';

const ADMIN = 'events-mongo-admin-key-0123456789';
const CLIENT = 'events-mongo-client-key-0123456789';

/** The URI of `uri` with another database in its path (credentials and options kept). */
const withDatabase = (uri: string, database: string): string => {
  const scheme = uri.startsWith('mongodb+srv://') ? 'mongodb+srv://' : 'mongodb://';
  const rest = uri.slice(scheme.length);
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const slash = beforeQuery.indexOf('/');
  return `${scheme}${slash === -1 ? beforeQuery : beforeQuery.slice(0, slash)}/${database}${queryAt === -1 ? '' : rest.slice(queryAt)}`;
};

const call = async (server: StartedServer, method: string, path: string, body?: unknown, key = ADMIN) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, link: res.headers.get('link') ?? '', text, json: () => JSON.parse(text) as unknown };
};

const counted = async (server: StartedServer): Promise<Record<string, number>> => {
  const text = await (await fetch(`${server.metricsUrl!}/metrics`)).text();
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      Number(new RegExp(`^petstore_events_total\\{type="${type.replace('.', '\\.')}"\\} (\\d+)$`, 'm').exec(text)![1]),
    ]),
  );
};

describe('events on MongoDB through two servers on one database (docs/rules.md §15)', function () {
  const uri = process.env['MONGODB_URI'] ?? '';
  if (uri === '') {
    it('skipped: MONGODB_URI is not set (no MongoDB can run on this machine without it)');
    return;
  }
  this.timeout(120_000);
  const database = `petstore_test_events_${process.pid}_${Date.now().toString(36)}`;
  let a: StartedServer;
  let b: StartedServer;

  before(async () => {
    const env = {
      HOST: '127.0.0.1',
      PORT: '0',
      PETSTORE_STORE: 'mongo',
      MONGODB_URI: withDatabase(uri, database),
      PETSTORE_API_KEYS: `${CLIENT}:enterprise:100000:10000000`,
      PETSTORE_ADMIN_KEYS: ADMIN,
      PETSTORE_METRICS_PORT: '0',
    };
    a = await startServer(parseSettings(env), { logger: silentLogger });
    b = await startServer(parseSettings(env), { logger: silentLogger });
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    const client = new MongoClient(uri);
    await client.connect();
    await client.db(database).dropDatabase();
    await client.close();
  });

  it('a long poll on one server is answered with the event of a change made through the other', async () => {
    expect((await call(a, 'POST', '/v1/categories', { name: 'Dogs' })).status).to.equal(201);
    const first = await call(b, 'GET', '/v1/events?wait=30');
    expect((first.json() as Event[]).map((e) => e.type)).to.deep.equal(['category.created']);
    const polling = call(b, 'GET', '/v1/events?after=1&wait=30');
    expect((await call(a, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 }, CLIENT)).status).to.equal(201);
    const page = await polling;
    expect(page.status, page.text).to.equal(200);
    expect((page.json() as Event[]).map((e) => [e.sequence, e.type])).to.deep.equal([[2, 'pet.created']]);
    expect(page.link).to.equal('</v1/events?after=2&wait=30>; rel="next"');
  });

  it('following next on one server while both take writes reads every event once, in order; the two counters sum to the feed', async () => {
    const seen: Event[] = [];
    const isLast = (e: Event) => e.type === 'pet.created' && e.data.name === 'Last';
    const reader = (async () => {
      let next = '/v1/events?limit=7&wait=30';
      while (!seen.some(isLast)) {
        const page = await call(b, 'GET', next);
        expect(page.status, page.text).to.equal(200);
        seen.push(...(page.json() as Event[]));
        next = /^<([^>]+)>; rel="next"$/.exec(page.link)![1]!;
      }
    })();
    const writer = async (server: StartedServer, w: number) => {
      for (let i = 0; i < 6; i++) {
        const pet = (await call(server, 'POST', '/v1/pets', { name: `W${w}-${i}`, categoryId: 1 }, CLIENT)).json() as {
          id: number;
        };
        if (i % 2 === 0) {
          const order = (await call(server, 'POST', '/v1/store/orders', { petId: pet.id }, CLIENT)).json() as {
            id: number;
          };
          expect((await call(server === a ? b : a, 'POST', `/v1/store/orders/${order.id}/deliver`)).status).to.equal(
            409,
          );
          expect((await call(server === a ? b : a, 'POST', `/v1/store/orders/${order.id}/approve`)).status).to.equal(
            200,
          );
          expect((await call(server, 'POST', `/v1/store/orders/${order.id}/deliver`)).status).to.equal(200);
        }
      }
    };
    await Promise.all([writer(a, 1), writer(b, 2), writer(a, 3)]);
    // Every write's event in the feed (a long poll for the next one answers [] after 1 s of nothing), then the last one.
    for (;;) {
      const last = (await call(a, 'GET', '/v1/events?after=0&limit=100')).json() as Event[];
      const more = (await call(a, 'GET', `/v1/events?after=${last.at(-1)!.sequence}&wait=1`)).json() as Event[];
      if (more.length === 0) break;
    }
    expect((await call(a, 'POST', '/v1/pets', { name: 'Last', categoryId: 1 }, CLIENT)).status).to.equal(201);
    await reader;
    // 2 before; each writer: 6 pets, 3 orders placed (pet pending + order placed), approved, delivered (+ pet sold).
    const total = 2 + 3 * (6 + 3 * 5) + 1;
    expect(seen.map((e) => e.sequence)).to.deep.equal(Array.from({ length: total }, (_, i) => i + 1));
    expect(new Set(seen.map((e) => e.id)).size).to.equal(total);
    const [inA, inB] = await Promise.all([counted(a), counted(b)]);
    const sum = Object.fromEntries(EVENT_TYPES.map((type) => [type, inA[type]! + inB[type]!]));
    expect(sum).to.deep.include({
      'category.created': 1,
      'pet.created': 3 * 6 + 2,
      'pet.updated': 3 * 3 * 2,
      'order.placed': 9,
      'order.approved': 9,
      'order.delivered': 9,
    });
    expect(Object.values(sum).reduce((x, y) => x + y, 0)).to.equal(total);
  });
});

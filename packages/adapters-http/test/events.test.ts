// docs/rules.md §15 over HTTP: GET /v1/events, the feed. Admin keys only (403 for a client key
// before anything is read), every out-of-rule parameter → 400, 410 `gone` behind the retention with
// the first sequence kept, `Link: rel="next"` on every page, a long poll answered as soon as an event
// arrives and ended by its client's close or the server's stop, and following `next` while writers
// run reads every event exactly once.
import { connect } from 'node:net';
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { EVENT_TYPES, EventRetention, EventSchema, type Event, type EventQuery } from '@petstore/domain';
import { EventStoreInMemory, MemoryOutbox } from '@petstore/adapters-memory';
import { ManualClock } from '@petstore/domain/testing';
import {
  DEFAULT_KEYS,
  expectError,
  KEYS,
  startServer,
  T0,
  type RawResponse,
  type TestServer,
} from './support/server.js';

/** An admin key no test here runs out of (the tests' clock stands still: a minute's window never ends). */
const ADMIN = 'events-admin-key-0123456789';
const CLIENT = KEYS.huge;
const keys = [
  ...DEFAULT_KEYS,
  {
    key: ADMIN,
    plan: 'enterprise' as const,
    quota: { perMinute: 100_000_000, perDay: 1_000_000_000 },
    role: 'admin' as const,
  },
];

const ajv = new Ajv2020({ strict: true, validateFormats: false });
ajv.addFormat('int64', true);
ajv.addFormat('date-time', true);
const isEvent = ajv.compile(EventSchema);

/** The event store of a test server, counting its reads (a 403 must come before any). */
class CountingEvents extends EventStoreInMemory {
  reads = 0;
  override after(sequence: number, query: EventQuery): readonly Event[] {
    this.reads++;
    return super.after(sequence, query);
  }
  override async firstSequence(): Promise<number> {
    this.reads++;
    return super.firstSequence();
  }
}

const feed = (s: TestServer, query = '', key = ADMIN): Promise<RawResponse> =>
  s.request({ path: `/v1/events${query}`, key });

/** A page of the feed: 200, every event in the schema, ascending sequences; and its `next` link's target. */
const pageOf = (res: RawResponse): { events: Event[]; next: string } => {
  expect(res.status, res.text).to.equal(200);
  expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
  const events = res.json() as Event[];
  for (const event of events)
    expect(isEvent(event), `${JSON.stringify(event)}: ${JSON.stringify(isEvent.errors)}`).to.equal(true);
  for (let i = 1; i < events.length; i++) expect(events[i]!.sequence).to.be.above(events[i - 1]!.sequence);
  const link = /^<([^>]+)>; rel="next"$/.exec(res.header('link'));
  expect(link, `Link: ${res.header('link')}`).to.not.equal(null);
  return { events, next: link![1]! };
};

const createPet = async (s: TestServer, name = 'Rex'): Promise<number> => {
  const res = await s.postJson(JSON.stringify({ name, categoryId: 1 }), CLIENT);
  expect(res.status, res.text).to.equal(201);
  return (res.json() as { id: number }).id;
};
const post = (s: TestServer, path: string, key: string, body?: unknown) =>
  s.request({
    method: 'POST',
    path,
    key,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });

/** Waits until `check` holds, looking every 5 ms (for what the server does in the background: a wait taken, a wait ended). */
const until = async (check: () => boolean, what: string): Promise<void> => {
  for (let i = 0; !check(); i++) {
    if (i > 2_000) throw new Error(`still not ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/** Waits until the relay has moved everything recorded (the outboxes are empty): the feed's last sequence is then final. */
const settled = async (s: TestServer): Promise<number> => {
  await until(() => s.events.outbox.size === 0, 'every outbox emptied');
  return s.events.lastSequence();
};

describe('GET /v1/events: the feed (docs/rules.md §15)', function () {
  this.timeout(60_000);
  let s: TestServer;
  let events: CountingEvents;

  beforeEach(async () => {
    events = new CountingEvents(new MemoryOutbox());
    s = await startServer({ keys, events });
  });
  afterEach(() => s.close());

  it('a client key → 403 forbidden before anything is read, whatever its query (a bad one too); no key → 401', async () => {
    await createPet(s);
    await settled(s);
    const before = events.reads;
    for (const query of ['', '?after=0', '?wait=30', '?wait=31', '?after=-1&after=2', '?types=nope']) {
      const res = await feed(s, query, CLIENT);
      expectError(res, 403, 'forbidden');
      expect(res.header('link'), query).to.equal('');
    }
    expect(events.reads, 'reads of the feed for client keys').to.equal(before);
    expectError(await s.request({ path: '/v1/events' }), 401, 'unauthorized');
  });

  it('every parameter out of its rule → 400 naming it: after, types (listing every known type), limit, wait, and any given twice', async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ['after=-1', 'after'],
      ['after=007', 'after'],
      ['after=1.5', 'after'],
      ['after=1e3', 'after'],
      ['after=%2B3', 'after'],
      ['after=', 'after'],
      ['after=abc', 'after'],
      ['after=9007199254740992', 'after'],
      ['types=pet.adopted', 'types'],
      ['types=', 'types'],
      ['types=pet.created,', 'types'],
      ['types=pet.created%20', 'types'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['wait=31', 'wait'],
      ['wait=-1', 'wait'],
      ['wait=1.5', 'wait'],
      ['after=1&after=1', 'after'],
      ['types=pet.created&types=pet.updated', 'types'],
      ['limit=5&limit=5', 'limit'],
      ['wait=1&wait=2', 'wait'],
    ];
    for (const [query, name] of cases) {
      const res = await feed(s, `?${query}`);
      const { message } = expectError(res, 400, 'validation_failed');
      expect(message, query).to.match(new RegExp(`^${name} `));
      expect(res.header('link'), query).to.equal('');
    }
    const { message } = expectError(await feed(s, '?types=pet.adopted'), 400, 'validation_failed');
    for (const type of EVENT_TYPES) expect(message).to.include(type);
    // Unknown parameters are ignored, as on every list.
    pageOf(await feed(s, '?cursor=abc&sort=desc'));
  });

  it("pages of at most limit (default 20) in ascending sequence, from after (default 0); Link on every page, the empty one too, its after the last sequence or the page's own", async () => {
    const empty = pageOf(await feed(s));
    expect(empty.events).to.deep.equal([]);
    expect(empty.next).to.equal('/v1/events?after=0');
    for (let i = 0; i < 25; i++) await createPet(s, `Pet ${i}`);
    expect(await settled(s)).to.equal(25);

    const first = pageOf(await feed(s));
    expect(first.events.map((e) => e.sequence)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(first.events.every((e) => e.type === 'pet.created')).to.equal(true);
    expect(first.events[0]!.data).to.deep.equal({ id: 1, name: 'Pet 0', categoryId: 1, status: 'available' });
    expect(first.events[0]!.occurredAt).to.equal(new Date(T0).toISOString());
    expect(first.next).to.equal('/v1/events?after=20');
    const second = pageOf(await s.request({ path: first.next, key: ADMIN }));
    expect(second.events.map((e) => e.sequence)).to.deep.equal([21, 22, 23, 24, 25]);
    expect(second.next).to.equal('/v1/events?after=25');
    const end = pageOf(await s.request({ path: second.next, key: ADMIN }));
    expect(end).to.deep.equal({ events: [], next: '/v1/events?after=25' });
    // The link carries the page's types, limit and wait.
    const small = pageOf(await feed(s, '?limit=3&after=4&types=pet.created,pet.withdrawn&wait=0'));
    expect(small.events.map((e) => e.sequence)).to.deep.equal([5, 6, 7]);
    expect(small.next).to.equal('/v1/events?after=7&types=pet.created,pet.withdrawn&limit=3&wait=0');
    // Past the end of the feed: an empty page, its link where it was asked.
    expect(pageOf(await feed(s, '?after=1000'))).to.deep.equal({ events: [], next: '/v1/events?after=1000' });
  });

  it('types: only events of those types, still in ascending sequence, and an empty page leaves its link where it was', async () => {
    const petId = await createPet(s);
    const order = (await post(s, '/v1/store/orders', CLIENT, { petId })).json() as { id: number };
    await post(s, `/v1/store/orders/${order.id}/approve`, ADMIN);
    await post(s, `/v1/store/orders/${order.id}/deliver`, ADMIN);
    expect(await settled(s)).to.equal(6);
    const all = pageOf(await feed(s));
    expect(all.events.map((e) => e.type)).to.deep.equal([
      'pet.created',
      'pet.updated',
      'order.placed',
      'order.approved',
      'order.delivered',
      'pet.updated',
    ]);
    const orders = pageOf(await feed(s, '?types=order.placed,order.delivered'));
    expect(orders.events.map((e) => [e.sequence, e.type])).to.deep.equal([
      [3, 'order.placed'],
      [5, 'order.delivered'],
    ]);
    expect(orders.next).to.equal('/v1/events?after=5&types=order.placed,order.delivered');
    expect(pageOf(await s.request({ path: orders.next, key: ADMIN }))).to.deep.equal({ events: [], next: orders.next });
  });

  it('a long poll (wait=30) is answered as soon as an event arrives, with that event', async () => {
    await createPet(s);
    await settled(s);
    const polling = feed(s, '?after=1&wait=30');
    await until(() => events.waiting === 1, 'the poll waiting');
    await createPet(s, 'Late');
    const page = pageOf(await polling);
    expect(page.events.map((e) => [e.sequence, e.type, (e.data as { name: string }).name])).to.deep.equal([
      [2, 'pet.created', 'Late'],
    ]);
    expect(page.next).to.equal('/v1/events?after=2&wait=30');
    expect(events.waiting).to.equal(0);
    expect(s.longPolls.size).to.equal(0);
  });

  it('a long poll for some types waits past events of other types, and answers with the first that matches', async () => {
    const petId = await createPet(s);
    await settled(s);
    const polling = feed(s, '?after=1&types=order.placed&wait=30');
    await until(() => events.waiting === 1, 'the poll waiting');
    const other = await createPet(s, 'Other');
    await until(() => events.waiting === 1 && events.size === 2, 'the poll waiting again past pet.created');
    await post(s, '/v1/store/orders', CLIENT, { petId });
    const page = pageOf(await polling);
    expect(page.events.map((e) => [e.sequence, e.type])).to.deep.equal([[4, 'order.placed']]);
    expect(other).to.equal(2);
  });

  it('a long poll whose client goes away ends its wait: nothing is left held', async () => {
    const socket = connect({ host: '127.0.0.1', port: s.port });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`GET /v1/events?wait=30 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`);
    await until(() => events.waiting === 1 && s.longPolls.size === 1, 'the poll waiting');
    socket.destroy();
    await until(() => events.waiting === 0 && s.longPolls.size === 0, 'the wait ended');
  });

  it('when the server stops, a long poll under way answers at once: an empty page with its link', async () => {
    const polling = feed(s, '?after=0&wait=30');
    await until(() => events.waiting === 1, 'the poll waiting');
    s.longPolls.close();
    // Ended at once: its wait is given up within the promise turns that follow, not when its 30 s are over.
    await new Promise((resolve) => setImmediate(resolve));
    expect(events.waiting).to.equal(0);
    expect(pageOf(await polling)).to.deep.equal({ events: [], next: '/v1/events?after=0&wait=30' });
    // …and one that starts from then on answers at once too.
    expect(pageOf(await feed(s, '?after=0&wait=30'))).to.deep.equal({ events: [], next: '/v1/events?after=0&wait=30' });
  });

  it('behind the retention → 410 gone, its message giving the first sequence kept; from just before it, the feed goes on', async () => {
    const clock = new ManualClock(T0);
    await s.close();
    events = new CountingEvents(new MemoryOutbox());
    s = await startServer({ keys, events, clock });
    for (let i = 0; i < 3; i++) await createPet(s, `Old ${i}`);
    await settled(s);
    clock.advance(31 * 86_400_000);
    await createPet(s, 'Young');
    await settled(s);
    expect(await new EventRetention(events, clock, 30).purge()).to.equal(3);
    for (const after of [0, 1, 2]) {
      const res = await feed(s, `?after=${after}`);
      const { message } = expectError(res, 410, 'gone');
      expect(message).to.include('the first kept event is 4');
      expect(message).to.include('after=3');
      expect(res.header('link')).to.equal('');
    }
    const rest = pageOf(await feed(s, '?after=3'));
    expect(rest.events.map((e) => [e.sequence, (e.data as { name: string }).name])).to.deep.equal([[4, 'Young']]);
    expect(pageOf(await feed(s, '?after=4'))).to.deep.equal({ events: [], next: '/v1/events?after=4' });
    // A long poll behind the retention is told at once, not after its wait.
    expectError(await feed(s, '?after=0&wait=30'), 410, 'gone');
  });

  it('following next (limit 7, wait 30) while writers run reads every event exactly once, in order, with no gap', async () => {
    const seen: Event[] = [];
    const isLast = (e: Event) => e.type === 'pet.created' && e.data.name === 'Last';
    const reader = (async () => {
      let next = '/v1/events?limit=7&wait=30';
      while (!seen.some(isLast)) {
        const page = pageOf(await s.request({ path: next, key: ADMIN }));
        seen.push(...page.events);
        next = page.next;
      }
    })();
    const writer = async (w: number) => {
      for (let i = 0; i < 15; i++) {
        const petId = await createPet(s, `W${w}-${i}`);
        if (i % 3 === 0) {
          const order = (await post(s, '/v1/store/orders', CLIENT, { petId })).json() as { id: number };
          await post(s, `/v1/store/orders/${order.id}/${i % 2 === 0 ? 'cancel' : 'approve'}`, ADMIN);
        }
      }
    };
    await Promise.all([writer(1), writer(2), writer(3), writer(4)]);
    // Once every write is in the feed, one last event: the reader stops when it has read it.
    await settled(s);
    await createPet(s, 'Last');
    const target = await settled(s);
    await reader;
    // Each writer: 15 pets, 3 orders placed and cancelled (4 events each), 2 placed and approved (3 each).
    expect(target).to.equal(4 * (15 + 3 * 4 + 2 * 3) + 1);
    expect(seen.map((e) => e.sequence)).to.deep.equal(Array.from({ length: target }, (_, i) => i + 1));
    expect(new Set(seen.map((e) => e.id)).size).to.equal(target);
    expect(seen).to.deep.equal(events.after(0, { limit: 10_000 }));
  });
});

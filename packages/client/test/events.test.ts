// @petstore/client's `events` against a started server (docs/rules.md §15): the feed followed as an
// async iterator over long polls, each event once and in order as it arrives, resumed from a saved
// sequence, filtered by type, a 429 waited out by the client's own backoff (on the server's manual
// clock), and 403 / 410 thrown as PetstoreError.
import { expect } from 'chai';
import { EventRetention } from '@petstore/domain';
import { createPetstoreClient, events, PetstoreError, type Event, type RetryOptions } from '../src/index.js';
import { KEYS, startServer, type ClientTestServer } from './support/server.js';

describe('@petstore/client: events, following the feed (docs/rules.md §15)', function () {
  this.timeout(60_000);
  let s: ClientTestServer;
  beforeEach(async () => {
    s = await startServer();
  });
  afterEach(() => s.close());

  const client = (apiKey: string = KEYS.admin, extra: Partial<Parameters<typeof createPetstoreClient>[0]> = {}) =>
    createPetstoreClient({ baseUrl: s.baseUrl, apiKey, ...extra });

  const createPets = async (...names: string[]): Promise<void> => {
    const c = client(KEYS.business);
    if ((await c.GET('/categories/{categoryId}', { params: { path: { categoryId: 1 } } })).response.status === 404) {
      expect((await c.POST('/categories', { body: { name: 'Dogs' } })).response.status).to.equal(201);
    }
    for (const name of names)
      expect((await c.POST('/pets', { body: { name, categoryId: 1 } })).response.status).to.equal(201);
  };

  /** Reads `count` events from the iterator, then aborts it; answers them. */
  const take = async (iterator: AsyncGenerator<Event>, count: number, abort: AbortController): Promise<Event[]> => {
    const got: Event[] = [];
    for await (const event of iterator) {
      got.push(event);
      if (got.length === count) abort.abort();
    }
    return got;
  };

  it('yields the events there, then each new one as it arrives (a long poll), in order, each once, until aborted', async () => {
    await createPets('Rex', 'Mia');
    const abort = new AbortController();
    const following = take(events(client(), { wait: 30, limit: 2, signal: abort.signal }), 5, abort);
    // Written once the follower has read what there was and waits in a long poll.
    while (s.events.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await createPets('Bo', 'Tom');
    const got = await following;
    expect(got.map((e) => [e.sequence, e.type])).to.deep.equal([
      [1, 'category.created'],
      [2, 'pet.created'],
      [3, 'pet.created'],
      [4, 'pet.created'],
      [5, 'pet.created'],
    ]);
    const last = got.at(-1)!;
    // Typed by its type: a pet.created's data is a Pet.
    if (last.type === 'pet.created') expect(last.data.name).to.equal('Tom');
    else expect.fail(last.type);
  });

  it('resumes from a saved sequence, and follows only the types asked', async () => {
    await createPets('Rex', 'Mia', 'Bo');
    const c = client();
    const { data: order } = await client(KEYS.business).POST('/store/orders', { body: { petId: 2 } });
    await c.POST('/store/orders/{orderId}/approve', { params: { path: { orderId: order!.id } } });
    const abort = new AbortController();
    const resumed = await take(events(c, { after: 3, signal: abort.signal }), 4, abort);
    expect(resumed.map((e) => [e.sequence, e.type])).to.deep.equal([
      [4, 'pet.created'],
      [5, 'pet.updated'],
      [6, 'order.placed'],
      [7, 'order.approved'],
    ]);
    const orders = new AbortController();
    const onlyOrders = await take(
      events(c, { types: ['order.placed', 'order.approved'], signal: orders.signal }),
      2,
      orders,
    );
    expect(onlyOrders.map((e) => e.sequence)).to.deep.equal([6, 7]);
  });

  it("a 429 is waited out with the client's backoff, and the feed goes on where it was", async () => {
    await createPets('Rex', 'Mia', 'Bo');
    const waits: number[] = [];
    const sleep: NonNullable<RetryOptions['sleep']> = async (ms) => {
      waits.push(ms);
      s.clock.advance(ms);
    };
    // Two requests a minute: the third is refused 429 until the server's minute is over.
    const slow = client(KEYS.slowAdmin, { retry: { sleep, random: () => 0 } });
    const abort = new AbortController();
    const got = await take(events(slow, { limit: 1, wait: 0, signal: abort.signal }), 4, abort);
    expect(got.map((e) => e.sequence)).to.deep.equal([1, 2, 3, 4]);
    expect(waits.length).to.be.at.least(1);
    expect(waits[0]).to.be.above(0);
  });

  it('a client key, or a reader behind the retention, is told so: PetstoreError 403 forbidden, 410 gone naming the first sequence kept', async () => {
    const fail = async (iterator: AsyncGenerator<Event>): Promise<unknown> => {
      try {
        for await (const _ of iterator) expect.fail('no event');
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const forbidden = await fail(events(client(KEYS.business)));
    expect(forbidden).to.be.instanceOf(PetstoreError);
    expect(forbidden).to.include({ status: 403, code: 'forbidden' });

    await createPets('Rex', 'Mia');
    while ((await s.events.lastSequence()) < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    s.clock.advance(40 * 86_400_000);
    expect(await new EventRetention(s.events, s.clock, 30).purge()).to.equal(2);
    const gone = await fail(events(client(), { after: 0 }));
    expect(gone).to.be.instanceOf(PetstoreError);
    expect(gone).to.include({ status: 410, code: 'gone' });
    expect((gone as Error).message).to.include('the first kept event is 3');
  });
});

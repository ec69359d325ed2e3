// docs/rules.md §8 over HTTP: the adoption flow under /v1/store, every rule and code, ownership
// (BOLA: another key's order is 404, never 403), admin-only transitions, paging of the order list,
// the inventory, exactly one winner of simultaneous orders, and 503 on a store fault.
import { expect } from 'chai';
import { PetRepositoryInMemory, OrderRepositoryInMemory } from '@petstore/adapters-memory';
import { FaultInjector } from '@petstore/domain/testing';
import { expectError, KEYS, startServer, T0, type RawResponse, type TestServer } from './support/server.js';

interface OrderBody {
  id: number;
  petId: number;
  status: string;
  placedAt: string;
  updatedAt: string;
}

const OWNER = KEYS.huge;
const OTHER = KEYS.pro;
const ADMIN = KEYS.admin;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The ONE place these tests create pets (`POST /v1/pets`): when creating a pet needs more (an
 * existing category), only this function changes.
 */
const createPet = async (s: TestServer, status: 'available' | 'pending' | 'sold' = 'available'): Promise<number> => {
  const res = await s.postJson(JSON.stringify({ name: 'Rex', categoryId: 1, status }));
  expect(res.status, res.text).to.equal(201);
  return (res.json() as { id: number }).id;
};

const post = (s: TestServer, path: string, key: string, body?: string): Promise<RawResponse> =>
  s.request({
    method: 'POST',
    path,
    key,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
const placeOrder = (s: TestServer, petId: unknown, key: string = OWNER) =>
  post(s, '/v1/store/orders', key, JSON.stringify({ petId }));
const act = (s: TestServer, id: number | string, action: string, key: string) =>
  post(s, `/v1/store/orders/${id}/${action}`, key);
const getOrder = (s: TestServer, id: number | string, key: string) =>
  s.request({ path: `/v1/store/orders/${id}`, key });
const petStatus = async (s: TestServer, petId: number): Promise<string> =>
  ((await s.request({ path: `/v1/pets/${petId}`, key: OWNER })).json() as { status: string }).status;

const orderOf = (res: RawResponse, status = 200): OrderBody => {
  expect(res.status, res.text).to.equal(status);
  expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
  const body = res.json() as OrderBody;
  expect(Object.keys(body)).to.deep.equal(['id', 'petId', 'status', 'placedAt', 'updatedAt']);
  expect(body.placedAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  expect(body.updatedAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  return body;
};
const placed = async (s: TestServer, petId: number, key: string = OWNER): Promise<OrderBody> => {
  const res = await placeOrder(s, petId, key);
  const order = orderOf(res, 201);
  expect(res.header('location')).to.equal(`/v1/store/orders/${order.id}`);
  return order;
};
const conflict = (res: RawResponse, ...words: string[]): void => {
  const { message } = expectError(res, 409, 'conflict');
  for (const word of words) expect(message).to.include(word);
};

describe('orders: the adoption flow over HTTP (docs/rules.md §8)', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await startServer();
  });
  afterEach(() => s.close());

  describe('POST /v1/store/orders', () => {
    it("places an order: 201, Location, the Order with the service clock's time, and the pet becomes pending", async () => {
      const petId = await createPet(s);
      s.clock.set(T0 + 1234);
      const order = await placed(s, petId);
      expect(order).to.deep.equal({
        id: order.id,
        petId,
        status: 'placed',
        placedAt: iso(T0 + 1234),
        updatedAt: iso(T0 + 1234),
      });
      expect(await petStatus(s, petId)).to.equal('pending');
      expect(orderOf(await getOrder(s, order.id, OWNER))).to.deep.equal(order);
    });

    it('gives increasing ids', async () => {
      const a = await placed(s, await createPet(s));
      const b = await placed(s, await createPet(s), OTHER);
      expect(b.id).to.be.greaterThan(a.id);
    });

    it('takes the closed body {petId} only: anything else is 400 validation_failed naming the field', async () => {
      const petId = await createPet(s);
      const cases: Array<[string, string]> = [
        [JSON.stringify({ petId, extra: 1 }), 'extra'],
        [JSON.stringify({ petId, id: 3 }), 'id'],
        ['{}', 'petId'],
        [JSON.stringify({ petId: String(petId) }), 'petId'],
        [JSON.stringify({ petId: 1.5 }), 'petId'],
        [JSON.stringify({ petId: 0 }), 'petId'],
        [JSON.stringify({ petId: -1 }), 'petId'],
        [JSON.stringify({ petId: null }), 'petId'],
        [JSON.stringify({ petId: true }), 'petId'],
        ['{"petId": 9007199254740992}', 'petId'],
        ['[1]', 'object'],
        ['"x"', 'object'],
      ];
      for (const [body, field] of cases) {
        const { message } = expectError(await post(s, '/v1/store/orders', OWNER, body), 400, 'validation_failed');
        expect(message, body).to.include(field);
      }
      const proto = await post(s, '/v1/store/orders', OWNER, `{"petId": ${petId}, "__proto__": {"x": 1}}`);
      expect(expectError(proto, 400, 'validation_failed').message).to.include('__proto__');
      expectError(await post(s, '/v1/store/orders', OWNER, '{"petId":'), 400, 'malformed_json');
      expectError(await s.request({ method: 'POST', path: '/v1/store/orders', key: OWNER }), 400, 'validation_failed');
      expectError(
        await s.request({
          method: 'POST',
          path: '/v1/store/orders',
          key: OWNER,
          body: JSON.stringify({ petId }),
          headers: { 'content-type': 'text/plain' },
        }),
        415,
        'unsupported_media_type',
      );
      expect(await petStatus(s, petId), 'nothing was ordered').to.equal('available');
      expect((await placeOrder(s, 1.0)).status, '1.0 is the integer 1').to.equal(201);
    });

    it('a petId that names no pet is 400 validation_failed', async () => {
      const { message } = expectError(await placeOrder(s, 4242), 400, 'validation_failed');
      expect(message).to.include('petId').and.include('4242');
    });

    it('a pet that is not available is 409 conflict saying its status; pets created pending or sold cannot be ordered', async () => {
      conflict(await placeOrder(s, await createPet(s, 'pending')), 'pending');
      conflict(await placeOrder(s, await createPet(s, 'sold')), 'sold');
      const petId = await createPet(s);
      await placed(s, petId);
      conflict(await placeOrder(s, petId, OTHER), 'pending');
      conflict(await placeOrder(s, petId), 'pending');
    });

    it('of 50 simultaneous orders for one available pet exactly one gets 201, the others 409', async () => {
      const petId = await createPet(s);
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => placeOrder(s, petId, i % 2 === 0 ? OWNER : OTHER)),
      );
      expect(answers.filter((a) => a.status === 201)).to.have.length(1);
      for (const a of answers.filter((x) => x.status !== 201)) conflict(a, 'pending');
      const all = (await s.request({ path: '/v1/store/orders', key: ADMIN })).json() as OrderBody[];
      expect(all.map((o) => o.petId)).to.deep.equal([petId]);
    });
  });

  describe('GET /v1/store/orders/{orderId} and ownership', () => {
    it('the owner and admin keys see the order; another client key gets 404, never 403 (its existence is not revealed)', async () => {
      const order = await placed(s, await createPet(s));
      expect(orderOf(await getOrder(s, order.id, OWNER))).to.deep.equal(order);
      expect(orderOf(await getOrder(s, order.id, ADMIN))).to.deep.equal(order);
      const foreign = expectError(await getOrder(s, order.id, OTHER), 404, 'not_found');
      const missing = expectError(await getOrder(s, order.id + 1000, OTHER), 404, 'not_found');
      expect(foreign.message.replace(String(order.id), 'N')).to.equal(
        missing.message.replace(String(order.id + 1000), 'N'),
      );
      expectError(await act(s, order.id, 'cancel', OTHER), 404, 'not_found');
      expect(orderOf(await getOrder(s, order.id, OWNER)).status, 'nothing changed').to.equal('placed');
    });

    it('orderId follows the petId rules: 400 for non-canonical ids, 404 for none', async () => {
      const order = await placed(s, await createPet(s));
      for (const bad of [
        'abc',
        '0',
        '-1',
        '1.5',
        '007',
        `0${order.id}`,
        '%31',
        '+1',
        '1e3',
        '9223372036854775808',
        '99999999999999999999',
      ]) {
        const { message } = expectError(await getOrder(s, bad, OWNER), 400, 'validation_failed');
        expect(message).to.include('orderId');
        expectError(await act(s, bad, 'cancel', OWNER), 400, 'validation_failed');
        expectError(await act(s, bad, 'approve', ADMIN), 400, 'validation_failed');
      }
      for (const none of ['9223372036854775807', '9007199254740993', String(order.id + 1)]) {
        expectError(await getOrder(s, none, OWNER), 404, 'not_found');
        expectError(await act(s, none, 'deliver', ADMIN), 404, 'not_found');
      }
    });

    it('needs a key (401) and answers wrong methods with 405 and Allow', async () => {
      expectError(await s.request({ path: '/v1/store/orders' }), 401, 'unauthorized');
      expectError(await s.request({ path: '/v1/store/inventory' }), 401, 'unauthorized');
      expectError(await s.request({ method: 'POST', path: '/v1/store/orders/1/approve' }), 401, 'unauthorized');
      const wrong = await s.request({ path: '/v1/store/orders/1/approve', key: OWNER });
      expectError(wrong, 405, 'method_not_allowed');
      expect(wrong.header('allow')).to.include('POST');
      expect(
        (await s.request({ method: 'DELETE', path: '/v1/store/orders/1', key: OWNER })).header('allow'),
      ).to.include('GET');
    });
  });

  describe('transitions (the table of §8)', () => {
    it('approve and deliver are admin-only: every client key gets 403 whatever the order id, even its own order', async () => {
      const order = await placed(s, await createPet(s));
      for (const action of ['approve', 'deliver']) {
        for (const id of [String(order.id), String(order.id + 99), 'abc', '0', '9223372036854775807']) {
          for (const key of [OWNER, OTHER, KEYS.free]) expectError(await act(s, id, action, key), 403, 'forbidden');
        }
      }
      expect(orderOf(await getOrder(s, order.id, OWNER)).status).to.equal('placed');
    });

    it('placed → approved → delivered: 200 with the order after it, updatedAt moves, the pet becomes sold; repeats are 200 unchanged', async () => {
      const petId = await createPet(s);
      const order = await placed(s, petId);
      s.clock.advance(60_000);
      const approved = orderOf(await act(s, order.id, 'approve', ADMIN));
      expect(approved).to.deep.equal({ ...order, status: 'approved', updatedAt: iso(s.clock.now()) });
      expect(await petStatus(s, petId)).to.equal('pending');
      s.clock.advance(60_000);
      expect(orderOf(await act(s, order.id, 'approve', ADMIN)), 'approve again: unchanged').to.deep.equal(approved);
      const delivered = orderOf(await act(s, order.id, 'deliver', ADMIN));
      expect(delivered).to.deep.equal({ ...order, status: 'delivered', updatedAt: iso(s.clock.now()) });
      expect(await petStatus(s, petId)).to.equal('sold');
      s.clock.advance(60_000);
      expect(orderOf(await act(s, order.id, 'deliver', ADMIN)), 'deliver again: unchanged').to.deep.equal(delivered);
      expect(orderOf(await getOrder(s, order.id, OWNER))).to.deep.equal(delivered);
      conflict(await act(s, order.id, 'approve', ADMIN), 'delivered');
      conflict(await act(s, order.id, 'cancel', OWNER), 'delivered');
      conflict(await act(s, order.id, 'cancel', ADMIN), 'delivered');
      conflict(await placeOrder(s, petId), 'sold');
      expect(orderOf(await getOrder(s, order.id, ADMIN))).to.deep.equal(delivered);
    });

    it('a placed order cannot be delivered (409 saying it is placed); nothing changes', async () => {
      const petId = await createPet(s);
      const order = await placed(s, petId);
      conflict(await act(s, order.id, 'deliver', ADMIN), 'placed');
      expect(orderOf(await getOrder(s, order.id, OWNER))).to.deep.equal(order);
      expect(await petStatus(s, petId)).to.equal('pending');
    });

    it('the owner cancels a placed order, an admin an approved one: 200 cancelled, the pet is available again and can be ordered; repeats are 200 unchanged', async () => {
      const petA = await createPet(s);
      const a = await placed(s, petA);
      s.clock.advance(1_000);
      const cancelled = orderOf(await act(s, a.id, 'cancel', OWNER));
      expect(cancelled).to.deep.equal({ ...a, status: 'cancelled', updatedAt: iso(s.clock.now()) });
      expect(await petStatus(s, petA)).to.equal('available');
      s.clock.advance(1_000);
      expect(orderOf(await act(s, a.id, 'cancel', OWNER))).to.deep.equal(cancelled);
      expect(orderOf(await act(s, a.id, 'cancel', ADMIN))).to.deep.equal(cancelled);
      conflict(await act(s, a.id, 'approve', ADMIN), 'cancelled');
      conflict(await act(s, a.id, 'deliver', ADMIN), 'cancelled');

      const again = await placed(s, petA, OTHER);
      expect(again.id).to.be.greaterThan(a.id);
      orderOf(await act(s, again.id, 'approve', ADMIN));
      expectError(await act(s, again.id, 'cancel', OWNER), 404, 'not_found');
      expect(orderOf(await act(s, again.id, 'cancel', ADMIN)).status).to.equal('cancelled');
      expect(await petStatus(s, petA)).to.equal('available');
    });

    it('the owner may cancel an approved order too', async () => {
      const petId = await createPet(s);
      const order = await placed(s, petId, OTHER);
      orderOf(await act(s, order.id, 'approve', ADMIN));
      expect(orderOf(await act(s, order.id, 'cancel', OTHER)).status).to.equal('cancelled');
      expect(await petStatus(s, petId)).to.equal('available');
    });
  });

  describe('GET /v1/store/orders', () => {
    it("lists the caller's orders (an admin: all), ascending id, with the status filter", async () => {
      const mine = [await placed(s, await createPet(s)), await placed(s, await createPet(s))];
      const theirs = await placed(s, await createPet(s), OTHER);
      mine.push(await placed(s, await createPet(s)));
      orderOf(await act(s, mine[1]!.id, 'cancel', OWNER));
      const list = async (key: string, query = '') => {
        const res = await s.request({ path: `/v1/store/orders${query}`, key });
        expect(res.status, res.text).to.equal(200);
        return (res.json() as OrderBody[]).map((o) => o.id);
      };
      expect(await list(OWNER)).to.deep.equal(mine.map((o) => o.id));
      expect(await list(OTHER)).to.deep.equal([theirs.id]);
      expect(await list(KEYS.free)).to.deep.equal([]);
      expect(await list(ADMIN)).to.deep.equal([...mine.map((o) => o.id), theirs.id].sort((x, y) => x - y));
      expect(await list(OWNER, '?status=cancelled')).to.deep.equal([mine[1]!.id]);
      expect(await list(OWNER, '?status=placed')).to.deep.equal([mine[0]!.id, mine[2]!.id]);
      expect(await list(ADMIN, '?status=placed')).to.deep.equal([mine[0]!.id, theirs.id, mine[2]!.id]);
      expect(await list(ADMIN, '?status=delivered')).to.deep.equal([]);
      for (const bad of [
        '?status=Placed',
        '?status=',
        '?status=pending',
        '?limit=0',
        '?limit=101',
        '?limit=abc',
        '?status=placed&status=approved',
        '?cursor=xyz',
      ]) {
        expectError(await s.request({ path: `/v1/store/orders${bad}`, key: OWNER }), 400, 'validation_failed');
      }
    });

    it('pages as GET /v1/pets does: Link rel="next" with the same limit and status, every order once; a cursor is bound to the key and the filter', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 7; i++) ids.push((await placed(s, await createPet(s))).id);
      await placed(s, await createPet(s), OTHER);
      const seen: number[] = [];
      let path: string | undefined = '/v1/store/orders?limit=3&status=placed';
      let firstNext = '';
      while (path !== undefined) {
        const res = await s.request({ path, key: OWNER });
        expect(res.status, res.text).to.equal(200);
        const page = res.json() as OrderBody[];
        seen.push(...page.map((o) => o.id));
        const link = /^<([^>]+)>; rel="next"$/.exec(res.header('link'));
        if (link) {
          expect(page).to.have.length(3);
          expect(link[1]).to.match(/^\/v1\/store\/orders\?limit=3&status=placed&cursor=[A-Za-z0-9_-]+$/);
          if (firstNext === '') firstNext = link[1]!;
          // An order placed between pages (a higher id) is visited too.
          if (seen.length === 3) ids.push((await placed(s, await createPet(s))).id);
        } else expect(res.header('link')).to.equal('');
        path = link?.[1];
      }
      expect(seen).to.deep.equal(ids);
      const cursor = new URL(firstNext, 'http://x').searchParams.get('cursor')!;
      expectError(
        await s.request({ path: `/v1/store/orders?limit=3&status=placed&cursor=${cursor}`, key: OTHER }),
        400,
        'validation_failed',
      );
      expectError(
        await s.request({ path: `/v1/store/orders?limit=3&status=placed&cursor=${cursor}`, key: ADMIN }),
        400,
        'validation_failed',
      );
      expectError(
        await s.request({ path: `/v1/store/orders?limit=3&cursor=${cursor}`, key: OWNER }),
        400,
        'validation_failed',
      );
      expect(
        (await s.request({ path: `/v1/store/orders?limit=5&status=placed&cursor=${cursor}`, key: OWNER })).status,
        'limit may change',
      ).to.equal(200);
    });
  });

  it('GET /v1/store/inventory counts the pets of each status, following the orders', async () => {
    const inventory = async () => (await s.request({ path: '/v1/store/inventory', key: KEYS.free })).json();
    expect(await inventory()).to.deep.equal({ available: 0, pending: 0, sold: 0 });
    const [a, b] = [await createPet(s), await createPet(s)];
    await createPet(s, 'sold');
    await createPet(s, 'pending');
    expect(await inventory()).to.deep.equal({ available: 2, pending: 1, sold: 1 });
    const oa = await placed(s, a);
    await placed(s, b);
    expect(await inventory()).to.deep.equal({ available: 0, pending: 3, sold: 1 });
    orderOf(await act(s, oa.id, 'approve', ADMIN));
    orderOf(await act(s, oa.id, 'deliver', ADMIN));
    expect(await inventory()).to.deep.equal({ available: 0, pending: 2, sold: 2 });
  });
});

describe('orders: store faults over HTTP (docs/rules.md §3, §8)', () => {
  it('a fault between the writes of any action is 503 unavailable with Retry-After; the process keeps serving and the next request finishes the action', async () => {
    const faults = new FaultInjector({ hangMs: 5 });
    const pets = new PetRepositoryInMemory();
    const s = await startServer({
      repository: faults.petRepository(pets),
      orders: faults.orderRepository(new OrderRepositoryInMemory()),
    });
    try {
      const petId = await createPet(s);
      // Placing: the swap of the pet lands, the answer is lost.
      faults.use((call) => (call.method === 'swapHold' ? 'fail-after-write' : undefined));
      const lost = await placeOrder(s, petId);
      expectError(lost, 503, 'unavailable');
      expect(lost.header('retry-after')).to.match(/^[1-9]\d*$/);
      faults.use(undefined);
      // The next request touching the pet finishes the placement: the pet is taken, and the order is the caller's.
      conflict(await placeOrder(s, petId, OTHER), 'pending');
      const [order] = (await s.request({ path: '/v1/store/orders', key: OWNER })).json() as OrderBody[];
      expect(order).to.deep.include({ petId, status: 'placed' });

      // Delivering: the record's decision lands, the pet's swap fails.
      orderOf(await act(s, order!.id, 'approve', ADMIN));
      faults.use((call) => (call.method === 'swapHold' ? 'fail' : undefined));
      expectError(await act(s, order!.id, 'deliver', ADMIN), 503, 'unavailable');
      faults.use(undefined);
      expect(await petStatus(s, petId), 'half done: the pet has not followed yet').to.equal('pending');
      expect(orderOf(await getOrder(s, order!.id, OWNER)).status, 'the next read finishes it').to.equal('delivered');
      expect(await petStatus(s, petId)).to.equal('sold');

      // Cancelling: the last write hangs.
      const other = await createPet(s);
      const second = await placed(s, other);
      faults.use((call) => (call.method === 'updateState' && call.args[2] === 'cancelled' ? 'hang' : undefined));
      expectError(await act(s, second.id, 'cancel', OWNER), 503, 'unavailable');
      faults.use(undefined);
      expect(orderOf(await act(s, second.id, 'cancel', OWNER)).status).to.equal('cancelled');
      expect(await petStatus(s, other)).to.equal('available');

      faults.set('fail');
      for (const res of [
        await s.request({ path: '/v1/store/orders', key: OWNER }),
        await s.request({ path: '/v1/store/inventory', key: OWNER }),
        await getOrder(s, second.id, OWNER),
      ]) {
        expectError(res, 503, 'unavailable');
        expect(res.text).not.to.include('injected');
      }
      faults.reset();
      expect((await s.request({ path: '/v1/store/inventory', key: OWNER })).json()).to.deep.equal({
        available: 1,
        pending: 0,
        sold: 1,
      });
    } finally {
      faults.reset();
      await s.close();
    }
  });
});

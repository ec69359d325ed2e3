// The adoption flow through the real composition root (settings, container, bounded ports): the
// order store is wired, admin keys act on orders, and a store that hangs past the deadline is a
// 503 the next request recovers from.
import { expect } from 'chai';
import { apiKeyRecord, type ApiKeyRecord } from '@petstore/domain';
import { ManualClock, nodeDigests } from '@petstore/domain/testing';
import { STORE_CIRCUIT_OPEN_MS } from '../src/store-circuit.js';
import { errorOf, send, startHarness, type Harness } from './hardening/support.js';

const CLIENT = 'orders-client-key';
const ADMIN = 'orders-admin-key';
const json = (key: string) => ({ Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' });

describe('the server wires the adoption flow (docs/rules.md §8)', function () {
  this.timeout(30_000);
  let h: Harness;
  const clock = new ManualClock(Date.UTC(2027, 4, 5, 12, 0, 0));
  before(async () => {
    h = await startHarness({ env: { PETSTORE_API_KEYS: `${CLIENT}:pro` }, clock, storeDeadlineMs: 100, hangMs: 300 });
    await h.keys.save(apiKeyRecord(nodeDigests, ADMIN, 'business', undefined, 'admin') as ApiKeyRecord);
  });
  after(() => h.stop());

  it('places, approves and delivers through the container; the inventory follows', async () => {
    const pet = await send(h.port, {
      method: 'POST',
      path: '/v1/pets',
      headers: json(CLIENT),
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(pet.status, pet.text).to.equal(201);
    const petId = (JSON.parse(pet.text) as { id: number }).id;
    const placed = await send(h.port, {
      method: 'POST',
      path: '/v1/store/orders',
      headers: json(CLIENT),
      body: JSON.stringify({ petId }),
    });
    expect(placed.status, placed.text).to.equal(201);
    const orderId = (JSON.parse(placed.text) as { id: number }).id;
    expect(placed.headers['location']).to.equal(`/v1/store/orders/${orderId}`);
    expect(
      (await send(h.port, { method: 'POST', path: `/v1/store/orders/${orderId}/approve`, headers: json(CLIENT) }))
        .status,
    ).to.equal(403);
    for (const action of ['approve', 'deliver']) {
      const res = await send(h.port, {
        method: 'POST',
        path: `/v1/store/orders/${orderId}/${action}`,
        headers: json(ADMIN),
      });
      expect(res.status, res.text).to.equal(200);
    }
    const inventory = await send(h.port, { path: '/v1/store/inventory', headers: json(CLIENT) });
    expect(JSON.parse(inventory.text)).to.deep.equal({ available: 0, pending: 0, sold: 1 });
  });

  it('an order store that hangs past the deadline answers 503 unavailable; the next request finishes the placement', async () => {
    const pet = await send(h.port, {
      method: 'POST',
      path: '/v1/pets',
      headers: json(CLIENT),
      body: '{"name":"Mia","categoryId":1}',
    });
    const petId = (JSON.parse(pet.text) as { id: number }).id;
    // The pet is reserved, then the placement's last write (placing → placed) hangs past the deadline and never lands.
    h.faults.use((call) => (call.port === 'OrderRepository' && call.method === 'updateState' ? 'hang' : undefined));
    const cut = await send(h.port, {
      method: 'POST',
      path: '/v1/store/orders',
      headers: json(CLIENT),
      body: JSON.stringify({ petId }),
    });
    expect(cut.status, cut.text).to.equal(503);
    expect(errorOf(cut.text)).to.deep.include({ code: 'unavailable', status: 503 });
    h.faults.use(undefined);
    clock.advance(STORE_CIRCUIT_OPEN_MS); // the store circuit lets the next request probe, and close it
    const mine = JSON.parse(
      (await send(h.port, { path: '/v1/store/orders?status=placed', headers: json(CLIENT) })).text,
    ) as { petId: number }[];
    expect(mine.map((o) => o.petId)).to.deep.equal([petId]);
    expect((await send(h.port, { path: '/healthz' })).status).to.equal(200);
  });
});

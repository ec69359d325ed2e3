// Pet maintenance (docs/rules.md §12) through the real composition root: the use case is wired to
// the same bounded ports as the adoption flow, a hung pet store is a 503 the next request recovers
// from, and the pet never ends half changed.
import { expect } from 'chai';
import { apiKeyRecord, type ApiKeyRecord } from '@petstore/domain';
import { ManualClock, nodeDigests } from '@petstore/domain/testing';
import { STORE_CIRCUIT_OPEN_MS } from '../src/store-circuit.js';
import { errorOf, send, startHarness, type Harness } from './hardening/support.js';

const CLIENT = 'maintenance-client-key';
const ADMIN = 'maintenance-admin-key';
const json = (key: string, extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  ...extra,
});

describe('the server wires pet maintenance (docs/rules.md §12)', function () {
  this.timeout(30_000);
  let h: Harness;
  const clock = new ManualClock();
  before(async () => {
    h = await startHarness({ env: { PETSTORE_API_KEYS: `${CLIENT}:pro` }, storeDeadlineMs: 100, hangMs: 300, clock });
    await h.keys.save(apiKeyRecord(nodeDigests, ADMIN, 'business', undefined, 'admin') as ApiKeyRecord);
  });
  after(() => h.stop());

  const create = async (name: string): Promise<number> => {
    const res = await send(h.port, {
      method: 'POST',
      path: '/v1/pets',
      headers: json(CLIENT),
      body: JSON.stringify({ name, categoryId: 1 }),
    });
    expect(res.status, res.text).to.equal(201);
    return (JSON.parse(res.text) as { id: number }).id;
  };

  it('corrects with the ETag of a read, refuses a stale one with 412, withdraws; a client key gets 403', async () => {
    const id = await create('Mispelt');
    const read = await send(h.port, { path: `/v1/pets/${id}`, headers: json(CLIENT) });
    const etag = String(read.headers['etag']);
    expect(etag).to.match(/^"[^"]+"$/);
    expect(
      (await send(h.port, { method: 'PATCH', path: `/v1/pets/${id}`, headers: json(CLIENT), body: '{"name":"x"}' }))
        .status,
    ).to.equal(403);
    const fixed = await send(h.port, {
      method: 'PATCH',
      path: `/v1/pets/${id}`,
      headers: json(ADMIN, { 'If-Match': etag }),
      body: '{"name":"Misspelt"}',
    });
    expect(fixed.status, fixed.text).to.equal(200);
    expect(JSON.parse(fixed.text)).to.deep.equal({ id, name: 'Misspelt', categoryId: 1, status: 'available' });
    expect(fixed.headers['etag'])
      .to.match(/^"[^"]+"$/)
      .and.not.equal(etag);
    const stale = await send(h.port, {
      method: 'DELETE',
      path: `/v1/pets/${id}`,
      headers: json(ADMIN, { 'If-Match': etag }),
    });
    expect(stale.status).to.equal(412);
    expect(errorOf(stale.text).code).to.equal('precondition_failed');
    expect(
      (
        await send(h.port, {
          method: 'DELETE',
          path: `/v1/pets/${id}`,
          headers: json(ADMIN, { 'If-Match': String(fixed.headers['etag']) }),
        })
      ).status,
    ).to.equal(204);
    expect((await send(h.port, { path: `/v1/pets/${id}`, headers: json(CLIENT) })).status).to.equal(404);
  });

  it('a pet store that hangs past the deadline on the update answers 503; the pet is as before, and the next request makes the change', async () => {
    const id = await create('Slow');
    h.faults.use((call) => (call.port === 'PetRepository' && call.method === 'update' ? 'hang' : undefined));
    const cut = await send(h.port, {
      method: 'PATCH',
      path: `/v1/pets/${id}`,
      headers: json(ADMIN),
      body: '{"status":"sold"}',
    });
    expect(cut.status, cut.text).to.equal(503);
    expect(cut.headers['retry-after']).to.match(/^[1-9][0-9]*$/);
    h.faults.use(undefined);
    clock.advance(STORE_CIRCUIT_OPEN_MS); // the store circuit lets the next request probe, and close it
    expect(JSON.parse((await send(h.port, { path: `/v1/pets/${id}`, headers: json(CLIENT) })).text)).to.deep.include({
      status: 'available',
    });
    const done = await send(h.port, {
      method: 'PATCH',
      path: `/v1/pets/${id}`,
      headers: json(ADMIN),
      body: '{"status":"sold"}',
    });
    expect(JSON.parse(done.text)).to.deep.include({ status: 'sold' });
    // A withdrawal whose answer is lost landed all the same: the pet is gone, a retry is 404.
    h.faults.use((call) =>
      call.port === 'PetRepository' && call.method === 'withdraw' ? 'fail-after-write' : undefined,
    );
    expect((await send(h.port, { method: 'DELETE', path: `/v1/pets/${id}`, headers: json(ADMIN) })).status).to.equal(
      503,
    );
    h.faults.use(undefined);
    clock.advance(STORE_CIRCUIT_OPEN_MS);
    expect((await send(h.port, { method: 'DELETE', path: `/v1/pets/${id}`, headers: json(ADMIN) })).status).to.equal(
      404,
    );
    expect(await h.pets.findById(id)).to.equal(undefined);
  });
});

// CONTRACT.md §10 when the idempotency store fails (§3: an outage is 503 `unavailable`, the
// service recovers by itself): the store is wrapped by the FaultInjector of @petstore/domain/testing.
import { expect } from 'chai';
import { IN_PROGRESS_LEASE_MS } from '@petstore/domain';
import { FaultInjector, type FaultMode } from '@petstore/domain/testing';
import { expectError, KEYS, startServer, type RawResponse, type TestServer } from './support/server.js';

const NEW_PET = '{"name":"Rex","categoryId":1}';

describe('Idempotency-Key when the idempotency store fails (CONTRACT.md §10, §3)', () => {
  let s: TestServer;
  let faults: FaultInjector;
  beforeEach(async () => {
    // A hang ends (as the server's store deadline would end it) after 5 ms.
    faults = new FaultInjector({ hangMs: 5 });
    s = await startServer({ wrapIdempotencyStore: (inner) => faults.idempotencyStore(inner) });
  });
  afterEach(async () => {
    faults.reset();
    await s.close();
  });

  const post = (key: string): Promise<RawResponse> =>
    s.request({ method: 'POST', path: '/v1/pets', key: KEYS.huge, headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: NEW_PET });
  const petCount = async (): Promise<number> => ((await s.request({ path: '/v1/pets?limit=100', key: KEYS.huge })).json() as unknown[]).length;
  const failOn = (method: string, mode: FaultMode) => faults.use((call) => (call.method === method ? mode : undefined));

  for (const mode of ['fail', 'hang'] as const) {
    it(`the claim ${mode === 'fail' ? 'fails' : 'hangs'} → 503 unavailable with Retry-After, nothing created; once the store answers, the same key creates once`, async () => {
      failOn('claim', mode);
      const refused = await post('outage-claim');
      expectError(refused, 503, 'unavailable');
      expect(refused.header('retry-after')).to.match(/^[1-9]\d*$/);
      expect(await petCount(), 'no pet created').to.equal(0);
      expect(s.idempotencyStore.size, 'no claim left behind').to.equal(0);

      faults.use(undefined);
      const created = await post('outage-claim');
      expect(created.status).to.equal(201);
      const again = await post('outage-claim');
      expect([again.status, again.text, again.header('idempotent-replayed')]).to.deep.equal([201, created.text, 'true']);
      expect(await petCount()).to.equal(1);
    });
  }

  it('the claim lands but its answer is lost → 503, nothing created; a retry with the key is 409 while the claim lasts, then creates once', async () => {
    failOn('claim', 'fail-after-write');
    expectError(await post('lost-claim'), 503, 'unavailable');
    faults.use(undefined);
    expect(await petCount()).to.equal(0);
    // The store holds a claim no request will finish: it frees itself when its lease ends.
    expectError(await post('lost-claim'), 409, 'conflict');
    s.clock.advance(IN_PROGRESS_LEASE_MS);
    expect((await post('lost-claim')).status).to.equal(201);
    expect(await petCount()).to.equal(1);
  });

  for (const mode of ['fail', 'hang'] as const) {
    it(`keeping the answer ${mode === 'fail' ? 'fails' : 'hangs'} after the create → the client still gets its 201; a retry is 409 while the claim lasts (never a second pet then)`, async () => {
      failOn('complete', mode);
      const created = await post('lost-answer');
      expect(created.status, 'the pet was created: a 503 would invite a retry that creates again').to.equal(201);
      faults.use(undefined);
      expect(await petCount()).to.equal(1);
      expectError(await post('lost-answer'), 409, 'conflict');
      s.clock.advance(IN_PROGRESS_LEASE_MS - 1);
      expectError(await post('lost-answer'), 409, 'conflict');
      expect(await petCount(), 'no second pet while the claim lasts').to.equal(1);
    });
  }

  it('a store outage of every call: every idempotent create is 503, creates without the header still work, and the service recovers by itself', async () => {
    faults.set('fail');
    expectError(await post('down-1'), 503, 'unavailable');
    expectError(await post('down-2'), 503, 'unavailable');
    const plain = await s.postJson(NEW_PET);
    expect(plain.status, 'a create without Idempotency-Key does not touch the idempotency store').to.equal(201);
    faults.set('pass');
    expect((await post('down-1')).status).to.equal(201);
    expect(await petCount()).to.equal(2);
  });
});

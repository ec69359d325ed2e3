import { expect } from 'chai';
import { StoreUnavailableError } from '@petstore/domain';
import { ManualClock } from '@petstore/domain/testing';
import { withDeadline } from '../../src/deadline.js';
import { STORE_CIRCUIT_OPEN_MS } from '../../src/store-circuit.js';
import { errorOf, send, startHarness, type Harness } from './support.js';

const KEY = 'deadline-key';
const auth = { Authorization: `Bearer ${KEY}` };
const json = { ...auth, 'Content-Type': 'application/json' };

describe('hardening: the store deadline (a hanging store yields 503, never a hung request)', function () {
  this.timeout(30_000);

  it('withDeadline settles like the call, or rejects with StoreUnavailableError after the bound; a late failure is absorbed', async () => {
    expect(await withDeadline(() => Promise.resolve(7), 50, 'x')).to.equal(7);
    const slow = new Promise<number>((_, reject) => setTimeout(() => reject(new Error('late driver error')), 80));
    const error = await withDeadline(() => slow, 20, 'PetRepository.list').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(StoreUnavailableError);
    expect((error as Error).message).to.equal('PetRepository.list did not answer within 20 ms');
    await new Promise((r) => setTimeout(r, 100)); // the late rejection lands here, handled
  });

  it('with the default deadline (5 s), every operation on a hanging store answers 503 unavailable within 10 s, and recovers', async () => {
    let harness: Harness | undefined;
    try {
      const clock = new ManualClock(Date.UTC(2027, 4, 5, 12, 0, 0));
      harness = await startHarness({ env: { PETSTORE_API_KEYS: `${KEY}:pro` }, clock });
      const { port, faults } = harness;
      faults.set('hang'); // every port call hangs for 30 s (longer than the deadline)
      const started = Date.now();
      const answers = await Promise.all([
        send(port, { path: '/v1/pets', headers: auth }),
        send(port, { path: '/v1/pets/1', headers: auth }),
        send(port, { method: 'POST', path: '/v1/pets', headers: json, body: '{"name":"Rex","categoryId":1}' }),
        send(port, { path: '/v1/pets' }), // anonymous: the quota store hangs
      ]);
      expect(Date.now() - started).to.be.below(10_000);
      for (const a of answers) {
        expect(a.status).to.equal(503);
        expect(errorOf(a.text)).to.deep.include({ code: 'unavailable', status: 503 });
        expect(a.headers['retry-after']).to.match(/^[1-9][0-9]*$/);
      }
      // The probes that do not touch the store still answer at once.
      expect((await send(port, { path: '/healthz' })).status).to.equal(200);

      faults.reset(); // the store is back
      clock.advance(STORE_CIRCUIT_OPEN_MS); // past the store circuit's interval: the next call probes, and closes it
      expect(
        (await send(port, { method: 'POST', path: '/v1/pets', headers: json, body: '{"name":"Rex","categoryId":1}' }))
          .status,
      ).to.equal(201);
      expect((await send(port, { path: '/v1/pets', headers: auth })).status).to.equal(200);
    } finally {
      await harness?.stop();
    }
  });

  it('a short deadline bounds each port separately: quota store, key store, pet repository', async () => {
    const clock = new ManualClock(Date.UTC(2027, 4, 5, 12, 0, 0));
    const harness = await startHarness({ env: { PETSTORE_API_KEYS: `${KEY}:pro` }, storeDeadlineMs: 200, clock });
    try {
      const { port, faults } = harness;
      for (const port_ of ['QuotaStore', 'ApiKeyStore', 'PetRepository'] as const) {
        faults.use((call) => (call.port === port_ ? 'hang' : undefined));
        const a = await send(port, { path: '/v1/pets/1', headers: auth, timeoutMs: 5_000 });
        expect(a.status, port_).to.equal(503);
        expect(errorOf(a.text).code).to.equal('unavailable');
        faults.reset();
        clock.advance(STORE_CIRCUIT_OPEN_MS); // the next request's first call probes the store
      }
      expect((await send(port, { path: '/v1/pets', headers: auth })).status).to.equal(200);
    } finally {
      await harness.stop();
    }
  });
});

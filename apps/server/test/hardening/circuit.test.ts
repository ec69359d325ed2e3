// The store circuit (docs/rules.md §6): during an outage, the first request waits the store
// deadline, the next ones are answered 503 at once without calling the store, one call probes the
// store after a short interval, and the store answering again closes the circuit (no restart).
import { expect } from 'chai';
import fc from 'fast-check';
import { StoreUnavailableError } from '@petstore/domain';
import { ManualClock } from '@petstore/domain/testing';
import { withDeadline } from '../../src/deadline.js';
import { STORE_CIRCUIT_OPEN_MS, StoreCircuit } from '../../src/store-circuit.js';
import { errorOf, send, startHarness } from './support.js';

const KEY = 'circuit-key';
const auth = { Authorization: `Bearer ${KEY}` };
const OPEN_MS = 1_000;

/** A store call the test settles by hand. */
interface PendingCall {
  readonly ran: boolean;
  readonly outcome: Promise<'answered' | 'refused' | 'outage' | 'other'>;
  settle(how: 'answer' | 'outage' | 'other'): void;
}

type Step =
  | { readonly kind: 'call' }
  | { readonly kind: 'settle'; readonly index: number; readonly how: 'answer' | 'outage' | 'other' }
  | { readonly kind: 'advance'; readonly ms: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Step>({ kind: 'call' }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      // Mostly the oldest call in flight: calls outliving a change of state are where the rules are subtle.
      index: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.nat()),
      // Outages weigh more: the open states are the ones with rules to break.
      how: fc.oneof(
        { weight: 2, arbitrary: fc.constant('outage' as const) },
        fc.constant('answer' as const),
        fc.constant('other' as const),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.oneof(
        fc.integer({ min: 1, max: OPEN_MS - 1 }),
        fc.constant(OPEN_MS),
        fc.integer({ min: OPEN_MS, max: 3 * OPEN_MS }),
      ),
    }),
  },
);

const ticks = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('hardening: the store circuit (fail fast during an outage, probe, recover by itself)', function () {
  this.timeout(60_000);

  it('property (model): closed, every call reaches the store; after an outage none does until the interval has passed since the last one, then one probe at a time; any answer closes it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 80, size: 'max' }), async (steps) => {
        const clock = new ManualClock(Date.UTC(2027, 4, 5, 12, 0, 0));
        const failures: string[] = [];
        const changes: boolean[] = [];
        const circuit = new StoreCircuit(clock, OPEN_MS, {
          failure: (port) => failures.push(port),
          change: (open) => changes.push(open),
        });
        // The model: the rules, in their own terms.
        let open = false;
        let lastOutageAt = 0;
        let probeInFlight: PendingCall | undefined;
        const expectedChanges: boolean[] = [];
        let expectedFailures = 0;
        const pending: PendingCall[] = [];

        for (const step of steps) {
          if (step.kind === 'advance') {
            clock.advance(step.ms);
          } else if (step.kind === 'call') {
            const mayRun = !open || (probeInFlight === undefined && clock.now() >= lastOutageAt + OPEN_MS);
            let settle: (how: 'answer' | 'outage' | 'other') => void = () => {};
            let ran = false;
            const result = withDeadline(
              () => {
                ran = true;
                return new Promise<number>((resolve, reject) => {
                  settle = (how) =>
                    how === 'answer'
                      ? resolve(1)
                      : reject(how === 'outage' ? new StoreUnavailableError('down') : new TypeError('a bug'));
                });
              },
              60_000,
              'PetRepository.list',
              circuit,
            );
            const outcome = result.then(
              () => 'answered' as const,
              (error: unknown) =>
                error instanceof StoreUnavailableError
                  ? ran
                    ? ('outage' as const)
                    : ('refused' as const)
                  : ('other' as const),
            );
            expect(ran, `a call ${open ? 'while open' : 'while closed'} ${mayRun ? 'runs' : 'is refused'}`).to.equal(
              mayRun,
            );
            const call: PendingCall = { ran, outcome, settle: (how) => settle(how) };
            if (ran) {
              if (open) probeInFlight = call;
              pending.push(call);
            } else {
              expect(await outcome, 'refused at once, with StoreUnavailableError').to.equal('refused');
            }
          } else if (pending.length > 0) {
            const [call] = pending.splice(step.index % pending.length, 1);
            call!.settle(step.how);
            await ticks();
            if (step.how === 'outage') {
              expectedFailures += 1;
              lastOutageAt = clock.now();
              if (call === probeInFlight) probeInFlight = undefined;
              if (!open) expectedChanges.push(true);
              open = true;
            } else {
              if (open) expectedChanges.push(false);
              open = false;
              probeInFlight = undefined;
            }
            expect(await call!.outcome).to.equal(step.how === 'answer' ? 'answered' : step.how);
          }
          expect(circuit.open, 'open as the model says').to.equal(open);
          expect(changes).to.deep.equal(expectedChanges);
          expect(failures).to.deep.equal(Array(expectedFailures).fill('PetRepository'));
        }
        for (const call of pending) call.settle('answer');
        await ticks();
      }),
      {
        numRuns: Math.max(300, fc.readConfigureGlobal().numRuns ?? 0),
        // Found by this property once (FC_SEED=777): a probe that fails after the circuit has closed
        // and opened again must not free the place of the probe in flight since.
        examples: [
          [
            [
              { kind: 'call' },
              { kind: 'call' },
              { kind: 'call' },
              { kind: 'settle', index: 0, how: 'outage' },
              { kind: 'advance', ms: OPEN_MS },
              { kind: 'call' },
              { kind: 'settle', index: 0, how: 'answer' },
              { kind: 'settle', index: 0, how: 'outage' },
              { kind: 'advance', ms: OPEN_MS },
              { kind: 'call' },
              { kind: 'settle', index: 0, how: 'outage' },
              { kind: 'advance', ms: OPEN_MS },
              { kind: 'call' },
            ],
          ],
        ],
      },
    );
  });

  it('through the server: the first request waits the deadline, the next ones answer 503 with Retry-After without calling the store, a probe follows the interval, and the store answering closes the circuit', async () => {
    const clock = new ManualClock(Date.UTC(2027, 4, 5, 12, 0, 0));
    const deadlineMs = 1_000;
    const h = await startHarness({
      env: { PETSTORE_API_KEYS: `${KEY}:enterprise:1000000:10000000`, PETSTORE_METRICS_PORT: '0' },
      clock,
      storeDeadlineMs: deadlineMs,
    });
    const scrape = async (): Promise<string> => (await fetch(`${h.server.metricsUrl!}/metrics`)).text();
    const get = () => send(h.port, { path: '/v1/pets', headers: auth });
    try {
      expect((await get()).status).to.equal(200);
      h.faults.set('hang'); // the store hangs: every call would wait the deadline
      const before = h.faults.calls.length;
      const calls = (): number => h.faults.calls.length - before;

      const first = await get();
      expect(first.status).to.equal(503);
      expect(calls(), 'the first request reached the store').to.equal(1);
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        const a = await get();
        expect(performance.now() - started, 'answered before the deadline would have').to.be.below(deadlineMs);
        expect(a.status).to.equal(503);
        expect(errorOf(a.text)).to.deep.include({ code: 'unavailable', status: 503 });
        expect(a.headers['retry-after']).to.equal('5');
      }
      expect(calls(), 'no call reached the store while the circuit was open').to.equal(1);
      let metrics = await scrape();
      expect(metrics).to.match(/^petstore_store_circuit_open 1$/m);
      expect(metrics, 'the failure counted once, for its port').to.match(
        /^petstore_store_failures_total\{port="ApiKeyStore"\} 1$/m,
      );

      clock.advance(STORE_CIRCUIT_OPEN_MS - 1);
      expect((await get()).status).to.equal(503);
      expect(calls(), 'still refused just before the interval ends').to.equal(1);

      clock.advance(1);
      // The interval has passed: one request probes (and waits the deadline, the store still hangs); the others meanwhile are refused.
      const probe = get();
      await new Promise((r) => setTimeout(r, 100));
      const during = await Promise.all(Array.from({ length: 5 }, get));
      expect(during.map((a) => a.status)).to.deep.equal(Array(5).fill(503));
      expect((await probe).status).to.equal(503);
      expect(calls(), 'exactly one probe reached the store').to.equal(2);
      metrics = await scrape();
      expect(metrics).to.match(/^petstore_store_failures_total\{port="ApiKeyStore"\} 2$/m);

      // The store is back: no restart, the first request past the interval closes the circuit.
      h.faults.reset();
      expect((await get()).status, 'still open until the interval has passed again').to.equal(503);
      clock.advance(STORE_CIRCUIT_OPEN_MS);
      expect((await get()).status).to.equal(200);
      const afterwards = await Promise.all(Array.from({ length: 10 }, get));
      expect(afterwards.map((a) => a.status)).to.deep.equal(Array(10).fill(200));
      metrics = await scrape();
      expect(metrics).to.match(/^petstore_store_circuit_open 0$/m);
    } finally {
      await h.stop();
    }
  });
});

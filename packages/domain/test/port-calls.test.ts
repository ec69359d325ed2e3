import { expect } from 'chai';
import {
  PORT_METHODS,
  PORT_NAMES,
  wrapPort,
  type AroundCall,
  type NamedPorts,
  type PortCall,
  type PortName,
} from '../src/index.js';
import { entryOf } from '../test-support/index.js';

/** Stands for any adapter: every method it is asked for answers `answer:<name>` and records the call, its arguments and `this`. */
class Recorder {
  readonly calls: { method: string; args: readonly unknown[]; self: unknown }[] = [];
  port<N extends PortName>(): NamedPorts[N] {
    const calls = this.calls;
    return new Proxy(
      {},
      {
        get: (_target, method) =>
          function (this: unknown, ...args: unknown[]) {
            calls.push({ method: String(method), args, self: this });
            return `answer:${String(method)}`;
          },
      },
    ) as NamedPorts[N];
  }
}

/** Calls every method of a port object with `args`, in the order of its keys. */
const callEvery = (port: object, ...args: unknown[]): unknown[] =>
  Object.entries(port).map(([, method]) => (method as (...a: unknown[]) => unknown)(...args));

describe('port calls: one wrapper for every method of every store port', () => {
  it('names the nine store ports, in a fixed order (the metrics label them so)', () => {
    expect(PORT_NAMES).to.deep.equal([
      'PetRepository',
      'CategoryRepository',
      'OrderRepository',
      'QuotaStore',
      'ApiKeyStore',
      'IdempotencyStore',
      'PhotoStore',
      'EventStore',
      'WebhookStore',
    ]);
  });

  it('lists every method of every store port (the types refuse one left out; this says which they are)', () => {
    const names = Object.fromEntries(PORT_NAMES.map((port) => [port, Object.keys(PORT_METHODS[port]).sort()]));
    expect(names).to.deep.equal({
      PetRepository: [
        'countByStatus',
        'create',
        'findByCreationToken',
        'findById',
        'findHold',
        'list',
        'swapHold',
        'update',
        'withdraw',
      ],
      CategoryRepository: ['create', 'findByCreationToken', 'findById', 'findByName', 'list'],
      OrderRepository: ['create', 'findByCreationToken', 'findById', 'list', 'updateState'],
      QuotaStore: ['consume', 'peek'],
      ApiKeyStore: [
        'findByHash',
        'findById',
        'insert',
        'list',
        'listPublishableOrigins',
        'retainSettingsKeys',
        'revoke',
        'save',
        'update',
      ],
      IdempotencyStore: ['claim', 'complete', 'discard', 'release'],
      PhotoStore: [
        'abandon',
        'delete',
        'deleteAllOf',
        'find',
        'findByCreationToken',
        'list',
        'listOfPets',
        'pets',
        'publish',
        'putFile',
        'read',
        'reserve',
        'sweep',
      ],
      EventStore: [
        'after',
        'append',
        'clear',
        'evictedThrough',
        'firstSequence',
        'lastSequence',
        'lease',
        'onRecorded',
        'pending',
        'pendingOf',
        'purge',
        'waitBeyond',
      ],
      WebhookStore: [
        'advance',
        'deliveries',
        'enabled',
        'findById',
        'insert',
        'lease',
        'list',
        'log',
        'pause',
        'release',
        'remove',
        'update',
      ],
    });
  });

  it('a method writes exactly when its name is not a query (find…, list, read, peek, pets, count…, the event store reads: pending…, after, first/lastSequence, evictedThrough, onRecorded, waitBeyond; the webhook store: enabled, deliveries): what the fault injector counts as a write', () => {
    for (const port of PORT_NAMES) {
      for (const [method, kind] of Object.entries(PORT_METHODS[port])) {
        expect(kind, `${port}.${method}`).to.equal(
          /^(find|list|read|peek|pets|count|pending|after|firstSequence|lastSequence|evictedThrough|onRecorded|waitBeyond|enabled|deliveries)/.test(
            method,
          )
            ? 'read'
            : 'write',
        );
      }
    }
  });

  for (const port of PORT_NAMES) {
    it(`${port}: every method goes through the wrapper once, with its port, name, kind and arguments as passed, and reaches the wrapped store on it`, async () => {
      const recorder = new Recorder();
      const inner = recorder.port<typeof port>();
      const seen: PortCall[] = [];
      const around: AroundCall = (call, forward) => {
        seen.push(call);
        return forward();
      };
      const wrapped = wrapPort(port, inner, around);
      const methods = Object.keys(PORT_METHODS[port]);
      expect(Object.keys(wrapped), 'a plain object with every method of the port, and only those').to.deep.equal(
        methods,
      );
      expect(await Promise.all(callEvery(wrapped, 1, 'two'))).to.deep.equal(methods.map((m) => `answer:${m}`));
      expect(seen).to.deep.equal(
        methods.map((method) => ({
          port,
          method,
          write: PORT_METHODS[port][method as keyof (typeof PORT_METHODS)[typeof port]] === 'write',
          args: [1, 'two'],
        })),
      );
      expect(recorder.calls.map((c) => c.method)).to.deep.equal(methods);
      for (const call of recorder.calls) {
        expect(call.args, call.method).to.deep.equal([1, 'two']);
        expect(call.self, `${call.method} is called on the wrapped store`).to.equal(inner);
      }
    });
  }

  it('passes the arguments exactly as given: a create without a creation token reaches the store without one (docs/rules.md §10)', () => {
    const recorder = new Recorder();
    const pets = wrapPort('PetRepository', recorder.port<'PetRepository'>(), (_call, forward) => forward());
    void pets.create(entryOf({ name: 'Rex', categoryId: 1, status: 'available' }));
    void pets.create(entryOf({ name: 'Rex', categoryId: 1, status: 'available' }), 'tok');
    expect(recorder.calls.map((c) => c.args.length)).to.deep.equal([1, 2]);
  });

  it('answers what the wrapper answers: it may answer in the store’s place and never call it', async () => {
    const recorder = new Recorder();
    const failing: AroundCall = (call) => Promise.reject(new Error(`${call.port}.${call.method} refused`));
    const quotas = wrapPort('QuotaStore', recorder.port<'QuotaStore'>(), failing);
    let refused: unknown;
    await Promise.resolve(quotas.peek('s')).catch((error: unknown) => (refused = error));
    expect(String(refused)).to.equal('Error: QuotaStore.peek refused');
    expect(recorder.calls, 'the store was never called').to.deep.equal([]);
  });

  it('forward answers a promise: a store method that throws at once is a rejection the wrapper sees, never a throw', async () => {
    const throwing = new Proxy({} as NamedPorts['QuotaStore'], {
      get: () => () => {
        throw new Error('thrown at once');
      },
    });
    const seen: string[] = [];
    const quotas = wrapPort('QuotaStore', throwing, (_call, forward) =>
      forward().catch((error: unknown) => {
        seen.push(String(error));
        throw error;
      }),
    );
    const answer = quotas.peek('s');
    expect(answer).to.be.instanceOf(Promise);
    expect(await answer.catch((error: unknown) => String(error))).to.equal('Error: thrown at once');
    expect(seen).to.deep.equal(['Error: thrown at once']);
  });
});

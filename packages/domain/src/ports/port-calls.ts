import type { ApiKeyStore } from './api-key-store.port.js';
import type { CategoryRepository } from './category-repository.port.js';
import type { IdempotencyStore } from './idempotency-store.port.js';
import type { OrderRepository } from './order-repository.port.js';
import type { PetRepository } from './pet-repository.port.js';
import type { PhotoStore } from './photo-store.port.js';
import type { QuotaStore } from './quota-store.port.js';
import type { EventStore } from './event-store.port.js';
import type { WebhookStore } from './webhook-store.port.js';

/** The store ports, by the name their calls are known under (`PetRepository.create`: in metrics, logs and errors). */
export interface NamedPorts {
  readonly PetRepository: PetRepository;
  readonly CategoryRepository: CategoryRepository;
  readonly OrderRepository: OrderRepository;
  readonly QuotaStore: QuotaStore;
  readonly ApiKeyStore: ApiKeyStore;
  readonly IdempotencyStore: IdempotencyStore;
  readonly PhotoStore: PhotoStore;
  readonly EventStore: EventStore;
  readonly WebhookStore: WebhookStore;
}

export type PortName = keyof NamedPorts;

/** Whether a port method changes what the store holds (`write`) or only reads it (`read`). */
export type MethodKind = 'read' | 'write';

/** Every method of a port, by name, with its kind. Complete: a method left out, or one the port does not have, does not compile. */
export type PortMethods<P> = { readonly [M in keyof P]-?: MethodKind };

/** The methods of every store port: what `wrapPort` wraps. A new port (or method) is added here and in `NamedPorts`. */
export const PORT_METHODS: { readonly [N in PortName]: PortMethods<NamedPorts[N]> } = {
  PetRepository: {
    create: 'write',
    findByCreationToken: 'read',
    findById: 'read',
    list: 'read',
    findHold: 'read',
    swapHold: 'write',
    update: 'write',
    withdraw: 'write',
    countByStatus: 'read',
  },
  CategoryRepository: {
    create: 'write',
    findByCreationToken: 'read',
    findById: 'read',
    findByName: 'read',
    list: 'read',
  },
  OrderRepository: {
    create: 'write',
    findByCreationToken: 'read',
    findById: 'read',
    updateState: 'write',
    list: 'read',
  },
  QuotaStore: { consume: 'write', peek: 'read' },
  ApiKeyStore: {
    findByHash: 'read',
    findById: 'read',
    listPublishableOrigins: 'read',
    list: 'read',
    save: 'write',
    retainSettingsKeys: 'write',
    insert: 'write',
    update: 'write',
    revoke: 'write',
  },
  IdempotencyStore: { claim: 'write', complete: 'write', release: 'write', discard: 'write' },
  PhotoStore: {
    reserve: 'write',
    putFile: 'write',
    publish: 'write',
    findByCreationToken: 'read',
    abandon: 'write',
    list: 'read',
    listOfPets: 'read',
    find: 'read',
    read: 'read',
    delete: 'write',
    deleteAllOf: 'write',
    pets: 'read',
    sweep: 'write',
  },
  // `onRecorded` and `waitBeyond` are a cue and a wait, not store calls: wrappers that bound or fail
  // calls (the deadline, the fault injector) pass them through untouched (`EVENT_STORE_PASSTHROUGH`).
  EventStore: {
    lease: 'write',
    pending: 'read',
    pendingOf: 'read',
    lastSequence: 'read',
    append: 'write',
    clear: 'write',
    onRecorded: 'read',
    after: 'read',
    firstSequence: 'read',
    evictedThrough: 'read',
    purge: 'write',
    waitBeyond: 'read',
  },
  WebhookStore: {
    insert: 'write',
    findById: 'read',
    list: 'read',
    update: 'write',
    remove: 'write',
    enabled: 'read',
    lease: 'write',
    release: 'write',
    advance: 'write',
    pause: 'write',
    log: 'write',
    deliveries: 'read',
  },
};

/** The event store's methods that are no store call (a listener, a wait): passed through, never bounded or failed. */
export const EVENT_STORE_PASSTHROUGH = ['onRecorded', 'waitBeyond'] as const;

/** `wrapped` with the event store's pass-through methods (`EVENT_STORE_PASSTHROUGH`) calling `inner` directly. */
export const withEventPassthrough = (wrapped: EventStore, inner: EventStore): EventStore => ({
  ...wrapped,
  onRecorded: (listener) => inner.onRecorded(listener),
  waitBeyond: (sequence, timeoutMs, until) => inner.waitBeyond(sequence, timeoutMs, until),
});

/** The names of the store ports, in the order of `PORT_METHODS`. */
export const PORT_NAMES = Object.keys(PORT_METHODS) as readonly PortName[];

/** One call of a port method, as a wrapper sees it: the port, the method (one the port has), its kind, and the arguments as passed. */
export type PortCall = {
  readonly [N in PortName]: {
    readonly port: N;
    readonly method: keyof NamedPorts[N] & string;
    /** True for a method that changes the store (`PORT_METHODS`). */
    readonly write: boolean;
    readonly args: readonly unknown[];
  };
}[PortName];

/**
 * What a wrapper does around every call of a port: `forward` makes the call on the wrapped port, with
 * the arguments exactly as the caller passed them (a create's creation token only when it was given,
 * docs/rules.md §10), and answers a promise of what it answers (a call that throws: a rejection);
 * the wrapper answers in its place (the same answer, or another: a deadline, a fault).
 */
export type AroundCall = <T>(call: PortCall, forward: () => Promise<T>) => Promise<T>;

type Method = (...args: readonly unknown[]) => unknown;

/**
 * The port `inner` with every method (`PORT_METHODS[port]`) running through `around`: one way to
 * bound, fail or forward each call of any port, instead of each method written out again. Every
 * wrapped method answers a promise (the event store's steps too, which `inner` may answer at once).
 * The answer is a plain object (a test may spread it and override a method); the methods of `inner`
 * are called on `inner`, so a class instance works as well.
 */
export const wrapPort = <N extends PortName>(port: N, inner: NamedPorts[N], around: AroundCall): NamedPorts[N] => {
  const target = inner as unknown as Readonly<Record<string, Method>>;
  const wrapped: Record<string, Method> = {};
  for (const [method, kind] of Object.entries<MethodKind>(PORT_METHODS[port])) {
    const write = kind === 'write';
    const forward = <T>(args: readonly unknown[]): Promise<T> => {
      try {
        return Promise.resolve(target[method]!(...args)) as Promise<T>;
      } catch (error) {
        return Promise.reject(error);
      }
    };
    wrapped[method] = (...args) => around({ port, method, write, args } as PortCall, () => forward(args));
  }
  return wrapped as unknown as NamedPorts[N];
};

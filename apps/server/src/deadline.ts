import type { AroundCall, PhotoStore, PhotoUrlSecretStore, StorePorts, WebhookStore } from '@petstore/domain';
import { StoreUnavailableError, withEventPassthrough, wrapPort } from '@petstore/domain';
import type { StoreCircuit } from './store-circuit.js';

/**
 * The longest the service waits for any one store call. A driver has its own timeouts, but a
 * call can still hang (a half-open socket, a stuck primary election); past this bound the
 * request is answered 503 `unavailable` and the call is left to finish or fail on its own.
 */
export const STORE_DEADLINE_MS = 5_000;

/**
 * Runs `work` and settles like it, or rejects with `StoreUnavailableError` after `ms`, whichever
 * comes first. A late outcome of `work` is absorbed (never an unhandled rejection, never reported
 * twice); the timer never outlives the call.
 *
 * With a `circuit`, `what` names the port and method (`PetRepository.create`): while the circuit
 * is open the call is refused at once with `StoreUnavailableError` and `work` is never run, but
 * for the probe; an outage (the deadline passing, or `work` failing with `StoreUnavailableError`)
 * is reported to the circuit (it opens, and counts the failure for the port), any other outcome
 * tells it the store answered (it closes).
 */
export const withDeadline = <T>(
  work: () => Promise<T>,
  ms: number,
  what: string,
  circuit?: StoreCircuit,
): Promise<T> => {
  let probe = 0;
  if (circuit?.open === true) {
    probe = circuit.admitsProbe();
    if (probe === 0)
      return Promise.reject(new StoreUnavailableError(`${what} not tried: the store failed just now (circuit open)`));
  }
  return new Promise<T>((resolve, reject) => {
    let answer: Promise<T>;
    try {
      answer = work();
    } catch (error) {
      answer = Promise.reject(error);
    }
    // Once the deadline has passed, the call's late outcome is left alone: its outage was reported then.
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reportOutage(circuit, what, probe);
      reject(new StoreUnavailableError(`${what} did not answer within ${ms} ms`));
    }, ms);
    answer.then(
      (value) => {
        if (late) return;
        clearTimeout(timer);
        circuit?.answered();
        resolve(value);
      },
      (error: unknown) => {
        if (late) return;
        clearTimeout(timer);
        if (error instanceof StoreUnavailableError) reportOutage(circuit, what, probe);
        else circuit?.answered();
        reject(error);
      },
    );
  });
};

/** Tells the circuit of an outage of the port `what` names (`PetRepository.create` → `PetRepository`). */
const reportOutage = (circuit: StoreCircuit | undefined, what: string, probe: number): void =>
  circuit?.failed(what.slice(0, what.indexOf('.')), probe);

/** Every call of a port through `withDeadline` and the store's `circuit`, known as `Port.method`. */
const bounded =
  (ms: number, circuit: StoreCircuit): AroundCall =>
  (call, forward) =>
    withDeadline(forward, ms, `${call.port}.${call.method}`, circuit);

/** The same ports, each call bounded by `withDeadline` and guarded by the store's `circuit` (failures are counted there, by port). */
export const boundedPorts = (ports: StorePorts, ms: number, circuit: StoreCircuit): StorePorts => {
  const around = bounded(ms, circuit);
  return {
    pets: wrapPort('PetRepository', ports.pets, around),
    categories: wrapPort('CategoryRepository', ports.categories, around),
    orders: wrapPort('OrderRepository', ports.orders, around),
    quotas: wrapPort('QuotaStore', ports.quotas, around),
    keys: wrapPort('ApiKeyStore', ports.keys, around),
    idempotency: wrapPort('IdempotencyStore', ports.idempotency, around),
    // A long poll waits up to 30 s (docs/rules.md §15): the event store's waits are not bounded.
    ...(ports.events === undefined
      ? {}
      : { events: withEventPassthrough(wrapPort('EventStore', ports.events, around), ports.events) }),
  };
};

/**
 * The photo store with each call bounded by `withDeadline` (an upload's writes, the reads of a GET),
 * outages reported as `PhotoStore`. The start-up calls (`sweep`, `pets`) are not bounded: they may
 * walk every photo once, before the server listens.
 */
export const boundedPhotoStore = (store: PhotoStore, ms: number, circuit: StoreCircuit): PhotoStore => ({
  ...wrapPort('PhotoStore', store, bounded(ms, circuit)),
  pets: () => store.pets(),
  sweep: (startedBefore) => store.sweep(startedBefore),
});

/** The webhook store with each call bounded by `withDeadline`, outages reported as `WebhookStore` (docs/rules.md §15). */
export const boundedWebhookStore = (store: WebhookStore, ms: number, circuit: StoreCircuit): WebhookStore =>
  wrapPort('WebhookStore', store, bounded(ms, circuit));

/** The photo URL secret store with each call bounded by `withDeadline` (docs/rules.md §16), outages reported as `PhotoUrlSecretStore`. */
export const boundedPhotoUrlSecrets = (
  store: PhotoUrlSecretStore,
  ms: number,
  circuit: StoreCircuit,
): PhotoUrlSecretStore => ({
  read: () => withDeadline(() => store.read(), ms, 'PhotoUrlSecretStore.read', circuit),
  create: (secret) => withDeadline(() => store.create(secret), ms, 'PhotoUrlSecretStore.create', circuit),
  rotate: (secret) => withDeadline(() => store.rotate(secret), ms, 'PhotoUrlSecretStore.rotate', circuit),
});

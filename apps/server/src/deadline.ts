import type { Answer, PhotoStore, StorePorts } from '@petstore/domain';
import { StoreUnavailableError } from '@petstore/domain';
import type { StoreCircuit } from './store-circuit.js';

/** The names of the store's ports, as store failures are counted (`petstore_store_failures_total{port}`). */
export const STORE_PORTS = ['PetRepository', 'CategoryRepository', 'OrderRepository', 'QuotaStore', 'ApiKeyStore', 'IdempotencyStore', 'PhotoStore'] as const;

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
export const withDeadline = <T>(work: () => Answer<T>, ms: number, what: string, circuit?: StoreCircuit): Promise<T> => {
  let probe = 0;
  if (circuit?.open === true) {
    probe = circuit.admitsProbe();
    if (probe === 0) return Promise.reject(new StoreUnavailableError(`${what} not tried: the store failed just now (circuit open)`));
  }
  return new Promise<T>((resolve, reject) => {
    let answer: Answer<T>;
    try {
      answer = work();
    } catch (error) {
      answer = Promise.reject(error);
    }
    if (!(answer instanceof Promise)) {
      circuit?.answered();
      return resolve(answer);
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
const reportOutage = (circuit: StoreCircuit | undefined, what: string, probe: number): void => circuit?.failed(what.slice(0, what.indexOf('.')), probe);

/** The same ports, each call bounded by `withDeadline` and guarded by the store's `circuit` (failures are counted there, by port). */
export const boundedPorts = (ports: StorePorts, ms: number, circuit: StoreCircuit): StorePorts => ({
  pets: {
    // The creation token (docs/rules.md §10) and the event recorder (§15) go through as the caller passed them.
    create: (draft, token, record) => withDeadline(() => ports.pets.create(draft, token, record), ms, 'PetRepository.create', circuit),
    findByCreationToken: (token) => withDeadline(() => ports.pets.findByCreationToken(token), ms, 'PetRepository.findByCreationToken', circuit),
    findById: (id) => withDeadline(() => ports.pets.findById(id), ms, 'PetRepository.findById', circuit),
    list: (query) => withDeadline(() => ports.pets.list(query), ms, 'PetRepository.list', circuit),
    findHold: (id) => withDeadline(() => ports.pets.findHold(id), ms, 'PetRepository.findHold', circuit),
    swapHold: (id, expected, next, record) => withDeadline(() => ports.pets.swapHold(id, expected, next, record), ms, 'PetRepository.swapHold', circuit),
    update: (id, revision, changes, at, record) => withDeadline(() => ports.pets.update(id, revision, changes, at, record), ms, 'PetRepository.update', circuit),
    withdraw: (id, revision, record) => withDeadline(() => ports.pets.withdraw(id, revision, record), ms, 'PetRepository.withdraw', circuit),
    countByStatus: () => withDeadline(() => ports.pets.countByStatus(), ms, 'PetRepository.countByStatus', circuit),
  },
  categories: {
    create: (category, token, record) => withDeadline(() => ports.categories.create(category, token, record), ms, 'CategoryRepository.create', circuit),
    findByCreationToken: (token) => withDeadline(() => ports.categories.findByCreationToken(token), ms, 'CategoryRepository.findByCreationToken', circuit),
    findById: (id) => withDeadline(() => ports.categories.findById(id), ms, 'CategoryRepository.findById', circuit),
    findByName: (name) => withDeadline(() => ports.categories.findByName(name), ms, 'CategoryRepository.findByName', circuit),
    list: (query) => withDeadline(() => ports.categories.list(query), ms, 'CategoryRepository.list', circuit),
  },
  orders: {
    create: (draft, token) => withDeadline(() => (token === undefined ? ports.orders.create(draft) : ports.orders.create(draft, token)), ms, 'OrderRepository.create', circuit),
    findByCreationToken: (token) => withDeadline(() => ports.orders.findByCreationToken(token), ms, 'OrderRepository.findByCreationToken', circuit),
    findById: (id) => withDeadline(() => ports.orders.findById(id), ms, 'OrderRepository.findById', circuit),
    updateState: (id, expected, next, updatedAt, record) =>
      withDeadline(() => ports.orders.updateState(id, expected, next, updatedAt, record), ms, 'OrderRepository.updateState', circuit),
    list: (query) => withDeadline(() => ports.orders.list(query), ms, 'OrderRepository.list', circuit),
  },
  quotas: {
    consume: (request) => withDeadline(() => ports.quotas.consume(request), ms, 'QuotaStore.consume', circuit),
    peek: (subject) => withDeadline(() => ports.quotas.peek(subject), ms, 'QuotaStore.peek', circuit),
  },
  keys: {
    findByHash: (keyHash) => withDeadline(() => ports.keys.findByHash(keyHash), ms, 'ApiKeyStore.findByHash', circuit),
    findById: (keyId) => withDeadline(() => ports.keys.findById(keyId), ms, 'ApiKeyStore.findById', circuit),
    list: (afterPosition, limit) => withDeadline(() => ports.keys.list(afterPosition, limit), ms, 'ApiKeyStore.list', circuit),
    save: (record) => withDeadline(() => ports.keys.save(record), ms, 'ApiKeyStore.save', circuit),
    retainSettingsKeys: (keyHashes) => withDeadline(() => ports.keys.retainSettingsKeys(keyHashes), ms, 'ApiKeyStore.retainSettingsKeys', circuit),
    insert: (key, record) => withDeadline(() => ports.keys.insert(key, record), ms, 'ApiKeyStore.insert', circuit),
    update: (keyId, changes, record) => withDeadline(() => ports.keys.update(keyId, changes, record), ms, 'ApiKeyStore.update', circuit),
    revoke: (keyId, record) => withDeadline(() => ports.keys.revoke(keyId, record), ms, 'ApiKeyStore.revoke', circuit),
  },
  idempotency: {
    claim: (id, claim, now) => withDeadline(() => ports.idempotency.claim(id, claim, now), ms, 'IdempotencyStore.claim', circuit),
    complete: (id, claim, record) => withDeadline(() => ports.idempotency.complete(id, claim, record), ms, 'IdempotencyStore.complete', circuit),
    release: (id, claim) => withDeadline(() => ports.idempotency.release(id, claim), ms, 'IdempotencyStore.release', circuit),
  },
});

/**
 * The photo store with each call bounded by `withDeadline` (an upload's writes, the reads of a GET),
 * outages reported as `PhotoStore`. The start-up calls (`sweep`, `pets`) are not bounded: they may
 * walk every photo once, before the server listens.
 */
export const boundedPhotoStore = (store: PhotoStore, ms: number, circuit: StoreCircuit): PhotoStore => ({
    reserve: (petId, totalBytes, now) => withDeadline(() => store.reserve(petId, totalBytes, now), ms, 'PhotoStore.reserve', circuit),
    putFile: (upload, file, bytes) => withDeadline(() => store.putFile(upload, file, bytes), ms, 'PhotoStore.putFile', circuit),
    publish: (upload, photo, token, record) => withDeadline(() => store.publish(upload, photo, token, record), ms, 'PhotoStore.publish', circuit),
    findByCreationToken: (token) => withDeadline(() => store.findByCreationToken(token), ms, 'PhotoStore.findByCreationToken', circuit),
    abandon: (upload) => withDeadline(() => store.abandon(upload), ms, 'PhotoStore.abandon', circuit),
    list: (petId) => withDeadline(() => store.list(petId), ms, 'PhotoStore.list', circuit),
    find: (petId, photoId) => withDeadline(() => store.find(petId, photoId), ms, 'PhotoStore.find', circuit),
    read: (photoId, width) => withDeadline(() => store.read(photoId, width), ms, 'PhotoStore.read', circuit),
    delete: (petId, photoId, record) => withDeadline(() => store.delete(petId, photoId, record), ms, 'PhotoStore.delete', circuit),
    deleteAllOf: (petId, record) => withDeadline(() => store.deleteAllOf(petId, record), ms, 'PhotoStore.deleteAllOf', circuit),
    pets: () => store.pets(),
    sweep: (startedBefore) => store.sweep(startedBefore),
});

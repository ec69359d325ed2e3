import type { Answer, PhotoStore, StorePorts } from '@petstore/domain';
import { StoreUnavailableError } from '@petstore/domain';

/**
 * The longest the service waits for any one store call. A driver has its own timeouts, but a
 * call can still hang (a half-open socket, a stuck primary election); past this bound the
 * request is answered 503 `unavailable` and the call is left to finish or fail on its own.
 */
export const STORE_DEADLINE_MS = 5_000;

/**
 * Settles like `work`, or rejects with `StoreUnavailableError` after `ms`, whichever comes first.
 * A late outcome of `work` is absorbed (never an unhandled rejection); the timer never outlives
 * the call. `onUnavailable` hears of every outage (the deadline passing, or `work` rejecting
 * with `StoreUnavailableError`), for the store-failure metric.
 */
export const withDeadline = <T>(work: Answer<T>, ms: number, what: string, onUnavailable?: () => void): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    if (!(work instanceof Promise)) return resolve(work);
    const timer = setTimeout(() => {
      onUnavailable?.();
      reject(new StoreUnavailableError(`${what} did not answer within ${ms} ms`));
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (error instanceof StoreUnavailableError) onUnavailable?.();
        reject(error);
      },
    );
  });

/** Hears of each store call that failed with an outage, by port name (`PetRepository`…). */
export type StoreFailureListener = (port: string) => void;

/** The same ports, each call bounded by `withDeadline`; outages are reported to `onFailure`. */
export const boundedPorts = (ports: StorePorts, ms: number, onFailure: StoreFailureListener = () => {}): StorePorts => {
  const failed = (port: string) => () => onFailure(port);
  const pets = failed('PetRepository');
  const categories = failed('CategoryRepository');
  const orders = failed('OrderRepository');
  const quotas = failed('QuotaStore');
  const keys = failed('ApiKeyStore');
  const idempotency = failed('IdempotencyStore');
  return {
    pets: {
      create: (draft) => withDeadline(ports.pets.create(draft), ms, 'PetRepository.create', pets),
      findById: (id) => withDeadline(ports.pets.findById(id), ms, 'PetRepository.findById', pets),
      list: (query) => withDeadline(ports.pets.list(query), ms, 'PetRepository.list', pets),
      findHold: (id) => withDeadline(ports.pets.findHold(id), ms, 'PetRepository.findHold', pets),
      swapHold: (id, expected, next) => withDeadline(ports.pets.swapHold(id, expected, next), ms, 'PetRepository.swapHold', pets),
      countByStatus: () => withDeadline(ports.pets.countByStatus(), ms, 'PetRepository.countByStatus', pets),
    },
    categories: {
      create: (category) => withDeadline(ports.categories.create(category), ms, 'CategoryRepository.create', categories),
      findById: (id) => withDeadline(ports.categories.findById(id), ms, 'CategoryRepository.findById', categories),
      findByName: (name) => withDeadline(ports.categories.findByName(name), ms, 'CategoryRepository.findByName', categories),
      list: (query) => withDeadline(ports.categories.list(query), ms, 'CategoryRepository.list', categories),
    },
    orders: {
      create: (draft) => withDeadline(ports.orders.create(draft), ms, 'OrderRepository.create', orders),
      findById: (id) => withDeadline(ports.orders.findById(id), ms, 'OrderRepository.findById', orders),
      updateState: (id, expected, next, updatedAt) => withDeadline(ports.orders.updateState(id, expected, next, updatedAt), ms, 'OrderRepository.updateState', orders),
      list: (query) => withDeadline(ports.orders.list(query), ms, 'OrderRepository.list', orders),
    },
    quotas: {
      consume: (request) => withDeadline(ports.quotas.consume(request), ms, 'QuotaStore.consume', quotas),
    },
    keys: {
      findByHash: (keyHash) => withDeadline(ports.keys.findByHash(keyHash), ms, 'ApiKeyStore.findByHash', keys),
      findById: (keyId) => withDeadline(ports.keys.findById(keyId), ms, 'ApiKeyStore.findById', keys),
      list: (afterPosition, limit) => withDeadline(ports.keys.list(afterPosition, limit), ms, 'ApiKeyStore.list', keys),
      save: (record) => withDeadline(ports.keys.save(record), ms, 'ApiKeyStore.save', keys),
      retainSettingsKeys: (keyHashes) => withDeadline(ports.keys.retainSettingsKeys(keyHashes), ms, 'ApiKeyStore.retainSettingsKeys', keys),
      insert: (key) => withDeadline(ports.keys.insert(key), ms, 'ApiKeyStore.insert', keys),
      update: (keyId, changes) => withDeadline(ports.keys.update(keyId, changes), ms, 'ApiKeyStore.update', keys),
      revoke: (keyId) => withDeadline(ports.keys.revoke(keyId), ms, 'ApiKeyStore.revoke', keys),
    },
    idempotency: {
      claim: (id, claim, now) => withDeadline(ports.idempotency.claim(id, claim, now), ms, 'IdempotencyStore.claim', idempotency),
      complete: (id, claim, record) => withDeadline(ports.idempotency.complete(id, claim, record), ms, 'IdempotencyStore.complete', idempotency),
      release: (id, claim) => withDeadline(ports.idempotency.release(id, claim), ms, 'IdempotencyStore.release', idempotency),
    },
  };
};

/**
 * The photo store with each call bounded by `withDeadline` (an upload's writes, the reads of a GET),
 * outages reported as `PhotoStore`. The start-up calls (`sweep`, `pets`) are not bounded: they may
 * walk every photo once, before the server listens.
 */
export const boundedPhotoStore = (store: PhotoStore, ms: number, onFailure: StoreFailureListener = () => {}): PhotoStore => {
  const failed = () => onFailure('PhotoStore');
  return {
    reserve: (petId, totalBytes, now) => withDeadline(store.reserve(petId, totalBytes, now), ms, 'PhotoStore.reserve', failed),
    putFile: (upload, file, bytes) => withDeadline(store.putFile(upload, file, bytes), ms, 'PhotoStore.putFile', failed),
    publish: (upload, photo) => withDeadline(store.publish(upload, photo), ms, 'PhotoStore.publish', failed),
    abandon: (upload) => withDeadline(store.abandon(upload), ms, 'PhotoStore.abandon', failed),
    list: (petId) => withDeadline(store.list(petId), ms, 'PhotoStore.list', failed),
    find: (petId, photoId) => withDeadline(store.find(petId, photoId), ms, 'PhotoStore.find', failed),
    read: (photoId, width) => withDeadline(store.read(photoId, width), ms, 'PhotoStore.read', failed),
    delete: (petId, photoId) => withDeadline(store.delete(petId, photoId), ms, 'PhotoStore.delete', failed),
    deleteAllOf: (petId) => withDeadline(store.deleteAllOf(petId), ms, 'PhotoStore.deleteAllOf', failed),
    pets: () => store.pets(),
    sweep: (startedBefore) => store.sweep(startedBefore),
  };
};

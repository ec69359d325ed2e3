import type { ApiKeyStore, CategoryRepository, OrderRepository, PetRepository, QuotaStore } from '@petstore/domain';
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
 * the call.
 */
export const withDeadline = <T>(work: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreUnavailableError(`${what} did not answer within ${ms} ms`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

export interface StorePorts {
  readonly pets: PetRepository;
  readonly categories: CategoryRepository;
  readonly orders: OrderRepository;
  readonly quotas: QuotaStore;
  readonly keys: ApiKeyStore;
}

/** The same ports, each call bounded by `withDeadline`. */
export const boundedPorts = (ports: StorePorts, ms: number): StorePorts => ({
  pets: {
    create: (draft) => withDeadline(ports.pets.create(draft), ms, 'PetRepository.create'),
    findById: (id) => withDeadline(ports.pets.findById(id), ms, 'PetRepository.findById'),
    list: (query) => withDeadline(ports.pets.list(query), ms, 'PetRepository.list'),
    findHold: (id) => withDeadline(ports.pets.findHold(id), ms, 'PetRepository.findHold'),
    swapHold: (id, expected, next) => withDeadline(ports.pets.swapHold(id, expected, next), ms, 'PetRepository.swapHold'),
    countByStatus: () => withDeadline(ports.pets.countByStatus(), ms, 'PetRepository.countByStatus'),
  },
  categories: {
    create: (category) => withDeadline(ports.categories.create(category), ms, 'CategoryRepository.create'),
    findById: (id) => withDeadline(ports.categories.findById(id), ms, 'CategoryRepository.findById'),
    findByName: (name) => withDeadline(ports.categories.findByName(name), ms, 'CategoryRepository.findByName'),
    list: (query) => withDeadline(ports.categories.list(query), ms, 'CategoryRepository.list'),
  },
  orders: {
    create: (draft) => withDeadline(ports.orders.create(draft), ms, 'OrderRepository.create'),
    findById: (id) => withDeadline(ports.orders.findById(id), ms, 'OrderRepository.findById'),
    updateState: (id, expected, next, updatedAt) => withDeadline(ports.orders.updateState(id, expected, next, updatedAt), ms, 'OrderRepository.updateState'),
    list: (query) => withDeadline(ports.orders.list(query), ms, 'OrderRepository.list'),
  },
  quotas: {
    consume: (request) => withDeadline(ports.quotas.consume(request), ms, 'QuotaStore.consume'),
  },
  keys: {
    findByHash: (keyHash) => withDeadline(ports.keys.findByHash(keyHash), ms, 'ApiKeyStore.findByHash'),
    findById: (keyId) => withDeadline(ports.keys.findById(keyId), ms, 'ApiKeyStore.findById'),
    list: (afterPosition, limit) => withDeadline(ports.keys.list(afterPosition, limit), ms, 'ApiKeyStore.list'),
    save: (record) => withDeadline(ports.keys.save(record), ms, 'ApiKeyStore.save'),
    retainSettingsKeys: (keyHashes) => withDeadline(ports.keys.retainSettingsKeys(keyHashes), ms, 'ApiKeyStore.retainSettingsKeys'),
    insert: (key) => withDeadline(ports.keys.insert(key), ms, 'ApiKeyStore.insert'),
    update: (keyId, changes) => withDeadline(ports.keys.update(keyId, changes), ms, 'ApiKeyStore.update'),
    revoke: (keyId) => withDeadline(ports.keys.revoke(keyId), ms, 'ApiKeyStore.revoke'),
  },
});

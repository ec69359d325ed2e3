import type { ApiKeyStore, IdempotencyStore, PetRepository, QuotaStore } from '@petstore/domain';
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
  readonly quotas: QuotaStore;
  readonly keys: ApiKeyStore;
  readonly idempotency: IdempotencyStore;
}

/** The same ports, each call bounded by `withDeadline`. */
export const boundedPorts = (ports: StorePorts, ms: number): StorePorts => ({
  pets: {
    create: (draft) => withDeadline(ports.pets.create(draft), ms, 'PetRepository.create'),
    findById: (id) => withDeadline(ports.pets.findById(id), ms, 'PetRepository.findById'),
    list: (query) => withDeadline(ports.pets.list(query), ms, 'PetRepository.list'),
  },
  quotas: {
    consume: (request) => withDeadline(ports.quotas.consume(request), ms, 'QuotaStore.consume'),
  },
  keys: {
    findByHash: (keyHash) => withDeadline(ports.keys.findByHash(keyHash), ms, 'ApiKeyStore.findByHash'),
    save: (record) => withDeadline(ports.keys.save(record), ms, 'ApiKeyStore.save'),
  },
  idempotency: {
    claim: (id, claim, now) => withDeadline(ports.idempotency.claim(id, claim, now), ms, 'IdempotencyStore.claim'),
    complete: (id, claim, record) => withDeadline(ports.idempotency.complete(id, claim, record), ms, 'IdempotencyStore.complete'),
    release: (id, claim) => withDeadline(ports.idempotency.release(id, claim), ms, 'IdempotencyStore.release'),
  },
});

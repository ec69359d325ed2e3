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
 * the call. `onUnavailable` hears of every outage (the deadline passing, or `work` rejecting
 * with `StoreUnavailableError`), for the store-failure metric.
 */
export const withDeadline = <T>(work: Promise<T>, ms: number, what: string, onUnavailable?: () => void): Promise<T> =>
  new Promise<T>((resolve, reject) => {
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

export interface StorePorts {
  readonly pets: PetRepository;
  readonly quotas: QuotaStore;
  readonly keys: ApiKeyStore;
  readonly idempotency: IdempotencyStore;
}

/** Hears of each store call that failed with an outage, by port name (`PetRepository`…). */
export type StoreFailureListener = (port: string) => void;

/** The same ports, each call bounded by `withDeadline`; outages are reported to `onFailure`. */
export const boundedPorts = (ports: StorePorts, ms: number, onFailure: StoreFailureListener = () => {}): StorePorts => {
  const failed = (port: string) => () => onFailure(port);
  const pets = failed('PetRepository');
  const quotas = failed('QuotaStore');
  const keys = failed('ApiKeyStore');
  const idempotency = failed('IdempotencyStore');
  return {
    pets: {
      create: (draft) => withDeadline(ports.pets.create(draft), ms, 'PetRepository.create', pets),
      findById: (id) => withDeadline(ports.pets.findById(id), ms, 'PetRepository.findById', pets),
      list: (query) => withDeadline(ports.pets.list(query), ms, 'PetRepository.list', pets),
    },
    quotas: {
      consume: (request) => withDeadline(ports.quotas.consume(request), ms, 'QuotaStore.consume', quotas),
    },
    keys: {
      findByHash: (keyHash) => withDeadline(ports.keys.findByHash(keyHash), ms, 'ApiKeyStore.findByHash', keys),
      save: (record) => withDeadline(ports.keys.save(record), ms, 'ApiKeyStore.save', keys),
    },
    idempotency: {
      claim: (id, claim, now) => withDeadline(ports.idempotency.claim(id, claim, now), ms, 'IdempotencyStore.claim', idempotency),
      complete: (id, claim, record) => withDeadline(ports.idempotency.complete(id, claim, record), ms, 'IdempotencyStore.complete', idempotency),
      release: (id, claim) => withDeadline(ports.idempotency.release(id, claim), ms, 'IdempotencyStore.release', idempotency),
    },
  };
};

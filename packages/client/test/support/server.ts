// A real v1 server on a free port for the client's tests, composed as an embedder would (memory
// adapters, the domain's use cases, createHttpApp), on a manual clock the tests move.
import {
  Admission,
  Adoption,
  apiKeyRecord,
  Authenticator,
  CategoryCatalog,
  IdempotentRequests,
  KeyAdmin,
  PetCatalog, PetMaintenance,
  type ApiKeyRecord,
  type PlanName,
} from '@petstore/domain';
import { ManualClock, SeededRandom } from '@petstore/domain/testing';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  IdempotencyStoreInMemory,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  QuotaStoreInMemory,
} from '@petstore/adapters-memory';
import { createHttpApp, listen } from '@petstore/adapters-http';

/** 2027-01-01T00:00:10Z: ten seconds into a UTC minute. */
export const T0 = Date.UTC(2027, 0, 1, 0, 0, 10);

export const KEYS = { free: 'client-test-free-key', business: 'client-test-business-key', admin: 'client-test-admin-key' } as const;

const record = (key: string, plan: PlanName, role: 'client' | 'admin' = 'client'): ApiKeyRecord => {
  const made = apiKeyRecord(key, plan, undefined, role);
  if (typeof made === 'string') throw new Error(made);
  return made;
};

export interface ClientTestServer {
  /** The API's base address, ending in /v1. */
  readonly baseUrl: string;
  readonly clock: ManualClock;
  readonly pets: PetRepositoryInMemory;
  close(): Promise<void>;
}

export const startServer = async (): Promise<ClientTestServer> => {
  const clock = new ManualClock(T0);
  const pets = new PetRepositoryInMemory();
  const categories = new CategoryRepositoryInMemory();
  const keys = new ApiKeyStoreInMemory([record(KEYS.free, 'free'), record(KEYS.business, 'business'), record(KEYS.admin, 'business', 'admin')]);
  const orders = new OrderRepositoryInMemory();
  const app = createHttpApp({
    catalog: new PetCatalog(pets, categories, clock),
    categories: new CategoryCatalog(categories),
    adoption: new Adoption(pets, orders, clock),
    maintenance: new PetMaintenance(pets, orders, categories, clock),
    authenticator: new Authenticator(keys),
    admission: new Admission(new QuotaStoreInMemory(), clock),
    keyAdmin: new KeyAdmin(keys, new SeededRandom('client-test'), clock, clock.now()),
    idempotency: new IdempotentRequests(new IdempotencyStoreInMemory(), clock),
  });
  const running = await listen(app, { port: 0, host: '127.0.0.1' });
  return { baseUrl: `${running.url}/v1`, clock, pets, close: () => running.close(1_000) };
};

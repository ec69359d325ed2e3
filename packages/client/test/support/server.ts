// A real v1 server on a free port for the client's tests, composed as an embedder would (memory
// adapters, the domain's use cases, createHttpApp), on a manual clock the tests move.
import {
  Admission,
  Adoption,
  apiKeyRecord,
  Authenticator,
  CategoryCatalog,
  EventFeed,
  EventRelay,
  IdempotentRequests,
  KeyAdmin,
  PetCatalog,
  PetMaintenance,
  PhotoLibrary,
  PhotoUrls,
  RelayLoop,
  WebhookAdmin,
  WebhookDispatcher,
  type ApiKeyRecord,
  type PlanName,
  type Quota,
} from '@petstore/domain';
import { ManualClock, SeededRandom, TextImageProcessor, nodeDigests } from '@petstore/domain/testing';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  EventStoreInMemory,
  IdempotencyStoreInMemory,
  MemoryOutbox,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  PhotoStoreInMemory,
  PhotoUrlSecretStoreInMemory,
  QuotaStoreInMemory,
  WebhookStoreInMemory,
} from '@petstore/adapters-memory';
import { createHttpApp, listen } from '@petstore/adapters-http';
import { HttpWebhookSender, WebhookUrlPolicy } from '@petstore/adapters-webhooks';

/** 2027-01-01T00:00:10Z: ten seconds into a UTC minute. */
export const T0 = Date.UTC(2027, 0, 1, 0, 0, 10);

export const KEYS = {
  free: 'client-test-free-key',
  business: 'client-test-business-key',
  admin: 'client-test-admin-key',
  /** An admin key allowed 2 requests a minute (the tests' clock stands still until a test moves it). */
  slowAdmin: 'client-test-slow-admin-key',
} as const;

const record = (key: string, plan: PlanName, role: 'client' | 'admin' = 'client', quota?: Quota): ApiKeyRecord => {
  const made = apiKeyRecord(nodeDigests, key, plan, quota, role);
  if (typeof made === 'string') throw new Error(made);
  return made;
};

export interface ClientTestServer {
  /** The API's base address, ending in /v1. */
  readonly baseUrl: string;
  readonly clock: ManualClock;
  readonly pets: PetRepositoryInMemory;
  /** The events' outbox and feed (docs/rules.md §15): the stores record into it, a relay moves them into the feed. */
  readonly events: EventStoreInMemory;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Where the manual clock starts (default `T0`). */
  readonly at?: number;
  /** `host[:port]`s webhook deliveries may go to (docs/rules.md §15); its dispatcher runs while the server does. */
  readonly webhookHosts?: readonly string[];
}

export const startServer = async (options: ServerOptions = {}): Promise<ClientTestServer> => {
  const clock = new ManualClock(options.at ?? T0);
  const events = new EventStoreInMemory(new MemoryOutbox());
  const { outbox } = events;
  const pets = new PetRepositoryInMemory(outbox);
  const categories = new CategoryRepositoryInMemory(outbox);
  const keys = new ApiKeyStoreInMemory(
    [
      record(KEYS.free, 'free'),
      record(KEYS.business, 'business'),
      record(KEYS.admin, 'business', 'admin'),
      record(KEYS.slowAdmin, 'enterprise', 'admin', { perMinute: 2, perDay: 1_000 }),
    ],
    outbox,
  );
  const orders = new OrderRepositoryInMemory(outbox);
  // Photos (docs/rules.md §13) of the text images of the domain's test support, with signed URLs (§16).
  const photoStore = new PhotoStoreInMemory(undefined, outbox);
  const photoUrls = new PhotoUrls(
    { store: new PhotoUrlSecretStoreInMemory() },
    { digests: nodeDigests, random: new SeededRandom('client-test-photo-urls'), clock },
  );
  const relay = new RelayLoop(new EventRelay(events, clock, 'client-test'), events, globalThis);
  relay.start();
  // Webhooks (docs/rules.md §15): the API, and a dispatcher delivering to the hosts allowed.
  const webhookStore = new WebhookStoreInMemory();
  const policy = new WebhookUrlPolicy({ allowHosts: options.webhookHosts ?? [] });
  const random = new SeededRandom('client-test-webhooks');
  const dispatcher = new WebhookDispatcher(
    webhookStore,
    events,
    new HttpWebhookSender({ policy, userAgent: 'petstore-webhooks/1.0.0' }),
    clock,
    globalThis,
    random,
    'client-test',
    { scanMs: 50 },
  );
  if (options.webhookHosts !== undefined) dispatcher.start();
  const app = createHttpApp({
    catalog: new PetCatalog(pets, categories, clock, random, { store: photoStore, links: photoUrls }),
    categories: new CategoryCatalog(categories, clock),
    adoption: new Adoption(pets, orders, clock),
    maintenance: new PetMaintenance(pets, orders, categories, clock),
    authenticator: new Authenticator(keys, nodeDigests),
    admission: new Admission(new QuotaStoreInMemory(), clock),
    keyAdmin: new KeyAdmin(keys, new SeededRandom('client-test'), clock, clock.now(), nodeDigests),
    idempotency: new IdempotentRequests(new IdempotencyStoreInMemory(), clock, nodeDigests),
    events: new EventFeed(events, clock),
    webhooks: new WebhookAdmin(webhookStore, events, policy, random, clock),
    photos: new PhotoLibrary(pets, photoStore, new TextImageProcessor(), clock, nodeDigests),
    photoUrls,
  });
  const running = await listen(app, { port: 0, host: '127.0.0.1' });
  return {
    baseUrl: `${running.url}/v1`,
    clock,
    pets,
    events,
    async close() {
      await running.close(1_000);
      await dispatcher.stop();
      await relay.stop();
    },
  };
};

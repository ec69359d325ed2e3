import { Container, ContainerModule } from 'inversify';
import {
  KEY_CACHE_MAX_AGE_MS,
  type Clock,
  type PhotoStore,
  type PhotoUrlSecretStore,
  type StorePorts,
  type WebhookStore,
} from '@petstore/domain';
import {
  IdempotencyStoreInMemory,
  PhotoStoreInMemory,
  PhotoUrlSecretStoreInMemory,
  SystemClock,
  WebhookStoreInMemory,
} from '@petstore/adapters-memory';
import { noMetrics, type HttpLogger, type HttpMetrics } from '@petstore/adapters-http';
import { SystemRandom } from './system-random.js';
import { NodeDigests } from './node-digests.js';
import type { Settings } from './settings.js';
import { TOKENS } from './tokens.js';
import { coreModule } from './modules/core.module.js';
import { memoryStoreModule } from './modules/memory.module.js';
import { mongoStoreModule } from './modules/mongo.module.js';
import { STORE_DEADLINE_MS } from './deadline.js';

/** Ports supplied by the caller instead of the store the settings pick (an embedder's own adapters, or tests wrapping adapters with faults). */
export interface ProvidedStores extends Omit<StorePorts, 'idempotency'> {
  /** The idempotency records; in process memory when absent. */
  readonly idempotency?: StorePorts['idempotency'];
  /** The photos; in process memory (within PETSTORE_PHOTO_MEMORY_MB) when absent. */
  readonly photos?: PhotoStore;
  /** The webhook subscriptions (docs/rules.md §15), when `events` is given; in process memory when absent. */
  readonly webhooks?: WebhookStore;
  /**
   * Where the photo URLs' signing secret is kept (docs/rules.md §16; `MongoStores` has it): give it
   * when several processes share these stores, or each signs with its own. In process memory when absent.
   */
  readonly photoUrlSecrets?: PhotoUrlSecretStore;
  /** Readiness of these ports; always ready when absent. */
  readonly isReady?: () => Promise<boolean>;
}

/** What a caller may supply instead of the defaults (tests inject a manual clock, faulty stores, a short deadline). */
interface ContainerOverrides {
  readonly clock?: Clock;
  readonly logger: HttpLogger;
  readonly metrics?: HttpMetrics;
  readonly stores?: ProvidedStores;
  /** The store deadline in ms (default `STORE_DEADLINE_MS`, 5 s). */
  readonly storeDeadlineMs?: number;
  /** How long a key lookup of a store behind a network may be reused (default `KEY_CACHE_MAX_AGE_MS`; 0: ask the store every time). */
  readonly keyCacheMaxAgeMs?: number;
}

/** The one container: settings, clock and logger, the store module the settings pick, and the core. */
export const createContainer = async (settings: Settings, overrides: ContainerOverrides): Promise<Container> => {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Settings).toConstantValue(settings);
  container.bind(TOKENS.Logger).toConstantValue(overrides.logger);
  container.bind(TOKENS.Metrics).toConstantValue(overrides.metrics ?? noMetrics);
  container.bind(TOKENS.Clock).toConstantValue(overrides.clock ?? new SystemClock());
  container.bind(TOKENS.Random).toConstantValue(new SystemRandom());
  container.bind(TOKENS.Digests).toConstantValue(new NodeDigests());
  container.bind(TOKENS.StoreDeadlineMs).toConstantValue(overrides.storeDeadlineMs ?? STORE_DEADLINE_MS);
  container.bind(TOKENS.KeyCacheMaxAgeMs).toConstantValue(overrides.keyCacheMaxAgeMs ?? KEY_CACHE_MAX_AGE_MS);
  await container.load(
    overrides.stores === undefined ? storeModule(settings) : providedStoreModule(overrides.stores),
    coreModule,
  );
  return container;
};

const providedStoreModule = (stores: ProvidedStores): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.PetRepository).toConstantValue(stores.pets);
    bind(TOKENS.CategoryRepository).toConstantValue(stores.categories);
    bind(TOKENS.OrderRepository).toConstantValue(stores.orders);
    bind(TOKENS.QuotaStore).toConstantValue(stores.quotas);
    bind(TOKENS.ApiKeyStore).toConstantValue(stores.keys);
    bind(TOKENS.IdempotencyStore).toConstantValue(stores.idempotency ?? new IdempotencyStoreInMemory());
    // The events (docs/rules.md §15), when the stores given record them: without, the server has no feed.
    if (stores.events !== undefined) {
      bind(TOKENS.EventStore).toConstantValue(stores.events);
      bind(TOKENS.WebhookStore).toConstantValue(stores.webhooks ?? new WebhookStoreInMemory());
    }
    if (stores.photos !== undefined) bind(TOKENS.PhotoStore).toConstantValue(stores.photos);
    else
      bind(TOKENS.PhotoStore)
        .toResolvedValue((settings) => new PhotoStoreInMemory(settings.photoMemoryBytes), [TOKENS.Settings])
        .inSingletonScope();
    bind(TOKENS.PhotoUrlSecretStore).toConstantValue(stores.photoUrlSecrets ?? new PhotoUrlSecretStoreInMemory());
    bind(TOKENS.StoreLifecycle).toConstantValue({
      isReady: stores.isReady ?? (async () => true),
      close: async () => {},
    });
  });

const storeModule = (settings: Settings) => {
  switch (settings.store) {
    case 'memory':
      return memoryStoreModule;
    case 'mongo':
      return mongoStoreModule(settings.mongodbUri ?? '');
  }
};

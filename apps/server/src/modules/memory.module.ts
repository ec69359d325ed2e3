import { ContainerModule } from 'inversify';
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
import { TOKENS } from '../tokens.js';

/**
 * The ports on process memory: nothing to connect, always ready, nothing to close, nothing that can
 * hang. The repositories that record events (pets, categories, orders, keys, photos) share one
 * outbox, the event store's (docs/rules.md §15): each write records its events there in the same step.
 */
export const memoryStoreModule = new ContainerModule(({ bind }) => {
  const outbox = new MemoryOutbox();
  // Events in the process, at most PETSTORE_EVENT_MEMORY_MAX of them (docs/rules.md §15).
  bind(TOKENS.EventStore)
    .toResolvedValue((settings) => new EventStoreInMemory(outbox, settings.eventMemoryMax), [TOKENS.Settings])
    .inSingletonScope();
  bind(TOKENS.WebhookStore).toConstantValue(new WebhookStoreInMemory());
  bind(TOKENS.PetRepository)
    .toResolvedValue(() => new PetRepositoryInMemory(outbox))
    .inSingletonScope();
  bind(TOKENS.CategoryRepository)
    .toResolvedValue(() => new CategoryRepositoryInMemory(outbox))
    .inSingletonScope();
  bind(TOKENS.OrderRepository)
    .toResolvedValue(() => new OrderRepositoryInMemory(outbox))
    .inSingletonScope();
  bind(TOKENS.QuotaStore)
    .toResolvedValue(() => new QuotaStoreInMemory())
    .inSingletonScope();
  bind(TOKENS.ApiKeyStore)
    .toResolvedValue(() => new ApiKeyStoreInMemory([], outbox))
    .inSingletonScope();
  bind(TOKENS.IdempotencyStore)
    .toResolvedValue(() => new IdempotencyStoreInMemory())
    .inSingletonScope();
  // Photos in the process, within PETSTORE_PHOTO_MEMORY_MB (docs/rules.md §13).
  bind(TOKENS.PhotoStore)
    .toResolvedValue((settings) => new PhotoStoreInMemory(settings.photoMemoryBytes, outbox), [TOKENS.Settings])
    .inSingletonScope();
  // The photo URLs' signing secret for the life of the process (docs/rules.md §16).
  bind(TOKENS.PhotoUrlSecretStore).toConstantValue(new PhotoUrlSecretStoreInMemory());
  bind(TOKENS.StoreLifecycle).toConstantValue({ isReady: async () => true, close: async () => {}, inProcess: true });
});

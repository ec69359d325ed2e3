import { ContainerModule } from 'inversify';
import { ApiKeyStoreInMemory, CategoryRepositoryInMemory, IdempotencyStoreInMemory, OrderRepositoryInMemory, PetRepositoryInMemory, PhotoStoreInMemory, QuotaStoreInMemory } from '@petstore/adapters-memory';
import { TOKENS } from '../tokens.js';

/** The ports on process memory: nothing to connect, always ready, nothing to close, nothing that can hang. */
export const memoryStoreModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.PetRepository).toResolvedValue(() => new PetRepositoryInMemory()).inSingletonScope();
  bind(TOKENS.CategoryRepository).toResolvedValue(() => new CategoryRepositoryInMemory()).inSingletonScope();
  bind(TOKENS.OrderRepository).toResolvedValue(() => new OrderRepositoryInMemory()).inSingletonScope();
  bind(TOKENS.QuotaStore).toResolvedValue(() => new QuotaStoreInMemory()).inSingletonScope();
  bind(TOKENS.ApiKeyStore).toResolvedValue(() => new ApiKeyStoreInMemory()).inSingletonScope();
  bind(TOKENS.IdempotencyStore).toResolvedValue(() => new IdempotencyStoreInMemory()).inSingletonScope();
  // Photos in the process, within PETSTORE_PHOTO_MEMORY_MB (docs/rules.md §13).
  bind(TOKENS.PhotoStore).toResolvedValue((settings) => new PhotoStoreInMemory(settings.photoMemoryBytes), [TOKENS.Settings]).inSingletonScope();
  bind(TOKENS.StoreLifecycle).toConstantValue({ isReady: async () => true, close: async () => {}, inProcess: true });
});

import { ContainerModule } from 'inversify';
import { ApiKeyStoreInMemory, CategoryRepositoryInMemory, IdempotencyStoreInMemory, OrderRepositoryInMemory, PetRepositoryInMemory, QuotaStoreInMemory } from '@petstore/adapters-memory';
import { TOKENS } from '../tokens.js';

/** The ports on process memory: nothing to connect, always ready, nothing to close, nothing that can hang. */
export const memoryStoreModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.PetRepository).toResolvedValue(() => new PetRepositoryInMemory()).inSingletonScope();
  bind(TOKENS.CategoryRepository).toResolvedValue(() => new CategoryRepositoryInMemory()).inSingletonScope();
  bind(TOKENS.OrderRepository).toResolvedValue(() => new OrderRepositoryInMemory()).inSingletonScope();
  bind(TOKENS.QuotaStore).toResolvedValue(() => new QuotaStoreInMemory()).inSingletonScope();
  bind(TOKENS.ApiKeyStore).toResolvedValue(() => new ApiKeyStoreInMemory()).inSingletonScope();
  bind(TOKENS.IdempotencyStore).toResolvedValue(() => new IdempotencyStoreInMemory()).inSingletonScope();
  bind(TOKENS.StoreLifecycle).toConstantValue({ isReady: async () => true, close: async () => {}, inProcess: true });
});

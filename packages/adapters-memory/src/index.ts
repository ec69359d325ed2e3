export { PetRepositoryInMemory } from './pet-repository.in-memory.js';
export { CategoryRepositoryInMemory } from './category-repository.in-memory.js';
export { OrderRepositoryInMemory } from './order-repository.in-memory.js';
export { QuotaStoreInMemory } from './quota-store.in-memory.js';
export { ApiKeyStoreInMemory } from './api-key-store.in-memory.js';
export { SystemClock } from './system-clock.js';
export { IdempotencyStoreInMemory } from './idempotency-store.in-memory.js';
export { PhotoStoreInMemory } from './photo-store.in-memory.js';

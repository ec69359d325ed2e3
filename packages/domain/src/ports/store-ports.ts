import type { ApiKeyStore } from './api-key-store.port.js';
import type { CategoryRepository } from './category-repository.port.js';
import type { IdempotencyStore } from './idempotency-store.port.js';
import type { OrderRepository } from './order-repository.port.js';
import type { PetRepository } from './pet-repository.port.js';
import type { QuotaStore } from './quota-store.port.js';
import type { EventStore } from './event-store.port.js';

/** Every store port the service needs, as one store adapter (memory, MongoDB, your own) supplies them. */
export interface StorePorts {
  readonly pets: PetRepository;
  readonly categories: CategoryRepository;
  readonly orders: OrderRepository;
  readonly quotas: QuotaStore;
  readonly keys: ApiKeyStore;
  readonly idempotency: IdempotencyStore;
  /**
   * The events' outboxes and feed (docs/rules.md §15), filled by the repositories above (the memory
   * and MongoDB adapters supply one). Absent: a store whose repositories record no events; a server
   * on it has no feed and no webhooks.
   */
  readonly events?: EventStore;
}

import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { connectMongo, type MongoStores } from '@petstore/adapters-mongo';
import { TOKENS } from '../tokens.js';

/** The connection and its stores: private to this module. */
const MONGO_STORES = Symbol.for('petstore.MongoStores') as ServiceIdentifier<MongoStores>;

/**
 * The ports on MongoDB. Connecting (bounded wait, indexes created idempotently, the search keys of
 * pets stored before docs/rules.md §16 filled in, their shuffle keys from the service's `Random`)
 * happens when the container first resolves a store; a failure there stops the start with one line.
 */
export const mongoStoreModule = (uri: string): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(MONGO_STORES)
      .toResolvedValue((random) => connectMongo(uri, { random }), [TOKENS.Random])
      .inSingletonScope();
    bind(TOKENS.PetRepository)
      .toResolvedValue((m) => m.pets, [MONGO_STORES])
      .inSingletonScope();
    bind(TOKENS.CategoryRepository)
      .toResolvedValue((m) => m.categories, [MONGO_STORES])
      .inSingletonScope();
    bind(TOKENS.OrderRepository)
      .toResolvedValue((m) => m.orders, [MONGO_STORES])
      .inSingletonScope();
    bind(TOKENS.QuotaStore)
      .toResolvedValue((m) => m.quotas, [MONGO_STORES])
      .inSingletonScope();
    bind(TOKENS.ApiKeyStore)
      .toResolvedValue((m) => m.keys, [MONGO_STORES])
      .inSingletonScope();
    bind(TOKENS.IdempotencyStore)
      .toResolvedValue((m) => m.idempotency, [MONGO_STORES])
      .inSingletonScope();
    // Records, GridFS bytes and places; swept at start (server.ts) of what a process that died left.
    bind(TOKENS.PhotoStore)
      .toResolvedValue((m) => m.photos, [MONGO_STORES])
      .inSingletonScope();
    // The outboxes the repositories above fill, and the feed (docs/rules.md §15): one connection, so that
    // a write of this process wakes its relay at once; other processes' writes are found by polling.
    bind(TOKENS.EventStore)
      .toResolvedValue((m) => m.events, [MONGO_STORES])
      .inSingletonScope();
    // The subscriptions, their leases and deliveries logs (docs/rules.md §15): shared by every process on the store.
    bind(TOKENS.WebhookStore)
      .toResolvedValue((m) => m.webhooks, [MONGO_STORES])
      .inSingletonScope();
    // The photo URLs' signing secret, one per database (docs/rules.md §16).
    bind(TOKENS.PhotoUrlSecretStore)
      .toResolvedValue((m) => m.photoUrlSecrets, [MONGO_STORES])
      .inSingletonScope();
    bind(TOKENS.StoreLifecycle)
      .toResolvedValue((m) => ({ isReady: () => m.isReady(), close: () => m.close() }), [MONGO_STORES])
      .inSingletonScope();
  });

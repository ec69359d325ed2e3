// Public API of @petstore/adapters-mongo: the MongoDB adapters of the domain's ports (official
// driver, no ODM), the factory the composition root calls, and the pieces tests check as data.
export { connectMongo, type ConnectMongoOptions, type MongoStores } from './connect.js';
export { PetRepositoryMongo } from './pet-repository.mongo.js';
export { QuotaStoreMongo } from './quota-store.mongo.js';
export { CategoryRepositoryMongo } from './category-repository.mongo.js';
export { OrderRepositoryMongo } from './order-repository.mongo.js';
export { ApiKeyStoreMongo } from './api-key-store.mongo.js';
export { IdempotencyStoreMongo } from './idempotency-store.mongo.js';
export { PhotoStoreMongo } from './photo-store.mongo.js';
export { EventStoreMongo } from './event-store.mongo.js';
export { WebhookStoreMongo } from './webhook-store.mongo.js';
export { MongoOutbox } from './outbox.mongo.js';
export { PhotoUrlSecretStoreMongo } from './photo-url-secret-store.mongo.js';
export { classifyMongoError, MongoCommandError, type MongoErrorKind } from './errors.js';
export { resolveMongoSettings, MONGO_DEFAULTS, DEFAULT_DATABASE, type MongoSettings } from './settings.js';
export {
  ensureIndexes,
  MONGO_INDEXES,
  COLLECTIONS,
  OUTBOX_COLLECTIONS,
  PHOTO_BUCKET,
  type IndexDefinition,
} from './indexes.js';

import type { StoredPhoto } from '@petstore/domain';
import type { EventStores } from '@petstore/domain/testing';
import type { Db } from 'mongodb';
import {
  ApiKeyStoreMongo,
  CategoryRepositoryMongo,
  EventStoreMongo,
  MongoOutbox,
  OrderRepositoryMongo,
  PetRepositoryMongo,
  PhotoStoreMongo,
} from '../../src/index.js';

// The stores of the events' MongoDB suites (events.integration.test.ts, events-documents.integration.test.ts).

export const T0 = Date.UTC(2027, 0, 1);

/** The stores of one connection, sharing its outbox helper (as `connectMongo` builds them). */
export const storesOn = (
  db: Db,
): EventStores & {
  readonly events: EventStoreMongo;
  readonly photos: PhotoStoreMongo;
  readonly pets: PetRepositoryMongo;
} => {
  const outbox = new MongoOutbox();
  return {
    pets: new PetRepositoryMongo(db, outbox),
    categories: new CategoryRepositoryMongo(db, outbox),
    orders: new OrderRepositoryMongo(db, outbox),
    photos: new PhotoStoreMongo(db, outbox),
    keys: new ApiKeyStoreMongo(db, outbox),
    events: new EventStoreMongo(db, outbox),
  };
};

export const photoOf = (id: number, petId: number): StoredPhoto => ({
  id,
  petId,
  contentType: 'image/jpeg',
  width: 10,
  height: 10,
  bytes: 3,
  createdAt: new Date(T0).toISOString(),
  files: [{ width: 10, height: 10, bytes: 3, sha256: 'a'.repeat(64) }],
});

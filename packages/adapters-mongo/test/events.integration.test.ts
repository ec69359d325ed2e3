// The events on MongoDB (docs/rules.md §15): the event store contract every adapter runs (the use
// cases over these repositories, concurrent writers and relays, a fault between any two store
// calls), on one connection and on two taking turns (events-documents.integration.test.ts: what
// only MongoDB has). Skipped (with the reason) without a MongoDB; never a mock of the driver.
import { eventStoreContract, type EventStores } from '@petstore/domain/testing';
import { MongoClient, type Db } from 'mongodb';
import { ensureIndexes, resolveMongoSettings } from '../src/index.js';
import { storesOn } from './support/event-stores.js';
import { describeMongo, findMongo } from './support/find-mongo.js';

const SUITE = 'MongoDB event store (integration)';
const target = await findMongo();
/** Each property run is many network round trips: fewer runs than in memory. */
const numRuns = 12;

describeMongo(SUITE, target, (mongo) => {
  const { uri } = mongo;
  let n = 0;
  const uniqueName = (tag: string) => `petstore_test_${tag}_${process.pid}_${Date.now().toString(36)}_${++n}`;

  describe(`${SUITE} against ${mongo.source}`, function () {
    this.timeout(600_000);
    let client: MongoClient;
    /** A second connection: another process's pool on the same database. */
    let other: MongoClient;
    before(async () => {
      client = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
      other = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
      await client.connect();
      await other.connect();
    });
    after(async () => {
      await other.close();
      await client.close();
      await mongo.stop();
    });

    const freshDb = async (tag: string): Promise<Db> => {
      const db = client.db(uniqueName(tag));
      await ensureIndexes(db);
      return db;
    };

    eventStoreContract(
      'MongoDB',
      async () => {
        const db = await freshDb('events');
        return { subject: storesOn(db), dispose: async () => void (await db.dropDatabase()) };
      },
      { numRuns },
    );

    // Two processes on one database: every call goes to one of two connections in turn, each with its own stores.
    eventStoreContract(
      'MongoDB, two processes taking turns',
      async () => {
        const db = await freshDb('events2');
        const stores = [storesOn(db), storesOn(other.db(db.databaseName))];
        let turn = 0;
        const next = () => stores[turn++ % 2]!;
        /** A port whose every call goes to the next connection's store. */
        const alternating = <K extends keyof EventStores>(key: K, methods: readonly string[]): EventStores[K] =>
          Object.fromEntries(
            methods.map((method) => [
              method,
              (...args: unknown[]) =>
                (next()[key] as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!(...args),
            ]),
          ) as unknown as EventStores[K];
        const events = alternating('events', [
          'lease',
          'pending',
          'pendingOf',
          'lastSequence',
          'append',
          'clear',
          'after',
          'firstSequence',
          'evictedThrough',
          'purge',
        ]);
        return {
          subject: {
            pets: alternating('pets', [
              'create',
              'findByCreationToken',
              'findById',
              'list',
              'findHold',
              'swapHold',
              'update',
              'withdraw',
              'countByStatus',
            ]),
            categories: alternating('categories', ['create', 'findByCreationToken', 'findById', 'findByName', 'list']),
            orders: alternating('orders', ['create', 'findById', 'findByCreationToken', 'updateState', 'list']),
            photos: alternating('photos', [
              'reserve',
              'putFile',
              'publish',
              'findByCreationToken',
              'abandon',
              'list',
              'find',
              'read',
              'delete',
              'deleteAllOf',
              'pets',
              'sweep',
            ]),
            keys: alternating('keys', [
              'findByHash',
              'findById',
              'list',
              'save',
              'retainSettingsKeys',
              'insert',
              'update',
              'revoke',
            ]),
            // Waits and own-write notices are per process: one event store answers them, the steps alternate.
            events: {
              ...events,
              onRecorded: (listener) => stores[0]!.events.onRecorded(listener),
              waitBeyond: (s, t, u) => stores[0]!.events.waitBeyond(s, t, u),
            },
          },
          dispose: async () => void (await db.dropDatabase()),
        };
      },
      { numRuns: Math.max(2, Math.floor(numRuns / 2)) },
    );
  });
});

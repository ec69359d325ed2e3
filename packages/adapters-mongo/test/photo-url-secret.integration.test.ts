// The signing secret of the photo URLs on MongoDB (docs/rules.md §16): the contract every secret
// store runs, with each "other process" on a client and pool of its own on the same database.
// Skipped (with the reason) without a MongoDB.
import { expect } from 'chai';
import { photoUrlSecretStoreContract } from '@petstore/domain/testing';
import { MongoClient } from 'mongodb';
import { PhotoUrlSecretStoreMongo, resolveMongoSettings } from '../src/index.js';
import { SETTINGS_COLLECTION } from '../src/photo-url-secret-store.mongo.js';
import { describeMongo, findMongo } from './support/find-mongo.js';

const SUITE = 'MongoDB photo URL secret (integration)';
const target = await findMongo();

describeMongo(SUITE, target, (mongo) => {
  const { uri } = mongo;
  let n = 0;
  const uniqueName = () => `petstore_test_urlsecret_${process.pid}_${Date.now().toString(36)}_${++n}`;
  const connect = async (): Promise<MongoClient> => {
    const client = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
    await client.connect();
    return client;
  };

  describe(`${SUITE} against ${mongo.source}`, function () {
    this.timeout(60_000);
    after(() => mongo.stop());

    photoUrlSecretStoreContract('MongoDB, other processes on their own clients', async () => {
      const database = uniqueName();
      const clients = [await connect()];
      return {
        subject: {
          store: new PhotoUrlSecretStoreMongo(clients[0]!.db(database)),
          sibling: () => {
            const client = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
            clients.push(client);
            return new PhotoUrlSecretStoreMongo(client.db(database));
          },
        },
        dispose: async () => {
          await clients[0]!.db(database).dropDatabase();
          for (const client of clients) await client.close();
        },
      };
    });

    it('keeps one document, and never a second one, however many creates and rotations', async () => {
      const client = await connect();
      const db = client.db(uniqueName());
      try {
        const store = new PhotoUrlSecretStoreMongo(db);
        await Promise.all(['a', 'b', 'c'].map((s) => store.create(s.repeat(43))));
        await store.rotate('d'.repeat(43));
        expect(await db.collection(SETTINGS_COLLECTION).countDocuments()).to.equal(1);
      } finally {
        await db.dropDatabase();
        await client.close();
      }
    });
  });
});

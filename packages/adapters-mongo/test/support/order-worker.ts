// One "server process" of the cross-process order test: its own driver and pool, started by the
// integration suite with `fork`. It connects, says `ready`, and on `go` places its share of
// simultaneous orders for the same pet through the adoption use case, then reports the outcomes.
import { MongoClient } from 'mongodb';
import { Adoption } from '@petstore/domain';
import { OrderRepositoryMongo, PetRepositoryMongo, resolveMongoSettings } from '../../src/index.js';

const uri = process.env.PETSTORE_TEST_MONGODB_URI ?? '';
const database = process.env.PETSTORE_TEST_DATABASE ?? '';
const client = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
await client.connect();
const db = client.db(database);
const adoption = new Adoption(new PetRepositoryMongo(db), new OrderRepositoryMongo(db), { now: () => Date.now() });
process.send?.('ready');
process.once('message', (message: { readonly count: number; readonly petId: number; readonly worker: number }) => {
  void (async () => {
    try {
      const results = await Promise.all(
        Array.from({ length: message.count }, (_, i) =>
          adoption.place(
            { keyId: `key_${String(message.worker).repeat(6)}${String(i % 10).repeat(6)}`, role: 'client' },
            { petId: message.petId },
          ),
        ),
      );
      process.send?.({ outcomes: results.map((r) => (r.ok ? `ok:${r.value.id}` : r.error.code)) });
    } catch (error) {
      process.send?.({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    }
    await client.close();
    process.disconnect();
  })();
});

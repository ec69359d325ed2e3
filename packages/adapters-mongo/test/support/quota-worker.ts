// One "server process" of the cross-process quota test: its own driver and pool, started by
// the integration suite with `fork`. It connects, says `ready`, and on `go` fires its share of
// simultaneous `consume` calls at the same subject, then reports the outcomes.
import { MongoClient } from 'mongodb';
import type { ConsumeRequest } from '@petstore/domain';
import { QuotaStoreMongo, resolveMongoSettings } from '../../src/index.js';

const uri = process.env.PETSTORE_TEST_MONGODB_URI ?? '';
const database = process.env.PETSTORE_TEST_DATABASE ?? '';
const client = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
await client.connect();
const store = new QuotaStoreMongo(client.db(database));
process.send?.('ready');
process.once('message', (message: { readonly count: number; readonly request: ConsumeRequest }) => {
  void (async () => {
    try {
      const results = await Promise.all(Array.from({ length: message.count }, () => store.consume(message.request)));
      process.send?.({ outcomes: results.map((r) => r.outcome) });
    } catch (error) {
      process.send?.({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    }
    await client.close();
    process.disconnect();
  })();
});

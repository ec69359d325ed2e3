// The one lease rule (docs/rules.md §15: one relay, one holder per subscription) as MongoDB asks it:
// `leaseAllowsFilter` matches exactly the documents whose lease `leaseAllows` lets a holder take at
// a time, for every kind of lease (none, null, its own, another's running, run out, at its very
// `until`), on the document's own fields (the relay's lease) and under `lease.` (a subscription's).
// Skipped (with the reason) without a MongoDB.
import { expect } from 'chai';
import { leaseAllows, type Lease } from '@petstore/domain';
import { MongoClient, type Document } from 'mongodb';
import { resolveMongoSettings } from '../src/index.js';
import { leaseAllowsFilter } from '../src/lease.js';
import { describeMongo, findMongo } from './support/find-mongo.js';

const SUITE = 'MongoDB lease filter (integration)';
const target = await findMongo();
const HOLDERS = ['a', 'b'] as const;
const TIMES = [0, 1, 2, 3] as const;

/** Every lease a document may hold: none, null, and each holder's at each time. */
const LEASES: readonly (Lease | null | undefined)[] = [
  undefined,
  null,
  ...HOLDERS.flatMap((holder) => TIMES.map((until) => ({ holder, until }))),
];

describeMongo(SUITE, target, (mongo) => {
  describe(`${SUITE} against ${mongo.source}`, function () {
    this.timeout(60_000);
    let client: MongoClient;
    const name = `petstore_test_lease_${process.pid}_${Date.now().toString(36)}`;
    before(async () => {
      client = new MongoClient(mongo.uri, resolveMongoSettings(mongo.uri).driverOptions);
      await client.connect();
    });
    after(async () => {
      await client.db(name).dropDatabase();
      await client.close();
      await mongo.stop();
    });

    for (const [where, path, shape] of [
      ['on the document itself (the relay)', '', (lease: Lease | null) => ({ ...lease })],
      ['under lease. (a subscription)', 'lease.', (lease: Lease | null) => ({ lease })],
    ] as const) {
      it(`matches exactly what leaseAllows allows, ${where}, for every lease, holder and time`, async () => {
        const docs = client
          .db(name)
          .collection<{ _id: number } & Document>(`leases_${path === '' ? 'root' : 'nested'}`);
        await docs.insertMany(LEASES.map((lease, i) => ({ _id: i, ...(lease === undefined ? {} : shape(lease)) })));
        for (const holder of HOLDERS)
          for (const now of [...TIMES, 4]) {
            const found = await docs.find(leaseAllowsFilter(path, holder, now)).toArray();
            const allowed = LEASES.flatMap((lease, i) => (leaseAllows(lease ?? undefined, holder, now) ? [i] : []));
            expect(
              found.map((doc) => doc._id).sort((x, y) => x - y),
              `${holder} at ${now}`,
            ).to.deep.equal(allowed);
          }
      });
    }
  });
});

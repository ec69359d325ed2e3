// The pets' search keys on MongoDB (docs/rules.md §16): stored as the domain computed them, moved by
// a rename in its one update, and filled in at start for pets stored before them (the backfill),
// once per pet also when several processes start together. Skipped (with the reason) without a MongoDB.
import { expect } from 'chai';
import { compareCodePoints, nameKeysOf, petEdit, petEntry, SHUFFLE_CIRCLE, type PetDraft } from '@petstore/domain';
import { SeededRandom } from '@petstore/domain/testing';
import { MongoClient, type Db } from 'mongodb';
import { COLLECTIONS, connectMongo, ensureIndexes, PetRepositoryMongo, resolveMongoSettings } from '../src/index.js';
import { backfillPetSearchKeys } from '../src/pet-backfill.mongo.js';
import { describeMongo, findMongo } from './support/find-mongo.js';

const SUITE = 'MongoDB pets: search keys and their backfill (integration)';
const target = await findMongo();

interface StoredPet {
  _id: number;
  name: string;
  categoryId: number;
  status: string;
  rev?: number;
  words?: string[];
  nameKey?: string;
  shuffleKey?: number;
  listedAs?: string;
}

describeMongo(SUITE, target, (mongo) => {
  const { uri } = mongo;
  let n = 0;
  const uniqueName = (tag: string) => `petstore_test_${tag}_${process.pid}_${Date.now().toString(36)}_${++n}`;

  describe(`${SUITE} against ${mongo.source}`, function () {
    this.timeout(120_000);
    let client: MongoClient;
    const opened: Db[] = [];
    before(async () => {
      client = new MongoClient(uri, { ...resolveMongoSettings(uri).driverOptions, monitorCommands: true });
      await client.connect();
    });
    after(async () => {
      for (const db of opened) await db.dropDatabase().catch(() => undefined);
      await client.close();
      await mongo.stop();
    });
    const freshDb = async (tag: string): Promise<Db> => {
      const db = client.db(uniqueName(tag));
      opened.push(db);
      await ensureIndexes(db);
      return db;
    };
    const petsOf = (db: Db) => db.collection<StoredPet>(COLLECTIONS.pets);
    const draft = (name: string, categoryId = 1): PetDraft => ({ name, categoryId, status: 'available' });

    it('stores each pet with the search keys it is given (the domain computes them; the adapter never does)', async () => {
      const db = await freshDb('keys');
      const repo = new PetRepositoryMongo(db);
      const entry = petEntry(draft('Renée the Ⅻth 🐈'), new SeededRandom('keys'));
      const pet = await repo.create(entry);
      // Keys that are not the name's: stored as given, which shows that nothing is recomputed.
      const odd = { ...draft('Rex'), words: ['zzz'], nameKey: 'aaa', shuffleKey: 7 };
      const other = await repo.create(odd);
      const stored = await petsOf(db).findOne({ _id: pet.id });
      expect(stored).to.deep.include({ words: entry.words, nameKey: entry.nameKey, shuffleKey: entry.shuffleKey });
      expect(stored?.words).to.deep.equal(['renee', 'the', 'xiith']);
      expect(await petsOf(db).findOne({ _id: other.id })).to.deep.include({
        words: ['zzz'],
        nameKey: 'aaa',
        shuffleKey: 7,
      });
      // Searched by its stored words, and shuffled by its stored key (a `sort=random` page answers it).
      const found = await repo.list({ words: ['zz'], order: { sort: 'random', start: 0 }, limit: 5 });
      expect(found.pets.map((p) => p.id)).to.deep.equal([other.id]);
      expect(found.shuffleKeys).to.deep.equal([7]);
      const { pets: byName } = await repo.list({ order: { sort: 'name' }, limit: 5 });
      expect(byName.map((p) => p.id)).to.deep.equal([other.id, pet.id]);
    });

    it('a rename writes the new name keys in its one conditional update, and leaves the shuffle key', async () => {
      const db = await freshDb('rename');
      const repo = new PetRepositoryMongo(db);
      const pet = await repo.create(petEntry(draft('Rex'), new SeededRandom('rename')));
      const before = await petsOf(db).findOne({ _id: pet.id });
      const sent: string[] = [];
      const listener = (event: { commandName: string; databaseName: string }): void => {
        if (event.databaseName === db.databaseName) sent.push(event.commandName);
      };
      client.on('commandStarted', listener);
      try {
        const updated = await repo.update(pet.id, 0, petEdit({ name: 'Bella Rosa' }), '2027-01-01T00:00:00.000Z');
        expect(updated?.name).to.equal('Bella Rosa');
      } finally {
        client.off('commandStarted', listener);
      }
      expect(sent).to.deep.equal(['findAndModify']);
      const after = await petsOf(db).findOne({ _id: pet.id });
      expect(after).to.deep.include({ ...nameKeysOf('Bella Rosa'), shuffleKey: before?.shuffleKey, rev: 1 });
      const { pets: byWord } = await repo.list({ words: ['ros'], order: { sort: 'name' }, limit: 5 });
      expect(byWord.map((p) => p.id)).to.deep.equal([pet.id]);
      expect(await repo.list({ words: ['rex'], order: { sort: 'id' }, limit: 5 })).to.deep.equal({ pets: [] });
    });

    /** Pets as a version before docs/rules.md §16 wrote them: no words, name key or shuffle key. */
    const oldPets = async (db: Db, count: number): Promise<StoredPet[]> => {
      const docs: StoredPet[] = Array.from({ length: count }, (_, i) => ({
        _id: i + 1,
        name: i % 3 === 0 ? `Rex ${i}` : i % 3 === 1 ? `Élodie-${i}` : `Ωmega ${i}`,
        categoryId: 1 + (i % 4),
        status: i % 50 === 7 ? 'withdrawn' : i % 2 === 0 ? 'available' : 'sold',
        ...(i % 5 === 0 ? { rev: 3 } : {}),
        ...(i % 50 === 7 ? { listedAs: 'available' } : {}),
      }));
      await petsOf(db).insertMany(docs);
      return docs;
    };

    it('fills in the keys of pets stored before them, in batches, once per pet when two processes start together', async () => {
      const db = await freshDb('backfill');
      const docs = await oldPets(db, 1_234);
      const listed = docs.filter((d) => d.status !== 'withdrawn');
      const other = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
      await other.connect();
      try {
        const runs = await Promise.all([
          backfillPetSearchKeys(db, new SeededRandom('one')),
          backfillPetSearchKeys(other.db(db.databaseName), new SeededRandom('two')),
        ]);
        // Every listed pet got its keys exactly once, whichever process wrote them.
        expect(runs[0].named + runs[1].named).to.equal(listed.length);
        expect(runs[0].shuffled + runs[1].shuffled).to.equal(listed.length);
      } finally {
        await other.close();
      }
      const stored = await petsOf(db).find({}).sort({ _id: 1 }).toArray();
      for (const [i, doc] of stored.entries()) {
        const old = docs[i]!;
        if (old.status === 'withdrawn') {
          expect(doc, `withdrawn pet ${doc._id}`).to.deep.equal(old);
          continue;
        }
        const { words, nameKey, shuffleKey, ...rest } = doc;
        expect(rest, `pet ${doc._id}`).to.deep.equal(old);
        expect({ words, nameKey }).to.deep.equal(nameKeysOf(old.name));
        expect(Number.isInteger(shuffleKey) && shuffleKey! >= 0 && shuffleKey! < SHUFFLE_CIRCLE).to.equal(true);
      }
      // Idempotent: another start finds nothing to do and changes nothing.
      expect(await backfillPetSearchKeys(db, new SeededRandom('three'))).to.deep.equal({ named: 0, shuffled: 0 });
      expect(await petsOf(db).find({}).sort({ _id: 1 }).toArray()).to.deep.equal(stored);
      // The old pets are found, ordered and shuffled like new ones.
      const repo = new PetRepositoryMongo(db);
      const { pets: found } = await repo.list({ words: ['elo', '1'], order: { sort: 'name' }, limit: 1_000 });
      expect(found.map((p) => p.id)).to.deep.equal(
        listed
          .filter((d) => /^Élodie-1/.test(d.name))
          .sort((a, b) => compareCodePoints(nameKeysOf(a.name).nameKey, nameKeysOf(b.name).nameKey) || a._id - b._id)
          .map((d) => d._id),
      );
      const shuffled = await repo.list({ order: { sort: 'random', start: 0 }, limit: 2_000 });
      expect(shuffled.pets.length).to.equal(listed.length);
      expect(shuffled.shuffleKeys?.length).to.equal(listed.length);
    });

    it('connectMongo runs the backfill at start, with the Random it is given', async () => {
      const database = uniqueName('connect-backfill');
      const db = client.db(database);
      opened.push(db);
      await oldPets(db, 30);
      const stores = await connectMongo(uri, { database, random: new SeededRandom('start') });
      try {
        expect(await petsOf(db).countDocuments({ status: { $ne: 'withdrawn' }, nameKey: { $exists: false } })).to.equal(
          0,
        );
        // The first listed pet drew the Random's first 4 bytes.
        const first = new SeededRandom('start').bytes(4);
        const expected = ((first[0]! << 24) | (first[1]! << 16) | (first[2]! << 8) | first[3]!) >>> 0;
        expect((await petsOf(db).findOne({ _id: 1 }))?.shuffleKey).to.equal(expected);
      } finally {
        await stores.close();
      }
    });

    it('a pet renamed by an older process between the backfill reading and writing it keeps no stale keys', async () => {
      const db = await freshDb('backfill-rename');
      await oldPets(db, 3);
      // The Db as the backfill sees it, but its first bulk write waits until pet 1 is renamed the
      // old way (the name alone), as an older process serving a PATCH meanwhile would.
      let renamed = false;
      const bound = (object: object, property: string | symbol): unknown => {
        const value = Reflect.get(object, property, object) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(object) : value;
      };
      const interposed = new Proxy(db, {
        get: (target, property) =>
          property === 'collection'
            ? (name: string) => {
                const collection = target.collection<StoredPet>(name);
                return new Proxy(collection, {
                  get: (c, p) =>
                    p === 'bulkWrite'
                      ? async (...args: Parameters<typeof c.bulkWrite>) => {
                          if (!renamed) {
                            renamed = true;
                            await c.updateOne({ _id: 1 }, { $set: { name: 'Bella' }, $inc: { rev: 1 } });
                          }
                          return c.bulkWrite(...args);
                        }
                      : bound(c, p),
                });
              }
            : bound(target, property),
      });
      const first = await backfillPetSearchKeys(interposed, new SeededRandom('r'));
      expect(first.named).to.equal(2);
      expect((await petsOf(db).findOne({ _id: 1 }))?.nameKey).to.equal(undefined);
      // The next start gives it the keys of the name it has.
      expect((await backfillPetSearchKeys(db, new SeededRandom('s'))).named).to.equal(1);
      expect(await petsOf(db).findOne({ _id: 1 })).to.deep.include(nameKeysOf('Bella'));
    });
  });
});

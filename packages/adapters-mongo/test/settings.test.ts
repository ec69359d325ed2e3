import { expect } from 'chai';
import {
  COLLECTIONS,
  DEFAULT_DATABASE,
  MONGO_DEFAULTS,
  MONGO_INDEXES,
  OUTBOX_COLLECTIONS,
  resolveMongoSettings,
} from '../src/index.js';

describe('resolveMongoSettings: database, printable endpoint and driver defaults from a connection string', () => {
  it('takes the database from the path, else petstore', () => {
    expect(resolveMongoSettings('mongodb://localhost:27017/shop').database).to.equal('shop');
    expect(resolveMongoSettings('mongodb://localhost:27017/shop?retryWrites=true').database).to.equal('shop');
    expect(resolveMongoSettings('mongodb://localhost:27017').database).to.equal(DEFAULT_DATABASE);
    expect(resolveMongoSettings('mongodb://localhost:27017/').database).to.equal('petstore');
    expect(resolveMongoSettings('mongodb://localhost/?maxPoolSize=5').database).to.equal('petstore');
    expect(resolveMongoSettings('mongodb+srv://cluster0.example.net/pets%2Dprod').database).to.equal('pets-prod');
  });

  it('prints the hosts without the credentials', () => {
    const settings = resolveMongoSettings('mongodb://app:s3cr%40t@db1:27017,db2:27018/shop?authSource=admin');
    expect(settings.endpoint).to.equal('db1:27017,db2:27018');
    expect(JSON.stringify(settings)).not.to.match(/app:|s3cr/);
    expect(resolveMongoSettings('mongodb+srv://u:p@cluster0.example.net').endpoint).to.equal('cluster0.example.net');
  });

  it('sets bounded timeouts by default, so an outage is answered in seconds, not after 30 s', () => {
    const { driverOptions, serverSelectionTimeoutMS } = resolveMongoSettings('mongodb://localhost:27017');
    expect(driverOptions).to.deep.equal(MONGO_DEFAULTS);
    expect(serverSelectionTimeoutMS).to.equal(2_000);
    expect(MONGO_DEFAULTS.serverSelectionTimeoutMS).to.be.at.most(5_000);
    expect(MONGO_DEFAULTS.connectTimeoutMS).to.be.at.most(5_000);
    expect(MONGO_DEFAULTS.socketTimeoutMS).to.be.within(1_000, 10_000);
    expect(MONGO_DEFAULTS.retryWrites).to.equal(true);
  });

  it('lets the connection string set any of them (option names are case-insensitive)', () => {
    const settings = resolveMongoSettings(
      'mongodb://h/db?serverselectiontimeoutms=7000&maxPoolSize=10&socketTimeoutMS=0',
    );
    expect(settings.serverSelectionTimeoutMS).to.equal(7_000);
    expect(settings.driverOptions).not.to.have.any.keys('serverSelectionTimeoutMS', 'maxPoolSize', 'socketTimeoutMS');
    expect(settings.driverOptions).to.include({ connectTimeoutMS: 2_000, retryWrites: true });
  });

  it('refuses what is not a MongoDB connection string with one line', () => {
    for (const uri of ['', 'http://localhost:27017', 'localhost:27017', 'mongodb://', 'mongodb://user:pw@/db']) {
      expect(() => resolveMongoSettings(uri), uri)
        .to.throw(Error)
        .that.satisfies((e: Error) => !e.message.includes('\n') && !e.message.includes('pw'));
    }
  });
});

/** Whether an index is on the creation token (docs/rules.md §10). */
const onToken = (index: (typeof MONGO_INDEXES)[number]): boolean => JSON.stringify(index.key) === '{"token":1}';
/** Whether an index finds the documents whose outbox holds events not yet in the feed (docs/rules.md §15). */
const onOutbox = (index: (typeof MONGO_INDEXES)[number]): boolean => JSON.stringify(index.key) === '{"outboxSince":1}';

describe('index definitions (as data)', () => {
  it("serve every pet list from one compound index each in equality–sort–range order: the status first (the ones asked for, or the three a listed pet has), then the category, the order's keys, and the words last, so withdrawn pets are never read (docs/rules.md §16)", () => {
    const pets = MONGO_INDEXES.filter((i) => i.collection === COLLECTIONS.pets && !onToken(i) && !onOutbox(i));
    const expected: [string, number][][] = [];
    for (const words of [false, true])
      for (const order of [[], ['nameKey'], ['shuffleKey']])
        for (const category of [false, true])
          expected.push(
            ['status', ...(category ? ['categoryId'] : []), ...order, '_id', ...(words ? ['words'] : [])].map((f) => [
              f,
              1,
            ]),
          );
    expect(pets.map((i) => Object.entries(i.key))).to.have.deep.members(expected);
    expect(pets).to.have.length(expected.length);
    // Each under the name MongoDB would give it, which is the name the list queries hint.
    for (const index of pets)
      expect(index.options.name).to.equal(
        Object.entries(index.key)
          .map(([f, d]) => `${f}_${String(d)}`)
          .join('_'),
      );
  });

  it('keep one category per name with a unique index on the normalised name', () => {
    const categories = MONGO_INDEXES.filter(
      (i) => i.collection === COLLECTIONS.categories && !onToken(i) && !onOutbox(i),
    );
    expect(categories.map((i) => [i.key, i.options.unique])).to.deep.equal([[{ key: 1 }, true]]);
  });

  it('keep one pet, category, order and photo record per creation token (docs/rules.md §10) with a unique sparse index on it (a document created without a key has none)', () => {
    const tokens = MONGO_INDEXES.filter(onToken);
    expect(tokens.map((i) => [i.collection, i.key, i.options.unique, i.options.sparse])).to.deep.equal([
      [COLLECTIONS.pets, { token: 1 }, true, true],
      [COLLECTIONS.categories, { token: 1 }, true, true],
      [COLLECTIONS.orders, { token: 1 }, true, true],
      [COLLECTIONS.photos, { token: 1 }, true, true],
    ]);
  });

  it('find the outboxes with events waiting (docs/rules.md §15) by a partial index holding only those documents, in every collection with outboxes', () => {
    const outboxes = MONGO_INDEXES.filter(onOutbox);
    expect(outboxes.map((i) => i.collection)).to.deep.equal(Object.values(OUTBOX_COLLECTIONS).map((c) => c.collection));
    for (const index of outboxes)
      expect(index.options.partialFilterExpression).to.deep.equal({ outboxSince: { $exists: true } });
  });

  it('keep an event id in the feed once (a unique index beside the sequence as _id), and serve a read by types from {type, _id}; no TTL index on the feed (retention purges from its start)', () => {
    const events = MONGO_INDEXES.filter((i) => i.collection === COLLECTIONS.events);
    expect(events.map((i) => [i.key, i.options.unique ?? false, i.options.expireAfterSeconds])).to.deep.equal([
      [{ id: 1 }, true, undefined],
      [{ type: 1, _id: 1 }, false, undefined],
    ]);
  });

  it('expire rate-limit state with a TTL index on expireAt', () => {
    const ttl = MONGO_INDEXES.filter((i) => i.collection === COLLECTIONS.quotas);
    expect(ttl).to.have.length(1);
    expect(ttl[0]!.key).to.deep.equal({ expireAt: 1 });
    expect(ttl[0]!.options.expireAfterSeconds).to.equal(0);
  });

  it('have explicit names, so creating them again at every start is a no-op', () => {
    const names = MONGO_INDEXES.map((i) => `${i.collection}.${i.options.name}`);
    expect(new Set(names).size).to.equal(names.length);
  });
});

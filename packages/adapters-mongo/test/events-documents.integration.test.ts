// The events on MongoDB beyond the contract (docs/rules.md §15): the outbox inside the document its
// decisive write updates, the trace a removed photo leaves, two processes sharing one feed, a store
// that cannot be reached. Skipped (with the reason) without a MongoDB; never a mock of the driver.
import { expect } from 'chai';
import {
  categoryCreated,
  EventRelay,
  keyChanged,
  RelayLoop,
  orderReached,
  petCreated,
  petUpdated,
  petWithdrawn,
  PLAN_QUOTAS,
  photoAdded,
  photoRemoved,
  StoreUnavailableError,
  type Event,
  type EventSource,
  type OutboxEntry,
  type PhotoUpload,
  petEdit,
} from '@petstore/domain';
import { ManualClock, entryOf } from '@petstore/domain/testing';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { COLLECTIONS, ensureIndexes, EventStoreMongo, resolveMongoSettings } from '../src/index.js';
import { photoOf, storesOn, T0 } from './support/event-stores.js';
import { describeMongo, findMongo } from './support/find-mongo.js';

const SUITE = 'MongoDB event store beyond the contract (integration)';
const target = await findMongo();

describeMongo(SUITE, target, (mongo) => {
  const { uri } = mongo;
  let n = 0;
  const uniqueName = (tag: string) => `petstore_test_${tag}_${process.pid}_${Date.now().toString(36)}_${++n}`;

  describe(`${SUITE} against ${mongo.source}`, function () {
    this.timeout(600_000);
    let client: MongoClient;
    /** A second connection: another process's pool on the same database. */
    let other: MongoClient;
    const opened: Db[] = [];
    before(async () => {
      client = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
      other = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
      await client.connect();
      await other.connect();
    });
    after(async () => {
      for (const db of opened) await db.dropDatabase().catch(() => undefined);
      await other.close();
      await client.close();
      await mongo.stop();
    });

    const freshDb = async (tag: string): Promise<Db> => {
      const db = client.db(uniqueName(tag));
      await ensureIndexes(db);
      return db;
    };
    const tracked = async (tag: string): Promise<Db> => {
      const db = await freshDb(tag);
      opened.push(db);
      return db;
    };
    it('each recording write is one single-document write that carries its events: no second write to the document, none carries events but the decisive one (seen in the commands the driver sends)', async () => {
      const monitored = new MongoClient(uri, { ...resolveMongoSettings(uri).driverOptions, monitorCommands: true });
      await monitored.connect();
      const db = monitored.db(uniqueName('writes'));
      opened.push(db);
      await ensureIndexes(db);
      const stores = storesOn(db);
      const at = '2027-01-01T00:00:00.000Z';
      /** The write commands sent while `body` runs: their name, collection and text. */
      const writesOf = async (
        body: () => Promise<unknown>,
      ): Promise<{ name: string; collection: string; text: string }[]> => {
        const seen: { name: string; collection: string; text: string }[] = [];
        const listener = (event: CommandStartedEvent): void => {
          if (['insert', 'update', 'findAndModify', 'delete'].includes(event.commandName)) {
            seen.push({
              name: event.commandName,
              collection: String(event.command[event.commandName]),
              text: JSON.stringify(event.command),
            });
          }
        };
        monitored.on('commandStarted', listener);
        try {
          await body();
        } finally {
          monitored.off('commandStarted', listener);
        }
        return seen;
      };
      /** `body` records the events now waiting in `source`'s outbox (beyond `before`) in exactly `decisive` writes to `collection`, each carrying its own. */
      const expectRecordedBy = async (
        what: string,
        collection: string,
        source: EventSource,
        body: () => Promise<unknown>,
        decisive = 1,
      ): Promise<void> => {
        const before = new Set((await stores.events.pendingOf(source)).map((e) => e.id));
        const writes = await writesOf(body);
        const recorded = (await stores.events.pendingOf(source)).filter((e) => !before.has(e.id));
        expect(recorded, `${what} records events`).to.not.have.length(0);
        const onDocument = writes.filter((w) => w.collection === collection);
        expect(
          onDocument.map((w) => w.name),
          `${what}: its writes to ${collection}`,
        ).to.have.length(decisive);
        for (const entry of recorded)
          expect(
            onDocument.filter((w) => w.text.includes(entry.id)),
            `${what}: ${entry.type} travels in one of them`,
          ).to.have.length(1);
        expect(
          writes.filter((w) => w.collection !== collection && w.text.includes('outbox')),
          `${what}: no other write carries events`,
        ).to.deep.equal([]);
      };
      const pet = { kind: 'pet', id: 1 } as const;
      await expectRecordedBy('a pet create', COLLECTIONS.pets, pet, () =>
        stores.pets.create(entryOf({ name: 'Rex', categoryId: 1, status: 'available' }), undefined, petCreated(at)),
      );
      await expectRecordedBy('a PATCH', COLLECTIONS.pets, pet, () =>
        stores.pets.update(1, 0, petEdit({ name: 'Max' }), at, petUpdated(at)),
      );
      const order = await stores.orders.create({
        petId: 1,
        owner: 'key_aaaaaaaaaaaa',
        state: 'placing',
        placedAt: at,
        updatedAt: at,
      });
      await expectRecordedBy('a swap of the hold', COLLECTIONS.pets, pet, () =>
        stores.pets.swapHold(
          1,
          { status: 'available', orderId: null },
          { status: 'pending', orderId: order.id },
          petUpdated(at),
        ),
      );
      await expectRecordedBy('an order confirmed', COLLECTIONS.orders, { kind: 'order', id: order.id }, () =>
        stores.orders.updateState(order.id, 'placing', 'placed', at, orderReached('placed', at)),
      );
      await stores.pets.swapHold(1, { status: 'pending', orderId: order.id }, { status: 'available', orderId: null });
      await expectRecordedBy('a category create', COLLECTIONS.categories, { kind: 'category', id: 1 }, () =>
        stores.categories.create({ name: 'Dogs' }, undefined, categoryCreated(at)),
      );
      const uploads: PhotoUpload[] = [];
      for (let i = 0; i < 3; i++) {
        const upload = await stores.photos.reserve(1, 3, T0);
        if (typeof upload === 'string') throw new Error(upload);
        uploads.push(upload);
        await expectRecordedBy('a photo published', COLLECTIONS.photos, { kind: 'photo', id: upload.photoId }, () =>
          stores.photos.publish(upload, photoOf(upload.photoId, 1), undefined, photoAdded(at)),
        );
      }
      await expectRecordedBy('a photo deleted', COLLECTIONS.photos, { kind: 'photo', id: uploads[0]!.photoId }, () =>
        stores.photos.delete(1, uploads[0]!.photoId, photoRemoved(at)),
      );
      const rev = (await stores.pets.findById(1))!.revision;
      await expectRecordedBy('a withdrawal', COLLECTIONS.pets, pet, () =>
        stores.pets.withdraw(1, rev, petWithdrawn(at)),
      );
      await expectRecordedBy(
        'the photos of a withdrawn pet',
        COLLECTIONS.photos,
        { kind: 'photo', id: uploads[1]!.photoId },
        () => stores.photos.deleteAllOf(1, photoRemoved(at)),
        2,
      );
      const hash = 'ab'.repeat(32);
      const key = { kind: 'key', id: `key_${hash.slice(0, 12)}` } as const;
      await expectRecordedBy('a key issued', COLLECTIONS.apiKeys, key, () =>
        stores.keys.insert(
          { keyHash: hash, role: 'client', plan: 'free', quota: PLAN_QUOTAS.free, createdAt: T0 },
          keyChanged('key.created', at, T0),
        ),
      );
      await expectRecordedBy('a key changed', COLLECTIONS.apiKeys, key, () =>
        stores.keys.update(key.id, { label: 'site' }, keyChanged('key.updated', at, T0)),
      );
      await expectRecordedBy('a key revoked', COLLECTIONS.apiKeys, key, () =>
        stores.keys.revoke(key.id, keyChanged('key.revoked', at, T0)),
      );
      await monitored.close();
    });

    it('a write records its events in the document it changes, in that same update: the outbox holds them (with their ids) until the relay clears them, then the flag and the array go', async () => {
      const db = await tracked('doc');
      const stores = storesOn(db);
      const pet = await stores.pets.create(
        entryOf({ name: 'Rex', categoryId: 1, status: 'available' }),
        undefined,
        petCreated('2027-01-01T00:00:00.000Z'),
      );
      const doc = await db.collection(COLLECTIONS.pets).findOne({ _id: pet.id } as never);
      const outbox = doc?.['outbox'] as OutboxEntry[];
      expect(doc?.['outboxSince'], 'the oldest entry waiting').to.equal(outbox[0]!.id);
      expect(outbox.map((e) => [e.type, e.data])).to.deep.equal([['pet.created', pet]]);
      expect(outbox[0]!.id).to.match(/^evt_[0-9a-f]{16}[A-Za-z0-9_-]{16}$/);
      expect(await stores.events.pending(10)).to.deep.equal(outbox);
      const clock = new ManualClock(T0);
      await new EventRelay(stores.events, clock, 'r').run();
      const feed = await stores.events.after(0, { limit: 10 });
      expect(feed.map((e) => [e.sequence, e.id, e.type])).to.deep.equal([[1, outbox[0]!.id, 'pet.created']]);
      const cleared = await db.collection(COLLECTIONS.pets).findOne({ _id: pet.id } as never);
      expect(cleared).to.deep.equal({ _id: pet.id, name: 'Rex', categoryId: 1, status: 'available' });
    });

    it('a removed photo stays as a trace holding its outbox until the relay has moved it: then a trace without a creation token goes, one with a token stays for its token (docs/rules.md §10)', async () => {
      const db = await tracked('trace');
      const stores = storesOn(db);
      const photos = db.collection<{ _id: number; state: string; outbox?: unknown[] }>(COLLECTIONS.photos);
      const clock = new ManualClock(T0);
      const at = new Date(T0).toISOString();
      const ids: number[] = [];
      for (const token of [undefined, 'tok']) {
        const upload = await stores.photos.reserve(7, 3, T0);
        if (typeof upload === 'string') throw new Error(upload);
        expect(await stores.photos.publish(upload, photoOf(upload.photoId, 7), token, photoAdded(at))).to.equal(true);
        ids.push(upload.photoId);
      }
      expect(await stores.photos.delete(7, ids[0]!, photoRemoved(at))).to.equal(true);
      expect(await stores.photos.deleteAllOf(7, photoRemoved(at))).to.equal(1);
      for (const id of ids) {
        const trace = await photos.findOne({ _id: id });
        expect(trace?.state, `photo ${id} is a trace`).to.equal('deleted');
        expect(((trace?.outbox ?? []) as OutboxEntry[]).map((e) => e.type)).to.deep.equal([
          'photo.added',
          'photo.removed',
        ]);
      }
      expect(await stores.photos.list(7)).to.deep.equal([]);
      expect(await stores.photos.find(7, ids[0]!)).to.equal(undefined);
      expect(await stores.photos.delete(7, ids[0]!, photoRemoved(at)), 'a trace is no photo').to.equal(false);
      expect(await stores.photos.pets()).to.deep.equal([]);
      await stores.photos.sweep(T0 + 1);
      expect(await photos.countDocuments({}), 'the sweep leaves traces alone').to.equal(2);
      await new EventRelay(stores.events, clock, 'r').run();
      expect(
        (await stores.events.after(0, { limit: 10 })).map((e) => [e.type, e.data.id]),
        'the photo waiting longest first, each in its order',
      ).to.deep.equal([
        ['photo.added', ids[0]],
        ['photo.removed', ids[0]],
        ['photo.added', ids[1]],
        ['photo.removed', ids[1]],
      ]);
      expect(await photos.findOne({ _id: ids[0]! }), 'the trace without a token went').to.equal(null);
      expect(await photos.findOne({ _id: ids[1]! })).to.deep.include({ state: 'deleted', token: 'tok' });
      expect((await stores.photos.findByCreationToken('tok'))?.id).to.equal(ids[1]);
    });

    it('a relay that stopped after an append finds the event in the feed (duplicate) and clears it; an emptied outbox whose flag a crash left is dropped by the next scan', async () => {
      const db = await tracked('crash');
      const stores = storesOn(db);
      const pet = await stores.pets.create(
        entryOf({ name: 'Rex', categoryId: 1, status: 'available' }),
        undefined,
        petCreated('2027-01-01T00:00:00.000Z'),
      );
      const [entry] = await stores.events.pending(10);
      const event = {
        id: entry!.id,
        sequence: 1,
        type: entry!.type,
        occurredAt: entry!.occurredAt,
        data: entry!.data,
      } as Event;
      expect(await stores.events.append(event)).to.equal('appended');
      expect(await stores.events.append({ ...event, sequence: 2 } as Event), 'the id is in the feed').to.equal(
        'duplicate',
      );
      expect(await stores.events.append({ ...event, id: 'evt_other' } as Event), 'the sequence is held').to.equal(
        'taken',
      );
      await new EventRelay(stores.events, new ManualClock(T0), 'r').run();
      expect((await stores.events.after(0, { limit: 10 })).map((e) => e.id)).to.deep.equal([entry!.id]);
      // A crash between clear's two writes: the outbox is empty, its flag still set.
      await db
        .collection(COLLECTIONS.pets)
        .updateOne({ _id: pet.id } as never, { $set: { outboxSince: 'evt_0', outbox: [] } });
      expect(await stores.events.pending(10)).to.deep.equal([]);
      expect(await db.collection(COLLECTIONS.pets).findOne({ _id: pet.id } as never)).to.not.have.property(
        'outboxSince',
      );
    });

    it('pending reads the oldest waits first, across collections (the order of recording, as the ids tell it), each outbox a prefix in its order; an outbox emptied and written again waits as new', async () => {
      const db = await tracked('oldest');
      const stores = storesOn(db);
      const at = '2027-01-01T00:00:00.000Z';
      const one = await stores.pets.create(
        entryOf({ name: 'One', categoryId: 1, status: 'available' }),
        undefined,
        petCreated(at),
      );
      await stores.categories.create({ name: 'Dogs' }, undefined, categoryCreated(at));
      const two = await stores.pets.create(
        entryOf({ name: 'Two', categoryId: 1, status: 'available' }),
        undefined,
        petCreated(at),
      );
      await stores.pets.update(two.id, 0, petEdit({ name: 'Two II' }), at, petUpdated(at));
      await stores.pets.update(two.id, 1, petEdit({ name: 'Two III' }), at, petUpdated(at));
      const names = (entries: readonly OutboxEntry[]) =>
        entries.map((e) => `${e.type} ${'name' in e.data ? String(e.data.name) : ''}`);
      expect(names(await stores.events.pending(2))).to.deep.equal(['pet.created One', 'category.created Dogs']);
      const all = await stores.events.pending(100);
      expect(names(all)).to.deep.equal([
        'pet.created One',
        'category.created Dogs',
        'pet.created Two',
        'pet.updated Two II',
        'pet.updated Two III',
      ]);
      expect([...all.map((e) => e.id)].sort(), 'ids grow as they are recorded').to.deep.equal(all.map((e) => e.id));
      await stores.events.clear({ kind: 'pet', id: one.id }, [all[0]!.id]);
      await stores.pets.update(one.id, 0, petEdit({ name: 'One II' }), at, petUpdated(at));
      expect(names(await stores.events.pending(100))).to.deep.equal([
        'category.created Dogs',
        'pet.created Two',
        'pet.updated Two II',
        'pet.updated Two III',
        'pet.updated One II',
      ]);
    });

    it('two processes: the lease goes to one of them; an append of either is in the feed of both; a wait in one ends by its poll when the other appends', async () => {
      const db = await tracked('two');
      const a = storesOn(db);
      const b = storesOn(other.db(db.databaseName));
      const leases = await Promise.all([a.events.lease('a', T0, T0 + 1000), b.events.lease('b', T0, T0 + 1000)]);
      expect(leases.filter(Boolean)).to.have.length(1);
      await a.pets.create(
        entryOf({ name: 'Rex', categoryId: 1, status: 'available' }),
        undefined,
        petCreated('2027-01-01T00:00:00.000Z'),
      );
      // Long enough to be sure that only a poll can end it (its timeout would answer 0).
      const waited = a.events.waitBeyond(0, 60_000);
      // The relay of the other process moves it (`a` is told by its poll, every WAIT_POLL_MS, not by its own append).
      expect(await new EventRelay(b.events, new ManualClock(T0 + 2000), 'b').run()).to.equal(1);
      expect(await waited).to.equal(1);
      expect(a.events.waiting).to.equal(0);
      expect((await a.events.after(0, { limit: 5 })).map((e) => e.type)).to.deep.equal(['pet.created']);
    });

    it('of concurrent appends at one sequence from two connections exactly one lands; the feed stays 1, 2, 3… ; the last sequence never goes down after a purge', async () => {
      const db = await tracked('race');
      const a = storesOn(db);
      const b = storesOn(other.db(db.databaseName));
      const base = {
        type: 'category.created',
        occurredAt: '2027-01-01T00:00:00.000Z',
        data: { id: 1, name: 'x' },
      } as const;
      for (let sequence = 1; sequence <= 20; sequence++) {
        const outcomes = await Promise.all(
          [a, b, a, b].map((s, i) => s.events.append({ ...base, id: `evt_${sequence}_${i}`, sequence } as Event)),
        );
        expect(
          outcomes.filter((o) => o === 'appended'),
          `sequence ${sequence}`,
        ).to.have.length(1);
        expect(outcomes.filter((o) => o === 'taken')).to.have.length(3);
      }
      expect((await b.events.after(0, { limit: 100 })).map((e) => e.sequence)).to.deep.equal(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      expect(await a.events.purge(100), 'never the newest').to.equal(19);
      expect(await b.events.lastSequence()).to.equal(20);
      expect(await b.events.firstSequence()).to.equal(20);
    });

    it("onRecorded: told after each write of this connection's repositories that recorded events (not for one that recorded none, nor after it stopped listening); a relay loop on it moves them", async () => {
      const db = await tracked('told');
      const stores = storesOn(db);
      const at = '2027-01-01T00:00:00.000Z';
      let told = 0;
      const stop = stores.events.onRecorded(() => told++);
      await stores.categories.create({ name: 'Dogs' }, undefined, categoryCreated(at));
      expect(told, 'a category created').to.equal(1);
      await stores.pets.create(entryOf({ name: 'Rex', categoryId: 1, status: 'available' }));
      expect(told, 'a create without a recorder records nothing').to.equal(1);
      expect(await stores.pets.update(1, 0, petEdit({ name: 'Max' }), at, petUpdated(at))).to.not.equal(undefined);
      expect(
        await stores.pets.update(1, 0, petEdit({ name: 'Rex' }), at, petUpdated(at)),
        'a PATCH at a revision gone',
      ).to.equal(undefined);
      expect(told, 'one PATCH landed').to.equal(2);
      stop();
      await stores.pets.update(1, 1, petEdit({ name: 'Rex' }), at, petUpdated(at));
      expect(told, 'no longer listening').to.equal(2);
      // Another connection's writes are not this one's: its relay finds them by polling.
      const elsewhere = storesOn(other.db(db.databaseName));
      let toldOther = 0;
      elsewhere.events.onRecorded(() => toldOther++);
      await stores.pets.update(1, 2, petEdit({ name: 'Bo' }), at, petUpdated(at));
      expect(toldOther).to.equal(0);
      const loop = new RelayLoop(
        new EventRelay(stores.events, { now: () => Date.now() }, 'told'),
        stores.events,
        globalThis,
      );
      loop.start();
      try {
        for (let waited = 0; (await stores.events.lastSequence()) < 4; waited += 10) {
          if (waited > 30_000) expect.fail('the loop did not move the events');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      } finally {
        await loop.stop();
      }
      expect((await stores.events.after(0, { limit: 10 })).map((e) => e.type)).to.deep.equal([
        'category.created',
        'pet.updated',
        'pet.updated',
        'pet.updated',
      ]);
    });

    it('a store that cannot be reached: every step throws StoreUnavailableError, and a wait under way ends at its timeout', async () => {
      const db = client.db(uniqueName('down'));
      const lost = new MongoClient('mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200');
      const events = new EventStoreMongo(lost.db(db.databaseName));
      for (const step of [
        () => events.lastSequence(),
        () => events.pending(1),
        () => events.lease('a', 0, 1),
        () => events.after(0, { limit: 1 }),
      ]) {
        expect(
          await step().then(
            () => 'answered',
            (e: unknown) => e,
          ),
        ).to.be.instanceOf(StoreUnavailableError);
      }
      await lost.close();
    });
  });
});

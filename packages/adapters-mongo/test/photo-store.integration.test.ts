// The photo store on MongoDB (docs/rules.md §13): the contract every photo store runs, and what a
// crash leaves behind in GridFS and the places, cleaned by the sweep. Skipped (with the reason)
// without a MongoDB; never a mock of the driver.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { PHOTOS_PER_PET, type PhotoUpload } from '@petstore/domain';
import { photoStoreContract } from '@petstore/domain/testing';
import { Binary, MongoClient, type Db } from 'mongodb';
import { COLLECTIONS, ensureIndexes, PHOTO_BUCKET, PhotoStoreMongo, resolveMongoSettings } from '../src/index.js';
import { describeMongo, findMongo } from './support/find-mongo.js';

/** SHA-256 of bytes, lowercase hex (`node:crypto`). */
const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const SUITE = 'MongoDB photo store (integration)';
const target = await findMongo();
const T0 = Date.UTC(2027, 0, 1);

describeMongo(SUITE, target, (mongo) => {
  const { uri } = mongo;
  let n = 0;
  const uniqueName = (tag: string) => `petstore_test_${tag}_${process.pid}_${Date.now().toString(36)}_${++n}`;

  describe(`${SUITE} against ${mongo.source}`, function () {
    this.timeout(120_000);
    let client: MongoClient;
    before(async () => {
      client = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
      await client.connect();
    });
    after(async () => {
      await client.close();
      await mongo.stop();
    });

    const freshDb = async (tag: string): Promise<Db> => {
      const db = client.db(uniqueName(tag));
      await ensureIndexes(db);
      return db;
    };
    /** Distinct file ids in GridFS: whole files, and chunks of files never finished. */
    const storedFiles = async (db: Db): Promise<number> => {
      const files = await db.collection(`${PHOTO_BUCKET}.files`).distinct('_id');
      const chunks = await db.collection(`${PHOTO_BUCKET}.chunks`).distinct('files_id');
      return new Set([...files, ...chunks].map(String)).size;
    };

    photoStoreContract(
      'MongoDB (GridFS)',
      async () => {
        const db = await freshDb('photos');
        return {
          subject: {
            store: new PhotoStoreMongo(db),
            restart: async () => new PhotoStoreMongo(db),
            storedFiles: () => storedFiles(db),
          },
          dispose: async () => void (await db.dropDatabase()),
        };
      },
      { numRuns: 15 },
    );

    describe('beyond the contract', () => {
      const file = (width: number, bytes: Uint8Array) => ({
        width,
        height: width,
        bytes: bytes.length,
        sha256: sha256Of(bytes),
      });
      const photoOf = (upload: PhotoUpload, files: ReturnType<typeof file>[]) => ({
        id: upload.photoId,
        petId: upload.petId,
        contentType: 'image/png' as const,
        width: files[0]!.width,
        height: files[0]!.height,
        bytes: files[0]!.bytes,
        createdAt: '2027-01-01T00:00:00.000Z',
        files,
      });

      it('keeps the bytes in GridFS, in chunks of at most 255 KiB (a 600 KB file in 3), read back as a stream', async () => {
        const db = await freshDb('gridfs');
        try {
          const store = new PhotoStoreMongo(db);
          const bytes = new Uint8Array(600_000).map((_, i) => (i * 7) & 255);
          const up = (await store.reserve(1, bytes.length, T0)) as PhotoUpload;
          await store.putFile(up, file(3_000, bytes), bytes);
          expect(await store.publish(up, photoOf(up, [file(3_000, bytes)]))).to.equal(true);
          expect(
            await db.collection(`${PHOTO_BUCKET}.chunks`).countDocuments({ files_id: `${up.photoId}:3000` }),
          ).to.equal(3);
          const record = await db.collection(COLLECTIONS.photos).findOne({ _id: up.photoId } as never);
          expect(record).to.deep.include({ petId: 1, state: 'ready', contentType: 'image/png', width: 3_000 });
          const stream = (await store.read(up.photoId, 3_000)) as AsyncIterable<Uint8Array>;
          expect(stream).not.to.be.instanceOf(Uint8Array);
          const chunks: Uint8Array[] = [];
          for await (const chunk of stream) chunks.push(chunk);
          expect(Buffer.concat(chunks).equals(Buffer.from(bytes))).to.equal(true);
        } finally {
          await db.dropDatabase();
        }
      });

      it('a sweep removes the chunks of a GridFS upload cut short (no file document), an unpublished record, and places naming no record', async () => {
        const db = await freshDb('crash');
        try {
          const store = new PhotoStoreMongo(db);
          const kept = (await store.reserve(2, 10, T0)) as PhotoUpload;
          const bytes = new Uint8Array(10).fill(1);
          await store.putFile(kept, file(10, bytes), bytes);
          await store.publish(kept, photoOf(kept, [file(10, bytes)]));
          // A process died in the middle of a GridFS upload: an unpublished record with the chunks of a file never finished…
          const dead = (await store.reserve(2, 10, T0)) as PhotoUpload;
          const chunks = db.collection(`${PHOTO_BUCKET}.chunks`);
          await chunks.insertOne({
            files_id: `${dead.photoId}:640`,
            n: 0,
            data: new Binary(Buffer.alloc(100)),
          } as never);
          // …chunks of a photo whose record is gone, chunks of no photo of ours, and a place whose record is gone
          // (removals cut short after their first write).
          await chunks.insertOne({ files_id: '77777:160', n: 0, data: new Binary(Buffer.alloc(10)) } as never);
          await chunks.insertOne({ files_id: 'not-ours', n: 0, data: new Binary(Buffer.alloc(1)) } as never);
          await db
            .collection(COLLECTIONS.photoPlaces)
            .updateOne({ _id: 2 } as never, { $push: { ids: 999_999 } } as never);
          expect(await storedFiles(db)).to.equal(4);
          const after = await new PhotoStoreMongo(db).sweep(T0 + 1);
          expect(after).to.deep.equal({ uploads: 1, files: 2 });
          expect(await storedFiles(db)).to.equal(1);
          expect(
            (await db.collection<{ ids: number[] }>(COLLECTIONS.photoPlaces).findOne({ _id: 2 } as never))?.ids,
          ).to.deep.equal([kept.photoId]);
          expect((await store.list(2)).map((p) => p.id)).to.deep.equal([kept.photoId]);
        } finally {
          await db.dropDatabase();
        }
      });

      it('a removed photo with a creation token keeps its record as deleted (its fields, its token; no bytes, no place); a removal cut short after that first write is finished by the sweep and by a full pet, and the token still answers the photo (docs/rules.md §10)', async () => {
        const db = await freshDb('tombstone');
        try {
          const store = new PhotoStoreMongo(db);
          const bytes = new Uint8Array(10).fill(2);
          const publish = async (token?: string) => {
            const up = (await store.reserve(4, 10, T0)) as PhotoUpload;
            await store.putFile(up, file(10, bytes), bytes);
            const photo = photoOf(up, [file(10, bytes)]);
            expect(await (token === undefined ? store.publish(up, photo) : store.publish(up, photo, token))).to.equal(
              true,
            );
            return photo;
          };
          const docs = db.collection<{ _id: number }>(COLLECTIONS.photos);
          const tokened = await publish('tok-kept');
          const plain = await publish();
          expect(await store.delete(4, tokened.id)).to.equal(true);
          expect(await store.delete(4, plain.id)).to.equal(true);
          expect(await store.delete(4, tokened.id), 'a second removal finds nothing').to.equal(false);
          const { id: _id, ...fields } = tokened;
          expect(await docs.findOne({ _id: tokened.id })).to.deep.equal({
            _id: tokened.id,
            ...fields,
            state: 'deleted',
            startedAt: T0,
            token: 'tok-kept',
          });
          expect(await docs.findOne({ _id: plain.id }), 'without a token: nothing kept').to.equal(null);
          expect([
            await storedFiles(db),
            (await db.collection<{ ids: number[] }>(COLLECTIONS.photoPlaces).findOne({ _id: 4 } as never))?.ids,
          ]).to.deep.equal([0, []]);
          // A removal cut short after its first write (the record turned deleted): its bytes and its place are left.
          const cut = await publish('tok-cut');
          await docs.updateOne({ _id: cut.id }, { $set: { state: 'deleted' } } as never);
          for (let i = 1; i < PHOTOS_PER_PET; i++)
            expect(typeof (await store.reserve(4, 1, T0)), `place ${i + 1}`).to.equal('object');
          expect(
            await store.reserve(4, 1, T0),
            "the deleted record's place is freed when the pet is found full",
          ).to.not.equal('full');
          expect(await store.reserve(4, 1, T0)).to.equal('full');
          expect(await storedFiles(db)).to.equal(1);
          expect(await new PhotoStoreMongo(db).sweep(T0 + 1)).to.deep.equal({ uploads: PHOTOS_PER_PET, files: 1 });
          expect(await storedFiles(db)).to.equal(0);
          expect(await store.findByCreationToken('tok-cut')).to.deep.equal(cut);
          expect(await store.findByCreationToken('tok-kept')).to.deep.equal(tokened);
          expect([await store.list(4), await store.pets()]).to.deep.equal([[], []]);
        } finally {
          await db.dropDatabase();
        }
      });

      it('a pet found full frees the places that name no record before it refuses', async () => {
        const db = await freshDb('full');
        try {
          const store = new PhotoStoreMongo(db);
          for (let i = 0; i < PHOTOS_PER_PET; i++) await store.reserve(3, 1, T0);
          expect(await store.reserve(3, 1, T0)).to.equal('full');
          // A removal cut short: the record went, the place stayed.
          const [first] = await db
            .collection<{ _id: number }>(COLLECTIONS.photos)
            .find({ petId: 3 })
            .sort({ _id: 1 })
            .limit(1)
            .toArray();
          await db.collection(COLLECTIONS.photos).deleteOne({ _id: first!._id } as never);
          expect(await store.reserve(3, 1, T0)).not.to.equal('full');
          expect(await store.reserve(3, 1, T0)).to.equal('full');
        } finally {
          await db.dropDatabase();
        }
      });

      it(`two processes (two clients) reserving for one pet at once: exactly ${PHOTOS_PER_PET} of 20 get a place`, async () => {
        const db = await freshDb('two');
        const other = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
        await other.connect();
        try {
          const stores = [new PhotoStoreMongo(db), new PhotoStoreMongo(other.db(db.databaseName))];
          const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2]!.reserve(4, 1, T0)));
          expect(outcomes.filter((o) => typeof o !== 'string')).to.have.length(PHOTOS_PER_PET);
          expect(
            (await db.collection<{ ids: number[] }>(COLLECTIONS.photoPlaces).findOne({ _id: 4 } as never))?.ids,
          ).to.have.length(PHOTOS_PER_PET);
          expect(await db.collection(COLLECTIONS.photos).countDocuments({ petId: 4 })).to.equal(PHOTOS_PER_PET);
        } finally {
          await other.close();
          await db.dropDatabase();
        }
      });
    });
  });
});

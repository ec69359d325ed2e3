import type {
  PhotoBytes,
  PhotoContentType,
  PhotoFile,
  PhotoStore,
  PhotoSweep,
  PhotoUpload,
  PublishOutcome,
  Recorder,
  StoredPhoto,
} from '@petstore/domain';
import type { Collection, Db } from 'mongodb';
import { classifyMongoError, guard, upsertWithRetry } from './errors.js';
import { COLLECTIONS, COUNTERS } from './indexes.js';
import { MongoOutbox, pushOutbox, type OutboxFields } from './outbox.mongo.js';
import { PhotoFilesMongo } from './photo-files.mongo.js';
import { PhotoPlacesMongo } from './photo-places.mongo.js';

/**
 * One photo: `uploading` from its reservation until `publish` makes it `ready` (then with the
 * photo's fields); a removed photo that carries a creation token stays as `deleted` (its fields as
 * published, no bytes, no place), which only `findByCreationToken` reads (docs/rules.md §10, §13).
 * A photo removed with its `photo.removed` recorded (docs/rules.md §15) also stays `deleted`, token
 * or not, as the trace that holds its outbox: `EventStoreMongo.clear` removes a trace without a token
 * once its outbox is empty.
 */
interface PhotoDocument extends OutboxFields {
  readonly _id: number;
  readonly petId: number;
  readonly state: 'uploading' | 'ready' | typeof DELETED;
  /** ms since the epoch, when the upload took its place. */
  readonly startedAt: number;
  readonly contentType?: PhotoContentType;
  readonly width?: number;
  readonly height?: number;
  readonly bytes?: number;
  readonly createdAt?: string;
  readonly files?: readonly PhotoFile[];
  /** The creation token of an upload under an `Idempotency-Key` (docs/rules.md §10), set by `publish`; unique (sparse index `token_1`). */
  readonly token?: string;
}

interface CounterDocument {
  readonly _id: string;
  readonly value: number;
}

/** The state of a removed photo's record kept for its creation token: seen by no read but `findByCreationToken`. */
const DELETED = 'deleted';
/** Records that hold bytes or a place (every one but a removed photo's): what the sweep and the places count as alive. */
const HELD = { $ne: DELETED } as const;

const toStored = (doc: PhotoDocument): StoredPhoto => ({
  id: doc._id,
  petId: doc.petId,
  contentType: doc.contentType!,
  width: doc.width!,
  height: doc.height!,
  bytes: doc.bytes!,
  createdAt: doc.createdAt!,
  files: doc.files!,
});

/** Ids drawn at most for one upload when the one drawn is already taken. */
const MAX_DRAWS = 5;
/** Rounds of `deleteAllOf` at most (another round only when an upload of the pet was published meanwhile). */
const MAX_REMOVAL_ROUNDS = 8;
/** A record read whole, but for its outbox. */
const NO_OUTBOX = { projection: { outbox: 0, outboxSince: 0 } } as const;

/**
 * Photos in MongoDB: a record per photo in `photos` (here), the bytes in the driver's GridFS
 * (`PhotoFilesMongo`), and a pet's places in `photo_places` (`PhotoPlacesMongo`). No
 * transaction: each step is one single-document write, in an order that leaves every crash
 * recognisable (docs/rules.md §13):
 *
 * 1. `reserve`: an id from the `photos` counter; the record, `uploading` (before the place, so a
 *    place always names a record that exists or existed); then the place, with one conditional
 *    update of the pet's places document: push the id only while the array has fewer than
 *    `PHOTOS_PER_PET` elements. That update is the linearization point of the limit: of N racing
 *    reservations exactly the room left succeed, also across processes. (A first place creates the
 *    document by upsert; a racing creation that loses gets a duplicate key and takes the update path.)
 * 2. `putFile`: each file through a GridFS upload stream (chunks, then the file document).
 * 3. `publish`: the decisive write, one conditional update of the record from `uploading` to
 *    `ready` with the photo's fields (and its creation token, under a unique sparse index: a token
 *    already published stops the update with a duplicate key, and that photo is the answer). Lists
 *    and reads see only `ready` records, so a photo is visible only once all its bytes are complete.
 * Removals go the other way: record, then files and chunks, then the place. So whatever a crash
 * leaves is one of: an `uploading` record (and maybe files), files or chunks no record names, a
 * place naming no record. `sweep` removes all three; `reserve` also frees places naming no record
 * when it finds a pet full. The record of a removed photo that carries a creation token is not
 * removed but turned `deleted` (in that same first step), so that its token stays bound to it
 * (docs/rules.md §10): for the rest (files, places, the sweep) it counts as no record.
 */
export class PhotoStoreMongo implements PhotoStore {
  private readonly photos: Collection<PhotoDocument>;
  private readonly counters: Collection<CounterDocument>;
  private readonly files: PhotoFilesMongo;
  private readonly places: PhotoPlacesMongo;

  /** `outbox`: shared with the connection's `EventStoreMongo` (its `onRecorded`); the events themselves live in the photos' records. */
  constructor(
    db: Db,
    private readonly outbox: MongoOutbox = new MongoOutbox(),
  ) {
    this.photos = db.collection<PhotoDocument>(COLLECTIONS.photos);
    this.counters = db.collection<CounterDocument>(COLLECTIONS.counters);
    const heldAmong = (ids: readonly number[]) => this.heldAmong(ids);
    this.files = new PhotoFilesMongo(db, heldAmong);
    this.places = new PhotoPlacesMongo(db, heldAmong);
  }

  async reserve(petId: number, _totalBytes: number, now: number): Promise<PhotoUpload | 'full' | 'no_space'> {
    const photoId = await this.insertUploading(petId, now);
    if (
      (await this.places.take(petId, photoId)) ||
      ((await this.places.freeDead(petId)) > 0 && (await this.places.take(petId, photoId)))
    ) {
      return { petId, photoId, startedAt: now };
    }
    await guard(() => this.photos.deleteOne({ _id: photoId, state: 'uploading' }), `delete on ${COLLECTIONS.photos}`);
    return 'full';
  }

  /**
   * A new id from the `photos` counter and its record, `uploading`. An id found taken is drawn again
   * (a counter restored from an old backup; and mongo-java-server's `$inc` under concurrent
   * `findAndModify`s can hand one value out twice).
   */
  private async insertUploading(petId: number, now: number): Promise<number> {
    for (let draw = 1; ; draw++) {
      const counter = await upsertWithRetry(
        () =>
          this.counters.findOneAndUpdate(
            { _id: COUNTERS.photos },
            { $inc: { value: 1 } },
            { upsert: true, returnDocument: 'after' },
          ),
        `findAndModify on ${COLLECTIONS.counters}`,
      );
      if (counter === null) throw new Error('the photo id counter was not returned');
      try {
        await guard(
          () => this.photos.insertOne({ _id: counter.value, petId, state: 'uploading', startedAt: now }),
          `insert on ${COLLECTIONS.photos}`,
        );
        return counter.value;
      } catch (error) {
        if (draw === MAX_DRAWS || classifyMongoError(error) !== 'duplicate_key') throw error;
      }
    }
  }

  putFile(upload: PhotoUpload, file: PhotoFile, bytes: Uint8Array): Promise<void> {
    return this.files.put(upload, file, bytes);
  }

  /** With `record`, the update that makes the photo `ready` also pushes its `photo.added` (docs/rules.md §15); one that does not land records nothing. */
  async publish(
    upload: PhotoUpload,
    photo: StoredPhoto,
    token?: string,
    record?: Recorder<StoredPhoto>,
  ): Promise<PublishOutcome> {
    const { id: _id, petId: _petId, ...fields } = photo;
    const set = {
      state: 'ready' as const,
      contentType: fields.contentType,
      width: fields.width,
      height: fields.height,
      bytes: fields.bytes,
      createdAt: fields.createdAt,
      files: fields.files,
    };
    // Twice at most: a token whose photo was removed between the duplicate key and the look-up is free again.
    for (let attempt = 1; ; attempt++) {
      try {
        const entries = this.outbox.entries(record, photo);
        const result = await guard(
          () =>
            this.photos.updateOne(
              { _id: upload.photoId, petId: upload.petId, state: 'uploading', startedAt: upload.startedAt },
              pushOutbox(token === undefined ? set : { ...set, token }, entries),
            ),
          `update on ${COLLECTIONS.photos}`,
        );
        if (result.matchedCount !== 1) return false;
        this.outbox.recorded(entries);
        return true;
      } catch (error) {
        if (token === undefined || classifyMongoError(error) !== 'duplicate_key') throw error;
        // An earlier attempt under the same key published a photo with this token: that one, and this upload given up.
        const earlier = await this.findByCreationToken(token);
        if (earlier === undefined && attempt < 2) continue;
        await this.abandon(upload);
        if (earlier === undefined) throw error;
        return { earlier };
      }
    }
  }

  /** The photo published with the token, also when it was removed since (then as it was published). Only `publish` sets a token. */
  async findByCreationToken(token: string): Promise<StoredPhoto | undefined> {
    const doc = await guard(() => this.photos.findOne({ token }), `find on ${COLLECTIONS.photos}`);
    return doc === null ? undefined : toStored(doc);
  }

  async abandon(upload: PhotoUpload): Promise<void> {
    const removed = await guard(
      () => this.photos.deleteOne({ _id: upload.photoId, state: 'uploading' }),
      `delete on ${COLLECTIONS.photos}`,
    );
    // Published meanwhile (its answer was lost): the photo stays, whole.
    if (
      removed.deletedCount === 0 &&
      (await guard(() => this.photos.countDocuments({ _id: upload.photoId, state: 'ready' }, { limit: 1 }))) > 0
    )
      return;
    await this.files.remove([upload.photoId]);
    await this.places.free(upload.petId, [upload.photoId]);
  }

  async list(petId: number): Promise<readonly StoredPhoto[]> {
    const docs = await guard(
      () => this.photos.find({ petId, state: 'ready' }).sort({ _id: 1 }).toArray(),
      `find on ${COLLECTIONS.photos}`,
    );
    return docs.map(toStored);
  }

  /** One query, served by `photos {petId, _id}`: the pets' ranges read in index order. */
  async listOfPets(petIds: readonly number[]): Promise<readonly StoredPhoto[]> {
    const docs = await guard(
      () =>
        this.photos
          .find({ petId: { $in: [...petIds] }, state: 'ready' })
          .sort({ petId: 1, _id: 1 })
          .toArray(),
      `find on ${COLLECTIONS.photos}`,
    );
    return docs.map(toStored);
  }

  async find(petId: number, photoId: number): Promise<StoredPhoto | undefined> {
    const doc = await guard(
      () => this.photos.findOne({ _id: photoId, petId, state: 'ready' }),
      `find on ${COLLECTIONS.photos}`,
    );
    return doc === null ? undefined : toStored(doc);
  }

  async read(photoId: number, width: number): Promise<PhotoBytes | undefined> {
    const doc = await guard(
      () => this.photos.findOne({ _id: photoId, state: 'ready' }, { projection: { files: 1 } }),
      `find on ${COLLECTIONS.photos}`,
    );
    if (doc === null || !(doc.files ?? []).some((f) => f.width === width)) return undefined;
    return this.files.open(photoId, width);
  }

  /**
   * With `record` (docs/rules.md §15): the published photo is read, then turned `deleted` by one
   * update conditional on it being published (its fields never change once it is), which also pushes
   * its `photo.removed`: the record stays as the trace holding its outbox (and its token, if any).
   * Then its bytes and place go, as below.
   */
  async delete(petId: number, photoId: number, record?: Recorder<StoredPhoto>): Promise<boolean> {
    if (record === undefined) return this.deleteUnrecorded(petId, photoId);
    const doc = await guard(
      () => this.photos.findOne({ _id: photoId, petId, state: 'ready' }, NO_OUTBOX),
      `find on ${COLLECTIONS.photos}`,
    );
    if (doc === null) return false;
    if (!(await this.markRemoved(doc, record))) return false;
    await this.files.remove([photoId]);
    await this.places.free(petId, [photoId]);
    return true;
  }

  /** Turns a published photo `deleted` with its events pushed, in one conditional update; false when it was no longer published. */
  private async markRemoved(doc: PhotoDocument, record: Recorder<StoredPhoto>): Promise<boolean> {
    const entries = this.outbox.entries(record, toStored(doc));
    const result = await guard(
      () =>
        this.photos.updateOne(
          { _id: doc._id, petId: doc.petId, state: 'ready' },
          pushOutbox({ state: DELETED }, entries),
        ),
      `update on ${COLLECTIONS.photos}`,
    );
    if (result.matchedCount !== 1) return false;
    this.outbox.recorded(entries);
    return true;
  }

  /**
   * Without events: a photo with a creation token is turned `deleted`, one without is removed: two conditional writes,
   * exactly one of which can match a published photo (its token never changes). The second skips a
   * photo with a token, one published in between included: the removal then comes before it (false).
   */
  private async deleteUnrecorded(petId: number, photoId: number): Promise<boolean> {
    const kept = await guard(
      () =>
        this.photos.updateOne(
          { _id: photoId, petId, state: 'ready', token: { $exists: true } },
          { $set: { state: DELETED } },
        ),
      `update on ${COLLECTIONS.photos}`,
    );
    if (kept.matchedCount === 0) {
      const removed = await guard(
        () => this.photos.deleteOne({ _id: photoId, petId, state: 'ready', token: { $exists: false } }),
        `delete on ${COLLECTIONS.photos}`,
      );
      if (removed.deletedCount === 0) return false;
    }
    await this.files.remove([photoId]);
    await this.places.free(petId, [photoId]);
    return true;
  }

  /**
   * With `record` (docs/rules.md §15): each published photo of the pet is turned `deleted` with its
   * `photo.removed`, one conditional update each (as `delete`); uploads under way are removed (they
   * record nothing; their `publish` then matches nothing). An upload published between the read and
   * its removal is found by the next round and removed as a published photo.
   */
  async deleteAllOf(petId: number, record?: Recorder<StoredPhoto>): Promise<number> {
    if (record === undefined) return this.deleteAllUnrecorded(petId);
    let published = 0;
    for (let round = 0; round < MAX_REMOVAL_ROUNDS; round++) {
      const docs = await guard(
        () => this.photos.find({ petId, state: HELD }, NO_OUTBOX).toArray(),
        `find on ${COLLECTIONS.photos}`,
      );
      if (docs.length === 0) {
        if (round === 0) await this.places.drop(petId);
        break;
      }
      for (const doc of docs) if (doc.state === 'ready' && (await this.markRemoved(doc, record))) published++;
      const uploads = docs.filter((d) => d.state === 'uploading').map((d) => d._id);
      if (uploads.length > 0)
        await guard(
          () => this.photos.deleteMany({ _id: { $in: uploads }, state: 'uploading' }),
          `delete on ${COLLECTIONS.photos}`,
        );
      const ids = docs.map((d) => d._id);
      await this.files.remove(ids);
      await this.places.free(petId, ids);
    }
    return published;
  }

  private async deleteAllUnrecorded(petId: number): Promise<number> {
    const docs = await guard(
      () => this.photos.find({ petId, state: HELD }, { projection: { _id: 1, state: 1 } }).toArray(),
      `find on ${COLLECTIONS.photos}`,
    );
    if (docs.length === 0) {
      await this.places.drop(petId);
      return 0;
    }
    const ids = docs.map((d) => d._id);
    // As `delete`, for all of them: those with a token turned `deleted`, the others (uploads under way included) removed.
    await guard(
      () =>
        this.photos.updateMany(
          { _id: { $in: ids }, state: 'ready', token: { $exists: true } },
          { $set: { state: DELETED } },
        ),
      `update on ${COLLECTIONS.photos}`,
    );
    await guard(
      () => this.photos.deleteMany({ _id: { $in: ids }, token: { $exists: false } }),
      `delete on ${COLLECTIONS.photos}`,
    );
    await this.files.remove(ids);
    await this.places.free(petId, ids);
    return docs.filter((d) => d.state === 'ready').length;
  }

  async pets(): Promise<readonly number[]> {
    const ids = await guard(
      () => this.photos.distinct('petId', { state: 'ready' }),
      `distinct on ${COLLECTIONS.photos}`,
    );
    return (ids as number[]).sort((a, b) => a - b);
  }

  async sweep(startedBefore: number): Promise<PhotoSweep> {
    // 1. Uploads that never got published: record first, then their files, then their place.
    const stale = await guard(
      () =>
        this.photos
          .find({ state: 'uploading', startedAt: { $lt: startedBefore } }, { projection: { _id: 1, petId: 1 } })
          .toArray(),
      `find on ${COLLECTIONS.photos}`,
    );
    let uploads = 0;
    for (const doc of stale) {
      const removed = await guard(
        () => this.photos.deleteOne({ _id: doc._id, state: 'uploading' }),
        `delete on ${COLLECTIONS.photos}`,
      );
      uploads += removed.deletedCount;
      await this.files.remove([doc._id]);
      await this.places.free(doc.petId, [doc._id]);
    }
    // 2. Files and chunks whose photo has no record (an upload or a removal cut short); ids not ours at all too.
    const files = await this.files.removeStray();
    // 3. Places naming no record (a removal cut short before it freed the place).
    await this.places.sweep();
    return { uploads, files };
  }

  /** Which of these photos have a record that holds bytes or a place: what the files and the places count as alive. */
  private async heldAmong(ids: readonly number[]): Promise<ReadonlySet<number>> {
    const docs = await guard(
      () => this.photos.find({ _id: { $in: [...ids] }, state: HELD }, { projection: { _id: 1 } }).toArray(),
      `find on ${COLLECTIONS.photos}`,
    );
    return new Set(docs.map((d) => d._id));
  }
}

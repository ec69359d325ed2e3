import { PHOTOS_PER_PET } from '@petstore/domain';
import type { Collection, Db } from 'mongodb';
import { classifyMongoError, guard } from './errors.js';
import { COLLECTIONS } from './indexes.js';

/** A pet's places: the ids of its photos and uploads under way, at most `PHOTOS_PER_PET`. */
interface PlacesDocument {
  readonly _id: number;
  readonly ids: readonly number[];
}

/** Which of these photo ids have a record that holds bytes or a place (every record but a removed photo's). */
export type HeldAmong = (photoIds: readonly number[]) => Promise<ReadonlySet<number>>;

/** A filter of "the pet has a free place": its `ids` array has no element at index `PHOTOS_PER_PET − 1`. */
const HAS_ROOM = { [`ids.${PHOTOS_PER_PET - 1}`]: { $exists: false } };

/**
 * The pets' places in `photo_places`, one document per pet with photos. `take` is the one
 * conditional update that decides the limit of `PHOTOS_PER_PET` (docs/rules.md §13): of N racing
 * reservations exactly the room left succeed, also across processes. A place naming no held
 * record (`heldAmong`) is what a removal or an upload cut short leaves: `freeDead` frees it.
 */
export class PhotoPlacesMongo {
  private readonly places: Collection<PlacesDocument>;

  constructor(
    db: Db,
    private readonly heldAmong: HeldAmong,
  ) {
    this.places = db.collection<PlacesDocument>(COLLECTIONS.photoPlaces);
  }

  /** Pushes `photoId` into the pet's places while there is room; true when it went in. */
  async take(petId: number, photoId: number): Promise<boolean> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const result = await guard(
          () =>
            this.places.updateOne({ _id: petId, ...HAS_ROOM }, { $push: { ids: photoId } }, { upsert: attempt === 0 }),
          `update on ${COLLECTIONS.photoPlaces}`,
        );
        return result.modifiedCount + result.upsertedCount === 1;
      } catch (error) {
        // The document exists (full, or just created by a racing first upload): try the plain update.
        if (classifyMongoError(error) !== 'duplicate_key') throw error;
      }
    }
    return false;
  }

  /** Frees the pet's places whose photo has no record, or a `deleted` one (only ever a removal or upload cut short); how many. */
  async freeDead(petId: number, known?: readonly number[]): Promise<number> {
    const ids =
      known ??
      (await guard(() => this.places.findOne({ _id: petId }), `find on ${COLLECTIONS.photoPlaces}`))?.ids ??
      [];
    if (ids.length === 0) return 0;
    const alive = await this.heldAmong(ids);
    const dead = ids.filter((id) => !alive.has(id));
    if (dead.length > 0) await this.free(petId, dead);
    return dead.length;
  }

  async free(petId: number, photoIds: readonly number[]): Promise<void> {
    await guard(
      () => this.places.updateOne({ _id: petId }, { $pull: { ids: { $in: [...photoIds] } } }),
      `update on ${COLLECTIONS.photoPlaces}`,
    );
  }

  /** Drops the pet's places document (a pet with no photo and no upload left). */
  async drop(petId: number): Promise<void> {
    await guard(() => this.places.deleteOne({ _id: petId }), `delete on ${COLLECTIONS.photoPlaces}`);
  }

  /** Frees every place naming no held record, of every pet (a removal cut short before it freed its place). */
  async sweep(): Promise<void> {
    const all = await guard(() => this.places.find({}).toArray(), `find on ${COLLECTIONS.photoPlaces}`);
    for (const doc of all) await this.freeDead(doc._id, doc.ids);
  }
}

import { drawShuffleKey, nameKeysOf, PET_STATUSES, type PetStatus, type Random } from '@petstore/domain';
import type { AnyBulkWriteOperation, Db, Document } from 'mongodb';
import { guard } from './errors.js';
import { COLLECTIONS, indexName, petListIndex } from './indexes.js';
import type { PetSearchFields } from './pet-list.mongo.js';

/** Pets read and written per round trip of the backfill. */
const BATCH = 500;

interface StoredPet extends PetSearchFields {
  readonly _id: number;
  readonly name: string;
  readonly status: string;
}

/** What a backfill wrote: pets given their name keys, pets given a shuffle key. */
interface PetBackfill {
  readonly named: number;
  readonly shuffled: number;
}

/**
 * One pass over the listed pets that lack `field`, in id order, `BATCH` at a time: each batch one
 * read (served by the `{status, <field>, _id}` index: a missing field is indexed as null, so only
 * those pets are read) and one unordered bulk of conditional updates, each built by `update`.
 */
const fillIn = async (
  db: Db,
  field: 'nameKey' | 'shuffleKey',
  update: (pet: StoredPet) => AnyBulkWriteOperation<StoredPet>,
): Promise<number> => {
  const pets = db.collection<StoredPet>(COLLECTIONS.pets);
  const hint = indexName(petListIndex(false, field === 'nameKey' ? 'name' : 'random', false));
  let written = 0;
  for (let afterId = 0; ;) {
    const batch = await guard(
      () =>
        pets
          .find({ status: { $in: PET_STATUSES as PetStatus[] }, [field]: null, _id: { $gt: afterId } } as Document, {
            projection: { _id: 1, name: 1 },
          })
          .sort({ _id: 1 })
          .limit(BATCH)
          .hint(hint)
          .toArray(),
      `find on ${COLLECTIONS.pets}`,
    );
    if (batch.length === 0) return written;
    const result = await guard(
      () => pets.bulkWrite(batch.map(update), { ordered: false }),
      `update on ${COLLECTIONS.pets}`,
    );
    written += result.modifiedCount;
    afterId = batch[batch.length - 1]!._id;
  }
};

/**
 * Gives the pets stored before docs/rules.md §16 their search keys (folded words, name key, shuffle
 * key), computed by the domain (`nameKeysOf`, `drawShuffleKey` from `random`): at start, after the
 * indexes exist. Every update is conditional on the field still missing (and, for the name keys, on
 * the name read), so running it twice, or in several processes at once, writes each pet's keys once:
 * a second run finds nothing to do, a racing run's updates match nothing, and a pet renamed since it
 * was read keeps the keys its rename wrote. It never moves a revision: the pet as clients see it is
 * unchanged. Withdrawn pets are left as they are (no list reads them). A pet an older process writes
 * after this run gets its keys at the next start.
 */
export const backfillPetSearchKeys = async (db: Db, random: Random): Promise<PetBackfill> => {
  const named = await fillIn(db, 'nameKey', (pet) => ({
    updateOne: {
      filter: { _id: pet._id, name: pet.name, nameKey: { $exists: false } },
      update: { $set: { ...nameKeysOf(pet.name) } },
    },
  }));
  const shuffled = await fillIn(db, 'shuffleKey', (pet) => ({
    updateOne: {
      filter: { _id: pet._id, shuffleKey: { $exists: false } },
      update: { $set: { shuffleKey: drawShuffleKey(random) } },
    },
  }));
  return { named, shuffled };
};

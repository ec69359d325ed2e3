import type { Pet, PetDraft, PetListQuery, PetRepository, PetStatus } from '@petstore/domain';
import type { Collection, Db } from 'mongodb';
import { guard, upsertWithRetry } from './errors.js';
import { COLLECTIONS } from './indexes.js';

interface PetDocument {
  readonly _id: number;
  readonly name: string;
  readonly categoryId: number;
  readonly status: PetStatus;
}

interface CounterDocument {
  readonly _id: string;
  readonly seq: number;
}

const PET_PROJECTION = { _id: 1, name: 1, categoryId: 1, status: 1 } as const;

const toPet = (doc: PetDocument): Pet => ({ id: doc._id, name: doc.name, categoryId: doc.categoryId, status: doc.status });

/**
 * Pets in MongoDB, stored with `_id` = the pet id. Ids come from an atomic counter document, so
 * they are unique and increasing across processes; an id whose insert fails is never reused.
 */
export class PetRepositoryMongo implements PetRepository {
  private readonly pets: Collection<PetDocument>;
  private readonly counters: Collection<CounterDocument>;

  constructor(db: Db) {
    this.pets = db.collection<PetDocument>(COLLECTIONS.pets);
    this.counters = db.collection<CounterDocument>(COLLECTIONS.counters);
  }

  async create(draft: PetDraft): Promise<Pet> {
    const counter = await upsertWithRetry(() =>
      this.counters.findOneAndUpdate({ _id: 'pets' }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' }),
    );
    if (counter === null) throw new Error('the pet id counter returned no document');
    const doc: PetDocument = { _id: counter.seq, name: draft.name, categoryId: draft.categoryId, status: draft.status };
    await guard(() => this.pets.insertOne(doc));
    return toPet(doc);
  }

  async findById(id: number): Promise<Pet | undefined> {
    const doc = await guard(() => this.pets.findOne({ _id: id }, { projection: PET_PROJECTION }));
    return doc === null ? undefined : toPet(doc);
  }

  async list(query: PetListQuery): Promise<readonly Pet[]> {
    const filter = query.status === undefined ? { _id: { $gt: query.afterId } } : { status: query.status, _id: { $gt: query.afterId } };
    const docs = await guard(() =>
      this.pets.find(filter, { projection: PET_PROJECTION }).sort({ _id: 1 }).limit(query.limit).toArray(),
    );
    return docs.map(toPet);
  }
}

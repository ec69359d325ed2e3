import type {
  Category,
  CategoryListQuery,
  CategoryNameTaken,
  CategoryRepository,
  NewCategory,
  Recorder,
  Result,
} from '@petstore/domain';
import { categoryNameKey, fail, ok, StoreUnavailableError } from '@petstore/domain';
import type { Collection, Db } from 'mongodb';
import { classifyMongoError, guard } from './errors.js';
import { COLLECTIONS } from './indexes.js';
import { insertOutbox, MongoOutbox, type OutboxFields } from './outbox.mongo.js';

interface CategoryDocument extends OutboxFields {
  readonly _id: number;
  readonly name: string;
  /** `categoryNameKey(name)`: unique (index `key_1`). */
  readonly key: string;
  /** The creation token of a create under an `Idempotency-Key` (docs/rules.md §10), unique (sparse index `token_1`); absent otherwise. */
  readonly token?: string;
}

const PROJECTION = { _id: 1, name: 1 } as const;
/** Rounds lost to other writers taking the next id before a create gives up. */
const MAX_ATTEMPTS = 64;

const toCategory = (doc: Pick<CategoryDocument, '_id' | 'name'>): Category => ({ id: doc._id, name: doc.name });

/**
 * Categories in MongoDB, `_id` = the category id, with the name's key (`categoryNameKey`) under a
 * unique index: the database itself keeps one category per name, across every process.
 *
 * Ids are assigned as the pet store assigns them: the insert takes `max id + 1`, and the unique
 * `_id` sends a writer that lost the race for that id back for the next one, so ids exist only once
 * their category does, with no hole (see PetRepositoryMongo: what makes page walks exact). A
 * duplicate key is one of two things, told apart by reading the name's key: the name is taken
 * (answer its id), or the id was (try the next one). MongoDB 4.0 operations only: `insertOne`,
 * `findOne`, `find`.
 */
export class CategoryRepositoryMongo implements CategoryRepository {
  private readonly categories: Collection<CategoryDocument>;
  /** The highest id this process knows exists; `undefined` until read, or after another writer got ahead. */
  private lastId: number | undefined;

  /** `outbox`: shared with the connection's `EventStoreMongo` (its `onRecorded`); the events themselves live in the documents. */
  constructor(
    db: Db,
    private readonly outbox: MongoOutbox = new MongoOutbox(),
  ) {
    this.categories = db.collection<CategoryDocument>(COLLECTIONS.categories);
  }

  /** With `record`, the insert carries the category's events (docs/rules.md §15); a create that inserts nothing records nothing. */
  async create(
    category: NewCategory,
    token?: string,
    record?: Recorder<Category>,
  ): Promise<Result<Category, CategoryNameTaken>> {
    const key = categoryNameKey(category.name);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // A category already created with this token is the answer (it has the name, so this comes first).
      const earlier = token === undefined ? undefined : await this.findByCreationToken(token);
      if (earlier !== undefined) return ok(earlier);
      const taken = await this.findByKey(key);
      if (taken !== undefined) return fail({ existingId: taken.id });
      const id = (this.lastId ?? (await this.readMaxId())) + 1;
      const entries = this.outbox.entries(record, { id, name: category.name });
      const inserted = await guard(async () => {
        try {
          await this.categories.insertOne({
            _id: id,
            name: category.name,
            key,
            ...(token === undefined ? {} : { token }),
            ...insertOutbox(entries),
          });
          return true;
        } catch (error) {
          if (classifyMongoError(error) === 'duplicate_key') return false;
          throw error;
        }
      });
      if (inserted) {
        this.outbox.recorded(entries);
        this.lastId = Math.max(this.lastId ?? 0, id);
        return ok({ id, name: category.name });
      }
      // The token, the name or the id was taken meanwhile: the next round reads which.
      this.lastId = undefined;
    }
    throw new StoreUnavailableError('too many concurrent category creates; retry shortly');
  }

  async findById(id: number): Promise<Category | undefined> {
    const doc = await guard(() => this.categories.findOne({ _id: id }, { projection: PROJECTION }));
    return doc === null ? undefined : toCategory(doc);
  }

  async findByCreationToken(token: string): Promise<Category | undefined> {
    const doc = await guard(() => this.categories.findOne({ token }, { projection: PROJECTION }));
    return doc === null ? undefined : toCategory(doc);
  }

  async findByName(name: string): Promise<Category | undefined> {
    return this.findByKey(categoryNameKey(name));
  }

  async list(query: CategoryListQuery): Promise<readonly Category[]> {
    const docs = await guard(() =>
      this.categories
        .find({ _id: { $gt: query.afterId } }, { projection: PROJECTION })
        .sort({ _id: 1 })
        .limit(query.limit)
        .toArray(),
    );
    return docs.map(toCategory);
  }

  private async findByKey(key: string): Promise<Category | undefined> {
    const doc = await guard(() => this.categories.findOne({ key }, { projection: PROJECTION }));
    return doc === null ? undefined : toCategory(doc);
  }

  private async readMaxId(): Promise<number> {
    const top = await guard(() => this.categories.findOne({}, { sort: { _id: -1 }, projection: { _id: 1 } }));
    return top?._id ?? 0;
  }
}

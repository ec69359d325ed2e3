import type {
  Category,
  CategoryListQuery,
  CategoryNameTaken,
  CategoryRepository,
  NewCategory,
  Recorder,
  Result,
} from '@petstore/domain';
import type { MemoryOutbox } from './outbox.in-memory.js';
import { categoryNameKey, fail, ok } from '@petstore/domain';

/**
 * Categories in process memory. Ids come from a counter starting at 1 and nothing is deleted, so
 * category `id` sits at position `id − 1`: `findById` and `list` are array reads. Names are unique
 * by `categoryNameKey` through one map; `create` runs without yielding, so it is atomic. With an
 * `outbox`, a create that stores a category records its events there in the same step (docs/rules.md §15).
 */
export class CategoryRepositoryInMemory implements CategoryRepository {
  private readonly byPosition: Category[] = [];
  private readonly byKey = new Map<string, Category>();
  /** Creation token → the category created with it (docs/rules.md §10; only categories created with one). */
  private readonly byToken = new Map<string, Category>();

  constructor(private readonly outbox?: MemoryOutbox) {}

  async create(
    category: NewCategory,
    token?: string,
    record?: Recorder<Category>,
  ): Promise<Result<Category, CategoryNameTaken>> {
    const before = this.byPosition.length;
    const created = this.createSync(category, token);
    if (created.ok && this.byPosition.length > before) this.outbox?.record(record, created.value);
    return created;
  }

  /** The same as `create`, without the promise: for seeding. */
  createSync(category: NewCategory, token?: string): Result<Category, CategoryNameTaken> {
    const earlier = token === undefined ? undefined : this.byToken.get(token);
    if (earlier !== undefined) return ok(earlier);
    const key = categoryNameKey(category.name);
    const taken = this.byKey.get(key);
    if (taken !== undefined) return fail({ existingId: taken.id });
    const created: Category = Object.freeze({ id: this.byPosition.length + 1, name: category.name });
    this.byPosition.push(created);
    this.byKey.set(key, created);
    if (token !== undefined) this.byToken.set(token, created);
    return ok(created);
  }

  async findByCreationToken(token: string): Promise<Category | undefined> {
    return this.byToken.get(token);
  }

  async findById(id: number): Promise<Category | undefined> {
    return Number.isInteger(id) && id >= 1 ? this.byPosition[id - 1] : undefined;
  }

  async findByName(name: string): Promise<Category | undefined> {
    return this.byKey.get(categoryNameKey(name));
  }

  async list(query: CategoryListQuery): Promise<readonly Category[]> {
    const start = Math.max(0, query.afterId);
    return this.byPosition.slice(start, start + query.limit);
  }
}

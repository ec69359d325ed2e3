import type { Category, NewCategory } from '../category/category.js';
import type { Result } from '../result.js';
import type { Recorder } from '../events/event.js';

/** Why a category was not created: another one already has the same name; its id. */
export interface CategoryNameTaken {
  readonly existingId: number;
}

export interface CategoryListQuery {
  /** Only categories whose id is greater than this (0 for the first page). */
  readonly afterId: number;
  /** At most this many rows (the use case asks for one more than the page size). */
  readonly limit: number;
}

/**
 * Where categories live. Names are unique by `categoryNameKey` (NFC, lower case). Implementations
 * throw `StoreUnavailableError` when the store cannot answer.
 */
export interface CategoryRepository {
  /**
   * Stores the category under a new id (positive, unique, never reused, greater than every id
   * assigned before) unless a category with the same name (by `categoryNameKey`) exists: then
   * nothing is stored and the answer is that category's id. Atomic: of N concurrent creates of
   * one name, exactly one is stored.
   * With a creation `token` (docs/rules.md §10) the category carries it, written in the same single
   * write, and tokens are unique: when a category already carries this token, nothing is stored and
   * the answer is that category (checked before the name: it has the same name).
   * With `record` (docs/rules.md §15), a create that stores the category calls it with the category
   * and appends the events to its outbox in that same write; a create that stores nothing records nothing.
   */
  create(
    category: NewCategory,
    token?: string,
    record?: Recorder<Category>,
  ): Promise<Result<Category, CategoryNameTaken>>;
  /** The category created with this creation token, or `undefined` when none was (docs/rules.md §10). */
  findByCreationToken(token: string): Promise<Category | undefined>;
  findById(id: number): Promise<Category | undefined>;
  /** The category whose name is the same name as `name` (compared by `categoryNameKey`). */
  findByName(name: string): Promise<Category | undefined>;
  /** Categories with `id > afterId`, in ascending id order, at most `limit` of them. */
  list(query: CategoryListQuery): Promise<readonly Category[]>;
}

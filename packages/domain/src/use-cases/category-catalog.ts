import type { CategoryRepository } from '../ports/category-repository.port.js';
import type { Conflict, NotFound, ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import type { Category } from '../category/category.js';
import { parseCategoryId, validateNewCategory } from '../category/validate.js';
import { pageScope } from '../pagination/cursor.js';
import { assemblePage, byId, readPageRequest, type Page, type PageInput } from '../pagination/page.js';
import type { IdempotentCreation } from '../idempotency/idempotency.js';
import type { Clock } from '../ports/clock.port.js';
import { timestamp } from '../order/order.js';
import { categoryCreated } from '../events/recorders.js';

/** The scope of the one list of categories (it has no filter). */
const CATEGORIES_SCOPE = pageScope('categories');

/**
 * The categories' use cases (docs/rules.md §7): `createCategory`, `getCategory`, `listCategories`.
 * Expected failures come back as values; only a store outage (`StoreUnavailableError`) is thrown.
 */
export class CategoryCatalog {
  constructor(
    private readonly categories: CategoryRepository,
    /** The time of `category.created` (docs/rules.md §15); without a clock, creates record no event (a catalogue over a store with no feed). */
    private readonly clock?: Clock,
  ) {}

  /**
   * Creates a category; a name already taken (same name by NFC and case) is a `conflict` naming the existing id.
   * With `creation` (a create under an `Idempotency-Key`, docs/rules.md §10), the category carries its token.
   */
  async createCategory(
    body: unknown,
    creation?: IdempotentCreation,
  ): Promise<Result<Category, ValidationFailed | Conflict>> {
    const draft = validateNewCategory(body);
    if (!draft.ok) return draft;
    const record = this.clock === undefined ? undefined : categoryCreated(timestamp(this.clock.now()));
    const created = await this.categories.create(draft.value, creation?.token, record);
    if (created.ok) return created;
    const { existingId } = created.error;
    return fail({
      code: 'conflict',
      message: `category ${existingId} already has this name (names are compared ignoring case and Unicode normalization); use categoryId ${existingId}`,
    });
  }

  /**
   * The category an earlier attempt of this create stored under its `Idempotency-Key` (docs/rules.md §10);
   * `undefined` when none did, or when no earlier attempt can have (a first claim: no look-up).
   */
  async categoryCreatedUnder(creation: IdempotentCreation): Promise<Category | undefined> {
    return creation.resumed ? this.categories.findByCreationToken(creation.token) : undefined;
  }

  /** `id` may be the raw path segment: it follows the `petId` rules. */
  async getCategory(id: string | number): Promise<Result<Category, ValidationFailed | NotFound>> {
    const parsed = parseCategoryId(String(id));
    if (!parsed.ok) return parsed;
    const category = parsed.value === null ? undefined : await this.categories.findById(parsed.value);
    return category ? ok(category) : fail({ code: 'not_found', message: `no category has id ${String(id)}` });
  }

  async listCategories(input: PageInput = {}): Promise<Result<Page<Category>, ValidationFailed>> {
    const request = readPageRequest(input, CATEGORIES_SCOPE);
    if (!request.ok) return request;
    const { limit, afterId } = request.value;
    const rows = await this.categories.list({ afterId, limit: limit + 1 });
    return ok(assemblePage(rows, limit, CATEGORIES_SCOPE, byId));
  }
}

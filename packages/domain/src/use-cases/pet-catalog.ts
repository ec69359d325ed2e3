import type { Clock } from '../ports/clock.port.js';
import type { PetListQuery, PetRepository } from '../ports/pet-repository.port.js';
import type { CategoryRepository } from '../ports/category-repository.port.js';
import type { Gone, NotFound, ValidationFailed } from '../errors.js';
import { quoteInput, validationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import type { Pet, PetRecord, PetStatus } from '../pet/pet.js';
import { isPetStatus, PET_STATUSES } from '../pet/pet.js';
import { parsePetId, validateNewPet } from '../pet/validate.js';
import { readCategoryFilter } from '../category/validate.js';
import { pageScope } from '../pagination/cursor.js';
import { assemblePage, byId, readPageRequest, type Page, type PageInput } from '../pagination/page.js';
import { GET_PET_DEPRECATION, isSunset, type DeprecationPolicy } from '../deprecation/sunset.js';
import type { IdempotentCreation } from '../idempotency/idempotency.js';
import { timestamp } from '../order/order.js';
import { petCreated } from '../events/recorders.js';

/** What `listPets` takes: every field optional, each checked here whatever its type. */
export interface ListPetsInput extends PageInput {
  readonly status?: unknown;
  /** A category id: a positive safe integer, or its canonical decimal text (as a query string has it). */
  readonly categoryId?: unknown;
}

/**
 * The catalogue's use cases: `createPet`, `listPets`, `getPet`. Expected failures come back as
 * values; only a store outage (`StoreUnavailableError`) is thrown.
 */
export class PetCatalog {
  constructor(
    private readonly pets: PetRepository,
    /** Where `createPet` checks that `categoryId` names a category. */
    private readonly categories: Pick<CategoryRepository, 'findById'>,
    private readonly clock: Clock,
    private readonly getPetDeprecation: DeprecationPolicy = GET_PET_DEPRECATION,
  ) {}

  /**
   * With `creation` (a create under an `Idempotency-Key`, docs/rules.md §10), the pet carries its token: at most one pet per token.
   * The create records `pet.created` (docs/rules.md §15); one answered with an earlier pet records nothing.
   */
  async createPet(body: unknown, creation?: IdempotentCreation): Promise<Result<Pet, ValidationFailed>> {
    const draft = validateNewPet(body);
    if (!draft.ok) return draft;
    // After the shape rules (docs/rules.md §1): a well-formed id must also name a category.
    const { categoryId } = draft.value;
    if ((await this.categories.findById(categoryId)) === undefined) {
      return fail(validationFailed('categoryId', `categoryId ${categoryId} names no category`));
    }
    return ok(await this.pets.create(draft.value, creation?.token, petCreated(timestamp(this.clock.now()))));
  }

  /**
   * The pet an earlier attempt of this create stored under its `Idempotency-Key` (docs/rules.md §10),
   * as it is now (a pet withdrawn since: as it was when withdrawn); `undefined` when none did, or when no
   * earlier attempt can have (a first claim: no look-up).
   */
  async petCreatedUnder(creation: IdempotentCreation): Promise<Pet | undefined> {
    return creation.resumed ? this.pets.findByCreationToken(creation.token) : undefined;
  }

  async listPets(input: ListPetsInput = {}): Promise<Result<Page<Pet>, ValidationFailed>> {
    let status: PetStatus | undefined;
    if (input.status !== undefined) {
      if (!isPetStatus(input.status)) {
        return fail(validationFailed('status', `status must be one of ${PET_STATUSES.join(', ')}`));
      }
      status = input.status;
    }
    let categoryId: number | undefined;
    if (input.categoryId !== undefined) {
      const read = readCategoryFilter(input.categoryId);
      if (!read.ok) return read;
      categoryId = read.value;
    }
    // The cursor is bound to both filters: a cursor of one listing is refused by every other.
    const scope = pageScope('pets', { status, categoryId });
    const request = readPageRequest(input, scope);
    if (!request.ok) return request;
    const { limit, afterId } = request.value;
    // An id naming no category needs no lookup: no pet can have it (categories are never deleted), so the page is empty.
    const query: PetListQuery = {
      afterId,
      limit: limit + 1,
      ...(status === undefined ? {} : { status }),
      ...(categoryId === undefined ? {} : { categoryId }),
    };
    return ok(assemblePage(await this.pets.list(query), limit, scope, byId));
  }

  /**
   * Deprecated operation: answers `gone` from its sunset on. `id` may be the raw path segment. The
   * pet comes with its revision (its `ETag`, docs/rules.md §12); a withdrawn pet is not found.
   */
  async getPet(id: string | number): Promise<Result<PetRecord, ValidationFailed | NotFound | Gone>> {
    if (isSunset(this.getPetDeprecation, this.clock.now())) {
      return fail({
        code: 'gone',
        message: `this operation was removed; use GET ${this.getPetDeprecation.successor} instead`,
      });
    }
    const parsed = parsePetId(String(id));
    if (!parsed.ok) return parsed;
    const pet = parsed.value === null ? undefined : await this.pets.findById(parsed.value);
    return pet ? ok(pet) : fail({ code: 'not_found', message: `no pet has id ${quoteInput(String(id))}` });
  }
}

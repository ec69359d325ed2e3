import type { Clock } from '../ports/clock.port.js';
import type { Random } from '../ports/random.port.js';
import type { PetListQuery, PetRepository } from '../ports/pet-repository.port.js';
import type { CategoryRepository } from '../ports/category-repository.port.js';
import type { PhotoStore } from '../ports/photo-store.port.js';
import type { PhotoLinks, PhotoView } from '../ports/photo-links.port.js';
import type { Gone, NotFound, ValidationFailed } from '../errors.js';
import { quoteInput, validationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import type { Pet, PetRecord } from '../pet/pet.js';
import { parsePetId, validateNewPet } from '../pet/validate.js';
import { petEntry } from '../pet/keys.js';
import { readCatalogQuery, type CatalogQueryInput } from '../pet/catalog-query.js';
import { assembleCatalogPage, catalogScope, readCatalogPage } from '../pet/catalog-page.js';
import type { Page, PageInput } from '../pagination/page.js';
import { GET_PET_DEPRECATION, isSunset, type DeprecationPolicy } from '../deprecation/sunset.js';
import type { IdempotentCreation } from '../idempotency/idempotency.js';
import { timestamp } from '../order/order.js';
import { petCreated } from '../events/recorders.js';

/** The list parameters of docs/rules.md §16, as the query string holds them. */
type CatalogParameter = keyof CatalogQueryInput;
const CATALOG_PARAMETERS: readonly CatalogParameter[] = ['status', 'categoryId', 'q', 'sort', 'seed', 'expand'];

/**
 * What `listPets` takes: `limit` and `cursor`, and the parameters of docs/rules.md §16 as text (a
 * value given more than once as an array of texts; `categoryId` may also be a number). Every field
 * is optional and checked here, whatever its type.
 */
export type ListPetsInput = PageInput & { readonly [K in CatalogParameter]?: unknown };

/**
 * A `listPets` page: the pets as the store hands them out and, with `expand=photos` (docs/rules.md
 * §16), the views of their photos by pet id (a pet without photos has none there). Beside the pets,
 * not copied into them: a store's pet objects stay what they are (the memory store's, frozen, are
 * handed out again and again, and an adapter may keep what it makes of one).
 */
export interface PetPage extends Page<Pet> {
  readonly photos?: ReadonlyMap<number, readonly PhotoView[]>;
}

/** Where `expand=photos` reads the photos of a page's pets (one read per page), and how it links them. */
export interface PagePhotos {
  readonly store: Pick<PhotoStore, 'listOfPets'>;
  readonly links: PhotoLinks;
}

/**
 * The list parameters as `readCatalogQuery` reads them: texts as they are; a number (an id an
 * embedder passes) as its decimal text, which the parser checks like any; anything else is refused,
 * naming the parameter.
 */
const catalogInput = (input: ListPetsInput): Result<CatalogQueryInput, ValidationFailed> => {
  const read: Partial<Record<CatalogParameter, string | readonly string[]>> = {};
  for (const name of CATALOG_PARAMETERS) {
    const value = input[name];
    if (value === undefined) continue;
    if (typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string')))
      read[name] = value as string | readonly string[];
    else if (typeof value === 'number') read[name] = String(value);
    else return fail(validationFailed(name, `${name} must be given as text`));
  }
  return ok(read);
};

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
    /** Where each new pet's shuffle key comes from (docs/rules.md §16, `sort=random`). */
    private readonly random: Random,
    /** Where `expand=photos` reads and links a page's photos; without it, `expand=photos` is refused. */
    private readonly photos?: PagePhotos,
    private readonly getPetDeprecation: DeprecationPolicy = GET_PET_DEPRECATION,
  ) {}

  /**
   * With `creation` (a create under an `Idempotency-Key`, docs/rules.md §10), the pet carries its token: at most one pet per token.
   * The create records `pet.created` (docs/rules.md §15); one answered with an earlier pet records nothing.
   * The pet is stored with its search keys (`petEntry`): its shuffle key is drawn here, once.
   */
  async createPet(body: unknown, creation?: IdempotentCreation): Promise<Result<Pet, ValidationFailed>> {
    const draft = validateNewPet(body);
    if (!draft.ok) return draft;
    // After the shape rules (docs/rules.md §1): a well-formed id must also name a category.
    const { categoryId } = draft.value;
    if ((await this.categories.findById(categoryId)) === undefined) {
      return fail(validationFailed('categoryId', `categoryId ${categoryId} names no category`));
    }
    const entry = petEntry(draft.value, this.random);
    return ok(await this.pets.create(entry, creation?.token, petCreated(timestamp(this.clock.now()))));
  }

  /**
   * The pet an earlier attempt of this create stored under its `Idempotency-Key` (docs/rules.md §10),
   * as it is now (a pet withdrawn since: as it was when withdrawn); `undefined` when none did, or when no
   * earlier attempt can have (a first claim: no look-up).
   */
  async petCreatedUnder(creation: IdempotentCreation): Promise<Pet | undefined> {
    return creation.resumed ? this.pets.findByCreationToken(creation.token) : undefined;
  }

  /**
   * A page of pets (docs/rules.md §2, §16): filtered, searched and sorted as the parameters say,
   * from the position of `cursor`, in one store read; with `expand=photos`, the page's photos in one
   * more read. Items are the store's objects (they may hold more than a `Pet`'s fields: show only those).
   */
  async listPets(input: ListPetsInput = {}): Promise<Result<PetPage, ValidationFailed>> {
    const parameters = catalogInput(input);
    if (!parameters.ok) return parameters;
    const read = readCatalogQuery(parameters.value);
    if (!read.ok) return read;
    const catalog = read.value;
    if (catalog.expandPhotos && this.photos === undefined)
      return fail(validationFailed('expand', 'expand=photos is not served here: this catalogue has no photo store'));
    // The cursor is bound to every parameter that chooses or orders the pets: one listing's cursor is refused by every other.
    const scope = catalogScope(catalog);
    const request = readCatalogPage(input, catalog, scope);
    if (!request.ok) return request;
    const { limit, order } = request.value;
    // An id naming no category needs no lookup: no pet can have it (categories are never deleted), so the page is empty.
    const query: PetListQuery = {
      order,
      limit: limit + 1,
      ...(catalog.statuses === undefined ? {} : { statuses: catalog.statuses }),
      ...(catalog.categoryIds === undefined ? {} : { categoryIds: catalog.categoryIds }),
      ...(catalog.q === undefined ? {} : { words: catalog.q.words }),
    };
    const page = assembleCatalogPage(await this.pets.list(query), limit, catalog, scope);
    return ok(catalog.expandPhotos ? { ...page, photos: await this.photosOf(page.items) } : page);
  }

  /** The views of the pets' photos by pet id (each pet's in ascending id), read in one call for all of them. */
  private async photosOf(pets: readonly Pet[]): Promise<ReadonlyMap<number, readonly PhotoView[]>> {
    const byPet = new Map<number, PhotoView[]>();
    if (pets.length === 0 || this.photos === undefined) return byPet;
    const photos = await this.photos.store.listOfPets(pets.map((pet) => pet.id));
    // Stryker disable next-line ArrayDeclaration: the views of no photos are never read
    const views = photos.length === 0 ? [] : await this.photos.links.links(photos);
    photos.forEach((photo, i) => {
      const view = views[i];
      if (view === undefined) throw new Error(`PhotoLinks answered ${views.length} views for ${photos.length} photos`);
      const list = byPet.get(photo.petId);
      if (list === undefined) byPet.set(photo.petId, [view]);
      else list.push(view);
    });
    return byPet;
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

import type { Category, Order, Pet, PetListItem, PhotoView } from '@petstore/domain';

// Characters that JSON.stringify escapes in a string (quote, backslash, controls, lone surrogates).
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

const jsonString = (text: string): string => (NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`);

/**
 * A `Pet` as JSON: the bytes `JSON.stringify` gives for the same object (a property holds them
 * equal), faster since the shape is known and most names need no escaping. Anything that is not a
 * finite number where one belongs goes to `JSON.stringify`. Only the four fields of a `Pet` are
 * written (a stored record's revision and hold never are).
 */
const petJson = (pet: Pet): string => {
  if (!Number.isFinite(pet.id) || !Number.isFinite(pet.categoryId))
    return JSON.stringify({ id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status });
  return `{"id":${pet.id},"name":${jsonString(pet.name)},"categoryId":${pet.categoryId},"status":${jsonString(pet.status)}}`;
};

/**
 * The JSON of each frozen pet, made once. A frozen pet is a value a store hands out again and
 * again as it is (the memory store keeps one frozen object per pet and replaces it when the pet
 * changes), so its text is too: a page of the hot list is then one `join` of texts already made,
 * a flat string, instead of a hundred concatenations that Koa must flatten again to measure.
 * Pets that are not frozen (a networked store makes new objects per query) are serialised each time.
 */
const madeJson = new WeakMap<Pet, string>();

export const serializePet = (pet: Pet): string => {
  if (!Object.isFrozen(pet)) return petJson(pet);
  let json = madeJson.get(pet);
  if (json === undefined) madeJson.set(pet, (json = petJson(pet)));
  return json;
};

/** A page of pets as a JSON array, as `JSON.stringify` would write it. */
export const serializePets = (pets: readonly Pet[]): string => {
  const parts = new Array<string>(pets.length);
  for (let i = 0; i < pets.length; i++) parts[i] = serializePet(pets[i]!);
  return `[${parts.join(',')}]`;
};

/** A photo of an expanded page (docs/rules.md §16): its six fields, in the order of `PhotoView`. */
const photoViewJson = (photo: PhotoView): string =>
  JSON.stringify({
    id: photo.id,
    contentType: photo.contentType,
    width: photo.width,
    height: photo.height,
    url: photo.url,
    srcset: photo.srcset,
  });

/**
 * A page of `expand=photos` as a JSON array (docs/rules.md §16): each pet's four fields, then
 * `photos` (`[]` for a pet the use case gave none).
 */
export const serializePetsWithPhotos = (pets: readonly PetListItem[]): string => {
  const parts = new Array<string>(pets.length);
  for (let i = 0; i < pets.length; i++) {
    const pet = pets[i]!;
    const json = petJson(pet);
    parts[i] = `${json.slice(0, -1)},"photos":[${(pet.photos ?? []).map(photoViewJson).join(',')}]}`;
  }
  return `[${parts.join(',')}]`;
};

/** A `Category` as JSON (only its two fields, in this order). */
export const serializeCategory = (category: Category): string =>
  JSON.stringify({ id: category.id, name: category.name });

/** A page of categories as a JSON array. */
export const serializeCategories = (categories: readonly Category[]): string =>
  `[${categories.map(serializeCategory).join(',')}]`;
/** An `Order` as JSON, fields in the order of the schema. */
export const serializeOrder = (order: Order): string =>
  JSON.stringify({
    id: order.id,
    petId: order.petId,
    status: order.status,
    placedAt: order.placedAt,
    updatedAt: order.updatedAt,
  });

/** A page of orders as a JSON array. */
export const serializeOrders = (orders: readonly Order[]): string => `[${orders.map(serializeOrder).join(',')}]`;

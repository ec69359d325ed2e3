import type { Category, Order, Pet, PhotoView } from '@petstore/domain';

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
 * `make` (a value's JSON, as text or bytes) made once per frozen value. A frozen pet, photo view or
 * event is a value a store or use case hands out again and again as it is (the memory store keeps
 * one frozen object per pet and per event, and replaces a pet's when it changes; the photo URLs keep
 * one frozen view per photo and secret), so its JSON is too: a page of the hot list is then one
 * `join` of texts already made, a flat string, instead of a hundred concatenations that Koa must
 * flatten again to measure. Values that are not frozen (a networked store makes new objects per
 * query) are serialised each time.
 */
export const madeOnce = <T extends object, R>(make: (value: T) => R): ((value: T) => R) => {
  const made = new WeakMap<T, R>();
  return (value) => {
    // Looked up first: a value kept was frozen when kept, and stays so (`Object.isFrozen` is a call into V8's runtime).
    let result = made.get(value);
    if (result !== undefined) return result;
    result = make(value);
    if (Object.isFrozen(value)) made.set(value, result);
    return result;
  };
};

export const serializePet = madeOnce(petJson);

/** A page of pets as a JSON array, as `JSON.stringify` would write it. */
export const serializePets = (pets: readonly Pet[]): string => {
  const parts = new Array<string>(pets.length);
  for (let i = 0; i < pets.length; i++) parts[i] = serializePet(pets[i]!);
  return `[${parts.join(',')}]`;
};

/** A photo of an expanded page (docs/rules.md §16) as UTF-8 bytes: its six fields, in the order of `PhotoView`. */
const viewBytes = madeOnce((photo: PhotoView): Buffer =>
  Buffer.from(
    JSON.stringify({
      id: photo.id,
      contentType: photo.contentType,
      width: photo.width,
      height: photo.height,
      url: photo.url,
      srcset: photo.srcset,
    }),
  ),
);

/** A pet of an expanded page as UTF-8 bytes, up to its photos: its four fields, then `"photos":[`. */
const petHeadBytes = madeOnce((pet: Pet): Buffer => Buffer.from(`${petJson(pet).slice(0, -1)},"photos":[`));

/** The bytes a JSON array of bytes already made is put together with (pages of events, expanded pages of pets). */
export const OPEN = Buffer.from('[');
export const CLOSE = Buffer.from(']');
export const EMPTY_PAGE = Buffer.from('[]');
const CLOSE_PET = Buffer.from(']}');
const NEXT_PET = Buffer.from(']},');
const COMMA = Buffer.from(',');

/**
 * A page of `expand=photos` as JSON bytes (docs/rules.md §16): each pet's four fields, then
 * `photos`, its views from `photos` (`[]` when it has none there). Bytes, not text: each photo
 * brings a URL and a `srcset` (kilobytes a page), and the bytes of each frozen pet and view are
 * made once (`madeOnce`), so a page asked again is one copy of bytes already made; a string of that
 * size would be built, scanned for its length and encoded again per answer.
 */
export const serializePetsWithPhotos = (
  pets: readonly Pet[],
  photos: ReadonlyMap<number, readonly PhotoView[]>,
): Buffer => {
  if (pets.length === 0) return EMPTY_PAGE;
  const parts: Buffer[] = [OPEN];
  for (let i = 0; i < pets.length; i++) {
    const pet = pets[i]!;
    if (i > 0) parts.push(NEXT_PET);
    parts.push(petHeadBytes(pet));
    const views = photos.get(pet.id) ?? [];
    for (let j = 0; j < views.length; j++) {
      if (j > 0) parts.push(COMMA);
      parts.push(viewBytes(views[j]!));
    }
  }
  parts.push(CLOSE_PET, CLOSE);
  return Buffer.concat(parts);
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

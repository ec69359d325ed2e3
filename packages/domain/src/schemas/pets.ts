/** The pets' schemas (docs/rules.md §1, §3, §12, §16). */
import { MAX_CATEGORY_ID, NAME_MAX_LENGTH, NAME_MIN_LENGTH, PET_STATUSES } from '../pet/pet.js';
import { NAME_PATTERN } from '../text/name.js';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN } from '../pagination/limit.js';
import { MAX_CURSOR_LENGTH } from '../pagination/cursor.js';
import { CATALOG_SORTS, MAX_CATEGORY_IDS } from '../pet/catalog-query.js';
import { MAX_PETS_CURSOR_LENGTH } from '../pet/catalog-page.js';
import { QUERY_MAX_LENGTH } from '../pet/search.js';
import { SEED_MAX } from '../pet/shuffle.js';
import { MAX_PET_ID } from '../order/validate.js';
import { assignedId, PATH_ID_MAXIMUM } from './shared.js';

export const PetStatusSchema = {
  type: 'string',
  enum: [...PET_STATUSES],
  description: 'Availability status. `available` is stored when a create omits it.',
} as const;

const petProperties = {
  name: {
    type: 'string',
    minLength: NAME_MIN_LENGTH,
    maxLength: NAME_MAX_LENGTH,
    pattern: NAME_PATTERN,
    description:
      "The animal's name: 1–200 characters, at least one not white space, well-formed Unicode. Stored as sent.",
  },
  categoryId: {
    type: 'integer',
    format: 'int64',
    minimum: 1,
    maximum: MAX_CATEGORY_ID,
    description: 'Identifier of the category the animal belongs to.',
  },
  status: PetStatusSchema,
} as const;

export const NewPetSchema = {
  type: 'object',
  description: 'A new animal. `id` is assigned by the service and must not be sent.',
  properties: petProperties,
  required: ['name', 'categoryId'],
  additionalProperties: false,
} as const;

/** `PATCH /pets/{petId}` (docs/rules.md §12): any of the three fields of a pet, at least one; closed. */
export const PetPatchSchema = {
  type: 'object',
  description:
    'Changes to an animal: any of `name`, `categoryId` (must name an existing category) and `status`, at least one, each under the rules of a new animal. ' +
    '`name` and `categoryId` may change in any status; `status` only while no open (`placed` or `approved`) order reserves the animal (else 409). ' +
    'Setting a `sold` animal back to `available` records a returned adoption. A field sent with the value it has changes nothing. `id` is assigned by the service and never changes.',
  properties: petProperties,
  minProperties: 1,
  additionalProperties: false,
} as const;

export const PetSchema = {
  type: 'object',
  properties: {
    id: assignedId('Unique identifier, assigned by the service on creation; increasing in creation order.', MAX_PET_ID),
    ...petProperties,
  },
  required: ['id', 'name', 'categoryId', 'status'],
  additionalProperties: false,
} as const;

/** The `cursor` of a paged list (`GET /categories`, `/store/orders`…): at most 64 characters. */
export const PageCursorSchema = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_CURSOR_LENGTH,
  description: 'Opaque position of the next page, taken from the `Link: rel="next"` header.',
} as const;

const STATUS_ITEM = `(?:${PET_STATUSES.join('|')})`;
const CATEGORY_ITEM = '[1-9][0-9]{0,15}';

/**
 * Query of `GET /pets` (docs/rules.md §2, §16). Unknown parameters are ignored; `limit`, `seed` and a
 * single `categoryId` arrive as text and are read as integers when written canonically. The lists'
 * shapes are checked here; the rest (distinct values, at most 20 ids, `q`'s words, `sort` with
 * `seed`) by the domain's `readCatalogQuery`, whose messages name the parameter.
 */
export const ListPetsQuerySchema = {
  type: 'object',
  properties: {
    limit: {
      type: 'integer',
      minimum: LIMIT_MIN,
      maximum: LIMIT_MAX,
      default: LIMIT_DEFAULT,
      description: 'Maximum number of animals to return.',
    },
    status: {
      type: 'string',
      pattern: `^${STATUS_ITEM}(?:,${STATUS_ITEM}){0,${PET_STATUSES.length - 1}}$`,
      description:
        'Only animals with this status (`available`, `pending` or `sold`), or with any of several distinct statuses separated by commas (`available,pending`).',
      examples: ['available', 'available,pending'],
    },
    categoryId: {
      oneOf: [
        { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_CATEGORY_ID },
        { type: 'string', pattern: `^${CATEGORY_ITEM}(?:,${CATEGORY_ITEM}){1,${MAX_CATEGORY_IDS - 1}}$` },
      ],
      description:
        'Only animals of this category, or of any of up to 20 distinct categories separated by commas (`1,4,9`): positive decimal integers without sign, leading zeros or fraction. An id that names no category matches no animal.',
      examples: [1, '1,4,9'],
    },
    q: {
      type: 'string',
      minLength: 1,
      maxLength: QUERY_MAX_LENGTH,
      description:
        'Name search, 1 to 100 characters holding a letter or digit: an animal matches when every word of `q` begins a word of its name, both folded (decomposed, marks removed, lower-cased; words split at every character that is neither a letter nor a digit). `re` finds "Rex" and "Renée", `rex old` finds "Old Rex", `ex` no "Rex".',
      examples: ['re', 'rex old'],
    },
    sort: {
      type: 'string',
      enum: [...CATALOG_SORTS],
      default: 'id',
      description:
        'Order: `id` (ascending id), `-id` (newest first), `name` (folded name in code-point order, then id) or `random` (an order fixed by `seed`).',
      examples: ['name', '-id', 'random'],
    },
    seed: {
      type: 'integer',
      minimum: 0,
      maximum: SEED_MAX,
      description:
        'With `sort=random`, and required by it: the same seed gives the same order on every call and page, another seed another order.',
      examples: [42],
    },
    expand: {
      type: 'string',
      enum: ['photos'],
      description:
        '`photos`: each animal of the page carries its photos (ascending id), each with a signed `url` and a `srcset`.',
      examples: ['photos'],
    },
    cursor: {
      ...PageCursorSchema,
      maxLength: MAX_PETS_CURSOR_LENGTH,
      description:
        'Opaque position of the next page, taken from the `Link: rel="next"` header. Bound to `status`, `categoryId`, `q`, `sort` and `seed`.',
    },
  },
  additionalProperties: true,
} as const;

/** Path of `GET /pets/{petId}`: a canonical positive decimal integer within int64. */
export const PetIdSchema = {
  type: 'integer',
  format: 'int64',
  minimum: 1,
  maximum: PATH_ID_MAXIMUM,
  description:
    'Identifier of the animal: a positive decimal integer up to 9223372036854775807, without sign, leading zeros or fraction.',
} as const;

/** The pets' schemas (docs/rules.md §1, §3, §12). */
import { MAX_CATEGORY_ID, NAME_MAX_LENGTH, NAME_MIN_LENGTH, PET_STATUSES } from '../pet/pet.js';
import { NAME_PATTERN } from '../text/name.js';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN } from '../pagination/limit.js';
import { MAX_CURSOR_LENGTH } from '../pagination/cursor.js';
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

/** Query of `GET /pets`. Unknown parameters are ignored; `limit` arrives as text and is read as an integer. */
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
    status: { ...PetStatusSchema, description: 'Only animals with this status.' },
    categoryId: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: MAX_CATEGORY_ID,
      description:
        'Only animals of this category: a positive decimal integer without sign, leading zeros or fraction. An id that names no category gives an empty list.',
    },
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_CURSOR_LENGTH,
      description:
        'Opaque position of the next page, taken from the `Link: rel="next"` header. Bound to the `status` and `categoryId` filters.',
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

/**
 * The JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) of every request and response,
 * as plain data: the HTTP adapter compiles them with ajv and builds the OpenAPI document from
 * them, so validation and documentation cannot drift apart.
 */
import { ERROR_CODES } from '../errors.js';
import { MAX_CATEGORY_ID, NAME_MAX_LENGTH, NAME_MIN_LENGTH, PET_STATUSES } from '../pet/pet.js';
import { NAME_PATTERN } from '../pet/validate.js';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN } from '../pagination/limit.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN } from '../idempotency/idempotency.js';

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
    description: "The animal's name: 1–200 characters, at least one not white space, well-formed Unicode. Stored as sent.",
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

export const PetSchema = {
  type: 'object',
  properties: {
    id: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      description: 'Unique identifier, assigned by the service on creation; increasing in creation order.',
    },
    ...petProperties,
  },
  required: ['id', 'name', 'categoryId', 'status'],
  additionalProperties: false,
} as const;

export const PetsSchema = { type: 'array', items: PetSchema } as const;

export const ErrorSchema = {
  type: 'object',
  properties: {
    code: { type: 'string', enum: [...ERROR_CODES], description: 'Machine-readable error code.' },
    message: { type: 'string', description: 'What went wrong and what to do about it.' },
    status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code, repeated.' },
  },
  required: ['code', 'message', 'status'],
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
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 96,
      description: 'Opaque position of the next page, taken from the `Link: rel="next"` header. Bound to the status filter.',
    },
  },
  additionalProperties: true,
} as const;

/** Path of `GET /pets/{petId}`: a canonical positive decimal integer within int64. */
export const PetIdSchema = {
  type: 'integer',
  format: 'int64',
  minimum: 1,
  // No `maximum`: 2^63 − 1 has no exact JavaScript number (it would print as 2^63); `int64` bounds it.
  description: 'Identifier of the animal: a positive decimal integer up to 9223372036854775807, without sign, leading zeros or fraction.',
} as const;

/** The `Idempotency-Key` request header of the creates (CONTRACT.md §10). */
export const IdempotencyKeySchema = {
  type: 'string',
  minLength: 1,
  maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
  pattern: IDEMPOTENCY_KEY_PATTERN,
  description:
    'Makes the create safe to retry: 1–255 printable ASCII characters, unique per request (a UUID is a good choice), scoped to your API key. A repeat with the same method, path and body within 24 h gets the first answer again with `Idempotent-Replayed: true` and creates nothing; a repeat while the first is still processed gets 409 `conflict`; the same key with another path or body gets 422 `idempotency_key_reused`.',
} as const;

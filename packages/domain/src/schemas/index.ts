/**
 * The JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) of every request and response,
 * as plain data: the HTTP adapter compiles them with ajv and builds the OpenAPI document from
 * them, so validation and documentation cannot drift apart.
 */
import { ERROR_CODES } from '../errors.js';
import { MAX_CATEGORY_ID, NAME_MAX_LENGTH, NAME_MIN_LENGTH, PET_STATUSES } from '../pet/pet.js';
import { NAME_PATTERN } from '../pet/validate.js';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN } from '../pagination/limit.js';
import { PLAN_NAMES } from '../quota/plans.js';
import { KEY_ROLES, KEY_SOURCES } from '../auth/api-key.js';
import { LABEL_MAX_LENGTH, LABEL_MIN_LENGTH, LABEL_PATTERN, QUOTA_MAX, QUOTA_MIN } from '../auth/key-request.js';

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

// ---- API keys and plans (CONTRACT.md §9) ----

/** A key's public id: `key_` and the first 12 hex digits of its SHA-256. */
export const KeyIdSchema = {
  type: 'string',
  pattern: '^key_[0-9a-f]{12}$',
  description: "A key's public id: `key_` and the first 12 hex digits of the key's SHA-256. Safe to log and share.",
} as const;

const PlanNameSchema = {
  type: 'string',
  enum: [...PLAN_NAMES],
  description: 'The plan: free, pro and business have fixed numbers; enterprise carries its own perMinute and perDay.',
} as const;

const quotaNumber = (description: string) =>
  ({ type: 'integer', format: 'int64', minimum: QUOTA_MIN, maximum: QUOTA_MAX, description }) as const;

const keyLabel = {
  type: 'string',
  minLength: LABEL_MIN_LENGTH,
  maxLength: LABEL_MAX_LENGTH,
  pattern: LABEL_PATTERN,
  description: 'A note for operators (who holds the key, what for): 1–100 characters, well-formed Unicode.',
} as const;

/** `POST /admin/keys`. Checked besides (the domain's rules): the numbers only with enterprise, always with it, and perMinute ≤ perDay. */
export const NewApiKeySchema = {
  type: 'object',
  description: 'A key to issue. `perMinute` and `perDay` are sent for enterprise keys only, and then both (1 ≤ perMinute ≤ perDay ≤ 2^53 − 1).',
  properties: {
    plan: PlanNameSchema,
    label: keyLabel,
    perMinute: quotaNumber('Enterprise only: requests a UTC minute.'),
    perDay: quotaNumber('Enterprise only: requests a UTC day.'),
  },
  required: ['plan'],
  additionalProperties: false,
  dependentRequired: { perMinute: ['perDay'], perDay: ['perMinute'] },
} as const;

/** `PATCH /admin/keys/{keyId}`: any of the fields, at least one; the numbers together. */
export const ApiKeyPatchSchema = {
  type: 'object',
  description:
    'Changes to a key, any of the fields. A plan change applies from the next request; the counts of the current windows are kept. `perMinute` and `perDay` go together and only with an enterprise key (changing to enterprise needs them).',
  properties: {
    plan: PlanNameSchema,
    perMinute: quotaNumber('Enterprise only: requests a UTC minute.'),
    perDay: quotaNumber('Enterprise only: requests a UTC day.'),
    label: keyLabel,
  },
  minProperties: 1,
  additionalProperties: false,
  dependentRequired: { perMinute: ['perDay'], perDay: ['perMinute'] },
} as const;

const apiKeyProperties = {
  id: KeyIdSchema,
  role: { type: 'string', enum: [...KEY_ROLES], description: '`client`: the operations of pets, categories and orders; `admin`: also this API and the order transitions.' },
  plan: { ...PlanNameSchema, description: 'The plan the key is limited by (admin keys: business).' },
  quota: {
    type: 'object',
    description: 'The numbers the key is limited by.',
    properties: { perMinute: quotaNumber('Requests a UTC minute.'), perDay: quotaNumber('Requests a UTC day.') },
    required: ['perMinute', 'perDay'],
    additionalProperties: false,
  },
  label: keyLabel,
  source: { type: 'string', enum: [...KEY_SOURCES], description: '`settings`: from the server settings, changed only there; `api`: issued through this API.' },
  createdAt: { type: 'string', format: 'date-time', description: 'When the key was issued (settings keys: when the server started), RFC 3339 UTC with milliseconds.' },
} as const;

/** A key as the admin API shows it: never the key, never its hash. */
export const ApiKeySchema = {
  type: 'object',
  properties: apiKeyProperties,
  required: ['id', 'role', 'plan', 'quota', 'source', 'createdAt'],
  additionalProperties: false,
} as const;

/** The answer to `POST /admin/keys`: the key itself, shown this once. */
export const CreatedApiKeySchema = {
  type: 'object',
  properties: {
    ...apiKeyProperties,
    key: {
      type: 'string',
      pattern: '^pet_[A-Za-z0-9_-]{43}$',
      description: 'The key: `pet_` and 43 base64url characters (256 random bits). Shown only in this answer; store it now.',
    },
  },
  required: ['id', 'role', 'plan', 'quota', 'source', 'createdAt', 'key'],
  additionalProperties: false,
} as const;

/** Query of `GET /admin/keys`: unknown parameters are ignored. */
export const ListKeysQuerySchema = {
  type: 'object',
  properties: {
    limit: ListPetsQuerySchema.properties.limit,
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 96,
      description: 'Opaque position of the next page, taken from the `Link: rel="next"` header.',
    },
  },
  additionalProperties: true,
} as const;

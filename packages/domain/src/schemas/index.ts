/**
 * The JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) of every request and response,
 * as plain data: the HTTP adapter compiles them with ajv and builds the OpenAPI document from
 * them, so validation and documentation cannot drift apart.
 */
import { ERROR_CODES } from '../errors.js';
import { MAX_CATEGORY_ID, NAME_MAX_LENGTH, NAME_MIN_LENGTH, PET_STATUSES } from '../pet/pet.js';
import { NAME_PATTERN } from '../text/name.js';
import { CATEGORY_NAME_MAX_LENGTH, CATEGORY_NAME_MIN_LENGTH } from '../category/category.js';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN } from '../pagination/limit.js';
import { MAX_CURSOR_LENGTH } from '../pagination/cursor.js';
import { ORDER_STATUSES } from '../order/order.js';
import { MAX_PET_ID } from '../order/validate.js';
import { PLAN_NAMES, type FixedPlanName, type PlanName } from '../quota/plans.js';
import { KEY_ROLES, KEY_SOURCES, PUBLIC_ID } from '../auth/api-key.js';
import { ISSUED_KEY_PATTERN } from '../auth/key-format.js';
import { LABEL_MAX_LENGTH, LABEL_MIN_LENGTH, LABEL_PATTERN, QUOTA_MAX, QUOTA_MIN } from '../auth/key-request.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN } from '../idempotency/idempotency.js';
import { INT64_MAX } from '../text/id.js';

/**
 * `maximum` of an id a path may name: int64's, 9223372036854775807 (docs/rules.md §2). No JavaScript
 * number holds it: this is the double nearest to it (2^63), and the served document spells it
 * exactly (the HTTP adapter's `openApiJson` writes this number as `INT64_MAX`).
 */
const PATH_ID_MAXIMUM = Number(INT64_MAX);

/**
 * A service-assigned id in an answer (`Pet.id`, `Category.id`, `Order.id`): at most the largest id a
 * body may name (`categoryId`, `petId`: 2^53 − 1, docs/rules.md §1), since every id the service
 * assigns is one a client can send back, exact in every JSON reader.
 */
const assignedId = (description: string, maximum: number) =>
  ({ type: 'integer', format: 'int64', minimum: 1, maximum, description }) as const;
import { PHOTO_CONTENT_TYPES, PHOTO_STORED_LONG_SIDE, PHOTO_WIDTHS } from '../photo/photo.js';

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

const categoryName = {
  type: 'string',
  minLength: CATEGORY_NAME_MIN_LENGTH,
  maxLength: CATEGORY_NAME_MAX_LENGTH,
  pattern: NAME_PATTERN,
  description:
    "The category's name: 1–100 characters, at least one not white space, well-formed Unicode. Stored as sent; unique ignoring case and Unicode normalization (`Cats`, `CATS` and `cats` are one name).",
} as const;

/** `Category` (docs/rules.md §7). */
export const CategorySchema = {
  type: 'object',
  description: 'A category of animals; `categoryId` of a pet names one.',
  properties: {
    id: assignedId(
      'Unique identifier, assigned by the service on creation; increasing in creation order.',
      MAX_CATEGORY_ID,
    ),
    name: categoryName,
  },
  required: ['id', 'name'],
  additionalProperties: false,
} as const;

/** `NewCategory`: closed, `{ "name" }` only. */
export const NewCategorySchema = {
  type: 'object',
  description: 'A new category. `id` is assigned by the service and must not be sent.',
  properties: { name: categoryName },
  required: ['name'],
  additionalProperties: false,
} as const;

/** Query of `GET /categories`: the pager's parameters only. Unknown parameters are ignored. */
export const ListCategoriesQuerySchema = {
  type: 'object',
  properties: {
    limit: { ...ListPetsQuerySchema.properties.limit, description: 'Maximum number of categories to return.' },
    cursor: {
      ...ListPetsQuerySchema.properties.cursor,
      description: 'Opaque position of the next page, taken from the `Link: rel="next"` header.',
    },
  },
  additionalProperties: true,
} as const;

// ---- Orders: the adoption flow (docs/rules.md §8) ----

export const OrderStatusSchema = {
  type: 'string',
  enum: [...ORDER_STATUSES],
  description:
    'Where the order is: `placed` (the pet is reserved), `approved`, `delivered` (the pet is sold) or `cancelled` (the pet is available again).',
} as const;

/** `POST /store/orders`: the closed body `{ "petId" }`. */
export const NewOrderSchema = {
  type: 'object',
  description: 'An order for one available animal. The pet must exist (else 400) and be `available` (else 409).',
  properties: {
    petId: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: MAX_PET_ID,
      description: 'Identifier of the animal to adopt.',
    },
  },
  required: ['petId'],
  additionalProperties: false,
} as const;

const orderTime = (what: string) =>
  ({
    type: 'string',
    format: 'date-time',
    description: `${what}, RFC 3339 in UTC with milliseconds, from the service's clock.`,
  }) as const;

export const OrderSchema = {
  type: 'object',
  properties: {
    id: assignedId('Unique identifier, assigned by the service; increasing in creation order.', MAX_PET_ID),
    petId: assignedId('The animal the order reserves.', MAX_PET_ID),
    status: OrderStatusSchema,
    placedAt: orderTime('When the order was placed'),
    updatedAt: orderTime('When the order last changed status'),
  },
  required: ['id', 'petId', 'status', 'placedAt', 'updatedAt'],
  additionalProperties: false,
} as const;

/** Query of `GET /store/orders`: the pet list's paging, with the order status as filter. */
export const ListOrdersQuerySchema = {
  type: 'object',
  properties: {
    limit: ListPetsQuerySchema.properties.limit,
    status: { ...OrderStatusSchema, description: 'Only orders with this status.' },
    cursor: {
      ...ListPetsQuerySchema.properties.cursor,
      description:
        'Opaque position of the next page, taken from the `Link: rel="next"` header. Bound to the status filter and to the key.',
    },
  },
  additionalProperties: true,
} as const;

/** Path of `GET /categories/{categoryId}`: the `petId` rules. */
export const CategoryIdSchema = {
  ...PetIdSchema,
  description:
    'Identifier of the category: a positive decimal integer up to 9223372036854775807, without sign, leading zeros or fraction.',
} as const;

/** Path of `/store/orders/{orderId}`: the `petId` rules. */
export const OrderIdSchema = {
  ...PetIdSchema,
  description:
    'Identifier of the order: a positive decimal integer up to 9223372036854775807, without sign, leading zeros or fraction.',
} as const;

/** `GET /store/inventory`: how many animals have each status. */
export const InventorySchema = {
  type: 'object',
  properties: {
    available: { type: 'integer', minimum: 0, description: 'Animals that can be ordered.' },
    pending: { type: 'integer', minimum: 0, description: 'Animals reserved by an open order, or created `pending`.' },
    sold: { type: 'integer', minimum: 0, description: 'Animals delivered to their adopter, or created `sold`.' },
  },
  required: ['available', 'pending', 'sold'],
  additionalProperties: false,
} as const;

// ---- API keys and plans (docs/rules.md §9) ----

/** A key's public id: `key_` and the first 12 hex digits of its SHA-256. */
export const KeyIdSchema = {
  type: 'string',
  pattern: PUBLIC_ID.source,
  description: "A key's public id: `key_` and the first 12 hex digits of the key's SHA-256. Safe to log and share.",
} as const;

/** The one plan whose key carries its own numbers, and the plans whose numbers are fixed (docs/rules.md §5, §9). */
const ENTERPRISE = 'enterprise' satisfies PlanName;
const FIXED_PLANS = PLAN_NAMES.filter((plan): plan is FixedPlanName => plan !== ENTERPRISE);

const PlanNameSchema = {
  type: 'string',
  enum: [...PLAN_NAMES],
  description: 'The plan: free, pro and business have fixed numbers; enterprise carries its own perMinute and perDay.',
} as const;

/** `plan` in the shape of a fixed-plan key, and in the shape of an enterprise key: the tag of the `oneOf`s below. */
const fixedPlan = {
  type: 'string',
  enum: FIXED_PLANS,
  description: 'A plan with fixed numbers (docs/rules.md §5): free, pro or business.',
} as const;
const enterprisePlan = {
  type: 'string',
  const: ENTERPRISE,
  description: 'The plan whose key carries its own perMinute and perDay.',
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

/**
 * `POST /admin/keys`: one of two closed shapes, told apart by `plan` (docs/rules.md §9): a key on a
 * fixed plan, which sends no numbers, or an enterprise key, which sends both. Checked besides (the
 * domain's rules): perMinute ≤ perDay, which JSON Schema cannot compare.
 */
export const NewApiKeySchema = {
  type: 'object',
  description:
    'A key to issue. `perMinute` and `perDay` are sent for enterprise keys only, and then both (1 ≤ perMinute ≤ perDay ≤ 2^53 − 1).',
  oneOf: [
    {
      type: 'object',
      title: 'A key on a fixed plan',
      description: 'A key on free, pro or business: the plan gives its numbers, none is sent.',
      properties: { plan: fixedPlan, label: keyLabel },
      required: ['plan'],
      additionalProperties: false,
    },
    {
      type: 'object',
      title: 'An enterprise key',
      description: 'An enterprise key with its own numbers, both of them (1 ≤ perMinute ≤ perDay ≤ 2^53 − 1).',
      properties: {
        plan: enterprisePlan,
        label: keyLabel,
        perMinute: quotaNumber('Requests a UTC minute.'),
        perDay: quotaNumber('Requests a UTC day.'),
      },
      required: ['plan', 'perMinute', 'perDay'],
      additionalProperties: false,
    },
  ],
} as const;

/**
 * `PATCH /admin/keys/{keyId}`: any of the fields, at least one, in one of three closed shapes told
 * apart by `plan` (docs/rules.md §9): a change to a fixed plan (no numbers), a change to enterprise
 * (numbers optional here), or a change that keeps the plan (no `plan`; a number may come alone).
 * Checked besides (the domain's rules, which need the key): numbers only for a key that is or
 * becomes enterprise, both when it becomes enterprise, and the resulting perMinute ≤ perDay.
 */
export const ApiKeyPatchSchema = {
  type: 'object',
  description:
    'Changes to a key, any of the fields. A plan change applies from the next request; the counts of the current windows are kept. ' +
    '`perMinute` and `perDay` apply to enterprise keys only (numbers for a key that stays on free, pro or business → 400). ' +
    'On a key that is already enterprise either may be sent alone: the other keeps its current value, and the resulting quota must still satisfy ' +
    '1 ≤ perMinute ≤ perDay ≤ 2^53 − 1 (else 400). A key moving to enterprise from a fixed plan needs both numbers in the same change: ' +
    "the fixed plan's numbers are not taken over.",
  oneOf: [
    {
      type: 'object',
      title: 'A change to a fixed plan',
      description:
        'The key moves to (or stays on) free, pro or business: the plan gives its numbers, none is sent. The label may change with it.',
      properties: { plan: fixedPlan, label: keyLabel },
      required: ['plan'],
      additionalProperties: false,
    },
    {
      type: 'object',
      title: 'A change to enterprise',
      description:
        'The key moves to (or stays on) enterprise. From a fixed plan it sends both numbers; a key that is already enterprise may send either or none (the others are kept).',
      properties: {
        plan: enterprisePlan,
        perMinute: quotaNumber("Requests a UTC minute. Alone, it keeps the key's current perDay."),
        perDay: quotaNumber("Requests a UTC day. Alone, it keeps the key's current perMinute."),
        label: keyLabel,
      },
      required: ['plan'],
      additionalProperties: false,
    },
    {
      type: 'object',
      title: 'A change that keeps the plan',
      description:
        "No `plan`: the label, or an enterprise key's numbers (either alone: the other keeps its current value). Numbers for a key on a fixed plan → 400.",
      properties: {
        // Absent (`false`: no value is valid), said as a property so that the shapes are told apart by `plan` in every one.
        plan: false,
        perMinute: quotaNumber(
          "Enterprise keys only: requests a UTC minute. Alone, it keeps the key's current perDay.",
        ),
        perDay: quotaNumber("Enterprise keys only: requests a UTC day. Alone, it keeps the key's current perMinute."),
        label: keyLabel,
      },
      minProperties: 1,
      additionalProperties: false,
    },
  ],
} as const;

const apiKeyProperties = {
  id: KeyIdSchema,
  role: {
    type: 'string',
    enum: [...KEY_ROLES],
    description:
      '`client`: the operations of pets, categories and orders; `admin`: also this API and the order transitions.',
  },
  plan: { ...PlanNameSchema, description: 'The plan the key is limited by (admin keys: business).' },
  quota: {
    type: 'object',
    description: 'The numbers the key is limited by.',
    properties: { perMinute: quotaNumber('Requests a UTC minute.'), perDay: quotaNumber('Requests a UTC day.') },
    required: ['perMinute', 'perDay'],
    additionalProperties: false,
  },
  label: keyLabel,
  source: {
    type: 'string',
    enum: [...KEY_SOURCES],
    description: '`settings`: from the server settings, changed only there; `api`: issued through this API.',
  },
  createdAt: {
    type: 'string',
    format: 'date-time',
    description: 'When the key was issued (settings keys: when the server started), RFC 3339 UTC with milliseconds.',
  },
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
      pattern: ISSUED_KEY_PATTERN.source,
      description:
        'The key: `pet_` and 43 base64url characters (256 random bits). Shown only in this answer; store it now.',
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
      maxLength: MAX_CURSOR_LENGTH,
      description: 'Opaque position of the next page, taken from the `Link: rel="next"` header.',
    },
  },
  additionalProperties: true,
} as const;

/** The `Idempotency-Key` request header of the creates (docs/rules.md §10). */
export const IdempotencyKeySchema = {
  type: 'string',
  minLength: 1,
  maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
  pattern: IDEMPOTENCY_KEY_PATTERN,
  description:
    'Makes the create safe to retry: 1–255 printable ASCII characters, unique per request (a UUID is a good choice), scoped to your API key. A repeat with the same method, path and body within 24 h gets the first answer again with `Idempotent-Replayed: true` and creates nothing; a repeat while the first is still processed gets 409 `conflict`; the same key with another path or body gets 422 `idempotency_key_reused`. Every answer below 500 is kept except 401, 403, 408 and 429, so 400, 413 and 415 too: a body over the limit (1 MiB; 10 MiB for a photo upload) is never read, and counts as "this method and path with a body over the limit".',
} as const;

// ---- The caller's own status (docs/rules.md §14) ----

const ownWindow = (name: 'minute' | 'day', length: string) =>
  ({
    type: 'object',
    description: `The UTC ${name} window: its limit, what is left of it, and when it resets.`,
    properties: {
      name: { const: name, description: `\`${name}\`: the fixed UTC ${length} window.` },
      limit: quotaNumber(`Requests the plan allows in a UTC ${name}.`),
      remaining: {
        type: 'integer',
        format: 'int64',
        minimum: 0,
        maximum: QUOTA_MAX,
        description: `Requests left in this ${name} without this one (0 while a ban runs).`,
      },
      resetAt: {
        type: 'string',
        format: 'date-time',
        description: 'When the window ends and starts afresh, RFC 3339 UTC.',
      },
    },
    required: ['name', 'limit', 'remaining', 'resetAt'],
    additionalProperties: false,
  }) as const;

/** The answer to `GET /me`: the calling key, its plan and quota, its two windows and its ban, as they stand without this request. */
export const OwnStatusSchema = {
  type: 'object',
  description:
    "The calling key's status without this request: it takes nothing from the windows and is answered over the limit and during a ban too.",
  properties: {
    keyId: KeyIdSchema,
    role: apiKeyProperties.role,
    plan: apiKeyProperties.plan,
    quota: apiKeyProperties.quota,
    windows: {
      type: 'array',
      description: 'The two fixed windows, the minute first, then the day.',
      prefixItems: [ownWindow('minute', '60-second'), ownWindow('day', '24-hour')],
      items: false,
      minItems: 2,
    },
    bannedUntil: {
      type: ['string', 'null'],
      format: 'date-time',
      description:
        'When the running ban ends (every request answered 429 `temporarily_banned` until then), RFC 3339 UTC; null when no ban runs.',
    },
  },
  required: ['keyId', 'role', 'plan', 'quota', 'windows', 'bannedUntil'],
  additionalProperties: false,
} as const;

/** A photo of an animal (docs/rules.md §13): `width`, `height` and `bytes` of the stored original. */
export const PhotoSchema = {
  type: 'object',
  properties: {
    id: assignedId('Unique identifier of the photo, assigned by the service.', Number.MAX_SAFE_INTEGER),
    petId: assignedId('The animal the photo shows.', Number.MAX_SAFE_INTEGER),
    contentType: {
      type: 'string',
      enum: [...PHOTO_CONTENT_TYPES],
      description: 'The image type the photo is stored and served in: the one it was sent in.',
    },
    width: {
      type: 'integer',
      minimum: 1,
      maximum: PHOTO_STORED_LONG_SIDE,
      description: 'Width of the stored photo in pixels (upright, at most 4,096 on the long side).',
    },
    height: {
      type: 'integer',
      minimum: 1,
      maximum: PHOTO_STORED_LONG_SIDE,
      description: 'Height of the stored photo in pixels.',
    },
    bytes: {
      type: 'integer',
      minimum: 1,
      description: 'Size of the stored photo in bytes (re-encoded, without metadata).',
    },
    createdAt: { type: 'string', format: 'date-time', description: 'When the photo was added (RFC 3339, UTC).' },
  },
  required: ['id', 'petId', 'contentType', 'width', 'height', 'bytes', 'createdAt'],
  additionalProperties: false,
} as const;

/** Path of `/pets/{petId}/photos/{photoId}`: the `petId` rules. */
export const PhotoIdSchema = {
  ...PetIdSchema,
  description:
    'Identifier of the photo: a positive decimal integer up to 9223372036854775807, without sign, leading zeros or fraction.',
} as const;

/** `?width=` of `GET /pets/{petId}/photos/{photoId}`. */
export const PhotoWidthSchema = {
  type: 'integer',
  enum: [...PHOTO_WIDTHS],
  description:
    'Answer the photo this many pixels wide (the height in proportion), in the same format; never wider than the original (a narrower photo is answered as it is). Absent: the stored original.',
} as const;

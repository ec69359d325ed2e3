/** The admin API's schemas of keys and plans (docs/rules.md §9). */
import { MAX_CURSOR_LENGTH } from '../pagination/cursor.js';
import { PLAN_NAMES, type FixedPlanName, type PlanName } from '../quota/plans.js';
import { KEY_ROLES, KEY_SOURCES, PUBLIC_ID } from '../auth/api-key.js';
import { ISSUED_KEY_PATTERN } from '../auth/key-format.js';
import {
  ISSUED_ROLES,
  LABEL_MAX_LENGTH,
  LABEL_MIN_LENGTH,
  LABEL_PATTERN,
  QUOTA_MAX,
  QUOTA_MIN,
} from '../auth/key-request.js';
import { ORIGINS_MAX, PUBLISHABLE_KEY_PATTERN } from '../auth/origins.js';
import { ListPetsQuerySchema } from './pets.js';

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

export const quotaNumber = (description: string) =>
  ({ type: 'integer', format: 'int64', minimum: QUOTA_MIN, maximum: QUOTA_MAX, description }) as const;

const keyLabel = {
  type: 'string',
  minLength: LABEL_MIN_LENGTH,
  maxLength: LABEL_MAX_LENGTH,
  pattern: LABEL_PATTERN,
  description: 'A note for operators (who holds the key, what for): 1–100 characters, well-formed Unicode.',
} as const;

/** The longest origin taken: a host of 253 characters, `https://` and a port. */
const ORIGIN_MAX_LENGTH = 270;

/** A publishable key's origins (docs/rules.md §16); each entry's grammar is the domain's (`readKeyOrigins`). */
const keyOrigins = {
  type: 'array',
  minItems: 1,
  maxItems: ORIGINS_MAX,
  uniqueItems: true,
  items: {
    type: 'string',
    minLength: 1,
    maxLength: ORIGIN_MAX_LENGTH,
    description:
      'An origin: `https://host[:port]`, or for development `http://localhost[:port]` or `http://127.0.0.1[:port]`; no user, path, query or fragment.',
  },
  description:
    'The web sites a publishable key may be used from (1 to 20 distinct origins): its requests carry an `Origin` (or `Referer`) of one of them. Publishable keys only.',
  examples: [['https://shelter.example', 'http://localhost:5173']],
} as const;

const issuedRole = {
  type: 'string',
  enum: [...ISSUED_ROLES],
  description:
    "`client` (the default): a secret key, `pet_…`; `publishable`: a key meant to sit in a web page, `pk_…`, that only reads the catalogue from its `origins` (docs/rules.md §16). Admin keys come only from the server's settings.",
} as const;

/**
 * `POST /admin/keys`: one of two closed shapes, told apart by `plan` (docs/rules.md §9): a key on a
 * fixed plan, which sends no numbers, or an enterprise key, which sends both. Checked besides (the
 * domain's rules): perMinute ≤ perDay, which JSON Schema cannot compare, and `origins` with
 * `role: publishable` only (§16), left to the domain so that its refusal says why.
 */
export const NewApiKeySchema = {
  type: 'object',
  description:
    'A key to issue. `perMinute` and `perDay` are sent for enterprise keys only, and then both (1 ≤ perMinute ≤ perDay ≤ 2^53 − 1). ' +
    '`origins` is sent with `role: publishable`, and only with it (else 400).',
  oneOf: [
    {
      type: 'object',
      title: 'A key on a fixed plan',
      description: 'A key on free, pro or business: the plan gives its numbers, none is sent.',
      properties: { plan: fixedPlan, label: keyLabel, role: issuedRole, origins: keyOrigins },
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
        role: issuedRole,
        origins: keyOrigins,
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
    "the fixed plan's numbers are not taken over. `origins` replaces a publishable key's origins (any other key → 400).",
  oneOf: [
    {
      type: 'object',
      title: 'A change to a fixed plan',
      description:
        'The key moves to (or stays on) free, pro or business: the plan gives its numbers, none is sent. The label may change with it.',
      properties: { plan: fixedPlan, label: keyLabel, origins: keyOrigins },
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
        origins: keyOrigins,
      },
      required: ['plan'],
      additionalProperties: false,
    },
    {
      type: 'object',
      title: 'A change that keeps the plan',
      description:
        "No `plan`: the label, a publishable key's origins, or an enterprise key's numbers (either alone: the other keeps its current value). Numbers for a key on a fixed plan → 400.",
      properties: {
        // Absent (`false`: no value is valid), said as a property so that the shapes are told apart by `plan` in every one.
        plan: false,
        perMinute: quotaNumber(
          "Enterprise keys only: requests a UTC minute. Alone, it keeps the key's current perDay.",
        ),
        perDay: quotaNumber("Enterprise keys only: requests a UTC day. Alone, it keeps the key's current perMinute."),
        label: keyLabel,
        origins: keyOrigins,
      },
      minProperties: 1,
      additionalProperties: false,
    },
  ],
} as const;

export const apiKeyProperties = {
  id: KeyIdSchema,
  role: {
    type: 'string',
    enum: [...KEY_ROLES],
    description:
      '`client`: the operations of pets, categories and orders; `admin`: also this API and the order transitions; `publishable`: only the catalogue’s reads, from its `origins` (docs/rules.md §16).',
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
  origins: { ...keyOrigins, description: 'A publishable key’s origins (docs/rules.md §16); absent for other keys.' },
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
      pattern: `${ISSUED_KEY_PATTERN.source}|${PUBLISHABLE_KEY_PATTERN.source}`,
      description:
        'The key: `pet_` (a secret key) or `pk_` (a publishable key) and 43 base64url characters (256 random bits). Shown only in this answer; store it now.',
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

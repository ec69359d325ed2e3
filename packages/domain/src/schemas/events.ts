/**
 * The JSON Schemas of the events (docs/rules.md §15): `Event`, one closed shape per type with the
 * `data` of §15's table, and the query of `GET /events`. Plain data, as the other schemas: the HTTP
 * adapter validates the query with them and builds the OpenAPI part from them.
 */
import { EVENT_ID, EVENT_TYPES, type EventType } from '../events/event.js';
import { FEED_WAIT_MAX_SECONDS } from '../events/feed-query.js';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN } from '../pagination/limit.js';
import { MAX_PET_ID } from '../order/validate.js';
import { ApiKeySchema, CategorySchema, OrderSchema, PetSchema, PhotoSchema } from './index.js';

/** A `sequence`: 1, 2, 3, … (a JSON number every reader holds exactly). */
const SEQUENCE_MAX = Number.MAX_SAFE_INTEGER;

const idOf = (what: string) =>
  ({ type: 'integer', format: 'int64', minimum: 1, maximum: MAX_PET_ID, description: what }) as const;

/** `data` of `pet.withdrawn`: the pet's id. */
export const PetRefSchema = {
  type: 'object',
  description: 'The withdrawn animal.',
  properties: { id: idOf('Identifier of the withdrawn animal.') },
  required: ['id'],
  additionalProperties: false,
} as const;

/** `data` of `photo.removed`: the photo's id and its pet's. */
export const PhotoRefSchema = {
  type: 'object',
  description: 'The removed photo.',
  properties: { id: idOf('Identifier of the removed photo.'), petId: idOf('The animal the photo showed.') },
  required: ['id', 'petId'],
  additionalProperties: false,
} as const;

/** Each type's `data` and when it is recorded (docs/rules.md §15's table). */
const EVENT_DATA: { readonly [T in EventType]: { readonly data: object; readonly when: string } } = {
  'pet.created': { data: PetSchema, when: 'An animal was created. `data`: the `Pet`.' },
  'pet.updated': {
    data: PetSchema,
    when: 'A stored field of an animal changed: a `PATCH` that changed something, or a status move of the adoption flow (an order placed → `pending`, cancelled → `available`, delivered → `sold`). `data`: the `Pet` after the change.',
  },
  'pet.withdrawn': { data: PetRefSchema, when: 'An animal was withdrawn (`DELETE /pets/{petId}`). `data`: its `id`.' },
  'category.created': { data: CategorySchema, when: 'A category was created. `data`: the `Category`.' },
  'order.placed': { data: OrderSchema, when: 'An order was placed. `data`: the `Order`, `placed`.' },
  'order.approved': { data: OrderSchema, when: 'An order was approved. `data`: the `Order`, `approved`.' },
  'order.delivered': {
    data: OrderSchema,
    when: 'An order was delivered (its animal is `sold`). `data`: the `Order`, `delivered`.',
  },
  'order.cancelled': {
    data: OrderSchema,
    when: 'An order was cancelled (its animal is `available` again). `data`: the `Order`, `cancelled`.',
  },
  'photo.added': { data: PhotoSchema, when: 'A photo was published. `data`: the `Photo`.' },
  'photo.removed': {
    data: PhotoRefSchema,
    when: 'A photo was deleted, by itself or with its withdrawn animal. `data`: its `id` and `petId`.',
  },
  'key.created': {
    data: ApiKeySchema,
    when: 'The admin API issued a key. `data`: the `ApiKey` (never the key, never its hash).',
  },
  'key.updated': {
    data: ApiKeySchema,
    when: "The admin API changed a key's plan, quota or label. `data`: the `ApiKey` after the change.",
  },
  'key.revoked': { data: ApiKeySchema, when: 'The admin API revoked a key. `data`: the `ApiKey` as it was.' },
};

/** One type's shape of `Event`. */
const eventShape = (type: EventType) =>
  ({
    type: 'object',
    title: type,
    description: EVENT_DATA[type].when,
    properties: {
      id: {
        type: 'string',
        pattern: EVENT_ID.source,
        description: 'Unique, opaque: `evt_` and up to 64 base64url characters. The same on every read.',
      },
      sequence: {
        type: 'integer',
        format: 'int64',
        minimum: 1,
        maximum: SEQUENCE_MAX,
        description: "The event's place in the feed: 1, 2, 3, … with no gap.",
      },
      type: { type: 'string', const: type, description: 'What happened.' },
      occurredAt: {
        type: 'string',
        format: 'date-time',
        description: "When the change was made, by the service's clock: RFC 3339 UTC with milliseconds.",
      },
      data: EVENT_DATA[type].data,
    },
    required: ['id', 'sequence', 'type', 'occurredAt', 'data'],
    additionalProperties: false,
  }) as const;

/** `Event` (docs/rules.md §15): one closed shape per type, told apart by `type`. */
export const EventSchema = {
  description:
    "Something that happened to the store, numbered in the feed. Every change has exactly one event, also one whose request was answered 5xx after its write landed; each resource's events come in the order of its changes.",
  oneOf: EVENT_TYPES.map(eventShape),
} as const;

/** The event types as alternatives of a pattern, each dot matched as a dot. */
const TYPE_ALTERNATIVES = EVENT_TYPES.map((type) => type.replace('.', '\\.')).join('|');

/**
 * Query of `GET /events` (docs/rules.md §15), as the HTTP adapter reads it: `after`, `limit` and
 * `wait` as integers when written canonically, `types` as text. Unknown parameters are ignored; a
 * parameter given twice is refused before this schema is asked.
 */
export const ListEventsQuerySchema = {
  type: 'object',
  properties: {
    after: {
      type: 'integer',
      format: 'int64',
      minimum: 0,
      maximum: SEQUENCE_MAX,
      default: 0,
      description:
        'Events after this `sequence`: 0 (the default) for the start of the feed, or the last `sequence` read. A decimal integer without sign, leading zeros or fraction. Below the first event kept → 410 `gone`.',
    },
    types: {
      type: 'string',
      // Known types, comma-separated, none twice (the lookahead refuses a name that comes again).
      pattern: `^(?!(?:[^,]*,)*([^,]+),(?:[^,]*,)*\\1(?:,|$))(?:${TYPE_ALTERNATIVES})(?:,(?:${TYPE_ALTERNATIVES}))*$`,
      description: `Only events of these types, comma-separated (every type when absent): ${EVENT_TYPES.join(', ')}.`,
    },
    limit: {
      type: 'integer',
      minimum: LIMIT_MIN,
      maximum: LIMIT_MAX,
      default: LIMIT_DEFAULT,
      description: 'At most this many events.',
    },
    wait: {
      type: 'integer',
      minimum: 0,
      maximum: FEED_WAIT_MAX_SECONDS,
      default: 0,
      description: `A long poll: when no event after \`after\` matches yet, wait up to this many seconds (0–${FEED_WAIT_MAX_SECONDS}) and answer as soon as one arrives, else \`[]\`.`,
    },
  },
  additionalProperties: true,
} as const;

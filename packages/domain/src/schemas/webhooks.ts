/**
 * The JSON Schemas of webhooks (docs/rules.md §15, "Webhooks"): the bodies of a create and a
 * `PATCH`, a subscription as shown (with its secret only in the answers of a create and a rotation),
 * an attempt of the deliveries log, and the queries of the two lists. Plain data, as the other
 * schemas: the HTTP adapter validates requests with them and builds the OpenAPI part from them.
 */
import { EVENT_TYPES } from '../events/event.js';
import { DELIVERY_OUTCOMES, WEBHOOK_DESCRIPTION_MAX_LENGTH, WEBHOOK_URL_MAX_LENGTH } from '../webhooks/webhook.js';
import { WEBHOOK_ID_PATTERN } from '../webhooks/request.js';
import { ListKeysQuerySchema } from './index.js';

/** A sequence of the feed (as `Event.sequence`). */
const SEQUENCE_MAX = Number.MAX_SAFE_INTEGER;

export const WebhookIdSchema = {
  type: 'string',
  pattern: WEBHOOK_ID_PATTERN.source,
  description: "A subscription's id: `wh_` and 24 lowercase hex digits.",
} as const;

const urlSchema = {
  type: 'string',
  minLength: 1,
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  description: `Where deliveries are sent: an absolute \`https\` URL without user name or password, at most ${WEBHOOK_URL_MAX_LENGTH} characters, whose host is not and does not resolve to a loopback, private, link-local, multicast or unspecified address (checked again at every delivery). \`http\` and such hosts only for the \`host[:port]\`s the service is configured to allow (docs/rules.md §15).`,
} as const;

const typesSchema = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...EVENT_TYPES] },
  description: 'Only events of these types are delivered; every type when absent.',
} as const;

const descriptionSchema = {
  type: 'string',
  maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH,
  description: `What the subscription is for, for people: at most ${WEBHOOK_DESCRIPTION_MAX_LENGTH} characters ("" when not given).`,
} as const;

/** `POST /webhooks`: closed. */
export const NewWebhookSchema = {
  type: 'object',
  description:
    'A new subscription to the feed. It delivers the events after the last one when it is created, or after `after`.',
  properties: {
    url: urlSchema,
    types: typesSchema,
    description: descriptionSchema,
    after: {
      type: 'integer',
      format: 'int64',
      minimum: 0,
      maximum: SEQUENCE_MAX,
      description:
        "Start after this `sequence` instead of the feed's end: from the event before the first one kept up to the last one.",
    },
  },
  required: ['url'],
  additionalProperties: false,
} as const;

/** `PATCH /webhooks/{webhookId}`: any of four fields, at least one; closed. */
export const WebhookPatchSchema = {
  type: 'object',
  description:
    'Changes to a subscription: any of `url`, `types` (`null`: every type again), `description` and `enabled`, at least one. `enabled: true` resumes a paused or disabled subscription at the event it stopped at; `enabled: false` disables it (it keeps its place).',
  properties: {
    url: urlSchema,
    types: { ...typesSchema, type: ['array', 'null'] },
    description: descriptionSchema,
    enabled: { type: 'boolean', description: '`true` resumes delivery at the event it stopped at; `false` stops it.' },
  },
  minProperties: 1,
  additionalProperties: false,
} as const;

const webhookProperties = {
  id: WebhookIdSchema,
  url: { ...urlSchema, description: 'Where deliveries are sent.' },
  types: typesSchema,
  description: descriptionSchema,
  enabled: {
    type: 'boolean',
    description: 'Whether it delivers. `false` when an admin disabled it or it was paused (`pausedReason`).',
  },
  pausedReason: {
    type: ['string', 'null'],
    description:
      'Why delivery paused by itself (the last retry failed, or the receiver answered 410 Gone); null otherwise. Nothing is dropped: `PATCH {"enabled": true}` resumes at the same event.',
  },
  createdAt: { type: 'string', format: 'date-time', description: 'When it was created (RFC 3339 UTC).' },
} as const;

/** A subscription as every read shows it: never its secret. */
export const WebhookSchema = {
  type: 'object',
  description: 'A subscription that delivers the feed to a URL, signed (Standard Webhooks), in order.',
  properties: webhookProperties,
  required: ['id', 'url', 'description', 'enabled', 'pausedReason', 'createdAt'],
  additionalProperties: false,
} as const;

/** The answers of a create and a rotation: the only ones that show a secret. */
export const CreatedWebhookSchema = {
  type: 'object',
  description: 'A subscription with its signing secret, shown in this answer only.',
  properties: {
    ...webhookProperties,
    secret: {
      type: 'string',
      pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
      description:
        '`whsec_` and the base64 of 32 random bytes: the key of the `webhook-signature` HMAC (Standard Webhooks). Shown this once; store it now.',
    },
  },
  required: [...WebhookSchema.required, 'secret'],
  additionalProperties: false,
} as const;

/** One attempt of the deliveries log. */
export const WebhookDeliverySchema = {
  type: 'object',
  description: 'One delivery attempt (nothing of the receiver’s answer body is kept).',
  properties: {
    eventId: { type: 'string', description: 'The event sent: its `id`, also the `webhook-id` header.' },
    sequence: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: SEQUENCE_MAX,
      description: "The event's `sequence`.",
    },
    attempt: {
      type: 'integer',
      minimum: 1,
      description: '1 for the first attempt at this event, 2 for its first retry, …',
    },
    at: { type: 'string', format: 'date-time', description: 'When the attempt started.' },
    status: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when none came." },
    outcome: {
      type: 'string',
      enum: [...DELIVERY_OUTCOMES],
      description:
        '`delivered`: a 2xx within 10 s. `failed`: another status (a redirect among them: never followed). `timeout`: no complete answer within 10 s. `unreachable`: no connection, or it broke. `refused`: the host is, or now resolves to, an address deliveries may not go to (nothing sent).',
    },
    durationMs: { type: 'integer', minimum: 0, description: 'How long the attempt took, in milliseconds.' },
    error: { type: 'string', description: 'Why it failed, in a few words (never the answer body).' },
  },
  required: ['eventId', 'sequence', 'attempt', 'at', 'status', 'outcome', 'durationMs'],
  additionalProperties: false,
} as const;

/** Query of `GET /webhooks` and `GET /webhooks/{webhookId}/deliveries`: the one pager's `limit` and `cursor`, as every list. */
export const ListWebhooksQuerySchema = ListKeysQuerySchema;

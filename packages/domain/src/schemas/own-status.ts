/** The caller's own status (docs/rules.md §14): `GET /me`. */
import { QUOTA_MAX } from '../auth/key-request.js';
import { apiKeyProperties, KeyIdSchema, quotaNumber } from './keys.js';

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

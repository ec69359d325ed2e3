/** Pieces every resource's schemas use: ids, the error body, the `Idempotency-Key` header. */
import { ERROR_CODES } from '../errors.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN } from '../idempotency/idempotency.js';
import { INT64_MAX } from '../text/id.js';

/**
 * `maximum` of an id a path may name: int64's, 9223372036854775807 (docs/rules.md §2). No JavaScript
 * number holds it: this is the double nearest to it (2^63), and the served document spells it
 * exactly (the HTTP adapter's `openApiJson` writes this number as `INT64_MAX`).
 */
export const PATH_ID_MAXIMUM = Number(INT64_MAX);

/**
 * A service-assigned id in an answer (`Pet.id`, `Category.id`, `Order.id`): at most the largest id a
 * body may name (`categoryId`, `petId`: 2^53 − 1, docs/rules.md §1), since every id the service
 * assigns is one a client can send back, exact in every JSON reader.
 */
export const assignedId = (description: string, maximum: number) =>
  ({ type: 'integer', format: 'int64', minimum: 1, maximum, description }) as const;

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

/** The `Idempotency-Key` request header of the creates (docs/rules.md §10). */
export const IdempotencyKeySchema = {
  type: 'string',
  minLength: 1,
  maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
  pattern: IDEMPOTENCY_KEY_PATTERN,
  description:
    'Makes the create safe to retry: 1–255 printable ASCII characters, unique per request (a UUID is a good choice), scoped to your API key. A repeat with the same method, path and body within 24 h gets the first answer again with `Idempotent-Replayed: true` and creates nothing; a repeat while the first is still processed gets 409 `conflict`; the same key with another path or body gets 422 `idempotency_key_reused`. Every answer below 500 is kept except 401, 403, 408 and 429, so 400, 413 and 415 too: a body over the limit (1 MiB; 10 MiB for a photo upload) is never read, and counts as "this method and path with a body over the limit".',
} as const;

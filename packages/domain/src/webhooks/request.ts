import { validationFailed, type ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import { codePoints, checkFields, isObject } from '../text/body.js';
import { EVENT_TYPES, type EventType } from '../events/event.js';
import { readEventTypes } from '../events/types-list.js';
import type { Random } from '../ports/random.port.js';
import type { WebhookTargets } from '../ports/webhook-sender.port.js';
import { base64OfBytes } from '../text/base64url.js';
import {
  WEBHOOK_DESCRIPTION_MAX_LENGTH,
  WEBHOOK_SECRET_BYTES,
  WEBHOOK_SECRET_PREFIX,
  WEBHOOK_URL_MAX_LENGTH,
} from './webhook.js';

/**
 * The bodies and ids of the webhook API (docs/rules.md §15, "Webhooks"), checked as the key admin's
 * are (`auth/key-request.ts`): closed objects, each field's rule, the first broken rule refused with
 * its field. Whether a URL may be delivered to (its scheme, its host, the addresses it resolves to)
 * is the `WebhookTargets` port's call; here only that it is a string of a bounded length.
 */

const CREATE_FIELDS = ['url', 'types', 'description', 'after'] as const;
const PATCH_FIELDS = ['url', 'types', 'description', 'enabled'] as const;

/** `wh_` and 24 lowercase hex digits (12 random bytes). */
export const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{24}$/;
const WEBHOOK_ID_BYTES = 12;

/** A checked `POST /v1/webhooks` body (its URL not yet put to `WebhookTargets`). */
export interface WebhookCreate {
  readonly url: string;
  /** Absent: every type. */
  readonly types?: readonly EventType[];
  readonly description: string;
  /** The sequence to deliver after (absent: the end of the feed), not yet held against the retention. */
  readonly after?: number;
}

/** A checked `PATCH /v1/webhooks/{webhookId}` body: at least one field. */
export interface WebhookPatch {
  readonly url?: string;
  /** `null`: every type again. */
  readonly types?: readonly EventType[] | null;
  readonly description?: string;
  readonly enabled?: boolean;
}

/** `url`'s own shape: a string of 1 to `WEBHOOK_URL_MAX_LENGTH` characters (the rest is `WebhookTargets`'). */
const readUrl = (value: unknown): Result<string, ValidationFailed> => {
  if (typeof value !== 'string') return fail(validationFailed('url', 'url must be a string (an absolute https URL)'));
  const length = codePoints(value);
  if (length < 1 || length > WEBHOOK_URL_MAX_LENGTH)
    return fail(validationFailed('url', `url must be 1 to ${WEBHOOK_URL_MAX_LENGTH} characters long (got ${length})`));
  return ok(value);
};

const TYPES_RULE = `types must be a non-empty array of distinct event types (known: ${EVENT_TYPES.join(', ')})`;

const readTypes = (value: unknown, rule = TYPES_RULE): Result<readonly EventType[], ValidationFailed> =>
  Array.isArray(value) ? readEventTypes(value, rule) : fail(validationFailed('types', rule));

const readDescription = (value: unknown): Result<string, ValidationFailed> => {
  if (typeof value !== 'string') return fail(validationFailed('description', 'description must be a string'));
  const length = codePoints(value);
  if (length > WEBHOOK_DESCRIPTION_MAX_LENGTH)
    return fail(
      validationFailed(
        'description',
        `description must be at most ${WEBHOOK_DESCRIPTION_MAX_LENGTH} characters long (got ${length})`,
      ),
    );
  return ok(value);
};

const readAfter = (value: unknown): Result<number, ValidationFailed> =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0
    ? ok(value)
    : fail(validationFailed('after', 'after must be an integer of 0 or more (a sequence of the event feed)'));

/** Checks a subscription's creation body (docs/rules.md §15): closed, `url` required, `types`, `description`, `after`. */
export const validateWebhookCreate = (body: unknown): Result<WebhookCreate, ValidationFailed> => {
  if (!isObject(body)) return fail(validationFailed('body', 'the body must be a JSON object: {"url": …}'));
  const unknown = checkFields(body, CREATE_FIELDS);
  if (unknown) return fail(unknown);
  if (!Object.hasOwn(body, 'url')) return fail(validationFailed('url', 'url is required'));
  const url = readUrl(body['url']);
  if (!url.ok) return url;
  let request: { url: string; types?: readonly EventType[]; description: string; after?: number } = {
    url: url.value,
    description: '',
  };
  if (Object.hasOwn(body, 'types')) {
    const types = readTypes(body['types']);
    if (!types.ok) return types;
    request = { ...request, types: types.value };
  }
  if (Object.hasOwn(body, 'description')) {
    const description = readDescription(body['description']);
    if (!description.ok) return description;
    request = { ...request, description: description.value };
  }
  if (Object.hasOwn(body, 'after')) {
    const after = readAfter(body['after']);
    if (!after.ok) return after;
    request = { ...request, after: after.value };
  }
  return ok(request);
};

/** Checks a subscription's change body on its own: closed, at least one field, each field's rule. */
export const validateWebhookPatch = (body: unknown): Result<WebhookPatch, ValidationFailed> => {
  if (!isObject(body))
    return fail(validationFailed('body', `the body must be a JSON object with any of ${PATCH_FIELDS.join(', ')}`));
  const unknown = checkFields(body, PATCH_FIELDS);
  if (unknown) return fail(unknown);
  if (Object.keys(body).length === 0)
    return fail(validationFailed('body', `send at least one of ${PATCH_FIELDS.join(', ')}`));
  let patch: { url?: string; types?: readonly EventType[] | null; description?: string; enabled?: boolean } = {};
  if (Object.hasOwn(body, 'url')) {
    const url = readUrl(body['url']);
    if (!url.ok) return url;
    patch = { ...patch, url: url.value };
  }
  if (Object.hasOwn(body, 'types')) {
    if (body['types'] === null) patch = { ...patch, types: null };
    else {
      const types = readTypes(
        body['types'],
        `types must be a non-empty array of distinct event types, or null for every type (known: ${EVENT_TYPES.join(', ')})`,
      );
      if (!types.ok) return types;
      patch = { ...patch, types: types.value };
    }
  }
  if (Object.hasOwn(body, 'description')) {
    const description = readDescription(body['description']);
    if (!description.ok) return description;
    patch = { ...patch, description: description.value };
  }
  if (Object.hasOwn(body, 'enabled')) {
    const enabled = body['enabled'];
    if (typeof enabled !== 'boolean')
      return fail(validationFailed('enabled', 'enabled must be true (resume) or false (disable)'));
    patch = { ...patch, enabled };
  }
  return ok(patch);
};

/**
 * Puts a URL of the right shape to `WebhookTargets`: its reason for refusing it becomes a refusal of
 * field `url` (the port's sentence, which never echoes the URL whole).
 */
export const checkWebhookUrl = async (
  url: string,
  targets: WebhookTargets,
): Promise<Result<string, ValidationFailed>> => {
  const reason = await targets.check(url);
  return reason === undefined ? ok(url) : fail(validationFailed('url', reason));
};

/** Checks a `webhookId` path segment: `wh_` and 24 lowercase hex digits. What was sent is not quoted. */
export const validateWebhookId = (raw: string): Result<string, ValidationFailed> =>
  WEBHOOK_ID_PATTERN.test(raw)
    ? ok(raw)
    : fail(validationFailed('webhookId', 'webhookId must be wh_ followed by 24 lowercase hex digits'));

const bytesFrom = (random: Random, length: number): Uint8Array => {
  const bytes = random.bytes(length);
  if (bytes.length !== length)
    throw new Error(`the random source gave ${bytes.length} bytes where ${length} were asked for`);
  return bytes;
};

/** A new subscription id: `wh_` + 24 lowercase hex of 12 bytes from `random`. */
export const generateWebhookId = (random: Random): string =>
  `wh_${Array.from(bytesFrom(random, WEBHOOK_ID_BYTES), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;

/** A new signing secret: `whsec_` + standard base64 (padded) of `WEBHOOK_SECRET_BYTES` bytes from `random`. */
export const generateWebhookSecret = (random: Random): string =>
  `${WEBHOOK_SECRET_PREFIX}${base64OfBytes(bytesFrom(random, WEBHOOK_SECRET_BYTES))}`;

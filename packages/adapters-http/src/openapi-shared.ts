/**
 * The vocabulary the parts of the OpenAPI document are written in (docs/rules.md §2): references,
 * header objects, `Error` answers with their examples, and the components every area shares. Each
 * area's operations are described beside its routes (`pets.openapi.ts` beside routes.ts, …);
 * openapi.ts assembles the parts into one document.
 */
import { deprecationHeaders, GET_PET_DEPRECATION, IdempotencyKeySchema } from '@petstore/domain';
import type { ErrorCode } from '@petstore/domain';
import { ERROR_STATUS } from './errors.js';
import { BODY_LIMIT_BYTES } from './body.js';
import {
  HEADERS_TIMEOUT_MS,
  HEADERS_TOO_LARGE_MESSAGE,
  HEADER_LIMIT_BYTES,
  REQUEST_TIMEOUT_MS,
  UPLOAD_BODY_TIMEOUT_MS,
  UPLOAD_STALL_TIMEOUT_MS,
  requestTimeoutMessage,
} from './limits.js';

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json | undefined };

/** One area's part of the document: its paths, and the components only it uses. */
export interface OpenApiPart {
  readonly paths: Record<string, Record<string, unknown>>;
  readonly schemas?: Record<string, unknown>;
  readonly parameters?: Record<string, unknown>;
  readonly responses?: Record<string, unknown>;
  readonly headers?: Record<string, unknown>;
}

export const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
export const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];
export const COMMON_HEADERS = ['X-Request-Id', ...RATE_LIMIT_HEADERS];

export const headerRefs = (names: readonly string[]) =>
  Object.fromEntries(names.map((n) => [n === 'Link-Successor' ? 'Link' : n, ref('headers', n)]));

/** The 413's description on every operation that takes a body. */
export const BODY_TOO_LARGE = `The body is larger than ${BODY_LIMIT_BYTES / 2 ** 20} MiB.`;

/** What an `Error` body of each code says, for the examples of the document. */
const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  validation_failed: 'name must be 1 to 200 characters long (got 0)',
  malformed_json: 'the body is not valid JSON',
  unauthorized: 'send your API key as "Authorization: Bearer <API_KEY>"',
  forbidden: 'this operation needs an admin key',
  not_found: 'no pet has id 42',
  request_timeout: requestTimeoutMessage(HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS),
  conflict: 'a request with this Idempotency-Key is still being processed; retry in a moment',
  gone: 'this operation was removed; use GET /v1/pets instead',
  payload_too_large: `the body is larger than ${BODY_LIMIT_BYTES} bytes`,
  unsupported_media_type: 'send the body as application/json (UTF-8)',
  idempotency_key_reused:
    'this Idempotency-Key was used with a different request (method, path or body); use a new key for a new request',
  rate_limited: 'rate limit of 60 requests per minute exceeded; retry in 17 seconds',
  headers_too_large: HEADERS_TOO_LARGE_MESSAGE,
  internal_error: 'an internal error occurred; quote request id 3f1c…',
  unavailable: 'the pet store is unavailable right now; retry shortly',
};

/**
 * An error response: its codes, the headers it carries, and an example body (`exampleMessage`, or
 * the code's usual message).
 */
export const errorResponse = (
  codes: readonly ErrorCode[],
  description: string,
  extraHeaders: readonly string[] = [],
  exampleMessage?: string,
  headers: readonly string[] = COMMON_HEADERS,
) => {
  const code = codes[0]!;
  return {
    description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    headers: headerRefs([...headers, ...extraHeaders]),
    content: {
      'application/json': {
        schema: {
          allOf: [
            ref('schemas', 'Error'),
            { properties: { code: { enum: [...codes] }, status: { const: ERROR_STATUS[code] } } },
          ],
        },
        example: {
          code,
          message: exampleMessage ?? EXAMPLE_MESSAGES[code] ?? `an example of ${code}`,
          status: ERROR_STATUS[code],
        },
      },
    },
  };
};

/** Answers the server gives before any operation runs, on every operation (docs/rules.md §3, §6). */
export const transportErrors = {
  '408': ref('responses', 'RequestTimeout'),
  '431': ref('responses', 'HeadersTooLarge'),
};

/** Responses every `/v1` operation can give (besides its own). */
export const sharedErrors = {
  ...transportErrors,
  '401': ref('responses', 'Unauthorized'),
  '429': ref('responses', 'TooManyRequests'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'Unavailable'),
};

/** An `Error` body as an example, for the response of `code`. */
export const errorExample = (code: ErrorCode, message: string) => ({
  value: { code, message, status: ERROR_STATUS[code] },
});

/** `response` with one named example of its JSON body. */
export const withExample = (
  response: Record<string, unknown>,
  name: string,
  example: { summary?: string; value: Json },
) => {
  // `examples` replaces the media type's single `example` (OpenAPI allows one or the other).
  const { example: _single, ...media } = (response['content'] as { 'application/json': Record<string, unknown> })[
    'application/json'
  ];
  return { ...response, content: { 'application/json': { ...media, examples: { [name]: example } } } };
};

export const withHeaders = (names: readonly string[], response: Record<string, unknown>) => ({
  ...response,
  headers: { ...headerRefs(names), ...((response['headers'] as object | undefined) ?? {}) },
});

export const BETA = 'Beta (`x-stability: beta`): this operation may still change within v1.';

/**
 * The components every area shares: the security schemes, `Idempotency-Key`, the answers any
 * operation can give, and the headers of the API: those of every answer, and the `Location`s,
 * `Link`s and deprecation headers of the areas, kept in one list in the document's order (the
 * maintenance and photo parts add their own after them).
 */
export const sharedComponents = () => {
  const dep = deprecationHeaders(GET_PET_DEPRECATION);
  return {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' },
      adminKey: {
        type: 'http',
        scheme: 'bearer',
        description:
          'An admin key (from `PETSTORE_ADMIN_KEYS`) as a bearer token: `Authorization: Bearer <ADMIN_KEY>`. A client key gets 403 `forbidden`.',
      },
      photoSignature: {
        type: 'apiKey',
        in: 'query',
        name: 'sig',
        description:
          "A photo's URL signature, as `GET /pets?expand=photos` gives it in each photo's `url`: the credential of a `GET` or `HEAD` of that one photo, without a key.",
      },
    },
    parameters: {
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: IdempotencyKeySchema.description,
        schema: { ...IdempotencyKeySchema, description: undefined },
        example: '5f2b7c1e-8d4a-4a1b-9c57-0e6f1d2a3b4c',
      },
    },
    responses: {
      RequestTimeout: errorResponse(
        ['request_timeout'],
        `The headers (${HEADERS_TIMEOUT_MS / 1000} s) or the body (${REQUEST_TIMEOUT_MS / 1000} s after them; a photo upload's ${UPLOAD_BODY_TIMEOUT_MS / 1000} s, with no pause of ${UPLOAD_STALL_TIMEOUT_MS / 1000} s) did not arrive in time; the connection closes.`,
        [],
        undefined,
        ['X-Request-Id'],
      ),
      HeadersTooLarge: errorResponse(
        ['headers_too_large'],
        `The request headers are over ${HEADER_LIMIT_BYTES / 1024} KB; the connection closes.`,
        [],
        undefined,
        ['X-Request-Id'],
      ),
      IdempotencyInProgress: errorResponse(
        ['conflict'],
        'A request with this `Idempotency-Key` is still being processed; retry in a moment.',
      ),
      IdempotencyKeyReused: errorResponse(
        ['idempotency_key_reused'],
        'This `Idempotency-Key` was sent before with a different request (another path or body).',
      ),
      BadRequest: errorResponse(
        ['validation_failed', 'malformed_json'],
        'The request breaks a rule; the message names the field and why.',
      ),
      Unauthorized: errorResponse(['unauthorized'], 'Credential missing or invalid.', ['WWW-Authenticate']),
      TooManyRequests: errorResponse(
        ['rate_limited', 'temporarily_banned'],
        'Over the rate limit, or banned for a while after repeated requests past a 429.',
        ['Retry-After'],
      ),
      InternalError: errorResponse(['internal_error'], 'A fault of the service; the request id is in the log.'),
      Unavailable: errorResponse(['unavailable'], 'The store cannot be reached; retry after `Retry-After` seconds.', [
        'Retry-After',
      ]),
      Forbidden: errorResponse(
        ['forbidden'],
        'The key is a client key (or a publishable one, docs/rules.md §16); this operation needs an admin key.',
      ),
      PublishableForbidden: errorResponse(
        ['forbidden'],
        'A publishable key (docs/rules.md §16) used from an origin that is not one of its own (`Origin`, or lacking one `Referer`), or on an operation other than listing pets, listing and getting categories and photos, and `GET /me`.',
      ),
    },
    headers: {
      'X-Request-Id': header('Echo of a well-formed incoming X-Request-Id, else a generated one.'),
      'X-RateLimit-Limit': header('The limit of the binding window (the one with fewer requests left).', {
        type: 'integer',
      }),
      'X-RateLimit-Remaining': header('Requests left in the binding window.', { type: 'integer', minimum: 0 }),
      'X-RateLimit-Reset': header('Unix time (seconds) at which the binding window resets.', { type: 'integer' }),
      'RateLimit-Policy': header(
        'The plan\'s windows, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400` (draft-ietf-httpapi-ratelimit-headers).',
      ),
      RateLimit: header('The binding window, e.g. `"minute";r=59;t=42`.'),
      'Retry-After': header('Seconds to wait before retrying.', { type: 'integer', minimum: 1 }),
      'WWW-Authenticate': header('`Bearer realm="petstore"`, with `error="invalid_token"` when a credential was sent.'),
      Location: header('Path of the created animal, `/v1/pets/{id}`.'),
      'Location-Key': header('Path of the created key, `/v1/admin/keys/{keyId}`.'),
      'Location-Category': header('Path of the created category, `/v1/categories/{id}`.'),
      'Cache-Control': header('`no-store`: the answer holds a key, which no cache may keep.'),
      'Link-Next': header('`<…>; rel="next"`: the next page, present only when one exists.'),
      Deprecation: header(`When the operation was deprecated (RFC 9745): \`${dep.Deprecation}\`.`),
      Sunset: header(`When the operation goes away (RFC 8594): \`${dep.Sunset}\`.`),
      'Link-Successor': header(`The replacement: \`${dep.Link}\`.`),
      'Location-Order': header('Path of the created order, `/v1/store/orders/{id}`.'),
      'Idempotent-Replayed': header('`true` on an answer replayed for a repeated `Idempotency-Key`; absent otherwise.'),
    },
  };
};

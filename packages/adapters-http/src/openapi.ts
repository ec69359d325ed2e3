import {
  ErrorSchema,
  GET_PET_DEPRECATION,
  IdempotencyKeySchema,
  LIMIT_DEFAULT,
  ListPetsQuerySchema,
  NewPetSchema,
  PetIdSchema,
  PetSchema,
  PLAN_QUOTAS,
  deprecationHeaders,
} from '@petstore/domain';
import type { ErrorCode } from '@petstore/domain';
import { ERROR_STATUS } from './errors.js';
import { IDEMPOTENT_CREATES } from './middleware/idempotency.js';

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json | undefined };

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'];
const COMMON_HEADERS = ['X-Request-Id', ...RATE_LIMIT_HEADERS];
const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link-Successor'];

const headerRefs = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n === 'Link-Successor' ? 'Link' : n, ref('headers', n)]));

/** What an `Error` body of each code says, for the examples of the document. */
const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  validation_failed: 'name must be 1 to 200 characters long (got 0)',
  malformed_json: 'the body is not valid JSON',
  unauthorized: 'send your API key as "Authorization: Bearer <API_KEY>"',
  not_found: 'no pet has id 42',
  request_timeout: 'the request did not arrive in time: send the headers within 10 s and the whole request within 30 s',
  conflict: 'a request with this Idempotency-Key is still being processed; retry in a moment',
  gone: 'this operation was removed; use GET /v1/pets instead',
  payload_too_large: 'the body is larger than 1048576 bytes',
  unsupported_media_type: 'send the body as application/json (UTF-8)',
  idempotency_key_reused: 'this Idempotency-Key was used with a different request (method, path or body); use a new key for a new request',
  rate_limited: 'rate limit of 60 requests per minute exceeded; retry in 17 seconds',
  headers_too_large: 'the request headers are larger than 16 KB',
  internal_error: 'an internal error occurred; quote request id 3f1c…',
  unavailable: 'the pet store is unavailable right now; retry shortly',
};

const errorResponse = (codes: readonly ErrorCode[], description: string, extraHeaders: readonly string[] = [], headers: readonly string[] = COMMON_HEADERS) => {
  const code = codes[0]!;
  return {
    description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    headers: headerRefs([...headers, ...extraHeaders]),
    content: {
      'application/json': {
        schema: {
          allOf: [ref('schemas', 'Error'), { properties: { code: { enum: [...codes] }, status: { const: ERROR_STATUS[code] } } }],
        },
        example: { code, message: EXAMPLE_MESSAGES[code] ?? `an example of ${code}`, status: ERROR_STATUS[code] },
      },
    },
  };
};

/** Answers the server gives before any operation runs, on every operation (CONTRACT.md §3, §6). */
const transportErrors = {
  '408': ref('responses', 'RequestTimeout'),
  '431': ref('responses', 'HeadersTooLarge'),
};

/** Responses every `/v1` operation can give (besides its own). */
const sharedErrors = {
  ...transportErrors,
  '401': ref('responses', 'Unauthorized'),
  '429': ref('responses', 'TooManyRequests'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'Unavailable'),
};

const withHeaders = (names: readonly string[], response: Record<string, unknown>) => ({
  ...response,
  headers: { ...headerRefs(names), ...((response['headers'] as object | undefined) ?? {}) },
});

const PET_EXAMPLE = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };

type Operation = { parameters?: unknown[]; responses: Record<string, unknown> };
type Document = { paths: Record<string, Record<string, Operation>> } & Record<string, unknown>;

/**
 * Every create of `IDEMPOTENT_CREATES` present in the document (whichever operations it holds)
 * takes the optional `Idempotency-Key` header and may answer 409 (in progress) and 422 (reused);
 * its answers may carry `Idempotent-Replayed`.
 */
const withIdempotentCreates = <D extends Document>(doc: D): D => {
  for (const path of IDEMPOTENT_CREATES) {
    const post = doc.paths[path.replace(/^\/v1/, '')]?.['post'];
    if (post === undefined) continue;
    post.parameters = [...(post.parameters ?? []), ref('parameters', 'IdempotencyKey')];
    for (const [status, response] of Object.entries(post.responses)) {
      if (/^2/.test(status)) {
        const r = response as { headers?: Record<string, unknown> };
        r.headers = { ...r.headers, 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') };
      }
    }
    // An operation with a 409 of its own (a category name taken) keeps it: its code is `conflict` too.
    post.responses = { '409': ref('responses', 'IdempotencyInProgress'), ...post.responses, '422': ref('responses', 'IdempotencyKeyReused') };
  }
  return doc;
};

/**
 * The OpenAPI 3.1 description of the v1 API, built from the domain's JSON Schemas: the same
 * objects that ajv compiles to validate requests.
 */
export const buildOpenApiDocument = (): Record<string, unknown> => {
  const sunset = new Date(GET_PET_DEPRECATION.sunsetAt).toISOString().slice(0, 10);
  const dep = deprecationHeaders(GET_PET_DEPRECATION);
  const plans = Object.entries(PLAN_QUOTAS)
    .map(([name, q]) => `${name}: ${q.perMinute}/minute, ${q.perDay}/day`)
    .join('; ');
  const queryParam = (name: 'limit' | 'status' | 'cursor') => {
    const { description, ...schema } = ListPetsQuerySchema.properties[name];
    return { name, in: 'query', required: false, description, schema };
  };
  const { description: petIdDescription, ...petIdSchema } = PetIdSchema;
  const deprecated = (response: Record<string, unknown>) => withHeaders(DEPRECATION_HEADERS, response);

  return withIdempotentCreates({
    openapi: '3.1.0',
    info: {
      title: 'Animal Adoption Store',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        `Browse and add animals up for adoption. Every operation needs \`Authorization: Bearer <API_KEY>\`. ` +
        `Rate limits per plan (${plans}; enterprise per key); every response reports them in \`X-RateLimit-*\`, ` +
        '`RateLimit-Policy` and `RateLimit`. Store orders and categories are announced but not part of v1 yet.',
    },
    servers: [{ url: '/v1', description: 'This server. Every deployment (production, staging) serves the API under a base address ending in /v1.' }],
    tags: [
      { name: 'pets', description: 'Animals up for adoption.' },
      { name: 'store', description: 'Store orders: announced, no operation in v1 yet.' },
      { name: 'categories', description: 'Categories of animals: announced, no operation in v1 yet.' },
    ],
    security: [{ bearerAuth: [] }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List animals',
          description:
            'Animals in ascending id order, at most `limit`. When more exist, `Link: <…>; rel="next"` gives the URL of the next page (same `limit` and `status`, plus an opaque `cursor`). The body stays a plain array.',
          tags: ['pets'],
          parameters: [queryParam('limit'), queryParam('status'), queryParam('cursor')],
          responses: {
            '200': withHeaders(COMMON_HEADERS, {
              description: `A page of animals (default ${LIMIT_DEFAULT}).`,
              headers: { Link: ref('headers', 'Link-Next') },
              content: {
                'application/json': {
                  schema: ref('schemas', 'Pets'),
                  example: [
                    { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
                    { id: 2, name: 'Mia', categoryId: 2, status: 'available' },
                  ],
                },
              },
            }),
            '400': ref('responses', 'BadRequest'),
            ...sharedErrors,
          },
        },
        post: {
          operationId: 'createPet',
          summary: 'Add an animal',
          tags: ['pets'],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('schemas', 'NewPet'), example: { name: 'Rex', categoryId: 1, status: 'available' } } },
          },
          responses: {
            '201': withHeaders(COMMON_HEADERS, {
              description: 'The animal, with the id the service assigned.',
              headers: { Location: ref('headers', 'Location') },
              content: { 'application/json': { schema: ref('schemas', 'Pet'), example: PET_EXAMPLE } },
            }),
            '400': ref('responses', 'BadRequest'),
            '413': errorResponse(['payload_too_large'], 'The body is larger than 1 MiB.'),
            '415': errorResponse(['unsupported_media_type'], 'The body is not application/json.'),
            ...sharedErrors,
          },
        },
      },
      '/pets/{petId}': {
        get: {
          operationId: 'getPet',
          summary: 'Fetch one animal (deprecated)',
          description: `Deprecated: sunsets on ${sunset} (\`Sunset: ${dep.Sunset}\`); from then on it answers 410. Use \`GET /pets\` with the \`status\` filter instead.`,
          deprecated: true,
          'x-sunset': sunset,
          tags: ['pets'],
          parameters: [{ name: 'petId', in: 'path', required: true, description: petIdDescription, schema: petIdSchema, example: 1 }],
          responses: {
            '200': deprecated(
              withHeaders(COMMON_HEADERS, { description: 'The animal.', content: { 'application/json': { schema: ref('schemas', 'Pet'), example: PET_EXAMPLE } } }),
            ),
            '400': deprecated(errorResponse(['validation_failed'], 'petId is not a positive int64 written canonically.')),
            '401': deprecated(errorResponse(['unauthorized'], 'Credential missing or invalid.', ['WWW-Authenticate'])),
            ...transportErrors,
            '404': deprecated(errorResponse(['not_found'], 'No animal has this id.')),
            '410': deprecated(errorResponse(['gone'], 'The operation is past its sunset.')),
            '429': deprecated(errorResponse(['rate_limited', 'temporarily_banned'], 'Over the rate limit, or banned for a while.', ['Retry-After'])),
            '500': deprecated(errorResponse(['internal_error'], 'A fault of the service.')),
            '503': deprecated(errorResponse(['unavailable'], 'The store cannot be reached.', ['Retry-After'])),
          },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          description: 'No credential needed, not rate-limited. Rendered for people at `/docs` on this server.',
          tags: ['pets'],
          security: [],
          responses: {
            '200': {
              description: 'The OpenAPI description.',
              headers: headerRefs(['X-Request-Id']),
              content: { 'application/json': { schema: { type: 'object' }, example: { openapi: '3.1.0', info: { title: 'Animal Adoption Store', version: '1.0.0' }, paths: {} } } },
            },
            ...transportErrors,
          },
        },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' } },
      schemas: { Pet: PetSchema, NewPet: NewPetSchema, Pets: { type: 'array', items: ref('schemas', 'Pet') }, Error: ErrorSchema },
      parameters: {
        IdempotencyKey: { name: 'Idempotency-Key', in: 'header', required: false, description: IdempotencyKeySchema.description, schema: { ...IdempotencyKeySchema, description: undefined }, example: '5f2b7c1e-8d4a-4a1b-9c57-0e6f1d2a3b4c' },
      },
      responses: {
        RequestTimeout: errorResponse(['request_timeout'], 'The headers (10 s) or the whole request (30 s) did not arrive in time; the connection closes.', [], ['X-Request-Id']),
        HeadersTooLarge: errorResponse(['headers_too_large'], 'The request headers are over 16 KB; the connection closes.', [], ['X-Request-Id']),
        IdempotencyInProgress: errorResponse(['conflict'], 'A request with this `Idempotency-Key` is still being processed; retry in a moment.'),
        IdempotencyKeyReused: errorResponse(['idempotency_key_reused'], 'This `Idempotency-Key` was sent before with a different request (another path or body).'),
        BadRequest: errorResponse(['validation_failed', 'malformed_json'], 'The request breaks a rule; the message names the field and why.'),
        Unauthorized: errorResponse(['unauthorized'], 'Credential missing or invalid.', ['WWW-Authenticate']),
        TooManyRequests: errorResponse(['rate_limited', 'temporarily_banned'], 'Over the rate limit, or banned for a while after repeated requests past a 429.', ['Retry-After']),
        InternalError: errorResponse(['internal_error'], 'A fault of the service; the request id is in the log.'),
        Unavailable: errorResponse(['unavailable'], 'The store cannot be reached; retry after `Retry-After` seconds.', ['Retry-After']),
      },
      headers: {
        'X-Request-Id': header('Echo of a well-formed incoming X-Request-Id, else a generated one.'),
        'X-RateLimit-Limit': header('The limit of the binding window (the one with fewer requests left).', { type: 'integer' }),
        'X-RateLimit-Remaining': header('Requests left in the binding window.', { type: 'integer', minimum: 0 }),
        'X-RateLimit-Reset': header('Unix time (seconds) at which the binding window resets.', { type: 'integer' }),
        'RateLimit-Policy': header('The plan\'s windows, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400` (draft-ietf-httpapi-ratelimit-headers).'),
        RateLimit: header('The binding window, e.g. `"minute";r=59;t=42`.'),
        'Retry-After': header('Seconds to wait before retrying.', { type: 'integer', minimum: 1 }),
        'WWW-Authenticate': header('`Bearer realm="petstore"`, with `error="invalid_token"` when a credential was sent.'),
        Location: header('Path of the created animal, `/v1/pets/{id}`.'),
        'Link-Next': header('`<…>; rel="next"`: the next page, present only when one exists.'),
        Deprecation: header(`When the operation was deprecated (RFC 9745): \`${dep.Deprecation}\`.`),
        Sunset: header(`When the operation goes away (RFC 8594): \`${dep.Sunset}\`.`),
        'Link-Successor': header(`The replacement: \`${dep.Link}\`.`),
        'Idempotent-Replayed': header('`true` on an answer replayed for a repeated `Idempotency-Key`; absent otherwise.'),
      },
    },
  });
};

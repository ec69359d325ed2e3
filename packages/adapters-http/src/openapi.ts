import {
  CategoryIdSchema,
  CategorySchema,
  InventorySchema,
  ListOrdersQuerySchema,
  NewOrderSchema,
  OrderIdSchema,
  OrderSchema,
  ApiKeyPatchSchema,
  ApiKeySchema,
  CreatedApiKeySchema,
  KeyIdSchema,
  ListKeysQuerySchema,
  NewApiKeySchema,
  ErrorSchema,
  ListCategoriesQuerySchema,
  NewCategorySchema,
  GET_PET_DEPRECATION,
  IdempotencyKeySchema,
  INT64_MAX,
  LIMIT_DEFAULT,
  ListPetsQuerySchema,
  NewPetSchema,
  PetPatchSchema,
  PetIdSchema,
  PetSchema,
  PLAN_QUOTAS,
  deprecationHeaders,
  OWN_STATUS_QUOTA,
  OwnStatusSchema,
  PHOTO_BODY_LIMIT_BYTES,
  PHOTO_CONTENT_TYPES,
  PHOTO_MAX_PIXELS,
  PHOTO_MAX_SIDE,
  PHOTO_STORED_LONG_SIDE,
  PHOTO_WIDTHS,
  PHOTOS_PER_PET,
  PhotoIdSchema,
  PhotoSchema,
  PhotoWidthSchema,
} from '@petstore/domain';
import type { ErrorCode } from '@petstore/domain';
import { ERROR_STATUS } from './errors.js';
import { IDEMPOTENT_CREATES } from './middleware/idempotency.js';
import { PHOTO_CACHE_CONTROL } from './photos.js';
import { EXAMPLE_PHOTO_PATHS } from './docs.js';
import { BODY_LIMIT_BYTES } from './body.js';
import { HEADER_LIMIT_BYTES, HEADERS_TIMEOUT_MS, HEADERS_TOO_LARGE_MESSAGE, REQUEST_TIMEOUT_MS, requestTimeoutMessage } from './limits.js';

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json | undefined };

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'];
const COMMON_HEADERS = ['X-Request-Id', ...RATE_LIMIT_HEADERS];
const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link-Successor'];

const headerRefs = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n === 'Link-Successor' ? 'Link' : n, ref('headers', n)]));

/** The 413's description on every operation that takes a body. */
const BODY_TOO_LARGE = `The body is larger than ${BODY_LIMIT_BYTES / 2 ** 20} MiB.`;

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
  idempotency_key_reused: 'this Idempotency-Key was used with a different request (method, path or body); use a new key for a new request',
  rate_limited: 'rate limit of 60 requests per minute exceeded; retry in 17 seconds',
  headers_too_large: HEADERS_TOO_LARGE_MESSAGE,
  internal_error: 'an internal error occurred; quote request id 3f1c…',
  unavailable: 'the pet store is unavailable right now; retry shortly',
};

/**
 * An error response: its codes, the headers it carries, and an example body (`exampleMessage`, or
 * the code's usual message).
 */
const errorResponse = (
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
          allOf: [ref('schemas', 'Error'), { properties: { code: { enum: [...codes] }, status: { const: ERROR_STATUS[code] } } }],
        },
        example: { code, message: exampleMessage ?? EXAMPLE_MESSAGES[code] ?? `an example of ${code}`, status: ERROR_STATUS[code] },
      },
    },
  };
};

/** Answers the server gives before any operation runs, on every operation (docs/rules.md §3, §6). */
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

/** An `Error` body as an example, for the response of `code`. */
const errorExample = (code: ErrorCode, message: string) => ({ value: { code, message, status: ERROR_STATUS[code] } });

/** `response` with one named example of its JSON body. */
const withExample = (response: Record<string, unknown>, name: string, example: { summary?: string; value: Json }) => {
  // `examples` replaces the media type's single `example` (OpenAPI allows one or the other).
  const { example: _single, ...media } = (response['content'] as { 'application/json': Record<string, unknown> })['application/json'];
  return { ...response, content: { 'application/json': { ...media, examples: { [name]: example } } } };
};

const withHeaders = (names: readonly string[], response: Record<string, unknown>) => ({
  ...response,
  headers: { ...headerRefs(names), ...((response['headers'] as object | undefined) ?? {}) },
});

const PET_EXAMPLE = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };

type Operation = { parameters?: unknown[]; responses: Record<string, unknown> };

const withIdempotentCreates = <D extends { readonly paths: object }>(doc: D): D => {
  const paths = doc.paths as Readonly<Record<string, Readonly<Record<string, Operation | undefined>> | undefined>>;
  for (const path of IDEMPOTENT_CREATES) {
    // A route template (`/v1/pets/:petId/photos`) as an OpenAPI path (`/pets/{petId}/photos`).
    const post = paths[path.replace(/^\/v1/, '').replace(/:(\w+)/g, '{$1}')]?.['post'];
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
 * OpenAPI links (docs/rules.md §2): from the id in a create's answer to the parameter of each
 * operation that takes it, so that tools walking the document (stateful fuzzers, client
 * generators) can follow the flow. One row per create; a new operation on a resource is one more
 * name in its row (a test holds every operation with one of these path parameters to its row).
 */
const CREATED_ID_LINKS: readonly { readonly create: string; readonly parameter: string; readonly to: readonly string[] }[] = [
  // Each row lists the operation that removes what the create made last: a fuzzer following the links
  // (Schemathesis, stateful) tries a new pet's photos before it withdraws the pet.
  { create: 'createPet', parameter: 'petId', to: ['getPet', 'updatePet', 'listPetPhotos', 'uploadPetPhoto', 'getPetPhoto', 'deletePetPhoto', 'deletePet'] },
  { create: 'uploadPetPhoto', parameter: 'photoId', to: ['getPetPhoto', 'deletePetPhoto'] },
  { create: 'createCategory', parameter: 'categoryId', to: ['getCategory', 'listPets'] },
  { create: 'placeOrder', parameter: 'orderId', to: ['getOrder', 'approveOrder', 'deliverOrder', 'cancelOrder'] },
  { create: 'createApiKey', parameter: 'keyId', to: ['getApiKey', 'updateApiKey', 'revokeApiKey'] },
];

type LinkedOperation = { operationId?: string; responses: Record<string, { links?: Record<string, unknown> }> };

const withCreatedIdLinks = <D extends { readonly paths: object }>(doc: D): D => {
  const operations = new Map<string, LinkedOperation>();
  for (const item of Object.values(doc.paths as Record<string, Record<string, LinkedOperation>>)) {
    for (const operation of Object.values(item)) if (typeof operation.operationId === 'string') operations.set(operation.operationId, operation);
  }
  for (const { create, parameter, to } of CREATED_ID_LINKS) {
    const created = operations.get(create)?.responses['201'];
    if (created === undefined) throw new Error(`OpenAPI links: ${create} has no 201 answer`);
    created.links = Object.fromEntries(
      to.map((operationId) => {
        if (!operations.has(operationId)) throw new Error(`OpenAPI links: no operation ${operationId}`);
        return [operationId, { operationId, parameters: { [parameter]: '$response.body#/id' }, description: `The \`id\` in the answer is the \`${parameter}\` of ${operationId}.` }];
      }),
    );
  }
  return doc;
};

/**
 * The document as served: JSON, with int64's maximum written exactly. A JavaScript number cannot
 * hold 9223372036854775807 (the schemas carry the nearest double, 2^63, which `JSON.stringify`
 * prints as 9223372036854776000, beyond int64): each such number is written as `INT64_MAX`.
 */
export const openApiJson = (doc: Record<string, unknown>): string => {
  const int64Max = Number(INT64_MAX);
  const marker = '\u0000int64-max';
  return JSON.stringify(doc, (_key, value: unknown) => (value === int64Max ? marker : value)).replaceAll(JSON.stringify(marker), INT64_MAX);
};

/**
 * The OpenAPI 3.1 description of the v1 API, built from the domain's JSON Schemas: the same
 * objects that ajv compiles to validate requests. Serve it with `openApiJson`.
 */
export const buildOpenApiDocument = (): Record<string, unknown> => {
  const sunset = new Date(GET_PET_DEPRECATION.sunsetAt).toISOString().slice(0, 10);
  const dep = deprecationHeaders(GET_PET_DEPRECATION);
  const plans = Object.entries(PLAN_QUOTAS)
    .map(([name, q]) => `${name}: ${q.perMinute}/minute, ${q.perDay}/day`)
    .join('; ');
  const queryParam = (name: 'limit' | 'status' | 'categoryId' | 'cursor') => {
    const { description, ...schema } = ListPetsQuerySchema.properties[name];
    return { name, in: 'query', required: false, description, schema };
  };
  const categoriesQueryParam = (name: 'limit' | 'cursor') => {
    const { description, ...schema } = ListCategoriesQuerySchema.properties[name];
    return { name, in: 'query', required: false, description, schema };
  };
  const { description: petIdDescription, ...petIdSchema } = PetIdSchema;
  const { description: categoryIdDescription, ...categoryIdSchema } = CategoryIdSchema;
  const beta = 'Beta: this operation may still change within v1.';
  const dogs = { id: 1, name: 'Dogs' };
  const categoryBadRequest = (message: string) =>
    withExample(errorResponse(['validation_failed', 'malformed_json'], 'The request breaks a rule; the message names the field and why.'), 'invalid', errorExample('validation_failed', message));
  const store = storeOperations();
  const maintenance = petMaintenanceOperations({ description: petIdDescription, schema: petIdSchema });
  const photos = photoOperations();
  const deprecated = (response: Record<string, unknown>) => withHeaders(DEPRECATION_HEADERS, response);

  return withCreatedIdLinks(withIdempotentCreates({
    openapi: '3.1.0',
    info: {
      title: 'Animal Adoption Store',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        `Browse and add animals up for adoption. Every operation needs \`Authorization: Bearer <API_KEY>\`. ` +
        `Rate limits per plan (${plans}; enterprise per key); every response reports them in \`X-RateLimit-*\`, ` +
        '`RateLimit-Policy` and `RateLimit`. Every operation carries `x-stability`: `stable` operations keep their contract for all of v1; ' +
        '`beta` ones (categories, the store, admin, correcting and withdrawing pets) may still change within v1.',
    },
    servers: [{ url: '/v1', description: 'This server. Every deployment (production, staging) serves the API under a base address ending in /v1.' }],
    tags: [
      { name: 'pets', description: 'Animals up for adoption; correcting and withdrawing them (beta, admin keys).' },
      { name: 'categories', description: 'Categories of animals (beta): every pet belongs to one; list pets by category with `GET /pets?categoryId=`.' },
      {
        name: 'store',
        description:
          'Store orders: the adoption flow (beta). An order reserves one available animal (it becomes `pending`); an admin key approves and delivers it (the animal becomes `sold`); the owner or an admin cancels it (the animal is `available` again).',
      },
      { name: 'admin', description: 'API keys and plans: issue, list, change and revoke keys. Admin keys only. Beta: these operations may still change within v1.' },
      {
        name: 'me',
        description:
          "The calling key's own status (beta), for any key, client or admin: its plan and quota, what is left of its windows and whether it is banned, without spending any of it.",
      },
    ],
    security: [{ bearerAuth: [] }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List animals',
          description:
            'Animals in ascending id order, at most `limit`, optionally only those with a `status`, of a category (`categoryId`), or both. When more exist, `Link: <…>; rel="next"` gives the URL of the next page (same `limit`, `status` and `categoryId`, plus an opaque `cursor` bound to those filters). The body stays a plain array.',
          'x-stability': 'stable',
          tags: ['pets'],
          parameters: [queryParam('limit'), queryParam('status'), queryParam('categoryId'), queryParam('cursor')],
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
          description: 'Adds an animal to a category: `categoryId` must name an existing category (create one with `POST /categories`), else 400.',
          'x-stability': 'stable',
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
            '413': errorResponse(['payload_too_large'], BODY_TOO_LARGE),
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
          'x-stability': 'stable',
          tags: ['pets'],
          parameters: [{ name: 'petId', in: 'path', required: true, description: petIdDescription, schema: petIdSchema, example: 1 }],
          responses: {
            '200': deprecated(
              withHeaders(COMMON_HEADERS, {
                description: 'The animal. `ETag` is its revision: send it back in `If-Match` to change the animal only as you read it (`PATCH`, `DELETE`).',
                headers: { ETag: ref('headers', 'ETag') },
                content: { 'application/json': { schema: ref('schemas', 'Pet'), example: PET_EXAMPLE } },
              }),
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
        ...maintenance.operations,
      },
      ...store.paths,
      ...photos.paths,
      ...adminKeyPaths(),
      ...ownStatusPaths(),
      '/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          description:
            'The OpenAPI 3.1 description of this API, built from the JSON Schemas that validate requests. No credential needed, not rate-limited. Rendered for people at `/docs` on this server.',
          tags: ['pets'],
          'x-stability': 'stable',
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
      '/categories': {
        get: {
          operationId: 'listCategories',
          summary: 'List categories',
          description: `Categories in ascending id order, at most \`limit\`, paged exactly as \`GET /pets\` (\`Link: <…>; rel="next"\`, opaque \`cursor\`, plain array). ${beta}`,
          'x-stability': 'beta',
          tags: ['categories'],
          parameters: [categoriesQueryParam('limit'), categoriesQueryParam('cursor')],
          responses: {
            '200': withHeaders(
              COMMON_HEADERS,
              withExample(
                {
                  description: `A page of categories (default ${LIMIT_DEFAULT}).`,
                  headers: { Link: ref('headers', 'Link-Next') },
                  content: { 'application/json': { schema: ref('schemas', 'Categories') } },
                },
                'page',
                { summary: 'A page of two categories', value: [dogs, { id: 2, name: 'Cats' }] },
              ),
            ),
            '400': categoryBadRequest('limit must be an integer from 1 to 100'),
            ...sharedErrors,
          },
        },
        post: {
          operationId: 'createCategory',
          summary: 'Add a category',
          description:
            `Creates a category. Names are unique ignoring case and Unicode normalization: a name that is the same name as an existing one (\`dogs\` after \`Dogs\`) gets 409 \`conflict\` whose message gives the existing category's id. Any key may create. ${beta}`,
          'x-stability': 'beta',
          tags: ['categories'],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('schemas', 'NewCategory'), examples: { dogs: { summary: 'A new category', value: { name: 'Dogs' } } } } },
          },
          responses: {
            '201': withHeaders(
              COMMON_HEADERS,
              withExample(
                {
                  description: 'The category, with the id the service assigned.',
                  headers: { Location: ref('headers', 'Location-Category') },
                  content: { 'application/json': { schema: ref('schemas', 'Category') } },
                },
                'created',
                { summary: 'The created category', value: dogs },
              ),
            ),
            '400': categoryBadRequest('name must contain at least one non-whitespace character'),
            '409': withExample(
              errorResponse(['conflict'], 'A category with the same name (ignoring case and Unicode normalization) exists; the message gives its id.'),
              'taken',
              errorExample('conflict', 'category 1 already has this name (names are compared ignoring case and Unicode normalization); use categoryId 1'),
            ),
            '413': errorResponse(['payload_too_large'], BODY_TOO_LARGE),
            '415': errorResponse(['unsupported_media_type'], 'The body is not application/json.'),
            ...sharedErrors,
          },
        },
      },
      '/categories/{categoryId}': {
        get: {
          operationId: 'getCategory',
          summary: 'Fetch one category',
          description: `The category with this id; its animals are listed by \`GET /pets?categoryId={categoryId}\`. ${beta}`,
          'x-stability': 'beta',
          tags: ['categories'],
          parameters: [{ name: 'categoryId', in: 'path', required: true, description: categoryIdDescription, schema: categoryIdSchema, example: 1 }],
          responses: {
            '200': withHeaders(
              COMMON_HEADERS,
              withExample({ description: 'The category.', content: { 'application/json': { schema: ref('schemas', 'Category') } } }, 'found', {
                summary: 'A category',
                value: dogs,
              }),
            ),
            '400': withExample(
              errorResponse(['validation_failed'], 'categoryId is not a positive int64 written canonically.'),
              'invalid',
              errorExample('validation_failed', 'categoryId must be a positive integer from 1 to 9223372036854775807, written without sign, leading zeros or fraction'),
            ),
            '404': withExample(errorResponse(['not_found'], 'No category has this id.'), 'missing', errorExample('not_found', 'no category has id 42')),
            ...sharedErrors,
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' },
        adminKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An admin key (from `PETSTORE_ADMIN_KEYS`) as a bearer token: `Authorization: Bearer <ADMIN_KEY>`. A client key gets 403 `forbidden`.',
        },
      },
      schemas: {
        Pet: PetSchema,
        NewPet: NewPetSchema,
        PetPatch: PetPatchSchema,
        Pets: { type: 'array', items: ref('schemas', 'Pet') },
        Category: CategorySchema,
        NewCategory: NewCategorySchema,
        Categories: { type: 'array', items: ref('schemas', 'Category') },
        Error: ErrorSchema,
        ...store.schemas,
        ApiKey: ApiKeySchema,
        ApiKeys: { type: 'array', items: ref('schemas', 'ApiKey') },
        CreatedApiKey: CreatedApiKeySchema,
        NewApiKey: NewApiKeySchema,
        ApiKeyPatch: ApiKeyPatchSchema,
        OwnStatus: OwnStatusSchema,
        ...photos.schemas,
      },
      parameters: {
        ...maintenance.parameters,
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
        RequestTimeout: errorResponse(['request_timeout'], `The headers (${HEADERS_TIMEOUT_MS / 1000} s) or the whole request (${REQUEST_TIMEOUT_MS / 1000} s) did not arrive in time; the connection closes.`, [], undefined, ['X-Request-Id']),
        HeadersTooLarge: errorResponse(['headers_too_large'], `The request headers are over ${HEADER_LIMIT_BYTES / 1024} KB; the connection closes.`, [], undefined, ['X-Request-Id']),
        IdempotencyInProgress: errorResponse(['conflict'], 'A request with this `Idempotency-Key` is still being processed; retry in a moment.'),
        IdempotencyKeyReused: errorResponse(['idempotency_key_reused'], 'This `Idempotency-Key` was sent before with a different request (another path or body).'),
        BadRequest: errorResponse(['validation_failed', 'malformed_json'], 'The request breaks a rule; the message names the field and why.'),
        Unauthorized: errorResponse(['unauthorized'], 'Credential missing or invalid.', ['WWW-Authenticate']),
        TooManyRequests: errorResponse(['rate_limited', 'temporarily_banned'], 'Over the rate limit, or banned for a while after repeated requests past a 429.', ['Retry-After']),
        InternalError: errorResponse(['internal_error'], 'A fault of the service; the request id is in the log.'),
        Unavailable: errorResponse(['unavailable'], 'The store cannot be reached; retry after `Retry-After` seconds.', ['Retry-After']),
        Forbidden: errorResponse(['forbidden'], 'The key is a client key; this operation needs an admin key.'),
        ...maintenance.responses,
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
        'Location-Key': header('Path of the created key, `/v1/admin/keys/{keyId}`.'),
        'Location-Category': header('Path of the created category, `/v1/categories/{id}`.'),
        'Cache-Control': header('`no-store`: the answer holds a key, which no cache may keep.'),
        'Link-Next': header('`<…>; rel="next"`: the next page, present only when one exists.'),
        Deprecation: header(`When the operation was deprecated (RFC 9745): \`${dep.Deprecation}\`.`),
        Sunset: header(`When the operation goes away (RFC 8594): \`${dep.Sunset}\`.`),
        'Link-Successor': header(`The replacement: \`${dep.Link}\`.`),
        'Location-Order': header('Path of the created order, `/v1/store/orders/{id}`.'),
        'Idempotent-Replayed': header('`true` on an answer replayed for a repeated `Idempotency-Key`; absent otherwise.'),
        ...maintenance.headers,
        ...photos.headers,
      },
    },
  }));
};

const BETA = 'Beta (`x-stability: beta`): this operation may still change within v1.';
const EXAMPLE_ORDER = { id: 12, petId: 7, status: 'placed', placedAt: '2027-01-01T09:30:00.000Z', updatedAt: '2027-01-01T09:30:00.000Z' };

/** The operations of docs/rules.md §8 (tag `store`, beta), and the schemas only they use. */
const storeOperations = () => {
  const { description: orderIdDescription, ...orderIdSchema } = OrderIdSchema;
  const orderIdParam = { name: 'orderId', in: 'path', required: true, description: orderIdDescription, schema: orderIdSchema, example: 12 };
  const listParam = (name: 'limit' | 'status' | 'cursor') => {
    const { description, ...schema } = ListOrdersQuerySchema.properties[name];
    return { name, in: 'query', required: false, description, schema };
  };
  const orderResponse = (description: string, order: Record<string, unknown>) =>
    withHeaders(COMMON_HEADERS, { description, content: { 'application/json': { schema: ref('schemas', 'Order'), example: order } } });
  const badOrderId = errorResponse(['validation_failed'], 'orderId is not a positive int64 written canonically.', [], 'orderId must be a positive integer from 1 to 9223372036854775807, written without sign, leading zeros or fraction');
  const noOrder = errorResponse(['not_found'], 'No order has this id among those the key may see (another client key\'s order is not found, never forbidden).', [], 'no order has id 12');
  const adminOnly = (action: string) => errorResponse(['forbidden'], 'A client key: only admin keys may take this action, whatever the order id.', [], `only an admin key may ${action} an order`);
  const transitionConflict = (message: string) => errorResponse(['conflict'], 'The order\'s status does not allow this move; the message says the status. Nothing changed.', [], message);
  const action = (
    operationId: string,
    name: 'approve' | 'deliver' | 'cancel',
    summary: string,
    description: string,
    after: Record<string, unknown>,
    conflictMessage: string,
  ) => ({
    post: {
      operationId,
      summary,
      description: `${description} Repeating it on an order already in the target status answers 200 with the order unchanged. ${BETA}`,
      tags: ['store'],
      'x-stability': 'beta',
      parameters: [orderIdParam],
      responses: {
        '200': orderResponse('The order after the action.', after),
        '400': badOrderId,
        ...(name === 'cancel' ? {} : { '403': adminOnly(name) }),
        '404': noOrder,
        '409': transitionConflict(conflictMessage),
        ...sharedErrors,
      },
    },
  });
  const later = '2027-01-02T10:00:00.000Z';
  return {
    schemas: {
      Order: OrderSchema,
      NewOrder: NewOrderSchema,
      Orders: { type: 'array', items: ref('schemas', 'Order') },
      Inventory: InventorySchema,
    },
    paths: {
      '/store/orders': {
        post: {
          operationId: 'placeOrder',
          summary: 'Order an animal',
          description:
            'Reserves an `available` animal for the calling key, which owns the order: the animal becomes `pending`. Of simultaneous orders for one animal exactly one succeeds; the others get 409. ' +
            BETA,
          tags: ['store'],
          'x-stability': 'beta',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('schemas', 'NewOrder'), example: { petId: 7 } } },
          },
          responses: {
            '201': withHeaders(COMMON_HEADERS, {
              description: 'The order, `placed`, with the id the service assigned.',
              headers: { Location: ref('headers', 'Location-Order') },
              content: { 'application/json': { schema: ref('schemas', 'Order'), example: EXAMPLE_ORDER } },
            }),
            '400': errorResponse(['validation_failed', 'malformed_json'], 'The body breaks a rule, or petId names no animal.', [], 'petId 7 names no pet'),
            '409': errorResponse(['conflict'], 'The animal is not `available`; the message says its status.', [], 'pet 7 is pending; only an available pet can be ordered'),
            '413': errorResponse(['payload_too_large'], BODY_TOO_LARGE),
            '415': errorResponse(['unsupported_media_type'], 'The body is not application/json.'),
            ...sharedErrors,
          },
        },
        get: {
          operationId: 'listOrders',
          summary: 'List orders',
          description:
            'The calling key\'s orders (an admin key: every order) in ascending id order, at most `limit`, optionally of one status. Paged like `GET /pets`: `Link: <…>; rel="next"` while more exist; the cursor is bound to the key and the filter. ' +
            BETA,
          tags: ['store'],
          'x-stability': 'beta',
          parameters: [listParam('limit'), listParam('status'), listParam('cursor')],
          responses: {
            '200': withHeaders(COMMON_HEADERS, {
              description: `A page of orders (default ${LIMIT_DEFAULT}).`,
              headers: { Link: ref('headers', 'Link-Next') },
              content: { 'application/json': { schema: ref('schemas', 'Orders'), example: [EXAMPLE_ORDER] } },
            }),
            '400': errorResponse(['validation_failed'], 'limit, status or cursor breaks its rule.', [], 'status must be one of placed, approved, delivered, cancelled'),
            ...sharedErrors,
          },
        },
      },
      '/store/orders/{orderId}': {
        get: {
          operationId: 'getOrder',
          summary: 'Fetch one order',
          description: `An order of the calling key (an admin key: any order); another client key's order is 404. ${BETA}`,
          tags: ['store'],
          'x-stability': 'beta',
          parameters: [orderIdParam],
          responses: {
            '200': orderResponse('The order.', EXAMPLE_ORDER),
            '400': badOrderId,
            '404': noOrder,
            ...sharedErrors,
          },
        },
      },
      '/store/orders/{orderId}/approve': action(
        'approveOrder',
        'approve',
        'Approve an order (admin)',
        'Moves a `placed` order to `approved`; the animal stays `pending`. Admin keys only: a client key gets 403 whatever the id.',
        { ...EXAMPLE_ORDER, status: 'approved', updatedAt: later },
        'order 12 is delivered; only an order that is placed can be approved',
      ),
      '/store/orders/{orderId}/deliver': action(
        'deliverOrder',
        'deliver',
        'Deliver an order (admin)',
        'Moves an `approved` order to `delivered`; the animal becomes `sold`. Admin keys only: a client key gets 403 whatever the id.',
        { ...EXAMPLE_ORDER, status: 'delivered', updatedAt: later },
        'order 12 is placed; only an order that is approved can be delivered',
      ),
      '/store/orders/{orderId}/cancel': action(
        'cancelOrder',
        'cancel',
        'Cancel an order',
        'Moves a `placed` or `approved` order to `cancelled`; the animal is `available` again. The owner or an admin key; another client key gets 404.',
        { ...EXAMPLE_ORDER, status: 'cancelled', updatedAt: later },
        'order 12 is delivered; only an order that is placed or approved can be cancelled',
      ),
      '/store/inventory': {
        get: {
          operationId: 'getInventory',
          summary: 'Count animals by status',
          description: `How many animals are \`available\`, \`pending\` and \`sold\`, over all animals. ${BETA}`,
          tags: ['store'],
          'x-stability': 'beta',
          responses: {
            '200': withHeaders(COMMON_HEADERS, {
              description: 'The counts.',
              content: { 'application/json': { schema: ref('schemas', 'Inventory'), example: { available: 12, pending: 3, sold: 40 } } },
            }),
            ...sharedErrors,
          },
        },
      },
    },
  };
};

/**
 * An example key for the documentation: the shape of a real one (43 base64url characters of 32
 * bytes, so the last carries 4 bits and two zero bits: one of AEIMQUYcgkosw048), and plainly not one.
 */
const EXAMPLE_KEY = `pet_${'EXAMPLE_not_a_real_key_'.padEnd(42, 'x')}A`;

/** The five operations of docs/rules.md §9 (tag `admin`, beta, admin keys only). */
const adminKeyPaths = () => {
  const adminOnly = { tags: ['admin'], 'x-stability': 'beta', security: [{ adminKey: [] }] };
  const beta = 'Beta: may still change within v1. Needs an admin key; a client key gets 403.';
  const example = {
    id: 'key_3f2a9c81d04b',
    role: 'client',
    plan: 'pro',
    quota: PLAN_QUOTAS.pro,
    label: 'CI runner',
    source: 'api',
    createdAt: '2027-01-01T12:00:00.000Z',
  };
  const settingsExample = {
    id: 'key_9b1e07c5a2f4',
    role: 'admin',
    plan: 'business',
    quota: PLAN_QUOTAS.business,
    source: 'settings',
    createdAt: '2027-01-01T08:00:00.000Z',
  };
  const json = (schema: string, value: unknown) => ({ 'application/json': { schema: ref('schemas', schema), example: value } });
  const { description: keyIdDescription, ...keyIdSchema } = KeyIdSchema;
  const keyIdParam = { name: 'keyId', in: 'path', required: true, description: keyIdDescription, schema: keyIdSchema, example: example.id };
  const pageParam = (name: 'limit' | 'cursor') => {
    const { description, ...schema } = ListKeysQuerySchema.properties[name];
    return { name, in: 'query', required: false, description, schema };
  };
  const badRequest = errorResponse(['validation_failed', 'malformed_json'], 'The request breaks a rule; the message names the field and why.');
  const notFound = errorResponse(['not_found'], 'No key (or a revoked one) has this id.');
  const settingsConflict = errorResponse(['conflict'], 'The key comes from the server settings (`PETSTORE_API_KEYS`, `PETSTORE_ADMIN_KEYS`) and is changed only there.');
  const bodyErrors = {
    '413': errorResponse(['payload_too_large'], BODY_TOO_LARGE),
    '415': errorResponse(['unsupported_media_type'], 'The body is not application/json.'),
  };
  return {
    '/admin/keys': {
      get: {
        ...adminOnly,
        operationId: 'listApiKeys',
        summary: 'List API keys',
        description: `Every key that is not revoked, in order of creation (settings keys first), paged like \`GET /pets\`: at most \`limit\`, and \`Link: <…>; rel="next"\` while more exist. Never a key or its hash. ${beta}`,
        parameters: [pageParam('limit'), pageParam('cursor')],
        responses: {
          '200': withHeaders(COMMON_HEADERS, {
            description: 'A page of keys.',
            headers: { Link: ref('headers', 'Link-Next') },
            content: json('ApiKeys', [settingsExample, example]),
          }),
          '400': badRequest,
          '403': ref('responses', 'Forbidden'),
          ...sharedErrors,
        },
      },
      post: {
        ...adminOnly,
        operationId: 'createApiKey',
        summary: 'Issue an API key',
        description: `Issues a client key on a plan. The answer is the only place the key ever appears (\`Cache-Control: no-store\`): store it now; the service keeps only its SHA-256. It works at once. Takes no \`Idempotency-Key\`. ${beta}`,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'NewApiKey'),
              examples: {
                pro: { summary: 'A pro key with a label', value: { plan: 'pro', label: 'CI runner' } },
                enterprise: { summary: 'An enterprise key with its own numbers', value: { plan: 'enterprise', perMinute: 5000, perDay: 2000000 } },
              },
            },
          },
        },
        responses: {
          '201': withHeaders(COMMON_HEADERS, {
            description: 'The key, shown this once, with its public id.',
            headers: { Location: ref('headers', 'Location-Key'), 'Cache-Control': ref('headers', 'Cache-Control') },
            content: json('CreatedApiKey', { ...example, key: EXAMPLE_KEY }),
          }),
          '400': badRequest,
          '403': ref('responses', 'Forbidden'),
          ...bodyErrors,
          ...sharedErrors,
        },
      },
    },
    '/admin/keys/{keyId}': {
      parameters: [keyIdParam],
      get: {
        ...adminOnly,
        operationId: 'getApiKey',
        summary: 'Fetch one API key',
        description: `The key's public id, role, plan, quota, label, source and creation time; never the key or its hash. ${beta}`,
        responses: {
          '200': withHeaders(COMMON_HEADERS, { description: 'The key.', content: json('ApiKey', example) }),
          '400': errorResponse(['validation_failed'], 'keyId is not `key_` and 12 lowercase hex digits.'),
          '403': ref('responses', 'Forbidden'),
          '404': notFound,
          ...sharedErrors,
        },
      },
      patch: {
        ...adminOnly,
        operationId: 'updateApiKey',
        summary: 'Change the plan, quota or label of an API key',
        description: `Upgrade or downgrade a key, set an enterprise key's numbers (either alone on a key that is already enterprise, both when it moves to enterprise), or relabel it. A plan change applies from the key's next request, with the counts of its current minute and day kept. Keys from the settings answer 409. ${beta}`,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'ApiKeyPatch'),
              examples: {
                upgrade: { summary: 'Upgrade to business', value: { plan: 'business' } },
                enterprise: { summary: 'Move to enterprise with its numbers (both needed)', value: { plan: 'enterprise', perMinute: 5000, perDay: 2000000 } },
                perDay: { summary: "Raise an enterprise key's daily number alone (perMinute kept)", value: { perDay: 3000000 } },
                label: { summary: 'Relabel', value: { label: 'CI runner (staging)' } },
              },
            },
          },
        },
        responses: {
          '200': withHeaders(COMMON_HEADERS, { description: 'The key after the change.', content: json('ApiKey', { ...example, plan: 'business', quota: PLAN_QUOTAS.business }) }),
          '400': badRequest,
          '403': ref('responses', 'Forbidden'),
          '404': notFound,
          '409': settingsConflict,
          ...bodyErrors,
          ...sharedErrors,
        },
      },
      delete: {
        ...adminOnly,
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description: `From then on the key is refused with 401, on every server process within 1 second. Its orders stay. Keys from the settings answer 409. ${beta}`,
        responses: {
          '204': withHeaders(COMMON_HEADERS, { description: 'Revoked.' }),
          '400': errorResponse(['validation_failed'], 'keyId is not `key_` and 12 lowercase hex digits.'),
          '403': ref('responses', 'Forbidden'),
          '404': notFound,
          '409': settingsConflict,
          ...sharedErrors,
        },
      },
    },
  };
};

/** `GET /me` of docs/rules.md §14 (tag `me`, beta, any key). */
const ownStatusPaths = () => {
  const allowance = `${OWN_STATUS_QUOTA.perMinute} a minute`;
  const free = PLAN_QUOTAS.free;
  const window = (name: 'minute' | 'day', limit: number, remaining: number, resetAt: string) => ({ name, limit, remaining, resetAt });
  return {
    '/me': {
      get: {
        operationId: 'getMe',
        summary: "Your key's plan, windows and ban",
        description:
          "The calling key (client or admin): its public id, role, plan and quota, each window's limit, what is left and when it resets, and the end of a running ban. " +
          'It takes nothing from your windows and answers 200 also while you are over your limit or banned: see why you get 429 and until when, without making it worse. ' +
          'The rate-limit headers describe your windows as they stand without this request. ' +
          `It has an allowance of its own, ${allowance} per key: past it, 429 \`rate_limited\` with \`Retry-After\` and the allowance's numbers in the headers, never a ban. ` +
          `A missing or invalid key gets 401, counted against the client address like any request without a valid key. ${BETA}`,
        tags: ['me'],
        'x-stability': 'beta',
        responses: {
          '200': withHeaders(
            COMMON_HEADERS,
            withExample({ description: 'Where the key stands, without this request.', content: { 'application/json': { schema: ref('schemas', 'OwnStatus') } } }, 'free', {
              summary: 'A free key 3 requests into the minute',
              value: {
                keyId: 'key_3f2a9c81d04b',
                role: 'client',
                plan: 'free',
                quota: { perMinute: free.perMinute, perDay: free.perDay },
                windows: [window('minute', free.perMinute, free.perMinute - 3, '2027-01-01T09:31:00.000Z'), window('day', free.perDay, free.perDay - 41, '2027-01-02T00:00:00.000Z')],
                bannedUntil: null,
              },
            }),
          ),
          ...sharedErrors,
          '429': withExample(
            errorResponse(
              ['rate_limited', 'temporarily_banned'],
              `Past this operation's own allowance (${allowance} per key): \`rate_limited\`, never a ban. Without a valid key, the client address is over its limit or banned.`,
              ['Retry-After'],
            ),
            'allowance',
            errorExample('rate_limited', `rate limit of ${OWN_STATUS_QUOTA.perMinute} requests per minute on GET /v1/me exceeded; retry in 17 seconds`),
          ),
        },
      },
    },
  };
};

/**
 * `PATCH` and `DELETE /pets/{petId}` (docs/rules.md §12, tag `pets`, beta, admin keys), and the
 * components only they (and getPet's `ETag`) use.
 */
const petMaintenanceOperations = (petId: { readonly description: string; readonly schema: Json }) => {
  const adminOnly = { tags: ['pets'], 'x-stability': 'beta', security: [{ adminKey: [] }] };
  const beta = 'Beta (`x-stability: beta`): this operation may still change within v1. Needs an admin key; a client key gets 403 whatever the id.';
  const petIdParam = { name: 'petId', in: 'path', required: true, description: petId.description, schema: petId.schema, example: 7 };
  const parameters = [petIdParam, ref('parameters', 'IfMatch')];
  const notFound = withExample(errorResponse(['not_found'], 'No animal has this id, or it was withdrawn.'), 'missing', errorExample('not_found', 'no pet has id 7'));
  const badId = errorResponse(['validation_failed'], 'petId is not a positive int64 written canonically, or If-Match is not `*` or a list of entity tags.', [], 'petId must be a positive integer from 1 to 9223372036854775807, written without sign, leading zeros or fraction');
  const reserved = (what: string, message: string) =>
    withExample(errorResponse(['conflict'], `An open (\`placed\` or \`approved\`) order reserves the animal: ${what} Nothing changed.`), 'reserved', errorExample('conflict', message));
  const pet = { id: 7, name: 'Rex', categoryId: 2, status: 'available' };
  return {
    operations: {
      patch: {
        ...adminOnly,
        operationId: 'updatePet',
        summary: 'Correct an animal (admin)',
        description:
          'Changes any of `name`, `categoryId` and `status`, and answers the animal after the change with its new revision as `ETag`. ' +
          '`name` and `categoryId` may change in any status; `status` only while no open order reserves the animal (409 otherwise). ' +
          'Setting a `sold` animal back to `available` records a returned adoption: it can be ordered again. A change that changes nothing answers 200 and keeps the revision. ' +
          'With `If-Match` (the `ETag` of your last read) the change is made only if nobody changed the animal since (412 otherwise); without it, the last write wins. ' +
          beta,
        parameters,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'PetPatch'),
              examples: {
                name: { summary: 'Correct a misspelt name', value: { name: 'Rex' } },
                category: { summary: 'Move to another category', value: { categoryId: 2 } },
                returned: { summary: 'A returned adoption: a sold animal is available again', value: { status: 'available' } },
              },
            },
          },
        },
        responses: {
          '200': withHeaders(COMMON_HEADERS, {
            description: 'The animal after the change; `ETag` is its revision now.',
            headers: { ETag: ref('headers', 'ETag') },
            content: { 'application/json': { schema: ref('schemas', 'Pet'), example: pet } },
          }),
          '400': withExample(
            errorResponse(['validation_failed', 'malformed_json'], 'The body, petId or If-Match breaks a rule (the message names the field), or categoryId names no category.'),
            'invalid',
            errorExample('validation_failed', "unknown property 'colour' (allowed: name, categoryId, status)"),
          ),
          '403': ref('responses', 'Forbidden'),
          '404': notFound,
          '409': reserved('its `status` cannot change now (its `name` and `categoryId` can).', 'pet 7 is reserved by order 12 (placed or approved); its status can change only once that order is delivered or cancelled'),
          '412': ref('responses', 'PreconditionFailed'),
          '413': errorResponse(['payload_too_large'], BODY_TOO_LARGE),
          '415': errorResponse(['unsupported_media_type'], 'The body is not application/json.'),
          ...sharedErrors,
        },
      },
      delete: {
        ...adminOnly,
        operationId: 'deletePet',
        summary: 'Withdraw an animal (admin)',
        description:
          'Withdraws the animal: from then on `GET` answers 404, lists and the inventory leave it out, an order for it gets 400 as for an id that names no animal, and `PATCH` and `DELETE` answer 404. ' +
          'Orders already delivered or cancelled for it stay readable. Its photos go with it. Its id is never given again. An animal reserved by an open order cannot be withdrawn (409). ' +
          '`If-Match` as for `PATCH`. ' +
          beta,
        parameters,
        responses: {
          '204': withHeaders(COMMON_HEADERS, { description: 'Withdrawn.' }),
          '400': badId,
          '403': ref('responses', 'Forbidden'),
          '404': notFound,
          '409': reserved('it cannot be withdrawn now.', 'pet 7 is reserved by order 12 (placed or approved); it can be withdrawn only once that order is delivered or cancelled'),
          '412': ref('responses', 'PreconditionFailed'),
          ...sharedErrors,
        },
      },
    },
    parameters: {
      IfMatch: {
        name: 'If-Match',
        in: 'header',
        required: false,
        description:
          'Change the animal only if it is still at a revision you name (RFC 9110 §13.1.1): `*` (any: the animal exists), or a comma-separated list of entity tags, each the `ETag` of an answer (`GET`, `PATCH`). ' +
          'Weak tags (`W/"…"`) never match. When it does not match the stored revision: 412 `precondition_failed` and nothing changes. Without it, the last write wins.',
        schema: { type: 'string', minLength: 1 },
        examples: { tag: { summary: 'The ETag of your last read', value: '"3"' }, any: { summary: 'Any revision (the animal must exist)', value: '*' } },
      },
    },
    responses: {
      PreconditionFailed: withExample(
        errorResponse(['precondition_failed'], '`If-Match` names another revision of the animal than the stored one: someone changed it since you read it. Nothing changed; read it again.'),
        'stale',
        errorExample('precondition_failed', 'If-Match names another revision of pet 7 than the stored one (its ETag is now "4"); nothing changed. Read the pet again and decide on what it is now'),
      ),
    },
    headers: {
      ETag: header('The revision of the animal as a strong entity tag (`"3"`): it changes whenever anything of the animal changes (a correction, an order, a delivery). Send it in `If-Match`.'),
    },
  };
};

const EXAMPLE_PHOTO = { id: 31, petId: 7, contentType: 'image/jpeg', width: 3072, height: 4096, bytes: 1843214, createdAt: '2027-01-01T10:15:00.000Z' };

/** The operations of docs/rules.md §13 (tag `pets`, beta), and the schemas and headers only they use. */
const photoOperations = () => {
  const { description: petIdDescription, ...petIdSchema } = PetIdSchema;
  const { description: photoIdDescription, ...photoIdSchema } = PhotoIdSchema;
  const { description: widthDescription, ...widthSchema } = PhotoWidthSchema;
  const petIdParam = { name: 'petId', in: 'path', required: true, description: petIdDescription, schema: petIdSchema, example: 7 };
  const photoIdParam = { name: 'photoId', in: 'path', required: true, description: photoIdDescription, schema: photoIdSchema, example: 31 };
  const types = PHOTO_CONTENT_TYPES.join(', ');
  // Binary bodies: the bytes themselves (`contentMediaType`), each with an example photo this server serves (a 16 × 12 gradient).
  const binary = (description: string) =>
    Object.fromEntries(
      PHOTO_CONTENT_TYPES.map((type) => [
        type,
        { schema: { type: 'string', contentMediaType: type, description }, examples: { gradient: { summary: `A 16 × 12 ${type} photo`, externalValue: EXAMPLE_PHOTO_PATHS[type] } } },
      ]),
    );
  const badId = (message: string) => withExample(errorResponse(['validation_failed'], 'petId or photoId is not a positive int64 written canonically.'), 'invalid', errorExample('validation_failed', message));
  const noPet = withExample(errorResponse(['not_found'], 'No animal has this id (or it was withdrawn: its photos went with it), or it has no photo with this id.'), 'missing', errorExample('not_found', 'no pet has id 7'));
  const adminOnly = (action: string) => withExample(errorResponse(['forbidden'], 'A client key: only admin keys may do this, whatever the ids.'), 'client', errorExample('forbidden', `only an admin key may ${action} a photo`));
  const photoHeaderRefs = { ETag: ref('headers', 'Photo-ETag'), 'Cache-Control': ref('headers', 'Photo-Cache-Control'), 'X-Content-Type-Options': ref('headers', 'X-Content-Type-Options') };
  return {
    schemas: { Photo: PhotoSchema, Photos: { type: 'array', items: ref('schemas', 'Photo'), maxItems: PHOTOS_PER_PET } },
    headers: {
      'Photo-ETag': header('A strong entity tag derived from the bytes (their SHA-256): send it back in `If-None-Match` to get 304 while they are the same.'),
      'Photo-Cache-Control': header(`\`${PHOTO_CACHE_CONTROL}\`: a browser may keep the bytes a day.`),
      'X-Content-Type-Options': header('`nosniff`: the bytes are only ever the declared image type.'),
      'Location-Photo': header('Path of the added photo, `/v1/pets/{petId}/photos/{photoId}`.'),
    },
    paths: {
      '/pets/{petId}/photos': {
        parameters: [petIdParam],
        get: {
          operationId: 'listPetPhotos',
          summary: "List an animal's photos",
          description: `The animal's photos in ascending id order: at most ${PHOTOS_PER_PET}, all of them (no paging). Any key. ${BETA}`,
          tags: ['pets'],
          'x-stability': 'beta',
          responses: {
            '200': withHeaders(
              COMMON_HEADERS,
              withExample({ description: 'The photos (possibly none).', content: { 'application/json': { schema: ref('schemas', 'Photos') } } }, 'two', {
                summary: 'Two photos',
                value: [EXAMPLE_PHOTO, { ...EXAMPLE_PHOTO, id: 32, contentType: 'image/png', width: 1200, height: 800, bytes: 912345 }],
              }),
            ),
            '400': badId('petId must be a positive integer from 1 to 9223372036854775807, written without sign, leading zeros or fraction'),
            '404': noPet,
            ...sharedErrors,
          },
        },
        post: {
          operationId: 'uploadPetPhoto',
          summary: 'Add a photo of an animal (admin)',
          security: [{ adminKey: [] }],
          description:
            `The body is the image itself (${types}; at most ${PHOTO_BODY_LIMIT_BYTES / 2 ** 20} MiB, a larger declared length is refused unread). ` +
            `It must be a still image of the declared type, at most ${PHOTO_MAX_SIDE.toLocaleString('en')} pixels a side and ${(PHOTO_MAX_PIXELS / 1e6).toFixed(0)} million in all, judged from its header before anything is decoded. ` +
            `It is stored re-encoded in the same format, turned upright by its orientation tag, at most ${PHOTO_STORED_LONG_SIDE.toLocaleString('en')} pixels on the long side, with every metadata block removed (EXIF and its GPS position, XMP, IPTC, ICC, comments). ` +
            `At most ${PHOTOS_PER_PET} photos an animal. Admin keys only (a client key gets 403 whatever the ids). Takes \`Idempotency-Key\` (the fingerprint uses the body's SHA-256). ${BETA}`,
          tags: ['pets'],
          'x-stability': 'beta',
          requestBody: { required: true, description: `The image's bytes, as one of ${types}.`, content: binary('The bytes of the image.') },
          responses: {
            '201': withHeaders(
              COMMON_HEADERS,
              withExample(
                { description: 'The photo as stored.', headers: { Location: ref('headers', 'Location-Photo') }, content: { 'application/json': { schema: ref('schemas', 'Photo') } } },
                'added',
                { summary: 'A phone photo, turned upright and scaled down', value: EXAMPLE_PHOTO },
              ),
            ),
            '400': withExample(
              errorResponse(['validation_failed'], 'The ids break their rules, or the body is not a still image of the declared type within the size bounds, or does not decode; the message says why.'),
              'bomb',
              errorExample('validation_failed', 'the image is 20000 × 20000 pixels; at most 10,000 pixels a side are accepted'),
            ),
            '403': adminOnly('add'),
            '404': noPet,
            '409': withExample(
              errorResponse(['conflict'], `The animal has ${PHOTOS_PER_PET} photos already.`),
              'full',
              errorExample('conflict', `pet 7 already has ${PHOTOS_PER_PET} photos, the most it can have; delete one first`),
            ),
            '413': errorResponse(['payload_too_large'], `The body is larger than ${PHOTO_BODY_LIMIT_BYTES / 2 ** 20} MiB.`, [], `the body is larger than ${PHOTO_BODY_LIMIT_BYTES} bytes`),
            '415': errorResponse(['unsupported_media_type'], `The body is not declared as one of ${types}.`, [], `send the photo as one of ${types}, with that Content-Type`),
            '507': errorResponse(['insufficient_storage'], "The memory store's photo budget (`PETSTORE_PHOTO_MEMORY_MB`) is spent; nothing was stored.", [], 'the photo store is full; nothing was stored (an operator can raise PETSTORE_PHOTO_MEMORY_MB)'),
            ...sharedErrors,
          },
        },
      },
      '/pets/{petId}/photos/{photoId}': {
        parameters: [petIdParam, photoIdParam],
        get: {
          operationId: 'getPetPhoto',
          summary: 'Fetch a photo',
          description:
            `The photo's bytes in its type, or (\`width\`) ${PHOTO_WIDTHS.join(', ')} pixels wide, the height in proportion, never wider than the original. ` +
            `With a strong \`ETag\` derived from the bytes: \`If-None-Match\` with it answers 304 with no body. \`HEAD\` answers the same headers without the bytes. Every answer counts as one request. Any key. ${BETA}`,
          tags: ['pets'],
          'x-stability': 'beta',
          parameters: [
            { name: 'width', in: 'query', required: false, description: widthDescription, schema: widthSchema, example: 320 },
            { name: 'If-None-Match', in: 'header', required: false, description: 'Entity tags from earlier answers (or `*`): when one is the current tag, the answer is 304 with no body.', schema: { type: 'string' }, example: '"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"' },
          ],
          responses: {
            '200': withHeaders(COMMON_HEADERS, { description: 'The bytes of the photo, in its type.', headers: photoHeaderRefs, content: binary('The bytes of the photo.') }),
            '304': withHeaders(COMMON_HEADERS, { description: 'Not modified: the `If-None-Match` tag is the current one. No body.', headers: photoHeaderRefs }),
            '400': badId('width must be one of 160, 320, 640, given once'),
            '404': noPet,
            ...sharedErrors,
          },
        },
        delete: {
          operationId: 'deletePetPhoto',
          summary: 'Remove a photo (admin)',
          security: [{ adminKey: [] }],
          description: `Removes the photo and its bytes; from then on it is 404. Admin keys only (a client key gets 403 whatever the ids). ${BETA}`,
          tags: ['pets'],
          'x-stability': 'beta',
          responses: {
            '204': withHeaders(COMMON_HEADERS, { description: 'Removed.' }),
            '400': badId('photoId must be a positive integer from 1 to 9223372036854775807, written without sign, leading zeros or fraction'),
            '403': adminOnly('delete'),
            '404': noPet,
            ...sharedErrors,
          },
        },
      },
    },
  };
};

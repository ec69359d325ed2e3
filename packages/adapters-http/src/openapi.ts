import {
  CategoryIdSchema,
  CategorySchema,
  ErrorSchema,
  ListCategoriesQuerySchema,
  NewCategorySchema,
  GET_PET_DEPRECATION,
  LIMIT_DEFAULT,
  ListPetsQuerySchema,
  NewPetSchema,
  PetIdSchema,
  PetSchema,
  PetStatusSchema,
  PLAN_QUOTAS,
  deprecationHeaders,
} from '@petstore/domain';
import type { ErrorCode } from '@petstore/domain';
import { ERROR_STATUS } from './errors.js';

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json | undefined };

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'];
const COMMON_HEADERS = ['X-Request-Id', ...RATE_LIMIT_HEADERS];
const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link-Successor'];

const headerRefs = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n === 'Link-Successor' ? 'Link' : n, ref('headers', n)]));

const errorResponse = (codes: readonly ErrorCode[], description: string, extraHeaders: readonly string[] = []) => ({
  description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
  headers: headerRefs([...COMMON_HEADERS, ...extraHeaders]),
  content: {
    'application/json': {
      schema: {
        allOf: [ref('schemas', 'Error'), { properties: { code: { enum: [...codes] }, status: { const: ERROR_STATUS[codes[0]!] } } }],
      },
    },
  },
});

/** Responses every `/v1` operation can give (besides its own). */
const sharedErrors = {
  '401': ref('responses', 'Unauthorized'),
  '429': ref('responses', 'TooManyRequests'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'Unavailable'),
};

/** An `Error` body as an example, for the response of `code`. */
const errorExample = (code: ErrorCode, message: string) => ({ value: { code, message, status: ERROR_STATUS[code] } });

/** `response` with one named example of its JSON body. */
const withExample = (response: Record<string, unknown>, name: string, example: { summary?: string; value: Json }) => {
  const content = response['content'] as { 'application/json': Record<string, unknown> };
  return { ...response, content: { 'application/json': { ...content['application/json'], examples: { [name]: example } } } };
};

const withHeaders = (names: readonly string[], response: Record<string, unknown>) => ({
  ...response,
  headers: { ...headerRefs(names), ...((response['headers'] as object | undefined) ?? {}) },
});

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
  const deprecated = (response: Record<string, unknown>) => withHeaders(DEPRECATION_HEADERS, response);

  return {
    openapi: '3.1.0',
    info: {
      title: 'Animal Adoption Store',
      version: '1.0.0',
      description:
        `Browse and add animals up for adoption. Every operation needs \`Authorization: Bearer <API_KEY>\`. ` +
        `Rate limits per plan (${plans}; enterprise per key); every response reports them in \`X-RateLimit-*\`, ` +
        '`RateLimit-Policy` and `RateLimit`. Every operation carries `x-stability`: `stable` operations keep their contract for all of v1; ' +
        '`beta` ones (categories) may still change within v1.',
    },
    servers: [{ url: '/v1', description: 'This server. Every deployment (production, staging) serves the API under a base address ending in /v1.' }],
    tags: [
      { name: 'pets', description: 'Animals up for adoption.' },
      { name: 'categories', description: 'Categories of animals (beta): every pet belongs to one; list pets by category with `GET /pets?categoryId=`.' },
      { name: 'store', description: 'Store orders: the adoption flow (beta).' },
      { name: 'admin', description: 'API keys and plans, for admin keys only (beta).' },
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
              content: { 'application/json': { schema: ref('schemas', 'Pets') } },
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
          requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'NewPet') } } },
          responses: {
            '201': withHeaders(COMMON_HEADERS, {
              description: 'The animal, with the id the service assigned.',
              headers: { Location: ref('headers', 'Location') },
              content: { 'application/json': { schema: ref('schemas', 'Pet') } },
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
          'x-stability': 'stable',
          tags: ['pets'],
          parameters: [{ name: 'petId', in: 'path', required: true, description: petIdDescription, schema: petIdSchema }],
          responses: {
            '200': deprecated(withHeaders(COMMON_HEADERS, { description: 'The animal.', content: { 'application/json': { schema: ref('schemas', 'Pet') } } })),
            '400': deprecated(errorResponse(['validation_failed'], 'petId is not a positive int64 written canonically.')),
            '401': deprecated(errorResponse(['unauthorized'], 'Credential missing or invalid.', ['WWW-Authenticate'])),
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
          description: 'The OpenAPI 3.1 description of this API, built from the JSON Schemas that validate requests. No credential needed.',
          'x-stability': 'stable',
          security: [],
          responses: { '200': { description: 'The OpenAPI description.', content: { 'application/json': { schema: { type: 'object' } } } } },
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
            '413': errorResponse(['payload_too_large'], 'The body is larger than 1 MiB.'),
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
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' } },
      schemas: {
        Pet: PetSchema,
        NewPet: NewPetSchema,
        Pets: { type: 'array', items: ref('schemas', 'Pet') },
        PetStatus: PetStatusSchema,
        Category: CategorySchema,
        NewCategory: NewCategorySchema,
        Categories: { type: 'array', items: ref('schemas', 'Category') },
        Error: ErrorSchema,
      },
      responses: {
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
        'Location-Category': header('Path of the created category, `/v1/categories/{id}`.'),
        'Link-Next': header('`<…>; rel="next"`: the next page, present only when one exists.'),
        Deprecation: header(`When the operation was deprecated (RFC 9745): \`${dep.Deprecation}\`.`),
        Sunset: header(`When the operation goes away (RFC 8594): \`${dep.Sunset}\`.`),
        'Link-Successor': header(`The replacement: \`${dep.Link}\`.`),
        Allow: header('Methods the path supports.'),
      },
    },
  };
};

/**
 * The OpenAPI part of the categories of routes.ts (docs/rules.md §7, tag `categories`, beta), and
 * their schemas.
 */
import {
  CategoryIdSchema,
  CategorySchema,
  LIMIT_DEFAULT,
  ListCategoriesQuerySchema,
  NewCategorySchema,
} from '@petstore/domain';
import {
  BODY_TOO_LARGE,
  COMMON_HEADERS,
  errorExample,
  errorResponse,
  ref,
  sharedErrors,
  withExample,
  withHeaders,
  type OpenApiPart,
} from './openapi-shared.js';
import { idempotentCreate } from './openapi-flow.js';

export const categoriesPart = (): OpenApiPart => {
  const categoriesQueryParam = (name: 'limit' | 'cursor') => {
    const { description, ...schema } = ListCategoriesQuerySchema.properties[name];
    return { name, in: 'query', required: false, description, schema };
  };
  const { description: categoryIdDescription, ...categoryIdSchema } = CategoryIdSchema;
  const beta = 'Beta: this operation may still change within v1.';
  const dogs = { id: 1, name: 'Dogs' };
  const categoryBadRequest = (message: string) =>
    withExample(
      errorResponse(
        ['validation_failed', 'malformed_json'],
        'The request breaks a rule; the message names the field and why.',
      ),
      'invalid',
      errorExample('validation_failed', message),
    );
  return {
    paths: {
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
        post: idempotentCreate({
          operationId: 'createCategory',
          summary: 'Add a category',
          description: `Creates a category. Names are unique ignoring case and Unicode normalization: a name that is the same name as an existing one (\`dogs\` after \`Dogs\`) gets 409 \`conflict\` whose message gives the existing category's id. Any key may create. ${beta}`,
          'x-stability': 'beta',
          tags: ['categories'],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: ref('schemas', 'NewCategory'),
                examples: { dogs: { summary: 'A new category', value: { name: 'Dogs' } } },
              },
            },
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
              errorResponse(
                ['conflict'],
                'A category with the same name (ignoring case and Unicode normalization) exists; the message gives its id.',
              ),
              'taken',
              errorExample(
                'conflict',
                'category 1 already has this name (names are compared ignoring case and Unicode normalization); use categoryId 1',
              ),
            ),
            '413': errorResponse(['payload_too_large'], BODY_TOO_LARGE),
            '415': errorResponse(['unsupported_media_type'], 'The body is not application/json.'),
            ...sharedErrors,
          },
        }),
      },
      '/categories/{categoryId}': {
        get: {
          operationId: 'getCategory',
          summary: 'Fetch one category',
          description: `The category with this id; its animals are listed by \`GET /pets?categoryId={categoryId}\`. ${beta}`,
          'x-stability': 'beta',
          tags: ['categories'],
          parameters: [
            {
              name: 'categoryId',
              in: 'path',
              required: true,
              description: categoryIdDescription,
              schema: categoryIdSchema,
              example: 1,
            },
          ],
          responses: {
            '200': withHeaders(
              COMMON_HEADERS,
              withExample(
                {
                  description: 'The category.',
                  content: { 'application/json': { schema: ref('schemas', 'Category') } },
                },
                'found',
                {
                  summary: 'A category',
                  value: dogs,
                },
              ),
            ),
            '400': withExample(
              errorResponse(['validation_failed'], 'categoryId is not a positive int64 written canonically.'),
              'invalid',
              errorExample(
                'validation_failed',
                'categoryId must be a positive integer from 1 to 9223372036854775807, written without sign, leading zeros or fraction',
              ),
            ),
            '404': withExample(
              errorResponse(['not_found'], 'No category has this id.'),
              'missing',
              errorExample('not_found', 'no category has id 42'),
            ),
            ...sharedErrors,
          },
        },
      },
    },
    schemas: {
      Category: CategorySchema,
      NewCategory: NewCategorySchema,
      Categories: { type: 'array', items: ref('schemas', 'Category') },
    },
  };
};

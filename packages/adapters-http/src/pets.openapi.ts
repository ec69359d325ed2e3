/**
 * The OpenAPI part of the pets of routes.ts (tag `pets`, stable): listing and adding animals and the
 * deprecated `GET /pets/{petId}` (docs/rules.md §1, §2), and the schemas of an animal.
 */
import {
  deprecationHeaders,
  GET_PET_DEPRECATION,
  LIMIT_DEFAULT,
  ListPetsQuerySchema,
  NewPetSchema,
  PetIdSchema,
  PetPatchSchema,
  PetSchema,
} from '@petstore/domain';
import {
  BODY_TOO_LARGE,
  COMMON_HEADERS,
  errorResponse,
  ref,
  sharedErrors,
  transportErrors,
  withHeaders,
  type OpenApiPart,
} from './openapi-shared.js';
import { idempotentCreate } from './openapi-flow.js';

const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link-Successor'];

const PET_EXAMPLE = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };

export const petsPart = (): OpenApiPart => {
  const sunset = new Date(GET_PET_DEPRECATION.sunsetAt).toISOString().slice(0, 10);
  const dep = deprecationHeaders(GET_PET_DEPRECATION);
  const queryParam = (name: 'limit' | 'status' | 'categoryId' | 'cursor') => {
    const { description, ...schema } = ListPetsQuerySchema.properties[name];
    return { name, in: 'query', required: false, description, schema };
  };
  const { description: petIdDescription, ...petIdSchema } = PetIdSchema;
  const deprecated = (response: Record<string, unknown>) => withHeaders(DEPRECATION_HEADERS, response);
  return {
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
        post: idempotentCreate({
          operationId: 'createPet',
          summary: 'Add an animal',
          description:
            'Adds an animal to a category: `categoryId` must name an existing category (create one with `POST /categories`), else 400.',
          'x-stability': 'stable',
          tags: ['pets'],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: ref('schemas', 'NewPet'),
                example: { name: 'Rex', categoryId: 1, status: 'available' },
              },
            },
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
        }),
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
          parameters: [
            {
              name: 'petId',
              in: 'path',
              required: true,
              description: petIdDescription,
              schema: petIdSchema,
              example: 1,
            },
          ],
          responses: {
            '200': deprecated(
              withHeaders(COMMON_HEADERS, {
                description:
                  'The animal. `ETag` is its revision: send it back in `If-Match` to change the animal only as you read it (`PATCH`, `DELETE`).',
                headers: { ETag: ref('headers', 'ETag') },
                content: { 'application/json': { schema: ref('schemas', 'Pet'), example: PET_EXAMPLE } },
              }),
            ),
            '400': deprecated(
              errorResponse(['validation_failed'], 'petId is not a positive int64 written canonically.'),
            ),
            '401': deprecated(errorResponse(['unauthorized'], 'Credential missing or invalid.', ['WWW-Authenticate'])),
            ...transportErrors,
            '404': deprecated(errorResponse(['not_found'], 'No animal has this id.')),
            '410': deprecated(errorResponse(['gone'], 'The operation is past its sunset.')),
            '429': deprecated(
              errorResponse(['rate_limited', 'temporarily_banned'], 'Over the rate limit, or banned for a while.', [
                'Retry-After',
              ]),
            ),
            '500': deprecated(errorResponse(['internal_error'], 'A fault of the service.')),
            '503': deprecated(errorResponse(['unavailable'], 'The store cannot be reached.', ['Retry-After'])),
          },
        },
      },
    },
    schemas: {
      Pet: PetSchema,
      NewPet: NewPetSchema,
      PetPatch: PetPatchSchema,
      Pets: { type: 'array', items: ref('schemas', 'Pet') },
    },
  };
};

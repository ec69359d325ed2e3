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
  PetWithPhotosSchema,
  PhotoViewSchema,
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

type ListParameter = keyof typeof ListPetsQuerySchema.properties;

/** Examples of the list's parameters (docs/rules.md §16): a search, value lists, a shuffle, expand. */
const PARAMETER_EXAMPLES: Partial<Record<ListParameter, Record<string, { summary: string; value: unknown }>>> = {
  status: {
    one: { summary: 'One status', value: 'available' },
    several: { summary: 'Any of two statuses', value: 'available,pending' },
  },
  categoryId: {
    one: { summary: 'One category', value: 1 },
    several: { summary: 'Any of three categories', value: '1,4,9' },
  },
  q: {
    word: { summary: 'Names with a word beginning with "re" (Rex, Old Rex, Renée)', value: 're' },
    words: { summary: 'Names with words beginning with "rex" and "old"', value: 'rex old' },
  },
  sort: {
    newest: { summary: 'Newest first', value: '-id' },
    name: { summary: 'By name', value: 'name' },
    shuffle: { summary: 'Shuffled (with seed)', value: 'random' },
  },
  seed: { shuffle: { summary: 'The seed of a shuffle (with sort=random)', value: 42 } },
  expand: { photos: { summary: 'Each animal with its photos', value: 'photos' } },
};

const EXAMPLE_URL = 'https://api.example.org/v1/pets/1/photos/7?sig=Yc2kQ7yWm3xJ0sG9x4f1b5lJqk8mH0S6q1hYz3tUvPo';
const PHOTO_VIEW_EXAMPLE = {
  id: 7,
  contentType: 'image/jpeg',
  width: 500,
  height: 375,
  url: EXAMPLE_URL,
  srcset: `${EXAMPLE_URL}&width=160 160w, ${EXAMPLE_URL}&width=320 320w, ${EXAMPLE_URL} 500w`,
};

export const petsPart = (): OpenApiPart => {
  const sunset = new Date(GET_PET_DEPRECATION.sunsetAt).toISOString().slice(0, 10);
  const dep = deprecationHeaders(GET_PET_DEPRECATION);
  const queryParam = (name: ListParameter) => {
    const { description, ...schema } = ListPetsQuerySchema.properties[name];
    const examples = PARAMETER_EXAMPLES[name];
    return { name, in: 'query', required: false, description, schema, ...(examples ? { examples } : {}) };
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
            'Animals in ascending id order, at most `limit`, optionally only those with a `status`, of a category (`categoryId`), or both. When more exist, `Link: <…>; rel="next"` gives the URL of the next page (same `limit` and parameters, plus an opaque `cursor` bound to them). The body stays a plain array.\n\n' +
            'The public catalogue (beta, docs/rules.md §16): `status` and `categoryId` take comma-separated lists (any of), `q` searches names by word beginnings, `sort` orders by `id`, `-id`, `name` or `random` (with `seed`), and `expand=photos` gives each animal its photos with signed URLs. Each refusal is a 400 naming its parameter.',
          'x-stability': 'stable',
          tags: ['pets'],
          parameters: (Object.keys(ListPetsQuerySchema.properties) as ListParameter[]).map(queryParam),
          responses: {
            '200': withHeaders(COMMON_HEADERS, {
              description: `A page of animals (default ${LIMIT_DEFAULT}).`,
              headers: { Link: ref('headers', 'Link-Next') },
              content: {
                'application/json': {
                  schema: { oneOf: [ref('schemas', 'Pets'), ref('schemas', 'PetsWithPhotos')] },
                  examples: {
                    plain: {
                      summary: 'A page of animals',
                      value: [
                        { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
                        { id: 2, name: 'Mia', categoryId: 2, status: 'available' },
                      ],
                    },
                    photos: {
                      summary: 'With expand=photos',
                      value: [
                        { ...PET_EXAMPLE, photos: [PHOTO_VIEW_EXAMPLE] },
                        { id: 2, name: 'Mia', categoryId: 2, status: 'available', photos: [] },
                      ],
                    },
                  },
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
      PhotoView: PhotoViewSchema,
      // The domain's schema, its photos named by reference (one `PhotoView` in the document and in clients).
      PetWithPhotos: {
        ...PetWithPhotosSchema,
        properties: {
          ...PetWithPhotosSchema.properties,
          photos: { ...PetWithPhotosSchema.properties.photos, items: ref('schemas', 'PhotoView') },
        },
      },
      PetsWithPhotos: {
        type: 'array',
        items: ref('schemas', 'PetWithPhotos'),
        description: 'A page with `expand=photos`: each animal with its photos.',
      },
    },
  };
};

import { UPLOAD_BODY_TIMEOUT_MS, UPLOAD_STALL_TIMEOUT_MS } from './limits.js';
import { tooManyUploadsMessage, UPLOAD_RETRY_AFTER_SECONDS } from './upload-admission.js';
/**
 * The OpenAPI part of photos.ts (docs/rules.md §13, tag `pets`, beta), and the schemas and headers
 * only it uses.
 */
import {
  PetIdSchema,
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
import { EXAMPLE_PHOTO_PATHS } from './docs.js';
import {
  BETA,
  COMMON_HEADERS,
  errorExample,
  errorResponse,
  header,
  ref,
  sharedErrors,
  withExample,
  withHeaders,
  type OpenApiPart,
} from './openapi-shared.js';
import { PHOTO_CACHE_CONTROL } from './photos.js';
import { idempotentCreate } from './openapi-flow.js';

const EXAMPLE_PHOTO = {
  id: 31,
  petId: 7,
  contentType: 'image/jpeg',
  width: 3072,
  height: 4096,
  bytes: 1843214,
  createdAt: '2027-01-01T10:15:00.000Z',
};

/** The operations of docs/rules.md §13 (tag `pets`, beta), and the schemas and headers only they use. */
export const photosPart = (): OpenApiPart => {
  const { description: petIdDescription, ...petIdSchema } = PetIdSchema;
  const { description: photoIdDescription, ...photoIdSchema } = PhotoIdSchema;
  const { description: widthDescription, ...widthSchema } = PhotoWidthSchema;
  const petIdParam = {
    name: 'petId',
    in: 'path',
    required: true,
    description: petIdDescription,
    schema: petIdSchema,
    example: 7,
  };
  const photoIdParam = {
    name: 'photoId',
    in: 'path',
    required: true,
    description: photoIdDescription,
    schema: photoIdSchema,
    example: 31,
  };
  const types = PHOTO_CONTENT_TYPES.join(', ');
  // Binary bodies: the bytes themselves (`contentMediaType`), each with an example photo this server serves (a 16 × 12 gradient).
  const binary = (description: string) =>
    Object.fromEntries(
      PHOTO_CONTENT_TYPES.map((type) => [
        type,
        {
          schema: { type: 'string', contentMediaType: type, description },
          examples: { gradient: { summary: `A 16 × 12 ${type} photo`, externalValue: EXAMPLE_PHOTO_PATHS[type] } },
        },
      ]),
    );
  const badId = (message: string) =>
    withExample(
      errorResponse(['validation_failed'], 'petId or photoId is not a positive int64 written canonically.'),
      'invalid',
      errorExample('validation_failed', message),
    );
  const noPet = withExample(
    errorResponse(
      ['not_found'],
      'No animal has this id (or it was withdrawn: its photos went with it), or it has no photo with this id.',
    ),
    'missing',
    errorExample('not_found', 'no pet has id 7'),
  );
  const adminOnly = (action: string) =>
    withExample(
      errorResponse(['forbidden'], 'A client key: only admin keys may do this, whatever the ids.'),
      'client',
      errorExample('forbidden', `only an admin key may ${action} a photo`),
    );
  const photoHeaderRefs = {
    ETag: ref('headers', 'Photo-ETag'),
    'Cache-Control': ref('headers', 'Photo-Cache-Control'),
    'X-Content-Type-Options': ref('headers', 'X-Content-Type-Options'),
  };
  return {
    schemas: {
      Photo: PhotoSchema,
      Photos: { type: 'array', items: ref('schemas', 'Photo'), maxItems: PHOTOS_PER_PET },
    },
    headers: {
      'Photo-ETag': header(
        'A strong entity tag derived from the bytes (their SHA-256): send it back in `If-None-Match` to get 304 while they are the same.',
      ),
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
              withExample(
                {
                  description: 'The photos (possibly none).',
                  content: { 'application/json': { schema: ref('schemas', 'Photos') } },
                },
                'two',
                {
                  summary: 'Two photos',
                  value: [
                    EXAMPLE_PHOTO,
                    { ...EXAMPLE_PHOTO, id: 32, contentType: 'image/png', width: 1200, height: 800, bytes: 912345 },
                  ],
                },
              ),
            ),
            '400': badId(
              'petId must be a positive integer from 1 to 9223372036854775807, written without sign, leading zeros or fraction',
            ),
            '404': noPet,
            ...sharedErrors,
          },
        },
        post: idempotentCreate({
          operationId: 'uploadPetPhoto',
          summary: 'Add a photo of an animal (admin)',
          security: [{ adminKey: [] }],
          description:
            `The body is the image itself (${types}; at most ${PHOTO_BODY_LIMIT_BYTES / 2 ** 20} MiB, a larger declared length is refused unread). ` +
            `It must be a still image of the declared type, at most ${PHOTO_MAX_SIDE.toLocaleString('en')} pixels a side and ${(PHOTO_MAX_PIXELS / 1e6).toFixed(0)} million in all, judged from its header before anything is decoded. ` +
            `It is stored re-encoded in the same format, turned upright by its orientation tag, at most ${PHOTO_STORED_LONG_SIDE.toLocaleString('en')} pixels on the long side, with every metadata block removed (EXIF and its GPS position, XMP, IPTC, comments); an embedded colour profile is converted to sRGB, then dropped. ` +
            `At most ${PHOTOS_PER_PET} photos an animal. Admin keys only (a client key gets 403 whatever the ids). Takes \`Idempotency-Key\` (the fingerprint uses the body's SHA-256). ` +
            `The body may take up to ${UPLOAD_BODY_TIMEOUT_MS / 1000} s to arrive as long as bytes keep coming (a pause of ${UPLOAD_STALL_TIMEOUT_MS / 1000} s: 408). ` +
            `The server works on a bounded number of uploads at once (count and bytes): past it, 503 at once with \`Retry-After\`, the body unread (send \`Expect: 100-continue\` so that it is never sent). ${BETA}`,
          tags: ['pets'],
          'x-stability': 'beta',
          requestBody: {
            required: true,
            description: `The image's bytes, as one of ${types}.`,
            content: binary('The bytes of the image.'),
          },
          responses: {
            '201': withHeaders(
              COMMON_HEADERS,
              withExample(
                {
                  description: 'The photo as stored.',
                  headers: { Location: ref('headers', 'Location-Photo') },
                  content: { 'application/json': { schema: ref('schemas', 'Photo') } },
                },
                'added',
                { summary: 'A phone photo, turned upright and scaled down', value: EXAMPLE_PHOTO },
              ),
            ),
            '400': withExample(
              errorResponse(
                ['validation_failed'],
                'The ids break their rules, or the body is not a still image of the declared type within the size bounds, or does not decode; the message says why.',
              ),
              'bomb',
              errorExample(
                'validation_failed',
                'the image is 20000 × 20000 pixels; at most 10,000 pixels a side are accepted',
              ),
            ),
            '403': adminOnly('add'),
            '404': noPet,
            '409': withExample(
              errorResponse(['conflict'], `The animal has ${PHOTOS_PER_PET} photos already.`),
              'full',
              errorExample(
                'conflict',
                `pet 7 already has ${PHOTOS_PER_PET} photos, the most it can have; delete one first`,
              ),
            ),
            '413': errorResponse(
              ['payload_too_large'],
              `The body is larger than ${PHOTO_BODY_LIMIT_BYTES / 2 ** 20} MiB.`,
              [],
              `the body is larger than ${PHOTO_BODY_LIMIT_BYTES} bytes`,
            ),
            '415': errorResponse(
              ['unsupported_media_type'],
              `The body is not declared as one of ${types}.`,
              [],
              `send the photo as one of ${types}, with that Content-Type`,
            ),
            '507': errorResponse(
              ['insufficient_storage'],
              "The memory store's photo budget (`PETSTORE_PHOTO_MEMORY_MB`) is spent; nothing was stored.",
              [],
              'the photo store is full; nothing was stored (its operator can give it more room)',
            ),
            ...sharedErrors,
            '503': errorResponse(
              ['unavailable'],
              'Too many photos are being processed right now: answered at once, the body unread, `Connection: close` (or the store cannot be reached). Nothing was stored; retry after `Retry-After` seconds.',
              ['Retry-After'],
              tooManyUploadsMessage(UPLOAD_RETRY_AFTER_SECONDS),
            ),
          },
        }),
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
            {
              name: 'width',
              in: 'query',
              required: false,
              description: widthDescription,
              schema: widthSchema,
              example: 320,
            },
            {
              name: 'If-None-Match',
              in: 'header',
              required: false,
              description:
                'Entity tags from earlier answers (or `*`): when one is the current tag, the answer is 304 with no body.',
              schema: { type: 'string' },
              example: '"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"',
            },
          ],
          responses: {
            '200': withHeaders(COMMON_HEADERS, {
              description: 'The bytes of the photo, in its type.',
              headers: photoHeaderRefs,
              content: binary('The bytes of the photo.'),
            }),
            '304': withHeaders(COMMON_HEADERS, {
              description: 'Not modified: the `If-None-Match` tag is the current one. No body.',
              headers: photoHeaderRefs,
            }),
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
            '400': badId(
              'photoId must be a positive integer from 1 to 9223372036854775807, written without sign, leading zeros or fraction',
            ),
            '403': adminOnly('delete'),
            '404': noPet,
            ...sharedErrors,
          },
        },
      },
    },
  };
};

/**
 * The OpenAPI part of photo-url-secret.ts: `POST /admin/photo-url-secret/rotate` (docs/rules.md §16,
 * tag `admin`, beta, admin keys).
 */
import {
  BETA,
  COMMON_HEADERS,
  errorExample,
  errorResponse,
  ref,
  sharedErrors,
  withExample,
  withHeaders,
} from './openapi-shared.js';
import type { OpenApiPart } from './openapi-shared.js';

export const photoUrlSecretPart = (): OpenApiPart => ({
  paths: {
    '/admin/photo-url-secret/rotate': {
      post: {
        operationId: 'rotatePhotoUrlSecret',
        summary: 'Rotate the signing secret of the photo URLs',
        description:
          "Makes a new signing secret for the photos' URLs (the `url` and `srcset` of `GET /pets?expand=photos`): every URL made before stops working (401), in every server process on the database within 1 second, and the lists give new ones. " +
          'For a secret the service keeps in its store; a secret given by the setting `PETSTORE_PHOTO_URL_SECRET` is rotated by changing the setting and restarting every process (409 here). ' +
          `Copies that browsers and shared caches made before may still be shown for up to a day. No body. Admin keys only. ${BETA}`,
        tags: ['admin'],
        'x-stability': 'beta',
        security: [{ adminKey: [] }],
        responses: {
          '204': withHeaders(COMMON_HEADERS, { description: 'Rotated: the URLs made before no longer work.' }),
          '403': ref('responses', 'Forbidden'),
          '409': withExample(
            errorResponse(
              ['conflict'],
              'The secret comes from the setting `PETSTORE_PHOTO_URL_SECRET`: nothing was rotated.',
            ),
            'setting',
            errorExample(
              'conflict',
              'the photo URL signing secret comes from the setting PETSTORE_PHOTO_URL_SECRET: change the setting and restart every process to rotate it',
            ),
          ),
          ...sharedErrors,
        },
      },
    },
  },
});

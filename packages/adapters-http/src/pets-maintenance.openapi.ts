/**
 * The OpenAPI part of pets-maintenance.ts: `PATCH` and `DELETE /pets/{petId}` (docs/rules.md §12,
 * tag `pets`, beta, admin keys), and the components only they (and getPet's `ETag`) use.
 */
import { PetIdSchema } from '@petstore/domain';
import {
  BODY_TOO_LARGE,
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

export const petMaintenancePart = (): OpenApiPart => {
  const { description: petIdDescription, ...petIdSchema } = PetIdSchema;
  const adminOnly = { tags: ['pets'], 'x-stability': 'beta', security: [{ adminKey: [] }] };
  const beta =
    'Beta (`x-stability: beta`): this operation may still change within v1. Needs an admin key; a client key gets 403 whatever the id.';
  const petIdParam = {
    name: 'petId',
    in: 'path',
    required: true,
    description: petIdDescription,
    schema: petIdSchema,
    example: 7,
  };
  const parameters = [petIdParam, ref('parameters', 'IfMatch')];
  const notFound = withExample(
    errorResponse(['not_found'], 'No animal has this id, or it was withdrawn.'),
    'missing',
    errorExample('not_found', 'no pet has id 7'),
  );
  const badId = errorResponse(
    ['validation_failed'],
    'petId is not a positive int64 written canonically, or If-Match is not `*` or a list of entity tags.',
    [],
    'petId must be a positive integer from 1 to 9223372036854775807, written without sign, leading zeros or fraction',
  );
  const reserved = (what: string, message: string) =>
    withExample(
      errorResponse(
        ['conflict'],
        `An open (\`placed\` or \`approved\`) order reserves the animal: ${what} Nothing changed.`,
      ),
      'reserved',
      errorExample('conflict', message),
    );
  const pet = { id: 7, name: 'Rex', categoryId: 2, status: 'available' };
  return {
    paths: {
      '/pets/{petId}': {
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
                  returned: {
                    summary: 'A returned adoption: a sold animal is available again',
                    value: { status: 'available' },
                  },
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
              errorResponse(
                ['validation_failed', 'malformed_json'],
                'The body, petId or If-Match breaks a rule (the message names the field), or categoryId names no category.',
              ),
              'invalid',
              errorExample('validation_failed', "unknown property 'colour' (allowed: name, categoryId, status)"),
            ),
            '403': ref('responses', 'Forbidden'),
            '404': notFound,
            '409': reserved(
              'its `status` cannot change now (its `name` and `categoryId` can).',
              'pet 7 is reserved by order 12 (placed or approved); its status can change only once that order is delivered or cancelled',
            ),
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
            '409': reserved(
              'it cannot be withdrawn now.',
              'pet 7 is reserved by order 12 (placed or approved); it can be withdrawn only once that order is delivered or cancelled',
            ),
            '412': ref('responses', 'PreconditionFailed'),
            ...sharedErrors,
          },
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
        examples: {
          tag: { summary: 'The ETag of your last read', value: '"3"' },
          any: { summary: 'Any revision (the animal must exist)', value: '*' },
        },
      },
    },
    responses: {
      PreconditionFailed: withExample(
        errorResponse(
          ['precondition_failed'],
          '`If-Match` names another revision of the animal than the stored one: someone changed it since you read it. Nothing changed; read it again.',
        ),
        'stale',
        errorExample(
          'precondition_failed',
          'If-Match names another revision of pet 7 than the stored one (its ETag is now "4"); nothing changed. Read the pet again and decide on what it is now',
        ),
      ),
    },
    headers: {
      ETag: header(
        'The revision of the animal as a strong entity tag (`"3"`): it changes whenever anything of the animal changes (a correction, an order, a delivery). Send it in `If-Match`.',
      ),
    },
  };
};

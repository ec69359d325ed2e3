/**
 * The OpenAPI part of admin-keys.ts (docs/rules.md §9, tag `admin`, beta, admin keys only), and the
 * schemas of a key.
 */
import {
  ApiKeyPatchSchema,
  ApiKeySchema,
  CreatedApiKeySchema,
  KeyIdSchema,
  ListKeysQuerySchema,
  NewApiKeySchema,
  PLAN_QUOTAS,
} from '@petstore/domain';
import {
  BODY_TOO_LARGE,
  COMMON_HEADERS,
  errorResponse,
  ref,
  sharedErrors,
  withHeaders,
  type OpenApiPart,
} from './openapi-shared.js';

/**
 * An example key for the documentation: the shape of a real one (43 base64url characters of 32
 * bytes, so the last carries 4 bits and two zero bits: one of AEIMQUYcgkosw048), and plainly not one.
 */
const EXAMPLE_KEY = `pet_${'EXAMPLE_not_a_real_key_'.padEnd(42, 'x')}A`;
/** The same for a publishable key (docs/rules.md §16): `pk_` and the same shape. */
const EXAMPLE_PUBLISHABLE_KEY = `pk_${'EXAMPLE_not_a_real_key_'.padEnd(42, 'x')}A`;

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
  const publishableExample = {
    id: 'key_c4d1e8a09b37',
    role: 'publishable',
    plan: 'pro',
    quota: PLAN_QUOTAS.pro,
    label: 'shelter web site',
    origins: ['https://shelter.example', 'http://localhost:5173'],
    source: 'api',
    createdAt: '2027-01-02T09:30:00.000Z',
  };
  const json = (schema: string, value: unknown) => ({
    'application/json': { schema: ref('schemas', schema), example: value },
  });
  const { description: keyIdDescription, ...keyIdSchema } = KeyIdSchema;
  const keyIdParam = {
    name: 'keyId',
    in: 'path',
    required: true,
    description: keyIdDescription,
    schema: keyIdSchema,
    example: example.id,
  };
  const pageParam = (name: 'limit' | 'cursor') => {
    const { description, ...schema } = ListKeysQuerySchema.properties[name];
    return { name, in: 'query', required: false, description, schema };
  };
  const badRequest = errorResponse(
    ['validation_failed', 'malformed_json'],
    'The request breaks a rule; the message names the field and why.',
  );
  const notFound = errorResponse(['not_found'], 'No key (or a revoked one) has this id.');
  const settingsConflict = errorResponse(
    ['conflict'],
    'The key comes from the server settings (`PETSTORE_API_KEYS`, `PETSTORE_ADMIN_KEYS`) and is changed only there.',
  );
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
            content: json('ApiKeys', [settingsExample, example, publishableExample]),
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
        description: `Issues a key on a plan: a client key (\`pet_…\`, the default), or with \`"role": "publishable"\` and its \`origins\` a publishable key (\`pk_…\`), meant to sit in a web page: it only reads the catalogue (list pets, list and get categories and photos, \`GET /me\`), only from its origins (\`Origin\`, or lacking one \`Referer\`; else 403), counted per visitor (key and client address, IPv6 by /64); preflights from its origins are answered (docs/rules.md §16). Admin keys come only from the server's settings (\`role: admin\` → 400). The answer is the only place the key ever appears (\`Cache-Control: no-store\`): store it now; the service keeps only its SHA-256. It works at once. Takes no \`Idempotency-Key\`. ${beta}`,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'NewApiKey'),
              examples: {
                pro: { summary: 'A pro key with a label', value: { plan: 'pro', label: 'CI runner' } },
                enterprise: {
                  summary: 'An enterprise key with its own numbers',
                  value: { plan: 'enterprise', perMinute: 5000, perDay: 2000000 },
                },
                publishable: {
                  summary: "A publishable key for a shelter's web site (and its development server)",
                  value: {
                    plan: 'pro',
                    role: 'publishable',
                    origins: ['https://shelter.example', 'http://localhost:5173'],
                    label: 'shelter web site',
                  },
                },
              },
            },
          },
        },
        responses: {
          '201': withHeaders(COMMON_HEADERS, {
            description: 'The key, shown this once, with its public id.',
            headers: { Location: ref('headers', 'Location-Key'), 'Cache-Control': ref('headers', 'Cache-Control') },
            content: {
              'application/json': {
                schema: ref('schemas', 'CreatedApiKey'),
                examples: {
                  client: { summary: 'A client key', value: { ...example, key: EXAMPLE_KEY } },
                  publishable: {
                    summary: 'A publishable key',
                    value: { ...publishableExample, key: EXAMPLE_PUBLISHABLE_KEY },
                  },
                },
              },
            },
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
        summary: 'Change the plan, quota, label or origins of an API key',
        description: `Upgrade or downgrade a key, set an enterprise key's numbers (either alone on a key that is already enterprise, both when it moves to enterprise), relabel it, or replace a publishable key's \`origins\` (any other key → 400). Changes are in force on every server process within 1 second. A plan change applies from the key's next request, with the counts of its current minute and day kept. Keys from the settings answer 409. ${beta}`,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'ApiKeyPatch'),
              examples: {
                upgrade: { summary: 'Upgrade to business', value: { plan: 'business' } },
                enterprise: {
                  summary: 'Move to enterprise with its numbers (both needed)',
                  value: { plan: 'enterprise', perMinute: 5000, perDay: 2000000 },
                },
                perDay: {
                  summary: "Raise an enterprise key's daily number alone (perMinute kept)",
                  value: { perDay: 3000000 },
                },
                label: { summary: 'Relabel', value: { label: 'CI runner (staging)' } },
                origins: {
                  summary: "Move a publishable key to the shelter's new site",
                  value: { origins: ['https://www.shelter.example'] },
                },
              },
            },
          },
        },
        responses: {
          '200': withHeaders(COMMON_HEADERS, {
            description: 'The key after the change.',
            content: json('ApiKey', { ...example, plan: 'business', quota: PLAN_QUOTAS.business }),
          }),
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

export const adminKeysPart = (): OpenApiPart => ({
  paths: adminKeyPaths(),
  schemas: {
    ApiKey: ApiKeySchema,
    ApiKeys: { type: 'array', items: ref('schemas', 'ApiKey') },
    CreatedApiKey: CreatedApiKeySchema,
    NewApiKey: NewApiKeySchema,
    ApiKeyPatch: ApiKeyPatchSchema,
  },
});

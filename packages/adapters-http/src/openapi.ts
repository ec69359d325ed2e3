/**
 * The OpenAPI 3.1 description of the v1 API (docs/rules.md §2), assembled from its parts. Each
 * area's operations are described beside its routes (pets.openapi.ts and categories.openapi.ts and
 * store.openapi.ts beside routes.ts, photos.openapi.ts beside photos.ts, …) in the domain's JSON
 * Schemas: the same objects that ajv compiles to validate requests. Serve it with `openApiJson`.
 */
import { ErrorSchema, INT64_MAX, PLAN_QUOTAS } from '@petstore/domain';
import { adminKeysPart } from './admin-keys.openapi.js';
import { categoriesPart } from './categories.openapi.js';
import { eventsPart } from './events.openapi.js';
import { withCreatedIdLinks, withPublishableRefusals } from './openapi-flow.js';
import { headerRefs, sharedComponents, transportErrors, type OpenApiPart } from './openapi-shared.js';
import { ownStatusPart } from './own-status.openapi.js';
import { petMaintenancePart } from './pets-maintenance.openapi.js';
import { petsPart } from './pets.openapi.js';
import { photosPart } from './photos.openapi.js';
import { photoUrlSecretPart } from './photo-url-secret.openapi.js';
import { storePart } from './store.openapi.js';
import { webhooksPart } from './webhooks.openapi.js';

/**
 * The document as served: JSON, with int64's maximum written exactly. A JavaScript number cannot
 * hold 9223372036854775807 (the schemas carry the nearest double, 2^63, which `JSON.stringify`
 * prints as 9223372036854776000, beyond int64): each such number is written as `INT64_MAX`.
 */
export const openApiJson = (doc: Record<string, unknown>): string => {
  const int64Max = Number(INT64_MAX);
  const marker = '\u0000int64-max';
  return JSON.stringify(doc, (_key, value: unknown) => (value === int64Max ? marker : value)).replaceAll(
    JSON.stringify(marker),
    INT64_MAX,
  );
};

/** `GET /openapi.json`: this document (tag `pets`, stable, no key). */
const documentPart = (): OpenApiPart => ({
  paths: {
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
            content: {
              'application/json': {
                schema: { type: 'object' },
                example: { openapi: '3.1.0', info: { title: 'Animal Adoption Store', version: '1.0.0' }, paths: {} },
              },
            },
          },
          ...transportErrors,
        },
      },
    },
  },
});

/** The paths of `parts`, in order; a path two parts describe (`/pets/{petId}`) takes the operations of both. */
const pathsOf = (parts: readonly OpenApiPart[]) => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const part of parts)
    for (const [path, item] of Object.entries(part.paths)) paths[path] = { ...paths[path], ...item };
  return paths;
};

/** The document, made anew at each call (openapi-flow.ts completes its operations in place). */
export const buildOpenApiDocument = (): Record<string, unknown> => {
  const plans = Object.entries(PLAN_QUOTAS)
    .map(([name, q]) => `${name}: ${q.perMinute}/minute, ${q.perDay}/day`)
    .join('; ');
  const [pets, maintenance, categories, store, photos, adminKeys, ownStatus, events, webhooks] = [
    petsPart(),
    petMaintenancePart(),
    categoriesPart(),
    storePart(),
    photosPart(),
    adminKeysPart(),
    ownStatusPart(),
    eventsPart(),
    webhooksPart(),
  ];
  const shared = sharedComponents();

  const document = withCreatedIdLinks({
    openapi: '3.1.0',
    info: {
      title: 'Animal Adoption Store',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        `Browse and add animals up for adoption. Every operation needs \`Authorization: Bearer <API_KEY>\`, but for a photo's \`GET\` by its signed URL (\`?sig=\`). ` +
        `Rate limits per plan (${plans}; enterprise per key); every response reports them in \`X-RateLimit-*\`, ` +
        '`RateLimit-Policy` and `RateLimit`. Every operation carries `x-stability`: `stable` operations keep their contract for all of v1; ' +
        '`beta` ones (categories, the store, admin, correcting and withdrawing pets, events) may still change within v1. ' +
        'A publishable key (`pk_…`, docs/rules.md §16) sits in a web page: it lists pets, lists and gets categories and photos and reads `GET /me`, ' +
        'only from its own origins, counted per visitor; anything else → 403.',
    },
    servers: [
      {
        url: '/v1',
        description:
          'This server. Every deployment (production, staging) serves the API under a base address ending in /v1.',
      },
    ],
    tags: [
      { name: 'pets', description: 'Animals up for adoption; correcting and withdrawing them (beta, admin keys).' },
      {
        name: 'categories',
        description:
          'Categories of animals (beta): every pet belongs to one; list pets by category with `GET /pets?categoryId=`.',
      },
      {
        name: 'store',
        description:
          'Store orders: the adoption flow (beta). An order reserves one available animal (it becomes `pending`); an admin key approves and delivers it (the animal becomes `sold`); the owner or an admin cancels it (the animal is `available` again).',
      },
      {
        name: 'admin',
        description:
          'API keys and plans: issue, list, change and revoke keys. Admin keys only. Beta: these operations may still change within v1.',
      },
      {
        name: 'me',
        description:
          "The calling key's own status (beta), for any key, client or admin: its plan and quota, what is left of its windows and whether it is banned, without spending any of it.",
      },
      {
        name: 'events',
        description:
          'The feed of everything that happens to the store (beta, admin keys): numbered events read after a sequence, with a long poll for the next one, or pushed to a URL as signed webhooks, in order, retried and never dropped. For web sites, mailings and other services that follow the store instead of polling its lists.',
      },
    ],
    security: [{ bearerAuth: [] }],
    // The parts in the order the document has always listed them (paths, then each kind of component).
    paths: pathsOf([
      pets,
      maintenance,
      store,
      photos,
      adminKeys,
      photoUrlSecretPart(),
      ownStatus,
      documentPart(),
      categories,
      events,
      webhooks,
    ]),
    components: {
      securitySchemes: shared.securitySchemes,
      schemas: {
        ...pets.schemas,
        ...categories.schemas,
        Error: ErrorSchema,
        ...store.schemas,
        ...adminKeys.schemas,
        ...ownStatus.schemas,
        ...photos.schemas,
        ...events.schemas,
        ...webhooks.schemas,
      },
      parameters: { ...maintenance.parameters, ...shared.parameters },
      responses: { ...shared.responses, ...maintenance.responses },
      headers: {
        ...shared.headers,
        ...maintenance.headers,
        ...photos.headers,
        ...events.headers,
        ...webhooks.headers,
      },
    },
  });
  return withPublishableRefusals(document);
};

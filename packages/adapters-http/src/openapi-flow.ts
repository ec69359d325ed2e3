/**
 * What the assembled OpenAPI document says across its operations (docs/rules.md §2, §10): the
 * `Idempotency-Key` of every create that takes one, and the links from each created id to the
 * operations that take it.
 */
import { IDEMPOTENT_CREATES } from './middleware/idempotency.js';
import { ref } from './openapi-shared.js';

type Operation = { parameters?: unknown[]; responses: Record<string, unknown> };

export const withIdempotentCreates = <D extends { readonly paths: object }>(doc: D): D => {
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
    post.responses = {
      '409': ref('responses', 'IdempotencyInProgress'),
      ...post.responses,
      '422': ref('responses', 'IdempotencyKeyReused'),
    };
  }
  return doc;
};

/**
 * OpenAPI links (docs/rules.md §2): from the id in a create's answer to the parameter of each
 * operation that takes it, so that tools walking the document (stateful fuzzers, client
 * generators) can follow the flow. One row per create; a new operation on a resource is one more
 * name in its row (a test holds every operation with one of these path parameters to its row).
 */
const CREATED_ID_LINKS: readonly {
  readonly create: string;
  readonly parameter: string;
  readonly to: readonly string[];
}[] = [
  // Each row lists the operation that removes what the create made last: a fuzzer following the links
  // (Schemathesis, stateful) tries a new pet's photos before it withdraws the pet.
  {
    create: 'createPet',
    parameter: 'petId',
    to: ['getPet', 'updatePet', 'listPetPhotos', 'uploadPetPhoto', 'getPetPhoto', 'deletePetPhoto', 'deletePet'],
  },
  { create: 'uploadPetPhoto', parameter: 'photoId', to: ['getPetPhoto', 'deletePetPhoto'] },
  { create: 'createCategory', parameter: 'categoryId', to: ['getCategory', 'listPets'] },
  { create: 'placeOrder', parameter: 'orderId', to: ['getOrder', 'approveOrder', 'deliverOrder', 'cancelOrder'] },
  { create: 'createApiKey', parameter: 'keyId', to: ['getApiKey', 'updateApiKey', 'revokeApiKey'] },
  {
    create: 'createWebhook',
    parameter: 'webhookId',
    to: ['getWebhook', 'updateWebhook', 'rotateWebhookSecret', 'listWebhookDeliveries', 'deleteWebhook'],
  },
];

type LinkedOperation = { operationId?: string; responses: Record<string, { links?: Record<string, unknown> }> };

export const withCreatedIdLinks = <D extends { readonly paths: object }>(doc: D): D => {
  const operations = new Map<string, LinkedOperation>();
  for (const item of Object.values(doc.paths as Record<string, Record<string, LinkedOperation>>)) {
    for (const operation of Object.values(item))
      if (typeof operation.operationId === 'string') operations.set(operation.operationId, operation);
  }
  for (const { create, parameter, to } of CREATED_ID_LINKS) {
    const created = operations.get(create)?.responses['201'];
    if (created === undefined) throw new Error(`OpenAPI links: ${create} has no 201 answer`);
    created.links = Object.fromEntries(
      to.map((operationId) => {
        if (!operations.has(operationId)) throw new Error(`OpenAPI links: no operation ${operationId}`);
        return [
          operationId,
          {
            operationId,
            parameters: { [parameter]: '$response.body#/id' },
            description: `The \`id\` in the answer is the \`${parameter}\` of ${operationId}.`,
          },
        ];
      }),
    );
  }
  return doc;
};

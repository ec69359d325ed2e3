/**
 * What the OpenAPI document says across its operations (docs/rules.md §2, §10): the
 * `Idempotency-Key` of every create that takes one, and the links from each created id to the
 * operations that take it.
 */
import { ref } from './openapi-shared.js';

type Operation = { readonly parameters?: readonly unknown[]; readonly responses: Readonly<Record<string, unknown>> };

/**
 * A create that takes `Idempotency-Key` (docs/rules.md §10), as the document describes it: the
 * parameter, `Idempotent-Replayed` on its success, 409 (in progress) and 422 (the key reused). The
 * route says so where it is registered (`idempotentCreate`); a test holds the two to the same list.
 */
export const idempotentCreate = <O extends Operation>(operation: O): O => ({
  ...operation,
  parameters: [...(operation.parameters ?? []), ref('parameters', 'IdempotencyKey')],
  // An operation with a 409 of its own (a category name taken) keeps it: its code is `conflict` too.
  responses: {
    '409': ref('responses', 'IdempotencyInProgress'),
    ...Object.fromEntries(
      Object.entries(operation.responses).map(([status, response]) => {
        if (!/^2/.test(status)) return [status, response];
        const r = response as { headers?: Record<string, unknown> };
        return [
          status,
          { ...r, headers: { ...r.headers, 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') } },
        ];
      }),
    ),
    '422': ref('responses', 'IdempotencyKeyReused'),
  },
});

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

/**
 * Every operation that takes a key (it answers 401) and documents no 403 of its own gets the 403 a
 * publishable key meets there (docs/rules.md §16: from another origin, or off the catalogue).
 */
export const withPublishableRefusals = <D extends { readonly paths: object }>(doc: D): D => {
  for (const item of Object.values(
    doc.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>,
  ))
    for (const operation of Object.values(item)) {
      const responses = operation.responses;
      if (responses?.['401'] !== undefined && responses['403'] === undefined)
        responses['403'] = { $ref: '#/components/responses/PublishableForbidden' };
    }
  return doc;
};

/**
 * The OpenAPI part of the orders of routes.ts (docs/rules.md §8, tag `store`, beta), and their schemas.
 */
import {
  InventorySchema,
  LIMIT_DEFAULT,
  ListOrdersQuerySchema,
  NewOrderSchema,
  OrderIdSchema,
  OrderSchema,
} from '@petstore/domain';
import {
  BETA,
  BODY_TOO_LARGE,
  COMMON_HEADERS,
  errorResponse,
  ref,
  sharedErrors,
  withHeaders,
  type OpenApiPart,
} from './openapi-shared.js';
import { idempotentCreate } from './openapi-flow.js';

const EXAMPLE_ORDER = {
  id: 12,
  petId: 7,
  status: 'placed',
  placedAt: '2027-01-01T09:30:00.000Z',
  updatedAt: '2027-01-01T09:30:00.000Z',
};

/** The operations of docs/rules.md §8 (tag `store`, beta), and the schemas only they use. */
export const storePart = (): OpenApiPart => {
  const { description: orderIdDescription, ...orderIdSchema } = OrderIdSchema;
  const orderIdParam = {
    name: 'orderId',
    in: 'path',
    required: true,
    description: orderIdDescription,
    schema: orderIdSchema,
    example: 12,
  };
  const listParam = (name: 'limit' | 'status' | 'cursor') => {
    const { description, ...schema } = ListOrdersQuerySchema.properties[name];
    return { name, in: 'query', required: false, description, schema };
  };
  const orderResponse = (description: string, order: Record<string, unknown>) =>
    withHeaders(COMMON_HEADERS, {
      description,
      content: { 'application/json': { schema: ref('schemas', 'Order'), example: order } },
    });
  const badOrderId = errorResponse(
    ['validation_failed'],
    'orderId is not a positive int64 written canonically.',
    [],
    'orderId must be a positive integer from 1 to 9223372036854775807, written without sign, leading zeros or fraction',
  );
  const noOrder = errorResponse(
    ['not_found'],
    "No order has this id among those the key may see (another client key's order is not found, never forbidden).",
    [],
    'no order has id 12',
  );
  const adminOnly = (action: string) =>
    errorResponse(
      ['forbidden'],
      'A client key: only admin keys may take this action, whatever the order id.',
      [],
      `only an admin key may ${action} an order`,
    );
  const transitionConflict = (message: string) =>
    errorResponse(
      ['conflict'],
      "The order's status does not allow this move; the message says the status. Nothing changed.",
      [],
      message,
    );
  const action = (
    operationId: string,
    name: 'approve' | 'deliver' | 'cancel',
    summary: string,
    description: string,
    after: Record<string, unknown>,
    conflictMessage: string,
  ) => ({
    post: {
      operationId,
      summary,
      description: `${description} Repeating it on an order already in the target status answers 200 with the order unchanged. ${BETA}`,
      tags: ['store'],
      'x-stability': 'beta',
      parameters: [orderIdParam],
      responses: {
        '200': orderResponse('The order after the action.', after),
        '400': badOrderId,
        ...(name === 'cancel' ? {} : { '403': adminOnly(name) }),
        '404': noOrder,
        '409': transitionConflict(conflictMessage),
        ...sharedErrors,
      },
    },
  });
  const later = '2027-01-02T10:00:00.000Z';
  return {
    schemas: {
      Order: OrderSchema,
      NewOrder: NewOrderSchema,
      Orders: { type: 'array', items: ref('schemas', 'Order') },
      Inventory: InventorySchema,
    },
    paths: {
      '/store/orders': {
        post: idempotentCreate({
          operationId: 'placeOrder',
          summary: 'Order an animal',
          description:
            'Reserves an `available` animal for the calling key, which owns the order: the animal becomes `pending`. Of simultaneous orders for one animal exactly one succeeds; the others get 409. ' +
            BETA,
          tags: ['store'],
          'x-stability': 'beta',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('schemas', 'NewOrder'), example: { petId: 7 } } },
          },
          responses: {
            '201': withHeaders(COMMON_HEADERS, {
              description: 'The order, `placed`, with the id the service assigned.',
              headers: { Location: ref('headers', 'Location-Order') },
              content: { 'application/json': { schema: ref('schemas', 'Order'), example: EXAMPLE_ORDER } },
            }),
            '400': errorResponse(
              ['validation_failed', 'malformed_json'],
              'The body breaks a rule, or petId names no animal.',
              [],
              'petId 7 names no pet',
            ),
            '409': errorResponse(
              ['conflict'],
              'The animal is not `available`; the message says its status.',
              [],
              'pet 7 is pending; only an available pet can be ordered',
            ),
            '413': errorResponse(['payload_too_large'], BODY_TOO_LARGE),
            '415': errorResponse(['unsupported_media_type'], 'The body is not application/json.'),
            ...sharedErrors,
          },
        }),
        get: {
          operationId: 'listOrders',
          summary: 'List orders',
          description:
            'The calling key\'s orders (an admin key: every order) in ascending id order, at most `limit`, optionally of one status. Paged like `GET /pets`: `Link: <…>; rel="next"` while more exist; the cursor is bound to the key and the filter. ' +
            BETA,
          tags: ['store'],
          'x-stability': 'beta',
          parameters: [listParam('limit'), listParam('status'), listParam('cursor')],
          responses: {
            '200': withHeaders(COMMON_HEADERS, {
              description: `A page of orders (default ${LIMIT_DEFAULT}).`,
              headers: { Link: ref('headers', 'Link-Next') },
              content: { 'application/json': { schema: ref('schemas', 'Orders'), example: [EXAMPLE_ORDER] } },
            }),
            '400': errorResponse(
              ['validation_failed'],
              'limit, status or cursor breaks its rule.',
              [],
              'status must be one of placed, approved, delivered, cancelled',
            ),
            ...sharedErrors,
          },
        },
      },
      '/store/orders/{orderId}': {
        get: {
          operationId: 'getOrder',
          summary: 'Fetch one order',
          description: `An order of the calling key (an admin key: any order); another client key's order is 404. ${BETA}`,
          tags: ['store'],
          'x-stability': 'beta',
          parameters: [orderIdParam],
          responses: {
            '200': orderResponse('The order.', EXAMPLE_ORDER),
            '400': badOrderId,
            '404': noOrder,
            ...sharedErrors,
          },
        },
      },
      '/store/orders/{orderId}/approve': action(
        'approveOrder',
        'approve',
        'Approve an order (admin)',
        'Moves a `placed` order to `approved`; the animal stays `pending`. Admin keys only: a client key gets 403 whatever the id.',
        { ...EXAMPLE_ORDER, status: 'approved', updatedAt: later },
        'order 12 is delivered; only an order that is placed can be approved',
      ),
      '/store/orders/{orderId}/deliver': action(
        'deliverOrder',
        'deliver',
        'Deliver an order (admin)',
        'Moves an `approved` order to `delivered`; the animal becomes `sold`. Admin keys only: a client key gets 403 whatever the id.',
        { ...EXAMPLE_ORDER, status: 'delivered', updatedAt: later },
        'order 12 is placed; only an order that is approved can be delivered',
      ),
      '/store/orders/{orderId}/cancel': action(
        'cancelOrder',
        'cancel',
        'Cancel an order',
        'Moves a `placed` or `approved` order to `cancelled`; the animal is `available` again. The owner or an admin key; another client key gets 404.',
        { ...EXAMPLE_ORDER, status: 'cancelled', updatedAt: later },
        'order 12 is delivered; only an order that is placed or approved can be cancelled',
      ),
      '/store/inventory': {
        get: {
          operationId: 'getInventory',
          summary: 'Count animals by status',
          description: `How many animals are \`available\`, \`pending\` and \`sold\`, over all animals. ${BETA}`,
          tags: ['store'],
          'x-stability': 'beta',
          responses: {
            '200': withHeaders(COMMON_HEADERS, {
              description: 'The counts.',
              content: {
                'application/json': {
                  schema: ref('schemas', 'Inventory'),
                  example: { available: 12, pending: 3, sold: 40 },
                },
              },
            }),
            ...sharedErrors,
          },
        },
      },
    },
  };
};

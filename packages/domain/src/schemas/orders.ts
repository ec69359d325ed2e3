/** The adoption flow's schemas (docs/rules.md §8): orders and the inventory. */
import { ORDER_STATUSES } from '../order/order.js';
import { MAX_PET_ID } from '../order/validate.js';
import { assignedId } from './shared.js';
import { ListPetsQuerySchema, PageCursorSchema, PetIdSchema } from './pets.js';

export const OrderStatusSchema = {
  type: 'string',
  enum: [...ORDER_STATUSES],
  description:
    'Where the order is: `placed` (the pet is reserved), `approved`, `delivered` (the pet is sold) or `cancelled` (the pet is available again).',
} as const;

/** `POST /store/orders`: the closed body `{ "petId" }`. */
export const NewOrderSchema = {
  type: 'object',
  description: 'An order for one available animal. The pet must exist (else 400) and be `available` (else 409).',
  properties: {
    petId: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: MAX_PET_ID,
      description: 'Identifier of the animal to adopt.',
    },
  },
  required: ['petId'],
  additionalProperties: false,
} as const;

const orderTime = (what: string) =>
  ({
    type: 'string',
    format: 'date-time',
    description: `${what}, RFC 3339 in UTC with milliseconds, from the service's clock.`,
  }) as const;

export const OrderSchema = {
  type: 'object',
  properties: {
    id: assignedId('Unique identifier, assigned by the service; increasing in creation order.', MAX_PET_ID),
    petId: assignedId('The animal the order reserves.', MAX_PET_ID),
    status: OrderStatusSchema,
    placedAt: orderTime('When the order was placed'),
    updatedAt: orderTime('When the order last changed status'),
  },
  required: ['id', 'petId', 'status', 'placedAt', 'updatedAt'],
  additionalProperties: false,
} as const;

/** Query of `GET /store/orders`: the pet list's paging, with the order status as filter. */
export const ListOrdersQuerySchema = {
  type: 'object',
  properties: {
    limit: ListPetsQuerySchema.properties.limit,
    status: { ...OrderStatusSchema, description: 'Only orders with this status.' },
    cursor: {
      ...PageCursorSchema,
      description:
        'Opaque position of the next page, taken from the `Link: rel="next"` header. Bound to the status filter and to the key.',
    },
  },
  additionalProperties: true,
} as const;

/** Path of `/store/orders/{orderId}`: the `petId` rules. */
export const OrderIdSchema = {
  ...PetIdSchema,
  description:
    'Identifier of the order: a positive decimal integer up to 9223372036854775807, without sign, leading zeros or fraction.',
} as const;

/** `GET /store/inventory`: how many animals have each status. */
export const InventorySchema = {
  type: 'object',
  properties: {
    available: { type: 'integer', minimum: 0, description: 'Animals that can be ordered.' },
    pending: { type: 'integer', minimum: 0, description: 'Animals reserved by an open order, or created `pending`.' },
    sold: { type: 'integer', minimum: 0, description: 'Animals delivered to their adopter, or created `sold`.' },
  },
  required: ['available', 'pending', 'sold'],
  additionalProperties: false,
} as const;

/** Where an order is in the adoption flow (docs/rules.md §8). An `as const` object plus its union type. */
export const OrderStatus = {
  placed: 'placed',
  approved: 'approved',
  delivered: 'delivered',
  cancelled: 'cancelled',
} as const;
export type OrderStatus = (typeof OrderStatus)[keyof typeof OrderStatus];

export const ORDER_STATUSES: readonly OrderStatus[] = [
  OrderStatus.placed,
  OrderStatus.approved,
  OrderStatus.delivered,
  OrderStatus.cancelled,
];

export const isOrderStatus = (value: unknown): value is OrderStatus =>
  value === OrderStatus.placed ||
  value === OrderStatus.approved ||
  value === OrderStatus.delivered ||
  value === OrderStatus.cancelled;

/** An order as clients see it: the `Order` of docs/rules.md §8. */
export interface Order {
  readonly id: number;
  readonly petId: number;
  readonly status: OrderStatus;
  /** RFC 3339 UTC with milliseconds, from the service's clock. */
  readonly placedAt: string;
  readonly updatedAt: string;
}

/**
 * The states an order record passes through in the store: the four statuses clients see, plus
 * the write-ahead states of the actions that also move the pet (see `transitions.ts`):
 * - `placing`: written before the pet is reserved; becomes `placed` once its pet holds it,
 *   and is invisible until then;
 * - `cancelling`, `delivering`: the action is decided (the record's compare-and-set won), the
 *   pet may not have followed yet; read as `cancelled` / `delivered` once the pet has;
 * - `abandoned`: a placement that lost the race for its pet; never visible.
 */
export const OrderState = {
  ...OrderStatus,
  placing: 'placing',
  cancelling: 'cancelling',
  delivering: 'delivering',
  abandoned: 'abandoned',
} as const;
export type OrderState = (typeof OrderState)[keyof typeof OrderState];

export const ORDER_STATES: readonly OrderState[] = Object.values(OrderState);

/** What a repository stores for a new order (the id is the repository's to give). */
export interface OrderDraft {
  readonly petId: number;
  /** The public id (`key_…`) of the key that placed the order: its owner. */
  readonly owner: string;
  readonly state: OrderState;
  readonly placedAt: string;
  readonly updatedAt: string;
}

/** An order as stored: the draft plus its id. */
export interface OrderRecord extends OrderDraft {
  readonly id: number;
}

/** The client's view of a settled record (its state is one of the four statuses). */
export const toOrder = (record: OrderRecord, status: OrderStatus): Order => ({
  id: record.id,
  petId: record.petId,
  status,
  placedAt: record.placedAt,
  updatedAt: record.updatedAt,
});

/** An instant of the service's clock as RFC 3339 UTC with milliseconds (`2027-01-01T00:00:00.000Z`). */
export const timestamp = (epochMs: number): string => new Date(epochMs).toISOString();

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

/** `000Z`…`999Z`: the end of an instant's text, looked up. */
const MILLIS = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(3, '0')}Z`);
/** The second of the last instant written (its first millisecond), and its text up to the milliseconds (`2027-01-01T00:00:00.`). */
let secondStart = Number.NaN;
let secondText = '';

/**
 * An instant of the service's clock as RFC 3339 UTC with milliseconds (`2027-01-01T00:00:00.000Z`):
 * exactly `new Date(epochMs).toISOString()` (a property holds them equal). Every change writes one
 * (an event's `occurredAt`, an order's times), and `toISOString` formats the whole text through
 * the C library each time, a few thousand instructions; here it runs once a second, and an instant
 * within that second is its text joined to its milliseconds' (one string joined to another: V8
 * keeps the pair, two references, until something reads the characters). Instants outside years
 * 0000–9999, where `toISOString` writes six-digit years, and instants that are not a time value
 * (it throws a `RangeError`) go to `toISOString`.
 */
export const timestamp = (epochMs: number): string => {
  // A time value is whole milliseconds (Date truncates toward zero).
  const ms = Math.trunc(epochMs);
  const inSecond = ms - secondStart;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: whether the second's text is made again (a narrower or an empty range only makes it more often); the text is the same either way
  if (inSecond >= 0 && inSecond < 1000) return secondText + MILLIS[inSecond]!;
  const text = new Date(ms).toISOString();
  // Stryker disable next-line ConditionalExpression: always answering here only leaves the second unkept
  if (text.length !== 24) return text;
  // Stryker disable next-line ArithmeticOperator: a wrong start leaves the next instants outside the kept second, so they are made again in full
  secondStart = ms - (((ms % 1000) + 1000) % 1000);
  secondText = text.slice(0, 20);
  return text;
};

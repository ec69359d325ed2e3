import type { PetStatus } from '../pet/pet.js';
import { OrderState, type OrderStatus } from './order.js';

/** Who may take an action: the order's owner or an admin key, or an admin key only. */
export type Actor = 'owner-or-admin' | 'admin';

/** The actions on an existing order (docs/rules.md §8), named as in their paths. */
export const ORDER_ACTIONS = ['approve', 'deliver', 'cancel'] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];

export interface Transition {
  /** The statuses the action may start from. */
  readonly from: readonly OrderStatus[];
  /** The status it ends in; an order already there is answered unchanged (idempotent repeat). */
  readonly to: OrderStatus;
  /** The pet's status afterwards. */
  readonly pet: PetStatus;
  /** Whether the pet's status (and its hold) changes: then the action goes through `via`. */
  readonly via?: OrderState;
  readonly who: Actor;
}

/**
 * The transition table of docs/rules.md §8, the one place it lives. Anything not in it → 409.
 *
 * | from               | action  | to        | pet becomes         | who            |
 * |--------------------|---------|-----------|---------------------|----------------|
 * | placed             | approve | approved  | pending (stays)     | admin          |
 * | approved           | deliver | delivered | sold                | admin          |
 * | placed, approved   | cancel  | cancelled | available           | owner or admin |
 *
 * (Placing, the entry into the table, is `PLACEMENT` below.)
 */
export const TRANSITIONS: Readonly<Record<OrderAction, Transition>> = {
  approve: { from: [OrderState.placed], to: OrderState.approved, pet: 'pending', who: 'admin' },
  deliver: {
    from: [OrderState.approved],
    to: OrderState.delivered,
    pet: 'sold',
    via: OrderState.delivering,
    who: 'admin',
  },
  cancel: {
    from: [OrderState.placed, OrderState.approved],
    to: OrderState.cancelled,
    pet: 'available',
    via: OrderState.cancelling,
    who: 'owner-or-admin',
  },
};

/** Placing an order: an `available` pet becomes `pending`, held by the new order. Any key may place. */
export const PLACEMENT = {
  petFrom: 'available',
  to: OrderState.placed,
  pet: 'pending',
  via: OrderState.placing,
} as const;

/**
 * The order of writes of each action and the repair rule below are explained, with the reasons for
 * them, in docs/design.md ("Orders: the pet is the consistency boundary"; a placement repeated under
 * its Idempotency-Key: "Idempotent creates"). In short: place = (1) record `placing`, (2) swap the
 * pet's hold (the decision), (3) `placing → placed`; cancel/deliver = (1) the record to
 * `cancelling`/`delivering` (the decision), (2) swap the hold, (3) the final state; approve is one write.
 */
export interface RepairStep {
  /** The pet's hold the step expects (with the order's id) and the one it sets. */
  readonly pet?: { readonly from: PetStatus; readonly to: PetStatus };
  /** The record's state afterwards. */
  readonly to: OrderStatus;
  /** True when the step applies only if the pet holds the order (placement). */
  readonly onlyIfHeld: boolean;
}

/** How to settle a record found in a write-ahead state; `undefined` for a settled (or abandoned) one. */
export const repairStep = (state: OrderState): RepairStep | undefined => {
  switch (state) {
    case OrderState.placing:
      return { to: PLACEMENT.to, onlyIfHeld: true };
    case OrderState.cancelling:
      return { pet: { from: 'pending', to: TRANSITIONS.cancel.pet }, to: TRANSITIONS.cancel.to, onlyIfHeld: false };
    case OrderState.delivering:
      return { pet: { from: 'pending', to: TRANSITIONS.deliver.pet }, to: TRANSITIONS.deliver.to, onlyIfHeld: false };
    default:
      return undefined;
  }
};

/** The write-ahead states that settle to `status` (the `via` of the moves into it), then `status` itself. */
function statesSettlingTo(status: OrderStatus): readonly OrderState[] {
  const moves = [PLACEMENT, ...Object.values(TRANSITIONS)];
  return [...moves.flatMap((move) => (move.via !== undefined && move.to === status ? [move.via] : [])), status];
}

/**
 * The stored states a client's status filter must look at: a record in a write-ahead state is
 * listed under the status it settles to (a `placing` one only if its pet holds it).
 */
export const STATES_OF_STATUS: Readonly<Record<OrderStatus, readonly OrderState[]>> = {
  placed: statesSettlingTo(OrderState.placed),
  approved: statesSettlingTo(OrderState.approved),
  cancelled: statesSettlingTo(OrderState.cancelled),
  delivered: statesSettlingTo(OrderState.delivered),
};

/** Every stored state a listing may show (all but `abandoned`). */
export const LISTED_STATES: readonly OrderState[] = Object.values(STATES_OF_STATUS).flat();

/** A settled state seen by clients as itself. */
export const isSettledStatus = (state: OrderState): state is OrderStatus =>
  state === OrderState.placed ||
  state === OrderState.approved ||
  state === OrderState.cancelled ||
  state === OrderState.delivered;

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
  deliver: { from: [OrderState.approved], to: OrderState.delivered, pet: 'sold', via: OrderState.delivering, who: 'admin' },
  cancel: { from: [OrderState.placed, OrderState.approved], to: OrderState.cancelled, pet: 'available', via: OrderState.cancelling, who: 'owner-or-admin' },
};

/** Placing an order: an `available` pet becomes `pending`, held by the new order. Any key may place. */
export const PLACEMENT = { petFrom: 'available', to: OrderState.placed, pet: 'pending', via: OrderState.placing } as const;

/**
 * # Consistency without transactions: order of writes and the repair rule
 *
 * Two documents change per action: the order record and its pet (whose hold is
 * `{ status, orderId }`). Each has a compare-and-set, none spans both. Each action writes in this
 * order, so that every prefix of its writes is a state the next request finishes (never undoes
 * something a client was told happened):
 *
 * - **place**: (1) create the record as `placing` (the id comes from the repository, the owner
 *   is on it); (2) `swapHold(pet, {available, null} → {pending, id})` — the linearization point:
 *   of N racing placements exactly one swap wins; (3) CAS `placing → placed`. A loser sets its
 *   record `abandoned` and answers 409.
 * - **approve**: one write, CAS `placed → approved` (the pet stays `pending`, held).
 * - **cancel** / **deliver**: (1) CAS `placed|approved → cancelling` / `approved → delivering` —
 *   the decision: of a racing cancel and deliver exactly one wins here; (2)
 *   `swapHold(pet, {pending, id} → {available|sold, null})`; (3) CAS `cancelling → cancelled` /
 *   `delivering → delivered`.
 *
 * What follows from that order, at every moment: a record `placed` or `approved` is held by its
 * pet; a pet `{pending, id}` has a record `id` in `placing`, `placed`, `approved`, `cancelling`
 * or `delivering`; a `cancelled` record's pet does not hold it; a `delivered` record's pet is `sold`.
 *
 * **Repair rule** (`repairStep`), applied by every request that reads an order record in a
 * write-ahead state, and by a placement that finds its pet held:
 * - `placing` and its pet holds it → CAS `placing → placed` (the placement won; finish it);
 *   `placing` and its pet does not hold it → nothing: the record stays invisible (its placement
 *   lost, crashed before the swap, or is still running and may yet win). A reader never marks
 *   such a record `abandoned`, however old: a placement still running could swap its pet after
 *   that, leaving a pet held by an abandoned record, and no lease closes that window without a
 *   transaction over both documents. Only the placement itself, once its swap has lost, marks its
 *   record `abandoned`. A record left `placing` by a crash or an outage before the swap costs a
 *   pet lookup when a listing passes it; nothing else;
 * - `cancelling` / `delivering` → `swapHold(pet, {pending, id} → {available|sold, null})` (a
 *   `false` means it was done already), then CAS to `cancelled` / `delivered`, keeping `updatedAt`.
 * A client therefore sees `cancelled` / `delivered` only once the pet has followed, and never a
 * `placed` order that its pet does not hold: the invariants of §8 hold at every observable moment.
 *
 * **A placement under an `Idempotency-Key`** (docs/rules.md §10: a create never happens twice under
 * one key) writes the key's creation token into its record in write (1), under a unique index. When
 * an attempt ends without a kept answer (a 5xx, a process that died), a repeat of the request finds
 * that record by its token (`Adoption.placedUnder`) and carries the sequence on from where the record
 * says it stopped, instead of creating a second record:
 * - nothing written: no record has the token; the repeat places as new;
 * - (1) written, (2) not: `placing`, the pet not holding it. Pet available: the repeat does (2) and
 *   (3) with this record. Pet not available: 409, the record left `placing` and not abandoned, for the
 *   same reason a reader leaves it (the first attempt's swap may still be on its way);
 * - (2) written, (3) not: `placing`, held: settled `placed` as any reader would, and answered 201;
 * - (3) written (and anything after): the order as it is now, 201;
 * - the first attempt lost its swap and marked the record `abandoned`: 409, as it was answered then.
 * The repeat only runs once the first attempt has ended (its claim released on its 5xx, or its lease
 * of 60 s over), so the first attempt writes nothing more, except a write of its already sent and not
 * yet applied (a paused database). The two that matter: its swap landing after the repeat answered
 * 409 (the order is then placed after all, its invariants intact: the state is one a reader settles)
 * and its abandon landing after the repeat's own swap. The repeat's compare-and-set `placing → placed`
 * then fails on the `abandoned` record, and the repeat hands the pet back (`{pending, id} →
 * {available, null}`) before answering 409, so no pet stays held by an invisible record; a repeat that
 * finds an `abandoned` record its pet holds does the same. A placement without a key, or the first
 * attempt under a key, abandons its record when it loses, as above; a repeat never abandons one (the
 * record the repository answers for the token may be the first attempt's, written late).
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
  state === OrderState.placed || state === OrderState.approved || state === OrderState.cancelled || state === OrderState.delivered;

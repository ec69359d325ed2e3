import type { Clock } from '../ports/clock.port.js';
import type { PetHold, PetRepository } from '../ports/pet-repository.port.js';
import type { OrderRepository } from '../ports/order-repository.port.js';
import type { Caller } from '../auth/api-key.js';
import type { Conflict, Forbidden, NotFound, ValidationFailed } from '../errors.js';
import { StoreUnavailableError, validationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import type { PetStatus } from '../pet/pet.js';
import {
  isOrderStatus,
  ORDER_STATUSES,
  OrderState,
  timestamp,
  toOrder,
  type Order,
  type OrderRecord,
  type OrderStatus,
} from '../order/order.js';
import { LISTED_STATES, PLACEMENT, STATES_OF_STATUS, TRANSITIONS, type OrderAction } from '../order/transitions.js';
import { parseOrderId, validateNewOrder } from '../order/validate.js';
import { MAX_ROUNDS, OrderRepair, type SettledRecord } from './order-repair.js';
import { pageScope } from '../pagination/cursor.js';
import { assemblePage, byId, readPageRequest, type Page, type PageInput } from '../pagination/page.js';
import type { IdempotentCreation } from '../idempotency/idempotency.js';
import { orderReached, petReleased, petReserved, petUpdated } from '../events/recorders.js';

/** What `listOrders` takes: every field optional, each checked here whatever its type. */
export interface ListOrdersInput extends PageInput {
  readonly status?: unknown;
}

const FREE: PetHold = { status: 'available', orderId: null };
const heldBy = (orderId: number): PetHold => ({ status: 'pending', orderId });

/** A `petId` naming no pet, or a withdrawn one (docs/rules.md §8, §12). */
const noPet = (petId: number): ValidationFailed => validationFailed('petId', `petId ${petId} names no pet`);

const notFound = (raw: string | number): NotFound => ({ code: 'not_found', message: `no order has id ${String(raw)}` });

/**
 * The adoption flow of docs/rules.md §8: place, get, list, approve, deliver, cancel, inventory.
 * The rules (who may do what from which state, what it does to the pet) are the table in
 * `order/transitions.ts`; the order of writes and the repair of half-done actions are documented
 * there too. Expected failures come back as values; only a store outage is thrown.
 */
export class Adoption {
  private readonly repair: OrderRepair;

  constructor(
    private readonly pets: PetRepository,
    private readonly orders: OrderRepository,
    private readonly clock: Clock,
    /**
     * Told of every order this use case moved by an action, once (not of a repeat that changed nothing): for metrics.
     * A two-write action is told at its decision, so a fault before the pet follows does not lose it.
     */
    private readonly onTransition: (action: OrderAction) => void = () => {},
  ) {
    this.repair = new OrderRepair(pets, orders, clock);
  }

  /**
   * `POST /v1/store/orders`: reserves an available pet for the caller. With `creation` (a placement
   * under an `Idempotency-Key`, docs/rules.md §10) the record carries its token; a repeat of a
   * placement that may have written already asks `placedUnder` first.
   */
  async place(
    caller: Caller,
    body: unknown,
    creation?: IdempotentCreation,
  ): Promise<Result<Order, ValidationFailed | Conflict>> {
    const input = validateNewOrder(body);
    if (!input.ok) return input;
    const { petId } = input.value;
    let hold = await this.pets.findHold(petId);
    if (hold === undefined) return fail(noPet(petId));
    hold = await this.repair.settlePet(petId, hold);
    if (hold.status !== PLACEMENT.petFrom) {
      // Under a resumed key the pet may be held by this very placement: an earlier attempt's writes landed after `placedUnder` looked.
      const earlier = creation?.resumed === true ? await this.placedUnder(creation) : undefined;
      return earlier ?? fail(this.petNotAvailable(petId, hold.status));
    }

    const now = timestamp(this.clock.now());
    const draft = { petId, owner: caller.keyId, state: PLACEMENT.via, placedAt: now, updatedAt: now };
    const record = await (creation === undefined
      ? this.orders.create(draft)
      : this.orders.create(draft, creation.token));
    // A record only this request can have written is abandoned when it loses. Under a resumed key the
    // repository may answer an earlier attempt's record (its late write landed after `placedUnder`
    // looked): that one is never abandoned here, its own swap may still land (see `placedUnder`).
    return this.reserve(record, creation?.resumed !== true);
  }

  /**
   * docs/rules.md §10: the order an earlier attempt of this placement created under its
   * `Idempotency-Key`, finished if it was left half done, as the answer; `undefined` when there is
   * none, or when no earlier attempt can have created one (a first claim: no look-up), and the
   * placement then runs as new (`place`). By the state the record was left in (the write sequence
   * of transitions.ts):
   * - `placed`, `approved`, `cancelled`, `delivered` (or `cancelling` / `delivering`, settled on the
   *   way): that order, as it is now;
   * - `placing` and its pet holds it (the swap landed, the last write did not): settled, `placed`;
   * - `placing` and its pet is available (the attempt stopped before its swap): the placement goes
   *   on with this record from its swap, as `place` would (201, or 409 if another order wins now);
   * - `placing` and its pet is not available: 409, as a new placement would be answered; the
   *   record is left `placing` (invisible), never abandoned: the earlier attempt's swap may still
   *   land, and the order is then placed (a reader settles it);
   * - `abandoned`: the earlier attempt lost the pet to another order: 409 (a new key orders again).
   */
  async placedUnder(creation: IdempotentCreation): Promise<Result<Order, ValidationFailed | Conflict> | undefined> {
    if (!creation.resumed) return undefined;
    const record = await this.orders.findByCreationToken(creation.token);
    if (record === undefined) return undefined;
    if (record.state !== PLACEMENT.via) return this.answerPlacement(record);
    const { petId } = record;
    let hold = await this.pets.findHold(petId);
    if (hold === undefined) return fail(noPet(petId));
    hold = await this.repair.settlePet(petId, hold);
    if (hold.orderId === record.id) return this.answerPlacement((await this.orders.findById(record.id)) ?? record);
    if (hold.status !== PLACEMENT.petFrom) return fail(this.petNotAvailable(petId, hold.status));
    return this.reserve(record, false);
  }

  /** `GET /v1/store/orders/{orderId}`: the caller's order (an admin: any order). `id` may be the raw path segment. */
  async getOrder(caller: Caller, id: string | number): Promise<Result<Order, ValidationFailed | NotFound>> {
    const found = await this.find(caller, id);
    if (!found.ok) return found;
    return ok(toOrder(found.value, found.value.state));
  }

  /** `GET /v1/store/orders`: the caller's orders (an admin: all), ascending id, optionally one status, paged. */
  async listOrders(caller: Caller, input: ListOrdersInput = {}): Promise<Result<Page<Order>, ValidationFailed>> {
    let status: OrderStatus | undefined;
    if (input.status !== undefined) {
      if (!isOrderStatus(input.status))
        return fail(validationFailed('status', `status must be one of ${ORDER_STATUSES.join(', ')}`));
      status = input.status;
    }
    const owner = caller.role === 'admin' ? undefined : caller.keyId;
    const scope = pageScope('orders', { owner, status });
    const request = readPageRequest(input, scope);
    if (!request.ok) return request;
    const { limit } = request.value;
    const states = status === undefined ? LISTED_STATES : STATES_OF_STATUS[status];
    const visible: Order[] = [];
    let afterId = request.value.afterId;
    // Records in a write-ahead state are settled on the way (a `placing` one may stay invisible), so a
    // round can yield fewer rows than it read: read on until the page and its look-ahead row are full.
    while (visible.length <= limit) {
      const want = limit + 1 - visible.length;
      const rows = await this.orders.list(
        owner === undefined ? { states, afterId, limit: want } : { owner, states, afterId, limit: want },
      );
      for (const row of rows) {
        const settled = await this.repair.settle(row);
        if (settled !== undefined && (status === undefined || settled.state === status))
          visible.push(toOrder(settled, settled.state));
      }
      // The store has no more; or it answered a row at or before where it was asked to start (a broken
      // adapter): reading on from there could repeat forever, so the page ends with what it has.
      const last = rows[rows.length - 1]?.id ?? afterId;
      if (rows.length < want || last <= afterId) break;
      afterId = last;
    }
    return ok(assemblePage(visible, limit, scope, byId));
  }

  /** `POST /v1/store/orders/{orderId}/{action}`: one move of the transition table. */
  async act(
    caller: Caller,
    action: OrderAction,
    id: string | number,
  ): Promise<Result<Order, ValidationFailed | NotFound | Forbidden | Conflict>> {
    const transition = TRANSITIONS[action];
    // Before anything is looked up: a client key learns nothing about any order id here.
    if (transition.who === 'admin' && caller.role !== 'admin') {
      return fail({ code: 'forbidden', message: `only an admin key may ${action} an order` });
    }
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const found = await this.find(caller, id);
      if (!found.ok) return found;
      const record = found.value;
      if (record.state === transition.to) return ok(toOrder(record, record.state));
      if (!transition.from.includes(record.state)) {
        return fail({
          code: 'conflict',
          message: `order ${record.id} is ${record.state}; only an order that is ${transition.from.join(' or ')} can be ${transition.to}`,
        });
      }
      const now = timestamp(this.clock.now());
      const done = { ...record, state: transition.to, updatedAt: now };
      // The decision records the order's event (docs/rules.md §15): from it, the move is only ever finished.
      const reached = orderReached(transition.to, now);
      if (transition.via === undefined) {
        if (!(await this.orders.updateState(record.id, record.state, transition.to, now, reached))) continue;
        this.onTransition(action);
        return ok(toOrder(done, done.state));
      }
      // The decision: of a racing cancel and deliver, one compare-and-set wins here. Then the pet follows, then the record settles.
      if (!(await this.orders.updateState(record.id, record.state, transition.via, now, reached))) continue;
      // Heard at the decision: from here the move is only ever finished (by this request or, after a fault, by the
      // repair of the next one), so it is told once, whichever request ends up finishing it.
      this.onTransition(action);
      await this.pets.swapHold(
        record.petId,
        heldBy(record.id),
        { status: transition.pet, orderId: null },
        petReleased(now, record.id, transition.to),
      );
      await this.orders.updateState(record.id, transition.via, transition.to, now);
      return ok(toOrder(done, done.state));
    }
    throw new StoreUnavailableError(`order ${String(id)} kept changing under this request; retry`);
  }

  approve(caller: Caller, id: string | number) {
    return this.act(caller, 'approve', id);
  }

  deliver(caller: Caller, id: string | number) {
    return this.act(caller, 'deliver', id);
  }

  cancel(caller: Caller, id: string | number) {
    return this.act(caller, 'cancel', id);
  }

  /** `GET /v1/store/inventory`: how many pets have each status. */
  inventory(): Promise<Readonly<Record<PetStatus, number>>> {
    return this.pets.countByStatus();
  }

  private petNotAvailable(petId: number, status: PetStatus): Conflict {
    return { code: 'conflict', message: `pet ${petId} is ${status}; only an available pet can be ordered` };
  }

  /**
   * Steps (2) and (3) of a placement (transitions.ts) for `record`: swap its pet from available to
   * it, then settle the record `placed`. A record no longer `placing` is answered as it is. When the
   * swap loses, `mayAbandon` (the record is this request's alone) marks the record `abandoned`;
   * otherwise it stays `placing`, unless its pet turns out to hold it (an earlier attempt's swap landed).
   */
  private async reserve(record: OrderRecord, mayAbandon: boolean): Promise<Result<Order, ValidationFailed | Conflict>> {
    if (record.state !== PLACEMENT.via) return this.answerPlacement(record);
    const { petId } = record;
    const now = timestamp(this.clock.now());
    // The linearization point: of N placements for this pet, exactly one swap wins.
    if (!(await this.pets.swapHold(petId, FREE, heldBy(record.id), petReserved(now, record.id)))) {
      if (mayAbandon) {
        // Lost: the record is left invisible either way; marking it abandoned spares later lists a look at the pet.
        await this.orders.updateState(record.id, PLACEMENT.via, OrderState.abandoned, now).catch((error: unknown) => {
          if (!(error instanceof StoreUnavailableError)) throw error;
        });
      }
      const current = await this.pets.findHold(petId);
      if (!mayAbandon && current?.orderId === record.id) return this.answerPlacement(record);
      // Withdrawn in the meantime (docs/rules.md §12): the placement comes after the withdrawal, as for a pet that is not there.
      if (current === undefined) return fail(noPet(petId));
      return fail(this.petNotAvailable(petId, current.status));
    }
    // The order is placed as clients see it from here: its `order.placed` is recorded by this write (or by a reader's settling write).
    if (await this.orders.updateState(record.id, PLACEMENT.via, PLACEMENT.to, now, orderReached(PLACEMENT.to, now))) {
      return ok(toOrder({ ...record, updatedAt: now }, PLACEMENT.to));
    }
    // Another request saw the pet held and finished the placement first; answer the order as it is now.
    const current = await this.orders.findById(record.id);
    if (current === undefined) throw new StoreUnavailableError(`order ${record.id} vanished while it was being placed`);
    return this.answerPlacement(current);
  }

  /**
   * A placement's record, settled, as its answer. A record that stays invisible here is `abandoned`
   * (every caller has seen its pet hold it, or found it no longer `placing`): a placement lost. If
   * its pet holds it all the same, a write of an earlier attempt under the same `Idempotency-Key`
   * landed late (its abandon after this attempt's swap, or its swap after its abandon): the pet is
   * handed back (the swap from it to available), as the swap that took it was not allowed to win.
   */
  private async answerPlacement(record: OrderRecord): Promise<Result<Order, Conflict>> {
    const settled = await this.repair.settle(record);
    if (settled !== undefined) return ok(toOrder(settled, settled.state));
    await this.pets.swapHold(record.petId, heldBy(record.id), FREE, petUpdated(timestamp(this.clock.now())));
    return fail({
      code: 'conflict',
      message: `the order placed with this Idempotency-Key did not get pet ${record.petId}: another order reserved it first; send a new Idempotency-Key to order it again`,
    });
  }

  /** The caller's settled record with this id (raw path segment or number), or why not. */
  private async find(
    caller: Caller,
    raw: string | number,
  ): Promise<Result<SettledRecord, ValidationFailed | NotFound>> {
    const parsed = parseOrderId(String(raw));
    if (!parsed.ok) return parsed;
    if (parsed.value === null) return fail(notFound(raw));
    const record = await this.orders.findById(parsed.value);
    // Another key's order is not found, never forbidden: its existence is not revealed.
    if (record === undefined || (caller.role !== 'admin' && record.owner !== caller.keyId)) return fail(notFound(raw));
    const settled = await this.repair.settle(record);
    return settled === undefined ? fail(notFound(raw)) : ok(settled);
  }
}

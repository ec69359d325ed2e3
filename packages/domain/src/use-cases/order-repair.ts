import type { PetHold, PetRepository } from '../ports/pet-repository.port.js';
import type { OrderRepository } from '../ports/order-repository.port.js';
import { StoreUnavailableError } from '../errors.js';
import type { Clock } from '../ports/clock.port.js';
import { OrderState, timestamp, type OrderRecord, type OrderStatus } from '../order/order.js';
import { orderReached, petReleased } from '../events/recorders.js';
import { isSettledStatus, repairStep } from '../order/transitions.js';

/** A record whose state is one of the four statuses clients see. */
export type SettledRecord = OrderRecord & { readonly state: OrderStatus };

/** Rounds of "someone else changed the record first" before a request gives up (each lost round is another request's progress). */
export const MAX_ROUNDS = 8;

/**
 * The repair rule of the adoption flow (`repairStep` in order/transitions.ts), for every use case
 * that touches a pet or an order: what a fault left half done is finished by the next request that
 * meets it (docs/rules.md §8), whether that request is about the order (`Adoption`) or the pet
 * (`Adoption.place`, `PetMaintenance`).
 *
 * Its writes record their events (docs/rules.md §15): the pet's swap its `pet.updated`, and settling
 * a placement `placing → placed` the `order.placed` (a placement is an order clients see only from
 * then on; the events of a cancel or a delivery were recorded by its decision).
 */
export class OrderRepair {
  constructor(
    private readonly pets: PetRepository,
    private readonly orders: OrderRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * A record in a write-ahead state is finished before anyone sees it. Answers the settled record,
   * or `undefined` when it is not visible (abandoned, or a placement its pet does not hold).
   */
  async settle(record: OrderRecord): Promise<SettledRecord | undefined> {
    let current: OrderRecord | undefined = record;
    for (let round = 0; round < MAX_ROUNDS && current !== undefined; round++) {
      const { state } = current;
      if (isSettledStatus(state)) return { ...current, state };
      const step = repairStep(state);
      if (step === undefined) return undefined;
      if (step.onlyIfHeld) {
        const hold = await this.pets.findHold(current.petId);
        if (hold?.orderId !== current.id) return undefined;
      }
      const at = timestamp(this.clock.now());
      if (step.pet !== undefined) {
        await this.pets.swapHold(
          current.petId,
          { status: step.pet.from, orderId: current.id },
          { status: step.pet.to, orderId: null },
          petReleased(at, current.id, step.to),
        );
      }
      const record = state === OrderState.placing ? orderReached(step.to, at) : undefined;
      if (await this.orders.updateState(current.id, state, step.to, current.updatedAt, record))
        return { ...current, state: step.to };
      current = await this.orders.findById(current.id);
    }
    if (current === undefined) return undefined;
    throw new StoreUnavailableError(`order ${current.id} kept changing under this request; retry`);
  }

  /**
   * Finishes whatever the order holding a pet (`orderId`) left half done. Answers `true` when there
   * was something to finish (the pet may have changed: read it again), `false` when the order was settled.
   */
  async settleHolder(orderId: number): Promise<boolean> {
    const record = await this.orders.findById(orderId);
    if (record === undefined || isSettledStatus(record.state)) return false;
    await this.settle(record);
    return true;
  }

  /** `settleHolder` for a pet's hold; answers the pet's hold afterwards. */
  async settlePet(petId: number, hold: PetHold): Promise<PetHold> {
    if (hold.orderId === null || !(await this.settleHolder(hold.orderId))) return hold;
    return (await this.pets.findHold(petId)) ?? hold;
  }
}

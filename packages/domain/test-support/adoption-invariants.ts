import { expect } from 'chai';
import type { OrderRecord, OrderRepository, PetHold, PetRepository, PetStatus } from '../src/index.js';
import { deliveryBindsStatus, ORDER_STATES } from '../src/index.js';

// The adoption flow's stores and the invariants of what they hold (docs/rules.md §8), shared by the
// adoption contract and the creation-token cases of adoption (creation-token.contract.ts).

/** The two stores the adoption flow works on, as an adapter provides them. */
export interface AdoptionStores {
  readonly pets: PetRepository;
  readonly orders: OrderRepository;
}

/** A limit above any number of records a contract stores: a list with it is the whole list. */
export const MANY = 1_000_000;

/** Every order record, in every state, ascending id. */
export const allOrders = (orders: OrderRepository): Promise<readonly OrderRecord[]> =>
  orders.list({ states: ORDER_STATES, afterId: 0, limit: MANY });

/**
 * The invariants of the stored state, at every moment (after any prefix of any action's writes):
 * what lets every read settle a record before showing it and still show only what §8 allows.
 */
export const checkStoredInvariants = async (stores: AdoptionStores): Promise<void> => {
  const records = new Map((await allOrders(stores.orders)).map((r) => [r.id, r]));
  const { pets } = await stores.pets.list({ order: { sort: 'id' }, limit: MANY });
  const holds = new Map<number, PetHold>();
  const counts: Record<PetStatus, number> = { available: 0, pending: 0, sold: 0 };
  for (const pet of pets) {
    const hold = (await stores.pets.findHold(pet.id))!;
    holds.set(pet.id, hold);
    counts[hold.status]++;
    expect(hold.status, `pet ${pet.id}: findHold and findById agree`).to.equal(pet.status);
    if (hold.orderId === null) continue;
    expect(hold.status, `pet ${pet.id} holds order ${hold.orderId}: it is pending`).to.equal('pending');
    const record = records.get(hold.orderId);
    expect(record?.petId, `pet ${pet.id} holds order ${hold.orderId}, which is for it`).to.equal(pet.id);
    expect(
      ['placing', 'placed', 'approved', 'cancelling', 'delivering'],
      `order ${hold.orderId} held by pet ${pet.id}`,
    ).to.include(record!.state);
  }
  expect(await stores.pets.countByStatus(), 'countByStatus').to.deep.equal(counts);
  for (const record of records.values()) {
    const hold = holds.get(record.petId);
    const what = `order ${record.id} (${record.state}) and pet ${record.petId} ${JSON.stringify(hold)}`;
    if (record.state === 'placed' || record.state === 'approved')
      expect(hold, what).to.deep.equal({ status: 'pending', orderId: record.id });
    if (record.state === 'delivered' || record.state === 'delivering') {
      // §8 read with §12's returns: the delivery binds the status unless a PATCH set the status after it;
      // a withdrawn pet (gone: hold undefined) is no longer there to be sold.
      const pet = hold === undefined ? undefined : await stores.pets.findById(record.petId);
      const binds = pet !== undefined && deliveryBindsStatus(pet, record.updatedAt);
      if (record.state === 'delivered' && binds)
        expect(hold?.status, `a pet with a delivered order is sold: ${what}`).to.equal('sold');
      if (record.state === 'delivering' && binds)
        expect(hold?.status === 'sold' || hold?.orderId === record.id, what).to.equal(true);
    }
    if (record.state === 'cancelled' || record.state === 'abandoned')
      expect(hold?.orderId, what).not.to.equal(record.id);
  }
};

import { expect } from 'chai';
import type { PetHold, PetRepository, PetStatus } from '../src/index.js';
import { withFixture, type MakeFixture } from './fixture.js';

// ---- The adoption holds of PetRepository (PETS-PORT.md), as the orders branch checks them. ----
// The categories branch owns the pet store and adds these methods to the pet repository contract;
// this suite is the orders branch's minimal check of the same promises, run by every pet adapter.

const free: PetHold = { status: 'available', orderId: null };
const held = (orderId: number): PetHold => ({ status: 'pending', orderId });

/** `findHold`, `swapHold` and `countByStatus`: every pet adapter runs this same suite. */
export const petHoldContract = (name: string, make: MakeFixture<PetRepository>): void => {
  describe(`PetRepository holds (PETS-PORT.md): ${name}`, function () {
    it('a created pet has its status and no order; an unknown id has no hold', () =>
      withFixture(make, async (pets) => {
        expect(await pets.findHold(1)).to.equal(undefined);
        const statuses: PetStatus[] = ['available', 'pending', 'sold'];
        for (const status of statuses) {
          const pet = await pets.create({ name: status, categoryId: 1, status });
          expect(await pets.findHold(pet.id)).to.deep.equal({ status, orderId: null });
        }
        expect(await pets.findHold(99)).to.equal(undefined);
      }));

    it('swaps only from the expected hold (status and order), and every read sees the new status at once', () =>
      withFixture(make, async (pets) => {
        const a = await pets.create({ name: 'a', categoryId: 1, status: 'available' });
        const b = await pets.create({ name: 'b', categoryId: 1, status: 'available' });
        expect(await pets.swapHold(a.id, held(7), held(8))).to.equal(false);
        expect(await pets.swapHold(a.id, { status: 'pending', orderId: null }, held(8))).to.equal(false);
        expect(await pets.swapHold(a.id + 100, free, held(8))).to.equal(false);
        expect(await pets.findHold(a.id)).to.deep.equal(free);

        expect(await pets.swapHold(a.id, free, held(7))).to.equal(true);
        expect(await pets.findHold(a.id)).to.deep.equal(held(7));
        expect((await pets.findById(a.id))?.status).to.equal('pending');
        expect({ ...(await pets.findById(a.id)) }).to.deep.equal({ id: a.id, name: 'a', categoryId: 1, status: 'pending' });
        expect((await pets.list({ status: 'pending', afterId: 0, limit: 10 })).map((p) => p.id)).to.deep.equal([a.id]);
        expect((await pets.list({ status: 'available', afterId: 0, limit: 10 })).map((p) => p.id)).to.deep.equal([b.id]);
        expect((await pets.list({ afterId: 0, limit: 10 })).map((p) => p.status)).to.deep.equal(['pending', 'available']);
        expect(await pets.countByStatus()).to.deep.equal({ available: 1, pending: 1, sold: 0 });

        expect(await pets.swapHold(a.id, held(8), free)).to.equal(false);
        expect(await pets.swapHold(a.id, held(7), { status: 'sold', orderId: null })).to.equal(true);
        expect(await pets.findHold(a.id)).to.deep.equal({ status: 'sold', orderId: null });
        expect(await pets.countByStatus()).to.deep.equal({ available: 1, pending: 0, sold: 1 });
        expect(await pets.swapHold(b.id, free, held(9))).to.equal(true);
        expect(await pets.swapHold(b.id, held(9), free)).to.equal(true);
        expect(await pets.findHold(b.id)).to.deep.equal(free);
        expect((await pets.list({ status: 'available', afterId: 0, limit: 10 })).map((p) => p.id)).to.deep.equal([b.id]);
        expect((await pets.list({ status: 'sold', afterId: 0, limit: 10 })).map((p) => p.id)).to.deep.equal([a.id]);
      }));

    it('of many concurrent swaps from the same hold, exactly one wins', () =>
      withFixture(make, async (pets) => {
        const pet = await pets.create({ name: 'contested', categoryId: 1, status: 'available' });
        const results = await Promise.all(Array.from({ length: 50 }, (_, i) => pets.swapHold(pet.id, free, held(i + 1))));
        expect(results.filter(Boolean)).to.have.length(1);
        expect(await pets.findHold(pet.id)).to.deep.equal(held(results.indexOf(true) + 1));
      }));

    it('keeps the status lists in id order and the counts right through many swaps', () =>
      withFixture(make, async (pets) => {
        const ids: number[] = [];
        for (let i = 0; i < 12; i++) ids.push((await pets.create({ name: `p${i}`, categoryId: 1, status: 'available' })).id);
        for (const id of [ids[7]!, ids[2]!, ids[9]!, ids[0]!]) expect(await pets.swapHold(id, free, held(id))).to.equal(true);
        expect(await pets.swapHold(ids[2]!, held(ids[2]!), free)).to.equal(true);
        expect((await pets.list({ status: 'pending', afterId: 0, limit: 10 })).map((p) => p.id)).to.deep.equal([ids[0], ids[7], ids[9]]);
        expect((await pets.list({ status: 'available', afterId: ids[1]!, limit: 3 })).map((p) => p.id)).to.deep.equal([ids[2], ids[3], ids[4]]);
        expect(await pets.countByStatus()).to.deep.equal({ available: 9, pending: 3, sold: 0 });
      }));
  });
};
// ---- end of the adoption holds ----

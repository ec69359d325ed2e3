import { expect } from 'chai';
import {
  adoptionContract,
  apiKeyStoreContract,
  eventStoreContract,
  categoryRepositoryContract,
  idempotencyStoreContract,
  orderRepositoryContract,
  petRepositoryContract,
  quotaStoreContract,
  webhookStoreContract,
  entryOf,
  photoUrlSecretStoreContract,
} from '@petstore/domain/testing';
import { DAY_MS } from '@petstore/domain';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  EventStoreInMemory,
  IdempotencyStoreInMemory,
  MemoryOutbox,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  PhotoStoreInMemory,
  PhotoUrlSecretStoreInMemory,
  QuotaStoreInMemory,
  WebhookStoreInMemory,
} from '../src/index.js';
import { OrderedIndex } from '../src/ordered-index.js';

petRepositoryContract('in memory', async () => ({ subject: new PetRepositoryInMemory() }));
categoryRepositoryContract('in memory', async () => ({ subject: new CategoryRepositoryInMemory() }));
quotaStoreContract('in memory', async () => ({ subject: new QuotaStoreInMemory() }));
apiKeyStoreContract('in memory', async () => ({ subject: new ApiKeyStoreInMemory() }));
orderRepositoryContract('in memory', async () => ({ subject: new OrderRepositoryInMemory() }));
adoptionContract('in memory', async () => ({
  subject: { pets: new PetRepositoryInMemory(), orders: new OrderRepositoryInMemory() },
}));
idempotencyStoreContract('in memory', async () => ({ subject: new IdempotencyStoreInMemory() }));
// One process: its "other instance" is the same store.
photoUrlSecretStoreContract('in memory', async () => {
  const store = new PhotoUrlSecretStoreInMemory();
  return { subject: { store, sibling: () => store } };
});
eventStoreContract('in memory', async () => {
  const outbox = new MemoryOutbox();
  return {
    subject: {
      pets: new PetRepositoryInMemory(outbox),
      categories: new CategoryRepositoryInMemory(outbox),
      orders: new OrderRepositoryInMemory(outbox),
      photos: new PhotoStoreInMemory(undefined, outbox),
      keys: new ApiKeyStoreInMemory([], outbox),
      events: new EventStoreInMemory(outbox),
    },
  };
});

describe('WebhookStore in memory', () => {
  webhookStoreContract(async () => ({ subject: new WebhookStoreInMemory() }));
});

describe('in-memory adapters beyond the contract', () => {
  it('drops rate-limit state that can no longer matter once a UTC day has passed', async () => {
    const store = new QuotaStoreInMemory();
    const t0 = Date.UTC(2027, 0, 1, 12);
    const quota = { perMinute: 60, perDay: 1000 };
    const ban = { threshold: 10, seconds: 900 };
    for (let i = 0; i < 10_000; i++)
      await store.consume({ subject: `a:10.0.${i >> 8}.${i & 255}`, now: t0 + i, quota, ban });
    expect(store.size).to.equal(10_000);
    await store.consume({ subject: 'a:fresh', now: t0 + DAY_MS, quota, ban });
    expect(store.size).to.equal(1);
  });

  it('keeps a ban that runs past the end of its day', async () => {
    const store = new QuotaStoreInMemory();
    const lateEvening = Date.UTC(2027, 0, 1, 23, 59, 30);
    const quota = { perMinute: 1, perDay: 1000 };
    const ban = { threshold: 1, seconds: 900 };
    await store.consume({ subject: 's', now: lateEvening, quota, ban });
    expect((await store.consume({ subject: 's', now: lateEvening + 1, quota, ban })).outcome).to.equal('banned');
    await store.consume({ subject: 'other', now: lateEvening + 60_000, quota, ban });
    expect((await store.consume({ subject: 's', now: lateEvening + 120_000, quota, ban })).outcome).to.equal('banned');
  });

  it('answers list and find with binary searches: ids stay sorted by construction', async () => {
    const repo = new PetRepositoryInMemory();
    for (let i = 0; i < 1000; i++)
      repo.createSync(entryOf({ name: `p${i}`, categoryId: 1, status: i % 10 === 0 ? 'sold' : 'available' }));
    expect(
      (await repo.list({ statuses: ['sold'], order: { sort: 'id', after: 500 }, limit: 3 })).pets.map((p) => p.id),
    ).to.deep.equal([501, 511, 521]);
    expect((await repo.findById(777))?.name).to.equal('p776');
    expect(Object.isFrozen(await repo.findById(1))).to.equal(true);
  });

  it('keeps the status and (status, category) indexes in id order while pets change status, past chunk splits', async () => {
    const repo = new PetRepositoryInMemory();
    const n = 5_000;
    for (let i = 0; i < n; i++)
      repo.createSync(entryOf({ name: `p${i}`, categoryId: 1 + (i % 2), status: 'available' }));
    // Move every third pet to pending, from the end backwards, so that inserts land in the middle of full chunks.
    for (let id = n; id >= 1; id -= 3)
      expect(
        await repo.swapHold(id, { status: 'available', orderId: null }, { status: 'pending', orderId: id }),
      ).to.equal(true);
    const walk = async ({ status, categoryId }: { status?: 'available' | 'pending'; categoryId?: number }) => {
      const ids: number[] = [];
      const filters = {
        ...(status === undefined ? {} : { statuses: [status] }),
        ...(categoryId === undefined ? {} : { categoryIds: [categoryId] }),
      };
      for (let after = 0; ;) {
        const { pets: rows } = await repo.list({
          ...filters,
          order: after === 0 ? { sort: 'id' } : { sort: 'id', after },
          limit: 97,
        });
        if (rows.length === 0) return ids;
        ids.push(...rows.map((p) => p.id));
        after = rows[rows.length - 1]!.id;
      }
    };
    const all = Array.from({ length: n }, (_, i) => i + 1);
    const pending = all.filter((id) => (n - id) % 3 === 0);
    expect(await walk({ status: 'pending' })).to.deep.equal(pending);
    expect(await walk({ status: 'available' })).to.deep.equal(all.filter((id) => (n - id) % 3 !== 0));
    expect(await walk({ status: 'pending', categoryId: 2 })).to.deep.equal(pending.filter((id) => id % 2 === 0));
    expect((await walk({ categoryId: 1 })).length).to.equal(n / 2);
    expect(await repo.countByStatus()).to.deep.equal({
      available: n - pending.length,
      pending: pending.length,
      sold: 0,
    });
    expect((await repo.findById(pending[0]!))?.status).to.equal('pending');
    expect(Object.isFrozen(await repo.findById(pending[0]!))).to.equal(true);
  });

  it('OrderedIndex agrees with a sorted array model under inserts, removals and appends', () => {
    const index = new OrderedIndex<{ id: number }>();
    const model: number[] = [];
    let seed = 12345;
    const random = (m: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % m);
    for (let step = 0; step < 20_000; step++) {
      const id = 1 + random(6_000);
      const at = model.indexOf(id);
      if (at >= 0) {
        expect(index.remove(id)).to.equal(true);
        model.splice(at, 1);
      } else {
        index.insert({ id });
        model.push(id);
        model.sort((a, b) => a - b);
      }
    }
    expect(index.size).to.equal(model.length);
    expect(index.after(0, 100_000).map((r) => r.id)).to.deep.equal(model);
    // Walks, both ways (sort=id and sort=-id, docs/rules.md §16), from any position, ids there or not.
    const walked = (walk: { next(): { id: number } | undefined }): number[] => {
      const ids: number[] = [];
      for (let row = walk.next(); row !== undefined; row = walk.next()) ids.push(row.id);
      return ids;
    };
    for (const at of [0, 1, model[0]!, model[7]!, model[7]! + 1, model[model.length - 1]!, 6_001]) {
      expect(walked(index.walk(at)), `walk after ${at}`).to.deep.equal(model.filter((id) => id > at));
      expect(walked(index.walkBack(at)), `walk back before ${at}`).to.deep.equal(
        model.filter((id) => id < at).reverse(),
      );
    }
    expect(walked(index.walkBack()), 'walk back from the end').to.deep.equal([...model].reverse());
    expect(index.after(model[10]!, 3).map((r) => r.id)).to.deep.equal(model.slice(11, 14));
    expect(index.get(model[5]!)?.id).to.equal(model[5]);
    expect(index.remove(0)).to.equal(false);
  });
});

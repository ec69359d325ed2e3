import { expect } from 'chai';
import { apiKeyStoreContract, idempotencyStoreContract, petRepositoryContract, quotaStoreContract } from '@petstore/domain/testing';
import { DAY_MS } from '@petstore/domain';
import { ApiKeyStoreInMemory, IdempotencyStoreInMemory, PetRepositoryInMemory, QuotaStoreInMemory } from '../src/index.js';

petRepositoryContract('in memory', async () => ({ subject: new PetRepositoryInMemory() }));
quotaStoreContract('in memory', async () => ({ subject: new QuotaStoreInMemory() }));
apiKeyStoreContract('in memory', async () => ({ subject: new ApiKeyStoreInMemory() }));
idempotencyStoreContract('in memory', async () => ({ subject: new IdempotencyStoreInMemory() }));

describe('in-memory adapters beyond the contract', () => {
  it('drops rate-limit state that can no longer matter once a UTC day has passed', async () => {
    const store = new QuotaStoreInMemory();
    const t0 = Date.UTC(2027, 0, 1, 12);
    const quota = { perMinute: 60, perDay: 1000 };
    const ban = { threshold: 10, seconds: 900 };
    for (let i = 0; i < 10_000; i++) await store.consume({ subject: `a:10.0.${i >> 8}.${i & 255}`, now: t0 + i, quota, ban });
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
    for (let i = 0; i < 1000; i++) repo.createSync({ name: `p${i}`, categoryId: 1, status: i % 10 === 0 ? 'sold' : 'available' });
    expect((await repo.list({ status: 'sold', afterId: 500, limit: 3 })).map((p) => p.id)).to.deep.equal([501, 511, 521]);
    expect((await repo.findById(777))?.name).to.equal('p776');
    expect(Object.isFrozen(await repo.findById(1))).to.equal(true);
  });
});

import { expect } from 'chai';
import type { ApiKeyStore } from '../src/index.js';
import { apiKeyRecord, PLAN_QUOTAS, sha256Hex } from '../src/index.js';
import { withFixture, type MakeFixture } from './fixture.js';

const record = (key: string, plan: 'free' | 'pro') => {
  const r = apiKeyRecord(key, plan);
  if (typeof r === 'string') throw new Error(r);
  return r;
};

/** The `ApiKeyStore` contract: every adapter runs this same suite. */
export const apiKeyStoreContract = (name: string, make: MakeFixture<ApiKeyStore>): void => {
  describe(`ApiKeyStore contract: ${name}`, function () {
    it('finds a saved key by the SHA-256 of the key, and nothing by the raw key', () =>
      withFixture(make, async (store) => {
        await store.save(record('key-one', 'pro'));
        expect(await store.findByHash(sha256Hex('key-one'))).to.deep.equal({
          keyHash: sha256Hex('key-one'),
          role: 'client',
          plan: 'pro',
          quota: PLAN_QUOTAS.pro,
        });
        expect(await store.findByHash('key-one')).to.equal(undefined);
        expect(await store.findByHash(sha256Hex('key-two'))).to.equal(undefined);
      }));

    it('keeps enterprise quotas and replaces a key saved again (idempotent seeding)', () =>
      withFixture(make, async (store) => {
        const enterprise = apiKeyRecord('big', 'enterprise', { perMinute: 5000, perDay: 2_000_000 });
        if (typeof enterprise === 'string') throw new Error(enterprise);
        await store.save(enterprise);
        await store.save(enterprise);
        expect(await store.findByHash(enterprise.keyHash)).to.deep.equal(enterprise);
        await store.save(record('k', 'free'));
        await store.save(record('k', 'pro'));
        expect((await store.findByHash(sha256Hex('k')))?.plan).to.equal('pro');
      }));
  });
};

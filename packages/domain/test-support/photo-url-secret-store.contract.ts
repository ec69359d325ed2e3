import { expect } from 'chai';
import type { PhotoUrlSecretStore } from '../src/index.js';
import { withFixture, type MakeFixture } from './fixture.js';

/**
 * What a contract run gets: a fresh, empty store, and `sibling()`, another instance on the same
 * storage, as another process would hold (for an in-process store, the same one).
 */
export interface PhotoUrlSecretStores {
  readonly store: PhotoUrlSecretStore;
  sibling(): PhotoUrlSecretStore;
}

const secretOf = (n: number): string => `secret-${n}-${'x'.repeat(32)}`;

/**
 * The contract of `PhotoUrlSecretStore` (docs/rules.md §16): one secret per database, made once
 * (of concurrent creates, every caller gets the one winner's), replaced by a rotation, and read by
 * every instance on the storage as it stands (no cache in the store).
 */
export const photoUrlSecretStoreContract = (name: string, make: MakeFixture<PhotoUrlSecretStores>): void => {
  describe(`PhotoUrlSecretStore contract: ${name}`, () => {
    it('holds no secret until one is created, then the one created', async () => {
      await withFixture(make, async ({ store }) => {
        expect(await store.read()).to.equal(undefined);
        expect(await store.create(secretOf(1))).to.equal(secretOf(1));
        expect(await store.read()).to.equal(secretOf(1));
      });
    });

    it('keeps the first secret: a later create answers it and changes nothing', async () => {
      await withFixture(make, async ({ store }) => {
        await store.create(secretOf(1));
        expect(await store.create(secretOf(2))).to.equal(secretOf(1));
        expect(await store.read()).to.equal(secretOf(1));
      });
    });

    it('of concurrent creates on several instances, every one answers the same secret, one of those offered', async () => {
      await withFixture(make, async ({ store, sibling }) => {
        const stores = [store, sibling(), sibling(), store, sibling()];
        const answers = await Promise.all(stores.map((s, i) => s.create(secretOf(i))));
        const offered = stores.map((_, i) => secretOf(i));
        expect(new Set(answers).size, answers.join(' ')).to.equal(1);
        expect(offered).to.include(answers[0]);
        expect(await sibling().read()).to.equal(answers[0]);
      });
    });

    it('rotate replaces the secret, and another instance reads the new one at once', async () => {
      await withFixture(make, async ({ store, sibling }) => {
        const other = sibling();
        await store.create(secretOf(1));
        expect(await other.read()).to.equal(secretOf(1));
        await store.rotate(secretOf(2));
        expect(await store.read()).to.equal(secretOf(2));
        expect(await other.read()).to.equal(secretOf(2));
        expect(await other.create(secretOf(3))).to.equal(secretOf(2));
        await other.rotate(secretOf(4));
        expect(await store.read()).to.equal(secretOf(4));
      });
    });
  });
};

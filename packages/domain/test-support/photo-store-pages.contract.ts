import { expect } from 'chai';
import type { PhotoFile, PhotoStore, StoredPhoto } from '../src/index.js';
import { withFixture, type MakeFixture } from './fixture.js';
import type { PhotoStoreSubject } from './photo-store.contract.js';

/**
 * `PhotoStore.listOfPets` (docs/rules.md §16, `expand=photos`): the published photos of a page's
 * pets in one read, ordered by pet and then photo id, each pet's photos exactly what `list` answers.
 */

const T0 = Date.UTC(2027, 0, 1);

/** Publishes a photo of `petId` with one file of `size` bytes: the store's own calls, as an upload makes them. */
const publish = async (store: PhotoStore, petId: number, size = 50): Promise<StoredPhoto> => {
  const bytes = new Uint8Array(size).fill(petId & 255);
  const upload = await store.reserve(petId, size, T0);
  if (typeof upload === 'string') throw new Error(`expected a place, got ${upload}`);
  const file: PhotoFile = { width: 300, height: 200, bytes: size, sha256: 'a'.repeat(64) };
  await store.putFile(upload, file, bytes);
  const photo: StoredPhoto = {
    id: upload.photoId,
    petId,
    contentType: 'image/png',
    width: 300,
    height: 200,
    bytes: size,
    createdAt: new Date(T0).toISOString(),
    files: [file],
  };
  expect(await store.publish(upload, photo)).to.equal(true);
  return photo;
};

export const photoPagesCases = (make: MakeFixture<PhotoStoreSubject>): void => {
  it('listOfPets (docs/rules.md §16): the published photos of the pets asked for, ordered by pet then photo id, as list answers each; none of other pets, of uploads under way, of removed photos', () =>
    withFixture(make, async ({ store }) => {
      const made: StoredPhoto[] = [];
      for (const petId of [3, 1, 3, 2, 1, 5]) made.push(await publish(store, petId));
      // Under way (reserved, never published) and removed: neither is listed.
      const pending = await store.reserve(1, 10, T0);
      expect(pending).to.be.an('object');
      expect(await store.delete(5, made[5]!.id)).to.equal(true);
      const expected = async (petIds: readonly number[]) => {
        const out: StoredPhoto[] = [];
        for (const petId of [...petIds].sort((a, b) => a - b)) out.push(...(await store.list(petId)));
        return out;
      };
      for (const petIds of [[1, 2, 3], [3, 1], [2], [5, 4], [], [9, 3, 7]]) {
        const got = await store.listOfPets(petIds);
        expect(got, `listOfPets(${JSON.stringify(petIds)})`).to.deep.equal(await expected(petIds));
      }
      expect((await store.listOfPets([3, 1, 2])).map((p) => [p.petId, p.id])).to.deep.equal([
        [1, made[1]!.id],
        [1, made[4]!.id],
        [2, made[3]!.id],
        [3, made[0]!.id],
        [3, made[2]!.id],
      ]);
    }));

  it('listOfPets answers for a whole page: 100 pets, three of them with 12 photos each', () =>
    withFixture(make, async ({ store }) => {
      const petIds = Array.from({ length: 100 }, (_, i) => 1000 + i);
      const full = [1000, 1050, 1099];
      for (const petId of full) for (let i = 0; i < 12; i++) await publish(store, petId, 20);
      await publish(store, 999, 20);
      const got = await store.listOfPets(petIds);
      expect(got).to.have.length(36);
      expect(got.map((p) => p.petId)).to.deep.equal(full.flatMap((petId) => Array<number>(12).fill(petId)));
    }));
};

// PetCatalog.listPets (use-cases/pet-catalog.ts): how it reads the parameters it is given (docs/rules.md
// §2, §16, and §3's messages), what a plain list answers, and what it does when the photo linker
// breaks its contract.
import { expect } from 'chai';
import fc from 'fast-check';
import type { Pet, PetStatus, PhotoLinks, StoredPhoto } from '../src/index.js';
import { PetCatalog } from '../src/index.js';
import { entryOf, ManualClock, SeededRandom, testPhotoLinks } from '../test-support/index.js';
import { PetStoreModel } from './support/flow-stores.js';
import { expectRefusal } from './support/refusals.js';

const NO_CATEGORIES = { findById: async () => undefined };
const STATUSES = ['available', 'pending', 'sold'] as const;
const PARAMETERS = ['status', 'categoryId', 'q', 'sort', 'seed', 'expand'] as const;

/** A model store holding these pets (ids from 1, in this order). */
const storeOf = async (pets: readonly { status: PetStatus; categoryId: number }[]): Promise<PetStoreModel> => {
  const store = new PetStoreModel();
  for (const [i, pet] of pets.entries()) await store.create(entryOf({ name: `pet ${i}`, ...pet }, i));
  return store;
};

/** A photo of `petId` as the photo store keeps it (one file). */
const storedPhoto = (id: number, petId: number): StoredPhoto => ({
  id,
  petId,
  contentType: 'image/webp',
  width: 100,
  height: 100,
  bytes: 10,
  createdAt: '2027-01-01T00:00:00.000Z',
  files: [{ width: 100, height: 100, bytes: 10, sha256: '0'.repeat(64) }],
});

describe('PetCatalog.listPets: reading the parameters, plain lists, linked photos', () => {
  it('property: a parameter given more than once (several texts, as a query string holds it) is refused as given twice; a list holding anything but text as not text (docs/rules.md §3, §16: the message names the parameter and the rule)', async () => {
    const catalog = new PetCatalog(await storeOf([]), NO_CATEGORIES, new ManualClock(), new SeededRandom());
    const notText = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant({}), fc.constant(['a']));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PARAMETERS),
        fc.array(fc.string({ maxLength: 8 }), { minLength: 2, maxLength: 4 }),
        notText,
        fc.nat(),
        async (name, texts, other, at) => {
          const twice = expectRefusal(await catalog.listPets({ [name]: texts }), 'validation_failed', name, 'texts');
          expect(twice, `${name}=${JSON.stringify(texts)}`).to.include('once');
          // One item that is no text, among texts: the value is not text, whatever else it holds.
          const mixed = [...texts.slice(0, at % (texts.length + 1)), other, ...texts.slice(at % (texts.length + 1))];
          const message = expectRefusal(await catalog.listPets({ [name]: mixed }), 'validation_failed', name, 'mixed');
          expect(message, `${name}=${JSON.stringify(mixed)}`)
            .to.include('text')
            .and.not.include('once');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('property: a plain list (a status, a number categoryId, neither) answers the pets it names, each exactly a Pet, with or without a photo store (docs/rules.md §2, §16)', async () => {
    const petArb = fc.record({ status: fc.constantFrom(...STATUSES), categoryId: fc.integer({ min: 1, max: 3 }) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(petArb, { maxLength: 12 }),
        fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
        fc.boolean(),
        async (pets, status, categoryId, withPhotos) => {
          const store = await storeOf(pets);
          const photos = withPhotos
            ? {
                store: { listOfPets: async (ids: readonly number[]) => ids.map((id) => storedPhoto(id, id)) },
                links: testPhotoLinks,
              }
            : undefined;
          const catalog = new PetCatalog(store, NO_CATEGORIES, new ManualClock(), new SeededRandom(), photos);
          const result = await catalog.listPets({
            limit: 100,
            ...(status === undefined ? {} : { status }),
            ...(categoryId === undefined ? {} : { categoryId }),
          });
          if (!result.ok) throw new Error(result.error.message);
          const expected: Pet[] = pets
            .map((pet, i) => ({ id: i + 1, name: `pet ${i}`, categoryId: pet.categoryId, status: pet.status }))
            .filter(
              (pet) =>
                (status === undefined || pet.status === status) && (categoryId ?? pet.categoryId) === pet.categoryId,
            );
          expect(result.value.items.map((pet) => ({ ...pet }))).to.deep.equal(expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a photo linker that answers fewer views than photos is a fault, thrown and named, not a page with a photo missing its URL (PhotoLinks: one view per photo)', async () => {
    const store = await storeOf([{ status: 'available', categoryId: 1 }]);
    const short: PhotoLinks = { links: async (photos) => (await testPhotoLinks.links(photos)).slice(0, 1) };
    const photos = { store: { listOfPets: async () => [storedPhoto(1, 1), storedPhoto(2, 1)] }, links: short };
    const catalog = new PetCatalog(store, NO_CATEGORIES, new ManualClock(), new SeededRandom(), photos);
    let thrown: unknown;
    try {
      await catalog.listPets({ expand: 'photos' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.an('error');
    expect((thrown as Error).message).to.match(/PhotoLinks\b.*\b1\b.*\b2\b/);
    // The same linker answering every view shows both.
    const whole = new PetCatalog(store, NO_CATEGORIES, new ManualClock(), new SeededRandom(), {
      ...photos,
      links: testPhotoLinks,
    });
    const page = await whole.listPets({ expand: 'photos' });
    expect(page.ok && page.value.photos?.get(page.value.items[0]!.id)?.map((photo) => photo.id)).to.deep.equal([1, 2]);
  });
});

// PetCatalog.listPets and the public catalogue (docs/rules.md §2, §16): what the store is asked
// for, what the cursor is bound to, and the photos of a page (expand=photos): one read for the
// whole page, each pet's photos in ascending id. A list without the new parameters asks and answers
// exactly as before.
import { expect } from 'chai';
import fc from 'fast-check';
import type { Pet, PetListQuery, PetStatus, StoredPhoto } from '../src/index.js';
import {
  encodeCursor,
  foldText,
  pageScope,
  PetCatalog,
  shuffleStart,
  type ListPetsInput,
  type PetRepository,
} from '../src/index.js';
import { entryOf, forwardingPets, ManualClock, SeededRandom, testPhotoLinks } from '../test-support/index.js';
import { PetStoreModel } from './support/flow-stores.js';
import { PhotoStoreModel } from './support/photo-store-model.js';
import { expectRefusal } from './support/refusals.js';

const NO_CATEGORIES = { findById: async () => undefined };

/** A catalogue over a model store, recording every list query; photos in a model photo store. */
const setup = async (pets: readonly { name: string; status?: PetStatus; categoryId?: number; key?: number }[]) => {
  const store = new PetStoreModel();
  for (const [i, pet] of pets.entries())
    await store.create(
      entryOf(
        { name: pet.name, categoryId: pet.categoryId ?? 1, status: pet.status ?? 'available' },
        pet.key ?? (i * 0x9e3779b1) >>> 0,
      ),
    );
  const queries: PetListQuery[] = [];
  const recorded: PetRepository = {
    ...forwardingPets(store),
    list: async (query) => {
      queries.push(query);
      return store.list(query);
    },
  };
  const photos = new PhotoStoreModel();
  const linked: (readonly number[])[] = [];
  const links = {
    links: async (shown: readonly StoredPhoto[]) => {
      linked.push(shown.map((photo) => photo.id));
      return testPhotoLinks.links(shown);
    },
  };
  const catalog = new PetCatalog(recorded, NO_CATEGORIES, new ManualClock(), new SeededRandom(), {
    store: photos,
    links,
  });
  return { catalog, queries, photos, linked };
};

/** Publishes a photo of `petId`, `width` wide (one file): the model store's own calls, as an upload makes them. */
const addPhoto = async (photos: PhotoStoreModel, petId: number, width: number): Promise<StoredPhoto> => {
  const bytes = new Uint8Array(10);
  const upload = await photos.reserve(petId, bytes.length, 0);
  if (typeof upload === 'string') throw new Error(upload);
  const file = { width, height: width, bytes: bytes.length, sha256: '0'.repeat(64) };
  await photos.putFile(upload, file, bytes);
  const photo: StoredPhoto = {
    id: upload.photoId,
    petId,
    contentType: 'image/webp',
    width,
    height: width,
    bytes: bytes.length,
    createdAt: '2027-01-01T00:00:00.000Z',
    files: [file],
  };
  expect(await photos.publish(upload, photo)).to.equal(true);
  return photo;
};

const page = async (catalog: PetCatalog, input: ListPetsInput) => {
  const result = await catalog.listPets(input);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
};

describe('PetCatalog.listPets: the public catalogue (docs/rules.md §16)', () => {
  it('a list without the new parameters asks the store as before and keeps the cursor it always had', async () => {
    const { catalog, queries } = await setup([
      { name: 'a' },
      { name: 'b', status: 'sold', categoryId: 2 },
      { name: 'c' },
    ]);
    const first = await page(catalog, { limit: 1 });
    expect(queries.at(-1)).to.deep.equal({ order: { sort: 'id' }, limit: 2 });
    expect(first.nextCursor).to.equal(encodeCursor(1, 'pets'));
    const filtered = await page(catalog, { limit: 1, status: 'available', categoryId: '1' });
    expect(queries.at(-1)).to.deep.equal({
      order: { sort: 'id' },
      limit: 2,
      statuses: ['available'],
      categoryIds: [1],
    });
    expect(filtered.nextCursor).to.equal(encodeCursor(1, pageScope('pets', { status: 'available', categoryId: 1 })));
    await page(catalog, { limit: 1, cursor: first.nextCursor });
    expect(queries.at(-1)).to.deep.equal({ order: { sort: 'id', after: 1 }, limit: 2 });
  });

  it('property: a plain list read without the parser (a status, a number id) answers, pages and refuses as the parser reads the same list', async () => {
    const { catalog, queries } = await setup(
      Array.from({ length: 30 }, (_, i) => ({
        name: `pet ${i}`,
        status: (['available', 'pending', 'sold'] as const)[i % 3]!,
        categoryId: 1 + (i % 4),
      })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.constantFrom('available', 'pending', 'sold', 'adopted', '', 'Sold'), { nil: undefined }),
        fc.option(fc.oneof(fc.integer({ min: -2, max: 6 }), fc.constantFrom(1.5, Number.MAX_SAFE_INTEGER + 1, NaN)), {
          nil: undefined,
        }),
        fc.integer({ min: 1, max: 12 }),
        async (status, categoryId, limit) => {
          const page = async (id: number | string | undefined, cursor?: string) =>
            catalog.listPets({
              limit,
              ...(status === undefined ? {} : { status }),
              ...(id === undefined ? {} : { categoryId: id }),
              ...(cursor === undefined ? {} : { cursor }),
            });
          // A text id goes through the parser; a number, when valid and alone with a status, does not.
          const walk = async (id: number | string | undefined) => {
            const seen: unknown[] = [];
            const asked: unknown[] = [];
            let cursor: string | undefined;
            do {
              queries.length = 0;
              const answer = await page(id, cursor);
              seen.push(answer);
              asked.push(...queries);
              cursor = answer.ok ? answer.value.nextCursor : undefined;
            } while (cursor !== undefined);
            return { seen, asked };
          };
          expect(await walk(categoryId)).to.deep.equal(
            await walk(categoryId === undefined || !Number.isFinite(categoryId) ? categoryId : String(categoryId)),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('asks the store for the lists, the folded words of q and the order with its start, as the parser reads them', async () => {
    const { catalog, queries } = await setup([]);
    await page(catalog, { status: 'sold,available', categoryId: '9,4', q: 'Réx  OLD', sort: 'random', seed: '42' });
    expect(queries.at(-1)).to.deep.equal({
      order: { sort: 'random', start: shuffleStart(42) },
      limit: 21,
      statuses: ['available', 'sold'],
      categoryIds: [4, 9],
      words: ['rex', 'old'],
    });
    await page(catalog, { sort: '-id', limit: 5 });
    expect(queries.at(-1)).to.deep.equal({ order: { sort: '-id' }, limit: 6 });
  });

  it('a keyed order pages by its own key: name by the fold of the last name, random by the last shuffle key; a shuffle page shows Pets only', async () => {
    const pets = [
      { name: 'Zoë', key: 7 },
      { name: 'Ölaf', key: 5 },
      { name: 'anna', key: 9 },
    ];
    const { catalog, queries } = await setup(pets);
    const byName = await page(catalog, { sort: 'name', limit: 1 });
    expect(byName.items.map((pet) => pet.name)).to.deep.equal(['anna']);
    const second = await page(catalog, { sort: 'name', limit: 1, cursor: byName.nextCursor });
    expect(queries.at(-1)?.order).to.deep.equal({ sort: 'name', after: { key: foldText('anna'), id: 3 } });
    expect(second.items.map((pet) => pet.name)).to.deep.equal(['Ölaf']);
    // A start of 0 is where none of these keys is: the order is 5, 7, 9.
    const seed = 0;
    const start = shuffleStart(seed);
    const { catalog: shuffled, queries: asked } = await setup(
      pets.map((pet) => ({ ...pet, key: (start + pet.key) >>> 0 })),
    );
    const first = await page(shuffled, { sort: 'random', seed: String(seed), limit: 1 });
    expect(first.items).to.deep.equal([{ id: 2, name: 'Ölaf', categoryId: 1, status: 'available' }]);
    const next = await page(shuffled, { sort: 'random', seed: String(seed), limit: 2, cursor: first.nextCursor });
    expect(asked.at(-1)?.order).to.deep.equal({ sort: 'random', start, after: { key: (start + 5) >>> 0, id: 2 } });
    expect(next.items.map((pet) => pet.id)).to.deep.equal([1, 3]);
  });

  it('binds the cursor to q, status, categoryId, sort and seed: another value of any is refused; q written otherwise but folding alike is the same listing', async () => {
    const { catalog } = await setup(Array.from({ length: 4 }, () => ({ name: 'Rex' })));
    const listing = { q: 'rex', status: 'available', categoryId: '1', sort: 'random', seed: '3', limit: 1 };
    const { nextCursor: cursor } = await page(catalog, listing);
    expect(cursor).to.be.a('string');
    for (const other of [
      { q: 're' },
      { status: 'available,sold' },
      { categoryId: '1,2' },
      { sort: 'name', seed: undefined },
      { seed: '4' },
    ]) {
      const input = Object.fromEntries(
        Object.entries({ ...listing, ...other, cursor }).filter(([, v]) => v !== undefined),
      );
      expectRefusal(await catalog.listPets(input), 'validation_failed', 'cursor', JSON.stringify(other));
    }
    expect((await catalog.listPets({ ...listing, q: 'RÉX', cursor })).ok, 'q=RÉX folds as q=rex').to.equal(true);
    expect((await catalog.listPets({ ...listing, expand: 'photos', cursor })).ok, 'expand is no part of it').to.equal(
      true,
    );
  });

  it('expand=photos: the page’s photos in one read and one linking, each pet with its own in ascending id, [] when none', async () => {
    const { catalog, photos, linked } = await setup([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }]);
    const a1 = await addPhoto(photos, 1, 800);
    const c1 = await addPhoto(photos, 3, 300);
    const a2 = await addPhoto(photos, 1, 100);
    await addPhoto(photos, 4, 500); // pet 4 is not on the page
    photos.calls.length = 0;
    const { items, photos: byPet } = await page(catalog, { limit: 3, expand: 'photos' });
    expect(photos.calls, 'one read of the photos').to.deep.equal(['listOfPets']);
    expect(linked, 'one call to link them, the page’s photos only').to.deep.equal([[a1.id, a2.id, c1.id]]);
    const view = (photo: StoredPhoto) => {
      const url = `/v1/pets/${photo.petId}/photos/${photo.id}?sig=test`;
      return { id: photo.id, contentType: photo.contentType, width: photo.width, height: photo.height, url };
    };
    expect(items.map((pet) => pet.id)).to.deep.equal([1, 2, 3]);
    // Beside the pets, by pet id: a pet without photos has none there.
    expect(
      [...(byPet ?? [])].map(([petId, views]) => [petId, views.map(({ srcset: _s, ...rest }) => rest)]),
    ).to.deep.equal([
      [1, [view(a1), view(a2)]],
      [3, [view(c1)]],
    ]);
    expect(items[0]).to.include({ name: 'a', categoryId: 1, status: 'available' });
    expect(byPet?.get(1)?.[0]?.srcset).to.equal(
      `${view(a1).url}&width=160 160w, ${view(a1).url}&width=320 320w, ${view(a1).url}&width=640 640w, ${view(a1).url} 800w`,
    );
  });

  it('without expand no photo is read and a pet is exactly a Pet; a page with no pet reads none; a catalogue without photos refuses expand', async () => {
    const { catalog, photos, linked } = await setup([{ name: 'a' }]);
    await addPhoto(photos, 1, 200);
    photos.calls.length = 0;
    const plain = await page(catalog, {});
    expect(plain.items.map((pet: Pet) => ({ ...pet }))).to.deep.equal([
      { id: 1, name: 'a', categoryId: 1, status: 'available' },
    ]);
    expect(await page(catalog, { q: 'zz', expand: 'photos' })).to.deep.equal({ items: [], photos: new Map() });
    expect(photos.calls).to.deep.equal([]);
    expect(linked).to.deep.equal([]);
    const bare = new PetCatalog(new PetStoreModel(), NO_CATEGORIES, new ManualClock(), new SeededRandom());
    expectRefusal(await bare.listPets({ expand: 'photos' }), 'validation_failed', 'expand');
  });

  it('a parameter that is neither text nor a number is refused, naming it', async () => {
    const { catalog } = await setup([]);
    for (const name of ['status', 'categoryId', 'q', 'sort', 'seed', 'expand'])
      for (const value of [true, null, {}, ['a', 1]])
        expectRefusal(
          await catalog.listPets({ [name]: value }),
          'validation_failed',
          name,
          `${name}=${JSON.stringify(value)}`,
        );
  });
});

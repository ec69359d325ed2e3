import { expect } from 'chai';
import fc from 'fast-check';
import type {
  CatalogSort,
  ListPetsInput,
  Pet,
  PetListQuery,
  PetOrder,
  PetRepository,
  PetStatus,
} from '../src/index.js';
import { petEdit, PetCatalog, PET_STATUSES, shuffleStart } from '../src/index.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { forwardingPets } from './forwarding.js';
import { ManualClock } from './manual-clock.js';
import { SeededRandom } from './seeded-random.js';
import { MAX_WALK_PAGES } from './exact-page.js';
import {
  catalogSeedArb,
  comparable,
  listShapeArb,
  modelList,
  modelMatches,
  modelOrder,
  queryOf,
  type ListModelPet,
} from './pet-list.model.js';
import { apply, changeArb, create, createAll, seedArb } from './pet-list.steps.js';

/**
 * The lists of the `PetRepository` contract (docs/rules.md §2, §16): every combination of filters,
 * words, orders and positions against a plain array model that folds and orders with the domain's
 * own functions; each order walked page by page through `PetCatalog` (its cursors included) while
 * other clients create and withdraw pets; `sort=random` the same for a seed, and a permutation.
 */

/** Pets as the use case shows them: the four fields. */
const asPet = (pet: Pet): Pet => ({ id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status });

/** The parameters of a listing of the catalogue (docs/rules.md §16), as a client writes them. */
interface Listing {
  readonly statuses: readonly PetStatus[] | undefined;
  readonly categoryIds: readonly number[] | undefined;
  readonly words: readonly string[] | undefined;
  readonly sort: CatalogSort;
  readonly seed: number;
}
const listingArb: fc.Arbitrary<Listing> = listShapeArb.map(({ statuses, categoryIds, words, sort, seed }) => ({
  statuses,
  categoryIds,
  words,
  sort,
  seed,
}));
const inputOf = (listing: Listing, limit: number, cursor?: string): ListPetsInput => ({
  limit,
  sort: listing.sort,
  ...(listing.sort === 'random' ? { seed: String(listing.seed) } : {}),
  ...(listing.statuses === undefined ? {} : { status: listing.statuses.join(',') }),
  ...(listing.categoryIds === undefined ? {} : { categoryId: listing.categoryIds.join(',') }),
  ...(listing.words === undefined ? {} : { q: listing.words.join(' ') }),
  ...(cursor === undefined ? {} : { cursor }),
});
/** The port's query for the whole of a listing, from the start, as its model answers it. */
const wholeQuery = (listing: Listing): PetListQuery => ({
  order: listing.sort === 'random' ? { sort: 'random', start: shuffleStart(listing.seed) } : { sort: listing.sort },
  limit: Number.MAX_SAFE_INTEGER,
  ...(listing.statuses === undefined ? {} : { statuses: listing.statuses }),
  ...(listing.categoryIds === undefined ? {} : { categoryIds: listing.categoryIds }),
  ...(listing.words === undefined ? {} : { words: listing.words }),
});
/** Listings that differ from `listing` in one parameter each: a cursor of `listing` is refused by every one. */
const otherListings = (listing: Listing): Listing[] => [
  { ...listing, sort: listing.sort === 'name' ? 'id' : 'name' },
  ...(listing.sort === 'random' ? [{ ...listing, seed: listing.seed === 0 ? 1 : 0 }] : []),
  { ...listing, words: listing.words === undefined ? ['zz'] : undefined },
  { ...listing, statuses: listing.statuses?.length === 1 && listing.statuses[0] === 'sold' ? ['pending'] : ['sold'] },
  { ...listing, categoryIds: listing.categoryIds === undefined ? [1] : [...listing.categoryIds, 98] },
];

/** The repository with every `list` answer checked exactly against the model's pets as they are at that moment. */
const checkedLists = (repo: PetRepository, rows: () => readonly ListModelPet[]): PetRepository => ({
  ...forwardingPets(repo),
  list: async (query) => {
    const answer = await repo.list(query);
    expect(comparable(query, answer), `the catalog's list(${JSON.stringify(query)})`).to.deep.equal(
      comparable(query, modelList(rows(), query)),
    );
    return answer;
  },
});

/** PetCatalog needs a category lookup only to create pets; the walks create through the store. */
const NO_CATEGORIES = { findById: async () => undefined };
const catalogOf = (repo: PetRepository): PetCatalog =>
  new PetCatalog(repo, NO_CATEGORIES, new ManualClock(), new SeededRandom('pet-list-contract'));

/** The page's pets, or the refusal's message thrown. */
const pageOf = async (catalog: PetCatalog, input: ListPetsInput, what: string) => {
  const result = await catalog.listPets(input);
  if (!result.ok) throw new Error(`${what} failed: ${result.error.message}`);
  return result.value;
};

/** One position-less order of each sort, `random` from `seed`'s start. */
const everyOrder = (seed: number): readonly PetOrder[] => [
  { sort: 'id' },
  { sort: '-id' },
  { sort: 'name' },
  { sort: 'random', start: shuffleStart(seed) },
];

export const petListCases = (make: MakeFixture<PetRepository>, options: ContractOptions): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };

  it('property (docs/rules.md §16): every combination of statuses, categories, words, order, seed and position answers exactly what the model does, also after renames, changes of category and status, and withdrawals', () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(seedArb, { maxLength: 40, size: 'medium' }),
        fc.array(changeArb, { maxLength: 12 }),
        fc.array(listShapeArb, { minLength: 1, maxLength: 12 }),
        (seeds, changes, shapes) =>
          withFixture(make, async (repo) => {
            const all = await createAll(repo, seeds);
            const listed = new Map(all.map((row) => [row.pet.id, row]));
            for (const { pick, change } of changes) {
              const ids = [...listed.keys()];
              if (ids.length === 0) break;
              const id = ids[pick % ids.length]!;
              const after = await apply(repo, listed.get(id)!, change);
              if (after === undefined) listed.delete(id);
              else listed.set(id, after);
            }
            // Positions are taken from every pet there was (a withdrawn one's too), as it is now or was last.
            const positions = all.map((row) => listed.get(row.pet.id) ?? row);
            for (const shape of shapes) {
              const query = queryOf(shape, positions);
              expect(comparable(query, await repo.list(query)), `list(${JSON.stringify(query)})`).to.deep.equal(
                comparable(query, modelList([...listed.values()], query)),
              );
            }
          }),
      ),
      { ...runs },
    ));

  it('property (docs/rules.md §2, §16): walking the next-page cursors of any listing, with creates between pages, shows each page exactly (the next pets of the order after the last one shown, as the model has them then); every list the catalog asks for is exact; the cursor is refused by every other listing', () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(seedArb, { maxLength: 50, size: 'medium' }),
        listingArb,
        fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 100 })),
        fc.array(fc.array(seedArb, { maxLength: 3 }), { maxLength: 20 }),
        (seeds, listing, limit, between) =>
          withFixture(make, async (repo) => {
            const rows = await createAll(repo, seeds);
            const catalog = catalogOf(checkedLists(repo, () => rows));
            const order = modelOrder(wholeQuery(listing).order);
            let last: ListModelPet | undefined;
            let cursor: string | undefined;
            for (let page = 0; ; page++) {
              expect(page, 'a walk ends').to.be.below(MAX_WALK_PAGES);
              const { items, nextCursor } = await pageOf(catalog, inputOf(listing, limit, cursor), `page ${page}`);
              const owed = modelList(rows, wholeQuery(listing))
                .pets.map((pet) => rows.find((row) => row.pet.id === pet.id)!)
                .filter((row) => last === undefined || order(row, last) > 0);
              expect(items.map(asPet), `page ${page}: the next ${limit} of ${owed.length} owed`).to.deep.equal(
                owed.slice(0, limit).map((row) => row.pet),
              );
              expect(nextCursor !== undefined, `page ${page}: a next cursor exactly when more are owed`).to.equal(
                owed.length > limit,
              );
              if (nextCursor === undefined) break;
              last = owed[limit - 1];
              cursor = nextCursor;
              for (const other of otherListings(listing)) {
                const refused = await catalog.listPets(inputOf(other, limit, cursor));
                expect(refused.ok || refused.error.field, `the cursor under ${JSON.stringify(other)}`).to.equal(
                  'cursor',
                );
              }
              for (const seed of between[page] ?? []) rows.push(await create(repo, seed));
            }
          }),
      ),
      { ...runs },
    ));

  it('property (docs/rules.md §16): walking any listing page by page while other clients create pets at the same time visits no pet twice, each in the order, each a match, and every matching pet that was there before the walk', () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(seedArb, { maxLength: 50, size: 'medium' }),
        listingArb,
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.array(seedArb, { minLength: 1, maxLength: 4 }), { maxLength: 20 }),
        (seeds, listing, limit, during) =>
          withFixture(make, async (repo) => {
            const before = await createAll(repo, seeds);
            const rows = new Map(before.map((row) => [row.pet.id, row]));
            const catalog = catalogOf(repo);
            const query = wholeQuery(listing);
            const order = modelOrder(query.order);
            const visited: ListModelPet[] = [];
            let cursor: string | undefined;
            for (let page = 0; ; page++) {
              expect(page, 'a walk ends').to.be.below(MAX_WALK_PAGES);
              // The page is asked for while the creates run: each may land before or after its read.
              const [result, ...created] = await Promise.all([
                pageOf(catalog, inputOf(listing, limit, cursor), `page ${page}`),
                ...(during[page] ?? []).map((seed) => create(repo, seed)),
              ]);
              for (const row of created) rows.set(row.pet.id, row);
              for (const pet of result.items) {
                const row = rows.get(pet.id);
                expect(row, `page ${page}: pet ${pet.id} is one there is`).not.to.equal(undefined);
                expect(asPet(pet), `page ${page}: pet ${pet.id} as stored`).to.deep.equal(row!.pet);
                expect(modelMatches(row!, query), `page ${page}: pet ${pet.id} matches`).to.equal(true);
                const previous = visited[visited.length - 1];
                if (previous !== undefined)
                  expect(
                    order(row!, previous),
                    `page ${page}: pet ${pet.id} comes after pet ${previous.pet.id}`,
                  ).to.be.above(0);
                visited.push(row!);
              }
              if (result.nextCursor === undefined) break;
              cursor = result.nextCursor;
            }
            const seen = visited.map((row) => row.pet.id);
            expect(new Set(seen).size, 'no pet twice').to.equal(seen.length);
            const owed = modelList(before, query).pets.map((pet) => pet.id);
            expect(
              owed.filter((id) => !seen.includes(id)),
              'every matching pet there before the walk',
            ).to.deep.equal([]);
          }),
      ),
      { ...runs },
    ));

  it('property (docs/rules.md §12, §16): walking any listing while other clients withdraw pets (and create some) shows no pet after its withdrawal, and every pet that remains exactly once, in the order; every list the catalog asks for is exact', () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(seedArb, { minLength: 1, maxLength: 50, size: 'medium' }),
        listingArb,
        fc.integer({ min: 1, max: 8 }),
        fc.array(
          fc.record({
            withdraw: fc.array(fc.nat(), { maxLength: 4 }),
            create: fc.array(seedArb, { maxLength: 2 }),
          }),
          { maxLength: 20 },
        ),
        (seeds, listing, limit, between) =>
          withFixture(make, async (repo) => {
            const rows = await createAll(repo, seeds);
            const withdrawn = new Set<number>();
            const catalog = catalogOf(checkedLists(repo, () => rows.filter((row) => !withdrawn.has(row.pet.id))));
            const query = wholeQuery(listing);
            const visited: number[] = [];
            let cursor: string | undefined;
            for (let page = 0; ; page++) {
              expect(page, 'a walk ends').to.be.below(MAX_WALK_PAGES);
              const { items, nextCursor } = await pageOf(catalog, inputOf(listing, limit, cursor), `page ${page}`);
              for (const pet of items)
                expect(withdrawn.has(pet.id), `page ${page}: pet ${pet.id} was withdrawn`).to.equal(false);
              visited.push(...items.map((pet) => pet.id));
              if (nextCursor === undefined) break;
              cursor = nextCursor;
              const { withdraw = [], create: creates = [] } = between[page] ?? {};
              await Promise.all(
                withdraw.map(async (pick) => {
                  const id = rows[pick % rows.length]!.pet.id;
                  const pet = await repo.findById(id);
                  if (pet !== undefined && (await repo.withdraw(id, pet.revision))) withdrawn.add(id);
                }),
              );
              for (const seed of creates) rows.push(await create(repo, seed));
            }
            // The pets there throughout: every one once, in the order (those created during the walk may be anywhere in it, or not).
            const throughout = new Set(seeds.map((_, i) => rows[i]!.pet.id).filter((id) => !withdrawn.has(id)));
            const remaining = modelList(
              rows.filter((row) => !withdrawn.has(row.pet.id)),
              query,
            ).pets.map((pet) => pet.id);
            expect(
              visited.filter((id) => throughout.has(id)),
              'every matching pet there throughout, once, in order',
            ).to.deep.equal(remaining.filter((id) => throughout.has(id)));
            expect(new Set(visited).size, 'no pet twice').to.equal(visited.length);
          }),
      ),
      { ...runs },
    ));

  it('property (docs/rules.md §16): sort=random gives a seed the same order on every call and with any page size, and that order is a permutation of the matching pets', () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(seedArb, { maxLength: 40, size: 'medium' }),
        catalogSeedArb,
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 100 }),
        fc.option(fc.uniqueArray(fc.constantFrom(...PET_STATUSES), { minLength: 1, maxLength: 2 }), { nil: undefined }),
        (seeds, seed, small, large, statuses) =>
          withFixture(make, async (repo) => {
            const rows = await createAll(repo, seeds);
            const catalog = catalogOf(repo);
            const listing: Listing = { statuses, categoryIds: undefined, words: undefined, sort: 'random', seed };
            const walk = async (limit: number): Promise<number[]> => {
              const ids: number[] = [];
              let cursor: string | undefined;
              for (let page = 0; ; page++) {
                expect(page, 'a walk ends').to.be.below(MAX_WALK_PAGES);
                const { items, nextCursor } = await pageOf(catalog, inputOf(listing, limit, cursor), `page ${page}`);
                ids.push(...items.map((pet) => pet.id));
                if (nextCursor === undefined) return ids;
                cursor = nextCursor;
              }
            };
            const first = await walk(small);
            expect(await walk(small), 'the same seed, again').to.deep.equal(first);
            expect(await walk(large), 'the same seed, other pages').to.deep.equal(first);
            const matching = rows.filter((row) => statuses === undefined || statuses.includes(row.pet.status));
            expect(
              [...first].sort((a, b) => a - b),
              'a permutation of the matches',
            ).to.deep.equal(matching.map((row) => row.pet.id));
          }),
      ),
      { ...runs },
    ));

  it('name search and name order (docs/rules.md §16): words folded and matched by their beginnings; names ordered by their fold in code-point order, then id; a rename moves a pet in both at once, a withdrawal takes it out of every list', () =>
    withFixture(make, async (repo) => {
      const names = ['Rex', 'Old Rex', 'Renée', 'rex', 'Zoë', '𝒜lpha', 'zoe', 'Ω', '\uFF21nna'];
      const pets = await createAll(
        repo,
        names.map((name, i) => ({ draft: { name, categoryId: 1, status: 'available' }, shuffleKey: i })),
      );
      const [rex, oldRex, renee, lowRex, zoe, alpha, plainZoe, omega, anna] = pets.map((row) => row.pet.id) as [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
      ];
      const ids = async (query: Omit<PetListQuery, 'limit'>) =>
        (await repo.list({ ...query, limit: 100 })).pets.map((pet) => pet.id);
      expect(await ids({ order: { sort: 'id' }, words: ['re'] }), 'q=re').to.deep.equal([rex, oldRex, renee, lowRex]);
      expect(await ids({ order: { sort: 'id' }, words: ['rex', 'old'] }), 'q=rex old').to.deep.equal([oldRex]);
      expect(await ids({ order: { sort: 'id' }, words: ['ex'] }), 'q=ex').to.deep.equal([]);
      expect(await ids({ order: { sort: 'id' }, words: ['renee'] }), 'marks fold').to.deep.equal([renee]);
      expect(await ids({ order: { sort: 'id' }, words: ['alpha'] }), 'compatibility forms fold').to.deep.equal([alpha]);
      // alpha (𝒜 folds to a), anna (Ａ folds to a), old rex, renee, rex, rex, zoe, zoe (ids break the ties), ω.
      expect(await ids({ order: { sort: 'name' } }), 'sort=name').to.deep.equal([
        alpha,
        anna,
        oldRex,
        renee,
        rex,
        lowRex,
        zoe,
        plainZoe,
        omega,
      ]);
      expect(await ids({ order: { sort: '-id' } }), 'sort=-id').to.deep.equal(pets.map((row) => row.pet.id).reverse());
      // Zoë becomes Aaron: first by name, found by `aar`, no more by `zo`.
      const stored = (await repo.findById(zoe))!;
      expect(
        await repo.update(zoe, stored.revision, petEdit({ name: 'Aaron' }), '2027-01-01T00:00:00.000Z'),
      ).not.to.equal(undefined);
      expect((await ids({ order: { sort: 'name' } }))[0], 'renamed: first by name').to.equal(zoe);
      expect(await ids({ order: { sort: 'name' }, words: ['aar'] })).to.deep.equal([zoe]);
      expect(await ids({ order: { sort: 'name' }, words: ['zo'] })).to.deep.equal([plainZoe]);
      // After a position: the pets after (name key, id), the renamed one where it is now.
      expect(
        await ids({ order: { sort: 'name', after: { key: 'old rex', id: oldRex } } }),
        'after old rex',
      ).to.deep.equal([renee, rex, lowRex, plainZoe, omega]);
      const gone = (await repo.findById(rex))!;
      expect(await repo.withdraw(rex, gone.revision)).to.equal(true);
      for (const order of [{ sort: 'id' }, { sort: '-id' }, { sort: 'name' }, { sort: 'random', start: 0 }] as const) {
        expect(await ids({ order }), `withdrawn: out of sort=${order.sort}`).not.to.include(rex);
        const found = await ids({ order, words: ['rex'] });
        expect(
          [...found].sort((x, y) => x - y),
          `withdrawn: out of sort=${order.sort} with q=rex`,
        ).to.deep.equal([oldRex, lowRex]);
      }
    }));

  it('name search (docs/rules.md §16): a pet with several words that begin with a word of q is listed once, in every order, with or without other filters', () =>
    withFixture(make, async (repo) => {
      const names = ['Bel Bella', 'Bella Belle Bel', 'Rex Rosie', 'Bob', 'Abel', 'bel-bel bella'];
      const pets = await createAll(
        repo,
        names.map((name, i) => ({
          draft: { name, categoryId: 1 + (i % 2), status: i % 3 === 0 ? 'sold' : 'available' },
          shuffleKey: (i * 0x9e3779b9) >>> 0,
        })),
      );
      const idsOf = (...wanted: string[]): number[] =>
        pets.filter((row) => wanted.includes(row.pet.name)).map((row) => row.pet.id);
      const orders = [
        { sort: 'id' },
        { sort: '-id' },
        { sort: 'name' },
        { sort: 'random', start: 0 },
        { sort: 'random', start: 0x80000000 },
      ] as const;
      for (const order of orders)
        for (const [words, expected] of [
          [['b'], idsOf('Bel Bella', 'Bella Belle Bel', 'Bob', 'bel-bel bella')],
          [['bel'], idsOf('Bel Bella', 'Bella Belle Bel', 'bel-bel bella')],
          [['r'], idsOf('Rex Rosie')],
          [['bel', 'bella'], idsOf('Bel Bella', 'Bella Belle Bel', 'bel-bel bella')],
        ] as const)
          for (const filters of [{}, { statuses: ['available', 'sold'] }, { categoryIds: [1, 2] }] as const) {
            const found = (await repo.list({ order, words, limit: 100, ...filters })).pets.map((pet) => pet.id);
            expect(
              [...found].sort((a, b) => a - b),
              `sort=${order.sort} q=${words.join(' ')} ${JSON.stringify(filters)}: ${JSON.stringify(found)}`,
            ).to.deep.equal(expected);
          }
    }));

  it('name search over a prefix that begins many distinct words (40): every pet that has one is listed, in every order and with each filter, exactly as the model lists them', () =>
    withFixture(make, async (repo) => {
      const rows = await createAll(
        repo,
        Array.from({ length: 40 }, (_, i) => ({
          draft: { name: `W${39 - i} Rex`, categoryId: 1 + (i % 2), status: PET_STATUSES[i % 3]! },
          shuffleKey: (i * 2654435761) % 2 ** 32,
        })),
      );
      for (const order of everyOrder(3))
        for (const filters of [{}, { statuses: ['available', 'sold'] }, { categoryIds: [2] }] as const) {
          const query: PetListQuery = { order, words: ['w'], limit: 100, ...filters };
          expect(comparable(query, await repo.list(query)), JSON.stringify(query)).to.deep.equal(
            comparable(query, modelList(rows, query)),
          );
        }
    }));

  it('name search whose matches are far rarer than the counts suggest (3 of 60 pets with the word, in a category of half the pets): the page is filled all the same, exactly as the model lists it, in every order and page size', () =>
    withFixture(make, async (repo) => {
      // A store that estimates the share of matches from the counts, as if the filters were
      // independent, expects about half the word's pets to be in category 1, and finds 3 of 60.
      const rows = await createAll(repo, [
        ...Array.from({ length: 60 }, (_, i) => ({
          draft: { name: `Rex ${i}`, categoryId: i % 20 === 7 ? 1 : 2, status: PET_STATUSES[i % 3]! },
          shuffleKey: (i * 2654435761) % 2 ** 32,
        })),
        ...Array.from({ length: 60 }, (_, i) => ({
          draft: { name: `Max ${i}`, categoryId: 1, status: 'available' as const },
          shuffleKey: (i * 0x9e3779b9 + 12345) % 2 ** 32,
        })),
      ]);
      for (const order of everyOrder(11))
        for (const limit of [1, 2, 3, 100]) {
          const query: PetListQuery = { order, words: ['rex'], categoryIds: [1], limit };
          expect(comparable(query, await repo.list(query)), JSON.stringify(query)).to.deep.equal(
            comparable(query, modelList(rows, query)),
          );
        }
    }));

  it('statuses and categories (docs/rules.md §16): a list of each matches any of them, in every order, and a pet moves between them as its status and category change', () =>
    withFixture(make, async (repo) => {
      const pets = await createAll(
        repo,
        Array.from({ length: 12 }, (_, i) => ({
          draft: { name: `p${i}`, categoryId: 1 + (i % 4), status: PET_STATUSES[i % 3]! },
          shuffleKey: (i * 2654435761) % 2 ** 32,
        })),
      );
      const expectLists = async (query: Omit<PetListQuery, 'limit' | 'order'>, rows: readonly ListModelPet[]) => {
        for (const order of everyOrder(7))
          expect(
            (await repo.list({ ...query, order, limit: 100 })).pets.map((pet) => pet.id),
            `${JSON.stringify(query)}, sort=${order.sort}`,
          ).to.deep.equal(modelList(rows, { ...query, order, limit: 100 }).pets.map((pet) => pet.id));
      };
      await expectLists({ statuses: ['available', 'sold'] }, pets);
      await expectLists({ categoryIds: [2, 4] }, pets);
      await expectLists({ statuses: ['pending'], categoryIds: [1, 2, 3] }, pets);
      await expectLists({ categoryIds: [99] }, pets);
      // Pet 1 (available, category 1) goes pending, then to category 4.
      const moved = pets[0]!;
      expect(
        await repo.swapHold(moved.pet.id, { status: 'available', orderId: null }, { status: 'pending', orderId: 1 }),
      ).to.equal(true);
      const held = (await repo.findById(moved.pet.id))!;
      expect(
        await repo.update(moved.pet.id, held.revision, petEdit({ categoryId: 4 }), '2027-01-01T00:00:00.000Z'),
      ).not.to.equal(undefined);
      const now = pets.map((row) =>
        row === moved ? { ...row, pet: { ...row.pet, status: 'pending' as const, categoryId: 4 } } : row,
      );
      await expectLists({ statuses: ['available', 'sold'] }, now);
      await expectLists({ statuses: ['pending'] }, now);
      await expectLists({ categoryIds: [1] }, now);
      await expectLists({ statuses: ['pending'], categoryIds: [4] }, now);
    }));
};

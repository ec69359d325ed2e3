import { expect } from 'chai';
import fc from 'fast-check';
import type { Pet, PetDraft, PetHold, PetRepository, PetStatus } from '../src/index.js';
import { PET_STATUSES, PetCatalog } from '../src/index.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { petCreationTokenCases } from './creation-token.contract.js';
import { ManualClock } from './manual-clock.js';
import { petDraftArb } from './arbitraries.js';

interface ModelPet {
  readonly id: number;
  readonly name: string;
  readonly categoryId: number;
  status: PetStatus;
  orderId: number | null;
}
interface Model {
  readonly pets: ModelPet[];
}

const asPet = (p: Pet): Pet => ({ id: p.id, name: p.name, categoryId: p.categoryId, status: p.status });

const expectedList = (pets: readonly Pet[], status: PetStatus | undefined, categoryId: number | undefined, afterId: number, limit: number): Pet[] =>
  pets
    .filter((p) => (status === undefined || p.status === status) && (categoryId === undefined || p.categoryId === categoryId) && p.id > afterId)
    .slice(0, limit)
    .map(asPet);

/** Pets of a few categories, so that the category filters have something to find. */
const fewCategoriesDraftArb: fc.Arbitrary<PetDraft> = fc.oneof(
  petDraftArb,
  fc.record({ name: fc.constantFrom('a', 'B b', ' c '), categoryId: fc.integer({ min: 1, max: 3 }), status: fc.constantFrom(...PET_STATUSES) }),
);
const categoryOrAll = fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined });
const holdArb: fc.Arbitrary<PetHold> = fc.record({
  status: fc.constantFrom(...PET_STATUSES),
  orderId: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
});

class CreateCommand implements fc.AsyncCommand<Model, PetRepository> {
  constructor(readonly draft: PetDraft) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const pet = await repo.create(this.draft);
    const last = model.pets[model.pets.length - 1];
    expect(pet.id).to.be.a('number').and.to.be.greaterThan(last?.id ?? 0);
    expect({ ...pet }).to.deep.equal({ id: pet.id, ...this.draft });
    model.pets.push({ id: pet.id, ...this.draft, orderId: null });
  }
  toString(): string {
    return `create(${JSON.stringify(this.draft)})`;
  }
}

class FindCommand implements fc.AsyncCommand<Model, PetRepository> {
  /** `pick` chooses an existing pet by position; `offset` makes the id miss on purpose. */
  constructor(readonly pick: number, readonly offset: number) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const target = model.pets.length === 0 ? undefined : model.pets[this.pick % model.pets.length];
    const id = (target?.id ?? 1) + this.offset;
    const expected = model.pets.find((p) => p.id === id);
    const found = await repo.findById(id);
    expect(found === undefined ? undefined : { ...found }).to.deep.equal(expected === undefined ? undefined : asPet(expected));
    const hold = await repo.findHold(id);
    expect(hold === undefined ? undefined : { ...hold }).to.deep.equal(expected === undefined ? undefined : { status: expected.status, orderId: expected.orderId });
  }
  toString(): string {
    return `find(pick=${this.pick}, offset=${this.offset})`;
  }
}

class ListCommand implements fc.AsyncCommand<Model, PetRepository> {
  constructor(readonly status: PetStatus | undefined, readonly categoryId: number | undefined, readonly after: number, readonly limit: number) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const afterId = this.after === 0 || model.pets.length === 0 ? 0 : model.pets[this.after % model.pets.length]!.id;
    const query = {
      afterId,
      limit: this.limit,
      ...(this.status === undefined ? {} : { status: this.status }),
      ...(this.categoryId === undefined ? {} : { categoryId: this.categoryId }),
    };
    const rows = await repo.list(query);
    expect(rows.map((p) => ({ ...p }))).to.deep.equal(expectedList(model.pets, this.status, this.categoryId, afterId, this.limit));
  }
  toString(): string {
    return `list(status=${this.status ?? '*'}, categoryId=${this.categoryId ?? '*'}, after#${this.after}, limit=${this.limit})`;
  }
}

class SwapHoldCommand implements fc.AsyncCommand<Model, PetRepository> {
  /** `current`: expect the pet's real hold (the swap must win); otherwise `expected` as generated (it wins only when it matches). */
  constructor(readonly pick: number, readonly offset: number, readonly current: boolean, readonly expected: PetHold, readonly next: PetHold) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const target = model.pets.length === 0 ? undefined : model.pets[this.pick % model.pets.length];
    const id = (target?.id ?? 1) + this.offset;
    const pet = model.pets.find((p) => p.id === id);
    const expected = this.current && pet !== undefined ? { status: pet.status, orderId: pet.orderId } : this.expected;
    const wins = pet !== undefined && pet.status === expected.status && pet.orderId === expected.orderId;
    expect(await repo.swapHold(id, expected, this.next)).to.equal(wins);
    if (wins) {
      pet.status = this.next.status;
      pet.orderId = this.next.orderId;
    }
  }
  toString(): string {
    return `swapHold(pick=${this.pick}, offset=${this.offset}, ${this.current ? 'current' : JSON.stringify(this.expected)} → ${JSON.stringify(this.next)})`;
  }
}

class CountCommand implements fc.AsyncCommand<Model, PetRepository> {
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const expected = Object.fromEntries(PET_STATUSES.map((st) => [st, model.pets.filter((p) => p.status === st).length]));
    expect({ ...(await repo.countByStatus()) }).to.deep.equal(expected);
  }
  toString(): string {
    return 'countByStatus()';
  }
}

const statusOrAll = fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined });

const commandsArb = fc.commands(
  [
    fewCategoriesDraftArb.map((d) => new CreateCommand(d)),
    fc.tuple(fc.nat(), fc.integer({ min: -1, max: 2 })).map(([pick, offset]) => new FindCommand(pick, offset)),
    fc.tuple(statusOrAll, categoryOrAll, fc.nat(), fc.integer({ min: 1, max: 12 })).map(([s, c, a, l]) => new ListCommand(s, c, a, l)),
    fc
      .tuple(fc.nat(), fc.constantFrom(0, 0, 0, 1), fc.boolean(), holdArb, holdArb)
      .map(([pick, offset, current, expected, next]) => new SwapHoldCommand(pick, offset, current, expected, next)),
    fc.constant(new CountCommand()),
  ],
  { maxCommands: 50 },
);

/** PetCatalog needs a category lookup only to create pets; the list walks below do not create through it. */
const NO_CATEGORIES = { findById: async () => undefined };

/**
 * The `PetRepository` contract: every adapter runs this same suite. `make` gives a fresh, empty
 * repository each time it is called.
 */
export const petRepositoryContract = (name: string, make: MakeFixture<PetRepository>, options: ContractOptions = {}): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };

  describe(`PetRepository contract: ${name}`, function () {
    it('assigns positive, increasing ids and stores the fields exactly as given', () =>
      withFixture(make, async (repo) => {
        const drafts: PetDraft[] = [
          { name: 'Rex', categoryId: 1, status: 'available' },
          { name: '  Ünïcødé 🐈 name  ', categoryId: Number.MAX_SAFE_INTEGER, status: 'sold' },
          { name: 'x'.repeat(200), categoryId: 42, status: 'pending' },
        ];
        const created: Pet[] = [];
        for (const draft of drafts) created.push(await repo.create(draft));
        created.forEach((pet, i) => expect({ ...pet }).to.deep.equal({ id: pet.id, ...drafts[i] }));
        expect(created[0]!.id).to.be.greaterThan(0);
        expect(created[1]!.id).to.be.greaterThan(created[0]!.id);
        expect(created[2]!.id).to.be.greaterThan(created[1]!.id);
        for (const pet of created) expect({ ...(await repo.findById(pet.id)) }).to.deep.equal({ ...pet });
      }));

    it('finds nothing for an id it never assigned', () =>
      withFixture(make, async (repo) => {
        expect(await repo.findById(1)).to.equal(undefined);
        const pet = await repo.create({ name: 'a', categoryId: 1, status: 'available' });
        expect(await repo.findById(pet.id + 1)).to.equal(undefined);
        expect(await repo.findById(Number.MAX_SAFE_INTEGER)).to.equal(undefined);
      }));

    it('lists in ascending id order, after a position, filtered by status, at most limit rows', () =>
      withFixture(make, async (repo) => {
        const pets: Pet[] = [];
        for (let i = 0; i < 12; i++) {
          pets.push(await repo.create({ name: `p${i}`, categoryId: 1 + i, status: PET_STATUSES[i % 3]! }));
        }
        const plain = (rows: readonly Pet[]) => rows.map((p) => ({ ...p }));
        expect(plain(await repo.list({ afterId: 0, limit: 100 }))).to.deep.equal(plain(pets));
        expect(plain(await repo.list({ afterId: pets[3]!.id, limit: 4 }))).to.deep.equal(plain(pets.slice(4, 8)));
        expect(plain(await repo.list({ status: 'pending', afterId: 0, limit: 100 }))).to.deep.equal(
          plain(pets.filter((p) => p.status === 'pending')),
        );
        expect(plain(await repo.list({ status: 'sold', afterId: pets[5]!.id, limit: 1 }))).to.deep.equal(plain([pets[8]!]));
        expect(await repo.list({ afterId: pets[11]!.id, limit: 5 })).to.have.length(0);
      }));

    it('gives concurrent creates distinct ids, all of them findable and listed', () =>
      withFixture(make, async (repo) => {
        const created = await Promise.all(
          Array.from({ length: 64 }, (_, i) => repo.create({ name: `c${i}`, categoryId: 7, status: 'available' })),
        );
        const ids = created.map((p) => p.id);
        expect(new Set(ids).size).to.equal(ids.length);
        const listed = await repo.list({ afterId: 0, limit: 100 });
        expect(listed.map((p) => p.id)).to.deep.equal([...ids].sort((a, b) => a - b));
        for (const pet of created) expect((await repo.findById(pet.id))?.name).to.equal(pet.name);
      }));

    it('lists by category, and by status and category, in ascending id order after a position', () =>
      withFixture(make, async (repo) => {
        const pets: Pet[] = [];
        for (let i = 0; i < 18; i++) pets.push(await repo.create({ name: `p${i}`, categoryId: 1 + (i % 3), status: PET_STATUSES[(i >> 1) % 3]! }));
        const plain = (rows: readonly Pet[]) => rows.map(asPet);
        expect(plain(await repo.list({ categoryId: 2, afterId: 0, limit: 100 }))).to.deep.equal(plain(pets.filter((p) => p.categoryId === 2)));
        expect(plain(await repo.list({ categoryId: 2, afterId: pets[4]!.id, limit: 2 }))).to.deep.equal(plain([pets[7]!, pets[10]!]));
        expect(plain(await repo.list({ status: 'pending', categoryId: 3, afterId: 0, limit: 100 }))).to.deep.equal(
          plain(pets.filter((p) => p.status === 'pending' && p.categoryId === 3)),
        );
        expect(await repo.list({ categoryId: 99, afterId: 0, limit: 100 })).to.have.length(0);
      }));

    it('swapHold is conditional: it changes status and orderId only from the expected hold, and lists, counts and findById see it at once', () =>
      withFixture(make, async (repo) => {
        const a = await repo.create({ name: 'a', categoryId: 5, status: 'available' });
        const b = await repo.create({ name: 'b', categoryId: 5, status: 'available' });
        expect({ ...(await repo.findHold(a.id)) }).to.deep.equal({ status: 'available', orderId: null });
        expect(await repo.findHold(b.id + 1)).to.equal(undefined);
        expect(await repo.swapHold(b.id + 1, { status: 'available', orderId: null }, { status: 'pending', orderId: 1 })).to.equal(false);
        expect(await repo.swapHold(a.id, { status: 'available', orderId: 7 }, { status: 'pending', orderId: 1 })).to.equal(false);
        expect(await repo.swapHold(a.id, { status: 'pending', orderId: null }, { status: 'sold', orderId: null })).to.equal(false);
        expect(await repo.swapHold(a.id, { status: 'available', orderId: null }, { status: 'pending', orderId: 1 })).to.equal(true);
        expect({ ...(await repo.findHold(a.id)) }).to.deep.equal({ status: 'pending', orderId: 1 });
        expect({ ...(await repo.findById(a.id)) }).to.deep.equal({ id: a.id, name: 'a', categoryId: 5, status: 'pending' });
        expect((await repo.list({ status: 'pending', afterId: 0, limit: 10 })).map((p) => p.id)).to.deep.equal([a.id]);
        expect((await repo.list({ status: 'available', categoryId: 5, afterId: 0, limit: 10 })).map((p) => p.id)).to.deep.equal([b.id]);
        expect((await repo.list({ status: 'pending', categoryId: 5, afterId: 0, limit: 10 })).map((p) => p.status)).to.deep.equal(['pending']);
        expect((await repo.list({ categoryId: 5, afterId: 0, limit: 10 })).map((p) => p.status)).to.deep.equal(['pending', 'available']);
        expect({ ...(await repo.countByStatus()) }).to.deep.equal({ available: 1, pending: 1, sold: 0 });
        expect(await repo.swapHold(a.id, { status: 'pending', orderId: 1 }, { status: 'sold', orderId: null })).to.equal(true);
        expect({ ...(await repo.countByStatus()) }).to.deep.equal({ available: 1, pending: 0, sold: 1 });
        expect(await repo.swapHold(a.id, { status: 'pending', orderId: 1 }, { status: 'available', orderId: null })).to.equal(false);
      }));

    it('of N concurrent swapHold calls from the same hold, exactly one wins', () =>
      withFixture(make, async (repo) => {
        const pet = await repo.create({ name: 'contested', categoryId: 1, status: 'available' });
        const from: PetHold = { status: 'available', orderId: null };
        const results = await Promise.all(Array.from({ length: 16 }, (_, i) => repo.swapHold(pet.id, from, { status: 'pending', orderId: i + 1 })));
        expect(results.filter((r) => r)).to.have.length(1);
        const winner = results.indexOf(true) + 1;
        expect({ ...(await repo.findHold(pet.id)) }).to.deep.equal({ status: 'pending', orderId: winner });
        expect({ ...(await repo.countByStatus()) }).to.deep.equal({ available: 0, pending: 1, sold: 0 });
      }));

    it('property: agrees with a plain array model over any sequence of creates, finds, lists, swaps and counts', () =>
      fc.assert(
        fc.asyncProperty(commandsArb, (commands) =>
          withFixture(make, (repo) => fc.asyncModelRun(() => ({ model: { pets: [] }, real: repo }), commands)),
        ),
        { ...runs },
      ));

    it('property: walking the next-page cursors (no filter, status, category, both) visits every matching pet once, in order, even with creates between pages; the cursor is refused under other filters', () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(fewCategoriesDraftArb, { maxLength: 60 }),
          fc.integer({ min: 1, max: 100 }),
          statusOrAll,
          categoryOrAll,
          fc.array(fc.array(fewCategoriesDraftArb, { maxLength: 4 }), { maxLength: 30 }),
          (seed, limit, status, categoryId, between) =>
            withFixture(make, async (repo) => {
              for (const draft of seed) await repo.create(draft);
              const catalog = new PetCatalog(repo, NO_CATEGORIES, new ManualClock());
              const filters = { status, categoryId: categoryId === undefined ? undefined : String(categoryId) };
              const visited: Pet[] = [];
              let cursor: string | undefined;
              for (let page = 0; ; page++) {
                const result = await catalog.listPets(cursor === undefined ? { limit, ...filters } : { limit, ...filters, cursor });
                if (!result.ok) throw new Error(`page ${page} failed: ${result.error.message}`);
                const { items, nextCursor } = result.value;
                expect(items.length).to.be.at.most(limit);
                if (nextCursor !== undefined) expect(items.length).to.equal(limit);
                visited.push(...items);
                if (nextCursor === undefined) break;
                cursor = nextCursor;
                // The cursor is bound to these filters: with any other filter it is refused.
                const moved = await catalog.listPets({ limit, cursor, status: status === 'sold' ? 'pending' : 'sold', categoryId: filters.categoryId });
                const recategorised = await catalog.listPets({ limit, cursor, status, categoryId: String((categoryId ?? 0) + 1) });
                expect(moved.ok || moved.error.field).to.equal('cursor');
                expect(recategorised.ok || recategorised.error.field).to.equal('cursor');
                for (const draft of between[page] ?? []) await repo.create(draft);
              }
              const all = await repo.list({ afterId: 0, limit: 10_000 });
              const matching = all.filter((p) => (status === undefined || p.status === status) && (categoryId === undefined || p.categoryId === categoryId));
              expect(visited.map((p) => p.id)).to.deep.equal(matching.map((p) => p.id));
            }),
        ),
        { ...runs },
      ));

    petCreationTokenCases(make, options);
  });
};

import { expect } from 'chai';
import fc from 'fast-check';
import type { Pet, PetDraft, PetRepository, PetStatus } from '../src/index.js';
import { PET_STATUSES, PetCatalog } from '../src/index.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { ManualClock } from './manual-clock.js';
import { petDraftArb } from './arbitraries.js';

interface Model {
  readonly pets: Pet[];
}

const expectedList = (pets: readonly Pet[], status: PetStatus | undefined, afterId: number, limit: number): Pet[] =>
  pets.filter((p) => (status === undefined || p.status === status) && p.id > afterId).slice(0, limit);

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
    model.pets.push({ id: pet.id, ...this.draft });
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
    expect(found === undefined ? undefined : { ...found }).to.deep.equal(expected);
  }
  toString(): string {
    return `find(pick=${this.pick}, offset=${this.offset})`;
  }
}

class ListCommand implements fc.AsyncCommand<Model, PetRepository> {
  constructor(readonly status: PetStatus | undefined, readonly after: number, readonly limit: number) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const afterId = this.after === 0 || model.pets.length === 0 ? 0 : model.pets[this.after % model.pets.length]!.id;
    const query = this.status === undefined ? { afterId, limit: this.limit } : { status: this.status, afterId, limit: this.limit };
    const rows = await repo.list(query);
    expect(rows.map((p) => ({ ...p }))).to.deep.equal(expectedList(model.pets, this.status, afterId, this.limit));
  }
  toString(): string {
    return `list(status=${this.status ?? '*'}, after#${this.after}, limit=${this.limit})`;
  }
}

const statusOrAll = fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined });

const commandsArb = fc.commands(
  [
    petDraftArb.map((d) => new CreateCommand(d)),
    fc.tuple(fc.nat(), fc.integer({ min: -1, max: 2 })).map(([pick, offset]) => new FindCommand(pick, offset)),
    fc.tuple(statusOrAll, fc.nat(), fc.integer({ min: 1, max: 12 })).map(([s, a, l]) => new ListCommand(s, a, l)),
  ],
  { maxCommands: 40 },
);

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

    it('property: agrees with a plain array model over any sequence of creates, finds and lists', () =>
      fc.assert(
        fc.asyncProperty(commandsArb, (commands) =>
          withFixture(make, (repo) => fc.asyncModelRun(() => ({ model: { pets: [] }, real: repo }), commands)),
        ),
        { ...runs },
      ));

    it('property: walking the next-page cursors visits every matching pet once, in order, even with creates between pages', () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(petDraftArb, { maxLength: 60 }),
          fc.integer({ min: 1, max: 100 }),
          statusOrAll,
          fc.array(fc.array(petDraftArb, { maxLength: 4 }), { maxLength: 30 }),
          (seed, limit, status, between) =>
            withFixture(make, async (repo) => {
              for (const draft of seed) await repo.create(draft);
              const catalog = new PetCatalog(repo, new ManualClock());
              const visited: Pet[] = [];
              let cursor: string | undefined;
              for (let page = 0; ; page++) {
                const result = await catalog.listPets(cursor === undefined ? { limit, status } : { limit, status, cursor });
                if (!result.ok) throw new Error(`page ${page} failed: ${result.error.message}`);
                const { items, nextCursor } = result.value;
                expect(items.length).to.be.at.most(limit);
                if (nextCursor !== undefined) expect(items.length).to.equal(limit);
                visited.push(...items);
                if (nextCursor === undefined) break;
                cursor = nextCursor;
                for (const draft of between[page] ?? []) await repo.create(draft);
              }
              const all = await repo.list({ afterId: 0, limit: 10_000 });
              const matching = all.filter((p) => status === undefined || p.status === status);
              expect(visited.map((p) => p.id)).to.deep.equal(matching.map((p) => p.id));
            }),
        ),
        { ...runs },
      ));
  });
};

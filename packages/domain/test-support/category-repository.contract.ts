import { expect } from 'chai';
import fc from 'fast-check';
import type { Category, CategoryRepository } from '../src/index.js';
import { CategoryCatalog } from '../src/index.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { categoryCreationTokenCases } from './creation-token.contract.js';
import { categoryNameArb } from './arbitraries.js';

/** The model: a plain Map from id to category, in creation order. The same-name rule is spelt out here, not imported. */
type Model = Map<number, Category>;
const sameName = (a: string, b: string): boolean => a.normalize('NFC').toLowerCase() === b.normalize('NFC').toLowerCase();
const plain = (c: Category | undefined) => (c === undefined ? undefined : { id: c.id, name: c.name });
const lastId = (model: Model): number => Math.max(0, ...model.keys());

class CreateCommand implements fc.AsyncCommand<Model, CategoryRepository> {
  constructor(readonly name: string) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: CategoryRepository): Promise<void> {
    const taken = [...model.values()].find((c) => sameName(c.name, this.name));
    const result = await repo.create({ name: this.name });
    if (taken !== undefined) {
      expect(result, `"${this.name}" is the same name as "${taken.name}"`).to.deep.equal({ ok: false, error: { existingId: taken.id } });
      return;
    }
    expect(result.ok, `"${this.name}" is a new name`).to.equal(true);
    if (!result.ok) return;
    expect(result.value.id).to.be.a('number').and.greaterThan(lastId(model));
    expect(plain(result.value)).to.deep.equal({ id: result.value.id, name: this.name });
    model.set(result.value.id, { id: result.value.id, name: this.name });
  }
  toString(): string {
    return `create(${JSON.stringify(this.name)})`;
  }
}

class FindByIdCommand implements fc.AsyncCommand<Model, CategoryRepository> {
  constructor(readonly pick: number, readonly offset: number) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: CategoryRepository): Promise<void> {
    const ids = [...model.keys()];
    const id = (ids.length === 0 ? 1 : ids[this.pick % ids.length]!) + this.offset;
    expect(plain(await repo.findById(id))).to.deep.equal(plain(model.get(id)));
  }
  toString(): string {
    return `findById(pick=${this.pick}, offset=${this.offset})`;
  }
}

class FindByNameCommand implements fc.AsyncCommand<Model, CategoryRepository> {
  constructor(readonly name: string) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: CategoryRepository): Promise<void> {
    const expected = [...model.values()].find((c) => sameName(c.name, this.name));
    expect(plain(await repo.findByName(this.name))).to.deep.equal(plain(expected));
  }
  toString(): string {
    return `findByName(${JSON.stringify(this.name)})`;
  }
}

class ListCommand implements fc.AsyncCommand<Model, CategoryRepository> {
  constructor(readonly after: number, readonly limit: number) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: CategoryRepository): Promise<void> {
    const ids = [...model.keys()];
    const afterId = this.after === 0 || ids.length === 0 ? 0 : ids[this.after % ids.length]!;
    const expected = [...model.values()].filter((c) => c.id > afterId).slice(0, this.limit);
    expect((await repo.list({ afterId, limit: this.limit })).map(plain)).to.deep.equal(expected.map(plain));
  }
  toString(): string {
    return `list(after#${this.after}, limit=${this.limit})`;
  }
}

const commandsArb = fc.commands(
  [
    categoryNameArb.map((name) => new CreateCommand(name)),
    fc.tuple(fc.nat(), fc.integer({ min: -1, max: 2 })).map(([pick, offset]) => new FindByIdCommand(pick, offset)),
    categoryNameArb.map((name) => new FindByNameCommand(name)),
    fc.tuple(fc.nat(), fc.integer({ min: 1, max: 8 })).map(([after, limit]) => new ListCommand(after, limit)),
  ],
  { maxCommands: 40 },
);

/**
 * The `CategoryRepository` contract: every adapter runs this same suite. `make` gives a fresh,
 * empty repository each time it is called.
 */
export const categoryRepositoryContract = (name: string, make: MakeFixture<CategoryRepository>, options: ContractOptions = {}): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };

  describe(`CategoryRepository contract: ${name}`, function () {
    it('assigns positive, increasing ids, stores names exactly as sent, finds them by id and by name', () =>
      withFixture(make, async (repo) => {
        const names = ['Cats', '  Ünïcødé 🐈  ', 'x'.repeat(100), 'Cafe\u0301'];
        const created: Category[] = [];
        for (const n of names) {
          const result = await repo.create({ name: n });
          if (!result.ok) throw new Error(`"${n}" refused as taken by ${result.error.existingId}`);
          created.push(result.value);
        }
        created.forEach((c, i) => expect(plain(c)).to.deep.equal({ id: c.id, name: names[i] }));
        expect(created[0]!.id).to.be.greaterThan(0);
        for (let i = 1; i < created.length; i++) expect(created[i]!.id).to.be.greaterThan(created[i - 1]!.id);
        for (const c of created) expect(plain(await repo.findById(c.id))).to.deep.equal(plain(c));
        expect(plain(await repo.findByName('CATS'))).to.deep.equal(plain(created[0]));
        expect(plain(await repo.findByName('CAFÉ'))).to.deep.equal(plain(created[3]), 'NFC of an NFD name');
        expect(await repo.findByName('Cat')).to.equal(undefined);
        expect(await repo.findById(created[3]!.id + 1)).to.equal(undefined);
        expect(await repo.findById(Number.MAX_SAFE_INTEGER)).to.equal(undefined);
        expect((await repo.list({ afterId: created[1]!.id, limit: 1 })).map(plain)).to.deep.equal([plain(created[2])]);
      }));

    it('refuses the same name in another case or normalization form with the id of the category that has it', () =>
      withFixture(make, async (repo) => {
        const first = await repo.create({ name: 'Café' });
        if (!first.ok) throw new Error('first create refused');
        for (const again of ['café', 'CAFÉ', 'Cafe\u0301', 'CAFE\u0301']) {
          expect(await repo.create({ name: again }), again).to.deep.equal({ ok: false, error: { existingId: first.value.id } });
        }
        expect(await repo.list({ afterId: 0, limit: 10 })).to.have.length(1);
        const other = await repo.create({ name: 'Cafe' });
        expect(other.ok, '"Cafe" without the accent is another name').to.equal(true);
      }));

    it('stores exactly one of N simultaneous creates of one name; the others get its id', () =>
      withFixture(make, async (repo) => {
        const spellings = ['Birds', 'BIRDS', 'birds', 'bIrDs'];
        const results = await Promise.all(Array.from({ length: 24 }, (_, i) => repo.create({ name: spellings[i % spellings.length]! })));
        const winners = results.filter((r) => r.ok);
        expect(winners, 'exactly one create stored').to.have.length(1);
        const winner = winners[0]!;
        if (!winner.ok) return;
        for (const r of results) if (!r.ok) expect(r.error.existingId).to.equal(winner.value.id);
        expect((await repo.list({ afterId: 0, limit: 100 })).map(plain)).to.deep.equal([plain(winner.value)]);
      }));

    it('gives concurrent creates of different names distinct increasing ids, all listed', () =>
      withFixture(make, async (repo) => {
        const results = await Promise.all(Array.from({ length: 30 }, (_, i) => repo.create({ name: `kind ${i}` })));
        const ids = results.map((r) => (r.ok ? r.value.id : -1));
        expect(ids.every((id) => id > 0)).to.equal(true);
        expect(new Set(ids).size).to.equal(ids.length);
        expect((await repo.list({ afterId: 0, limit: 100 })).map((c) => c.id)).to.deep.equal([...ids].sort((a, b) => a - b));
      }));

    it('property: agrees with a plain Map model over any sequence of creates, finds and lists', () =>
      fc.assert(
        fc.asyncProperty(commandsArb, (commands) =>
          withFixture(make, (repo) => fc.asyncModelRun(() => ({ model: new Map(), real: repo }), commands)),
        ),
        { ...runs },
      ));

    it('property: walking the next-page cursors of listCategories visits every category once, in order, with creates between pages', () =>
      fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 30 }),
          fc.integer({ min: 1, max: 10 }),
          fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 12 }),
          (seed, limit, between) =>
            withFixture(make, async (repo) => {
              let n = 0;
              const add = async () => void (await repo.create({ name: `c${n++}` }));
              for (let i = 0; i < seed; i++) await add();
              const catalog = new CategoryCatalog(repo);
              const visited: number[] = [];
              let cursor: string | undefined;
              for (let page = 0; ; page++) {
                const result = await catalog.listCategories(cursor === undefined ? { limit } : { limit, cursor });
                if (!result.ok) throw new Error(`page ${page} failed: ${result.error.message}`);
                const { items, nextCursor } = result.value;
                if (nextCursor !== undefined) expect(items.length).to.equal(limit);
                visited.push(...items.map((c) => c.id));
                if (nextCursor === undefined) break;
                cursor = nextCursor;
                for (let k = 0; k < (between[page] ?? 0); k++) await add();
              }
              expect(visited).to.deep.equal((await repo.list({ afterId: 0, limit: 1_000 })).map((c) => c.id));
            }),
        ),
        { ...runs },
      ));

    categoryCreationTokenCases(make, options);
  });
};

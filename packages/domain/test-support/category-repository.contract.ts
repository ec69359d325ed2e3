import { expect } from 'chai';
import fc from 'fast-check';
import type { Category, CategoryRepository } from '../src/index.js';
import { CategoryCatalog } from '../src/index.js';
import { forwardingCategories } from './forwarding.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { categoryCreationTokenCases } from './creation-token.contract.js';
import { categoryNameArb } from './arbitraries.js';
import {
  afterArb,
  afterFrom,
  expectExactPage,
  expectListAnswer,
  MAX_WALK_PAGES,
  type AfterPick,
} from './exact-page.js';

/** The model: a plain Map from id to category, in creation order. The same-name rule is spelt out here, not imported. */
type Model = Map<number, Category>;
const sameName = (a: string, b: string): boolean =>
  a.normalize('NFC').toLowerCase() === b.normalize('NFC').toLowerCase();
const plain = (c: Category | undefined) => (c === undefined ? undefined : { id: c.id, name: c.name });
const lastId = (model: Model): number => Math.max(0, ...model.keys());
const byId = (c: Category): number => c.id;

/** The repository with every `list` answer checked exactly against `model()`, the categories it holds. */
const checkedLists = (repo: CategoryRepository, model: () => readonly Category[]): CategoryRepository => ({
  ...forwardingCategories(repo),
  list: async (query) => {
    const rows = await repo.list(query);
    expectListAnswer(
      'CategoryRepository.list',
      rows.map(plain) as Category[],
      model().map(plain) as Category[],
      query,
      byId,
    );
    return rows;
  },
});

class CreateCommand implements fc.AsyncCommand<Model, CategoryRepository> {
  constructor(readonly name: string) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: CategoryRepository): Promise<void> {
    const taken = [...model.values()].find((c) => sameName(c.name, this.name));
    const result = await repo.create({ name: this.name });
    if (taken !== undefined) {
      expect(result, `"${this.name}" is the same name as "${taken.name}"`).to.deep.equal({
        ok: false,
        error: { existingId: taken.id },
      });
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
  constructor(
    readonly pick: number,
    readonly offset: number,
  ) {}
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
  constructor(
    readonly after: AfterPick,
    readonly limit: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: CategoryRepository): Promise<void> {
    const query = { afterId: afterFrom(this.after, [...model.keys()]), limit: this.limit };
    expectListAnswer(
      'list',
      (await repo.list(query)).map(plain) as Category[],
      [...model.values()].map(plain) as Category[],
      query,
      byId,
    );
  }
  toString(): string {
    return `list(after ${JSON.stringify(this.after)}, limit=${this.limit})`;
  }
}

const commandsArb = fc.commands(
  [
    // Creates twice as often as the rest: lists need more rows than their limit to show a page's bound.
    categoryNameArb.map((name) => new CreateCommand(name)),
    categoryNameArb.map((name) => new CreateCommand(name)),
    fc.tuple(fc.nat(), fc.integer({ min: -1, max: 2 })).map(([pick, offset]) => new FindByIdCommand(pick, offset)),
    categoryNameArb.map((name) => new FindByNameCommand(name)),
    fc.tuple(afterArb, fc.integer({ min: 1, max: 8 })).map(([after, limit]) => new ListCommand(after, limit)),
  ],
  // 'medium': sequences up to maxCommands long (the default size stops at about 10 commands).
  { maxCommands: 40, size: 'medium' },
);

/**
 * The `CategoryRepository` contract: every adapter runs this same suite. `make` gives a fresh,
 * empty repository each time it is called.
 */
export const categoryRepositoryContract = (
  name: string,
  make: MakeFixture<CategoryRepository>,
  options: ContractOptions = {},
): void => {
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
          expect(await repo.create({ name: again }), again).to.deep.equal({
            ok: false,
            error: { existingId: first.value.id },
          });
        }
        expect(await repo.list({ afterId: 0, limit: 10 })).to.have.length(1);
        const other = await repo.create({ name: 'Cafe' });
        expect(other.ok, '"Cafe" without the accent is another name').to.equal(true);
      }));

    it('stores exactly one of N simultaneous creates of one name; the others get its id', () =>
      withFixture(make, async (repo) => {
        const spellings = ['Birds', 'BIRDS', 'birds', 'bIrDs'];
        const results = await Promise.all(
          Array.from({ length: 24 }, (_, i) => repo.create({ name: spellings[i % spellings.length]! })),
        );
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
        expect((await repo.list({ afterId: 0, limit: 100 })).map((c) => c.id)).to.deep.equal(
          [...ids].sort((a, b) => a - b),
        );
      }));

    it('property: agrees with a plain Map model over any sequence of creates, finds and lists', () =>
      fc.assert(
        fc.asyncProperty(commandsArb, (commands) =>
          withFixture(make, (repo) => fc.asyncModelRun(() => ({ model: new Map(), real: repo }), commands)),
        ),
        { ...runs },
      ));

    it('property: every list answers exactly the first min(limit, remaining) categories after afterId, in ascending id order', () =>
      fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 30 }),
          fc.array(fc.tuple(afterArb, fc.integer({ min: 1, max: 12 })), { minLength: 1, maxLength: 10 }),
          (count, queries) =>
            withFixture(make, async (repo) => {
              const categories: Category[] = [];
              for (let i = 0; i < count; i++) {
                const made = await repo.create({ name: `c${i}` });
                if (!made.ok) throw new Error(`c${i} refused`);
                categories.push(plain(made.value)!);
              }
              for (const [after, limit] of queries) {
                const query = { afterId: afterFrom(after, categories.map(byId)), limit };
                expectListAnswer(
                  `list(${JSON.stringify(query)})`,
                  (await repo.list(query)).map(plain) as Category[],
                  categories,
                  query,
                  byId,
                );
              }
            }),
        ),
        { ...runs },
      ));

    it('property: walking the next-page cursors of listCategories visits every category once, in order, with creates between pages; each page and each list the catalog asks for is exact', () =>
      fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 30 }),
          fc.integer({ min: 1, max: 10 }),
          fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 12, size: 'medium' }),
          (seed, limit, between) =>
            withFixture(make, async (repo) => {
              const categories: Category[] = [];
              const add = async () => {
                const made = await repo.create({ name: `c${categories.length}` });
                if (!made.ok) throw new Error('a new name refused');
                categories.push(plain(made.value)!);
              };
              for (let i = 0; i < seed; i++) await add();
              const catalog = new CategoryCatalog(checkedLists(repo, () => categories));
              let lastSeen = 0;
              let cursor: string | undefined;
              for (let page = 0; ; page++) {
                expect(page, 'a walk ends').to.be.below(MAX_WALK_PAGES);
                const result = await catalog.listCategories(cursor === undefined ? { limit } : { limit, cursor });
                if (!result.ok) throw new Error(`page ${page} failed: ${result.error.message}`);
                const owed = categories.filter((c) => c.id > lastSeen);
                expectExactPage(
                  `page ${page}`,
                  {
                    items: result.value.items.map(plain) as Category[],
                    ...(result.value.nextCursor === undefined ? {} : { nextCursor: result.value.nextCursor }),
                  },
                  owed,
                  limit,
                  byId,
                );
                const { items, nextCursor } = result.value;
                lastSeen = items[items.length - 1]?.id ?? lastSeen;
                if (nextCursor === undefined) break;
                cursor = nextCursor;
                for (let k = 0; k < (between[page] ?? 0); k++) await add();
              }
            }),
        ),
        { ...runs },
      ));

    categoryCreationTokenCases(make, options);
  });
};

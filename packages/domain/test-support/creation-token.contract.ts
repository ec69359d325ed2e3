import { expect } from 'chai';
import fc from 'fast-check';
import type { Category, CategoryRepository, OrderRecord, OrderRepository, Pet, PetRepository, Result } from '../src/index.js';
import { ORDER_STATES, timestamp } from '../src/index.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';

/*
 * Creation tokens (docs/rules.md §10: a create never happens twice under one Idempotency-Key), as
 * every repository keeps them: `create(…, token)` writes the token with what it creates, and stores
 * at most one resource per token (a later create with the token stores nothing and answers that
 * one); `findByCreationToken` finds it. Run by the pet, category and order repository contracts.
 */

const T0 = Date.UTC(2027, 0, 1);

/** How the generic cases below create and find one kind of resource, as plain values. */
interface TokenKind<R, T> {
  readonly what: string;
  /** Creates the `i`-th resource of a test (distinct for each `i`), with `token` when given; what the repository answered. */
  create(repo: R, i: number, token?: string): Promise<T>;
  find(repo: R, token: string): Promise<T | undefined>;
  /** Every resource stored, in id order. */
  all(repo: R): Promise<readonly T[]>;
  /** The fields a client may see: a token never shows in them. */
  readonly fields: readonly string[];
  /** Ids without holes: a create that met a token already stored used no id. */
  readonly noHoles: boolean;
}

const plain = <T extends object>(value: T | undefined): T | undefined => (value === undefined ? undefined : { ...value });
const idOf = (value: unknown): number => (value as { id: number }).id;

/** The model: the first resource created with each token, how many resources are stored, how many creates were made. */
interface TokenModel<T> {
  readonly byToken: Map<string, T>;
  stored: number;
  creates: number;
}

class CreateCommand<R, T extends object> implements fc.AsyncCommand<TokenModel<T>, R> {
  constructor(readonly kind: TokenKind<R, T>, readonly token: string | undefined) {}
  check = () => true;
  async run(model: TokenModel<T>, repo: R): Promise<void> {
    const earlier = this.token === undefined ? undefined : model.byToken.get(this.token);
    // Every create of a run is a distinct resource (its own name): only the token makes two the same.
    const answered = plain(await this.kind.create(repo, model.creates++, this.token));
    if (earlier !== undefined) {
      expect(answered, 'a token already used: that resource, nothing stored').to.deep.equal(earlier);
    } else {
      model.stored++;
      if (this.token !== undefined) model.byToken.set(this.token, answered!);
    }
    expect(await this.kind.all(repo)).to.have.length(model.stored);
  }
  toString = () => `create(${this.token ?? 'no token'})`;
}

class FindCommand<R, T extends object> implements fc.AsyncCommand<TokenModel<T>, R> {
  constructor(readonly kind: TokenKind<R, T>, readonly token: string) {}
  check = () => true;
  async run(model: TokenModel<T>, repo: R): Promise<void> {
    expect(plain(await this.kind.find(repo, this.token))).to.deep.equal(model.byToken.get(this.token));
  }
  toString = () => `find(${this.token})`;
}

const tokenArb = fc.option(fc.constantFrom('tok-a', 'tok-b', 'tok-c'), { nil: undefined, freq: 3 });

const creationTokenCases = <R, T extends object>(kind: TokenKind<R, T>, make: MakeFixture<R>, options: ContractOptions): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };
  describe(`creation tokens (docs/rules.md §10): one ${kind.what} per token`, () => {
    it(`a create with a token stores the ${kind.what} with it; the same token again stores nothing and answers that ${kind.what}; findByCreationToken finds it, and nothing for a token never used; creates without one are unaffected`, () =>
      withFixture(make, async (repo) => {
        expect(await kind.find(repo, 'tok-1')).to.equal(undefined);
        const first = plain(await kind.create(repo, 0, 'tok-1'));
        const untokened = plain(await kind.create(repo, 1));
        const second = plain(await kind.create(repo, 2, 'tok-2'));
        expect(plain(await kind.create(repo, 3, 'tok-1')), 'another draft, the same token: the first one').to.deep.equal(first);
        expect((await kind.all(repo)).map(plain)).to.deep.equal([first, untokened, second]);
        expect(idOf(untokened)).to.be.greaterThan(idOf(first));
        expect(idOf(second)).to.be.greaterThan(idOf(untokened));
        expect(plain(await kind.find(repo, 'tok-1'))).to.deep.equal(first);
        expect(plain(await kind.find(repo, 'tok-2'))).to.deep.equal(second);
        expect(await kind.find(repo, 'tok-3')).to.equal(undefined);
        expect(Object.keys(await kind.find(repo, 'tok-1') ?? {}).sort(), 'the token is not one of its fields').to.deep.equal([...kind.fields].sort());
        if (kind.noHoles) expect(await kind.create(repo, 4, 'tok-3'), 'no id was spent on the repeated token').to.deep.include({ id: idOf(second) + 1 });
      }));

    it(`of 12 concurrent creates with one token and 12 without, exactly one ${kind.what} has the token and all 12 answer it; the others are distinct`, () =>
      withFixture(make, async (repo) => {
        const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => kind.create(repo, i, i % 2 === 0 ? 'tok-race' : undefined)));
        const tokened = answers.filter((_, i) => i % 2 === 0).map(idOf);
        expect(new Set(tokened).size, `ids answered for the token: ${tokened.join(', ')}`).to.equal(1);
        expect(idOf(await kind.find(repo, 'tok-race'))).to.equal(tokened[0]);
        const stored = (await kind.all(repo)).map(idOf);
        expect(stored).to.have.length(13);
        expect([...stored].sort((a, b) => a - b)).to.deep.equal([...new Set([...answers.map(idOf)])].sort((a, b) => a - b));
      }));

    it(`property: creates with and without tokens and look-ups by token agree with a plain map of the first ${kind.what} of each token`, () =>
      fc.assert(
        fc.asyncProperty(
          fc.commands(
            [
              tokenArb.map((token) => new CreateCommand(kind, token)),
              fc.constantFrom('tok-a', 'tok-b', 'tok-c').map((token) => new FindCommand(kind, token)),
            ],
            { maxCommands: 20 },
          ),
          (commands) => withFixture(make, (repo) => fc.asyncModelRun(() => ({ model: { byToken: new Map<string, T>(), stored: 0, creates: 0 }, real: repo }), commands)),
        ),
        runs,
      ));
  });
};

/** The pet repository's creation tokens. */
export const petCreationTokenCases = (make: MakeFixture<PetRepository>, options: ContractOptions = {}): void =>
  creationTokenCases<PetRepository, Pet>(
    {
      what: 'pet',
      create: (repo, i, token) => (token === undefined ? repo.create({ name: `p${i}`, categoryId: 1 + (i % 3), status: 'available' }) : repo.create({ name: `p${i}`, categoryId: 1 + (i % 3), status: 'available' }, token)),
      find: (repo, token) => repo.findByCreationToken(token),
      all: async (repo) => repo.list({ afterId: 0, limit: 10_000 }),
      fields: ['id', 'name', 'categoryId', 'status'],
      noHoles: true,
    },
    make,
    options,
  );

const categoryOf = async (created: Promise<Result<Category, unknown>>): Promise<Category> => {
  const result = await created;
  if (!result.ok) throw new Error(`expected a category, got ${JSON.stringify(result.error)}`);
  return result.value;
};

/** The category repository's creation tokens; the token is checked before the name (what a token created has the name). */
export const categoryCreationTokenCases = (make: MakeFixture<CategoryRepository>, options: ContractOptions = {}): void => {
  creationTokenCases<CategoryRepository, Category>(
    {
      what: 'category',
      create: (repo, i, token) => categoryOf(token === undefined ? repo.create({ name: `Category ${i}` }) : repo.create({ name: `Category ${i}` }, token)),
      find: (repo, token) => repo.findByCreationToken(token),
      all: (repo) => repo.list({ afterId: 0, limit: 10_000 }),
      fields: ['id', 'name'],
      noHoles: true,
    },
    make,
    options,
  );
  it('creation tokens: the same name under the token that created it is that category, not a conflict; under another token or none it is taken; a create refused for its name stores nothing under its token', () =>
    withFixture(make, async (repo) => {
      const birds = await categoryOf(repo.create({ name: 'Birds' }, 'tok-birds'));
      expect(await repo.create({ name: 'BIRDS' }, 'tok-birds')).to.deep.equal({ ok: true, value: birds });
      expect(await repo.create({ name: 'Birds' }, 'tok-other')).to.deep.equal({ ok: false, error: { existingId: birds.id } });
      expect(await repo.create({ name: 'birds' })).to.deep.equal({ ok: false, error: { existingId: birds.id } });
      expect(await repo.findByCreationToken('tok-other')).to.equal(undefined);
      const fish = await categoryOf(repo.create({ name: 'Fish' }, 'tok-other'));
      expect(plain(await repo.findByCreationToken('tok-other'))).to.deep.equal(plain(fish));
    }));
};

const recordDraft = (i: number, state: OrderRecord['state'] = 'placing') => ({
  petId: 1 + (i % 50),
  owner: `key_${String(i % 3).repeat(12)}`,
  state,
  placedAt: timestamp(T0 + i),
  updatedAt: timestamp(T0 + i),
});

/** The order repository's creation tokens; a record found by its token is answered as it is now. */
export const orderCreationTokenCases = (make: MakeFixture<OrderRepository>, options: ContractOptions = {}): void => {
  creationTokenCases<OrderRepository, OrderRecord>(
    {
      what: 'order record',
      create: (repo, i, token) => (token === undefined ? repo.create(recordDraft(i)) : repo.create(recordDraft(i), token)),
      find: (repo, token) => repo.findByCreationToken(token),
      all: (repo) => repo.list({ states: ORDER_STATES, afterId: 0, limit: 10_000 }),
      fields: ['id', 'petId', 'owner', 'state', 'placedAt', 'updatedAt'],
      // Order ids may have gaps (docs/rules.md §8 asks for unique, increasing ids only).
      noHoles: false,
    },
    make,
    options,
  );
  it('creation tokens: a record found by its token, or answered to a create with it, is the record as it is now', () =>
    withFixture(make, async (repo) => {
      const record = await repo.create(recordDraft(1), 'tok-now');
      expect(await repo.updateState(record.id, 'placing', 'placed', timestamp(T0 + 99))).to.equal(true);
      const now = { ...record, state: 'placed', updatedAt: timestamp(T0 + 99) };
      expect(plain(await repo.findByCreationToken('tok-now'))).to.deep.equal(now);
      expect(plain(await repo.create(recordDraft(2), 'tok-now'))).to.deep.equal(now);
    }));
};

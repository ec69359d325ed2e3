import { expect } from 'chai';
import fc from 'fast-check';
import type {
  Category,
  CategoryRepository,
  IdempotentCreation,
  Order,
  OrderRecord,
  OrderRepository,
  Pet,
  PetRepository,
  Result,
} from '../src/index.js';
import { Adoption, ORDER_STATES, StoreUnavailableError, timestamp } from '../src/index.js';
import { checkStoredInvariants, type AdoptionStores } from './adoption-invariants.js';
import { FaultInjector, FAULT_MODES } from './fault-injection.js';
import { forwardingPets } from './forwarding.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { ManualClock } from './manual-clock.js';
import { entryOf } from './pet-entries.js';

/*
 * Creation tokens (docs/rules.md §10: a create never happens twice under one Idempotency-Key), as
 * every repository keeps them: `create(…, token)` writes the token with what it creates, and stores
 * at most one resource per token (a later create with the token stores nothing and answers that
 * one); `findByCreationToken` finds it. Run by the pet, category and order repository contracts, and
 * by the adoption contract (a placement repeated under its key: `Adoption.placedUnder`), and by the
 * photo store contract (a photo's token is published with it: `PhotoStore.publish`).
 */

const T0 = Date.UTC(2027, 0, 1);

/** How the generic cases below create and find one kind of resource, as plain values. */
export interface TokenKind<R, T> {
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

const plain = <T extends object>(value: T | undefined): T | undefined =>
  value === undefined ? undefined : { ...value };
const idOf = (value: unknown): number => (value as { id: number }).id;

/** The model: the first resource created with each token, how many resources are stored, how many creates were made. */
interface TokenModel<T> {
  readonly byToken: Map<string, T>;
  stored: number;
  creates: number;
}

class CreateCommand<R, T extends object> implements fc.AsyncCommand<TokenModel<T>, R> {
  constructor(
    readonly kind: TokenKind<R, T>,
    readonly token: string | undefined,
  ) {}
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
  constructor(
    readonly kind: TokenKind<R, T>,
    readonly token: string,
  ) {}
  check = () => true;
  async run(model: TokenModel<T>, repo: R): Promise<void> {
    expect(plain(await this.kind.find(repo, this.token))).to.deep.equal(model.byToken.get(this.token));
  }
  toString = () => `find(${this.token})`;
}

const tokenArb = fc.option(fc.constantFrom('tok-a', 'tok-b', 'tok-c'), { nil: undefined, freq: 3 });

export const creationTokenCases = <R, T extends object>(
  kind: TokenKind<R, T>,
  make: MakeFixture<R>,
  options: ContractOptions,
): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };
  describe(`creation tokens (docs/rules.md §10): one ${kind.what} per token`, () => {
    it(`a create with a token stores the ${kind.what} with it; the same token again stores nothing and answers that ${kind.what}; findByCreationToken finds it, and nothing for a token never used; creates without one are unaffected`, () =>
      withFixture(make, async (repo) => {
        expect(await kind.find(repo, 'tok-1')).to.equal(undefined);
        const first = plain(await kind.create(repo, 0, 'tok-1'));
        const untokened = plain(await kind.create(repo, 1));
        const second = plain(await kind.create(repo, 2, 'tok-2'));
        expect(
          plain(await kind.create(repo, 3, 'tok-1')),
          'another draft, the same token: the first one',
        ).to.deep.equal(first);
        expect((await kind.all(repo)).map(plain)).to.deep.equal([first, untokened, second]);
        expect(idOf(untokened)).to.be.greaterThan(idOf(first));
        expect(idOf(second)).to.be.greaterThan(idOf(untokened));
        expect(plain(await kind.find(repo, 'tok-1'))).to.deep.equal(first);
        expect(plain(await kind.find(repo, 'tok-2'))).to.deep.equal(second);
        expect(await kind.find(repo, 'tok-3')).to.equal(undefined);
        expect(
          Object.keys((await kind.find(repo, 'tok-1')) ?? {}).sort(),
          'the token is not one of its fields',
        ).to.deep.equal([...kind.fields].sort());
        if (kind.noHoles)
          expect(await kind.create(repo, 4, 'tok-3'), 'no id was spent on the repeated token').to.deep.include({
            id: idOf(second) + 1,
          });
      }));

    it(`of 12 concurrent creates with one token and 12 without, exactly one ${kind.what} has the token and all 12 answer it; the others are distinct`, () =>
      withFixture(make, async (repo) => {
        const answers = await Promise.all(
          Array.from({ length: 24 }, (_, i) => kind.create(repo, i, i % 2 === 0 ? 'tok-race' : undefined)),
        );
        const tokened = answers.filter((_, i) => i % 2 === 0).map(idOf);
        expect(new Set(tokened).size, `ids answered for the token: ${tokened.join(', ')}`).to.equal(1);
        expect(idOf(await kind.find(repo, 'tok-race'))).to.equal(tokened[0]);
        const stored = (await kind.all(repo)).map(idOf);
        expect(stored).to.have.length(13);
        expect([...stored].sort((a, b) => a - b)).to.deep.equal(
          [...new Set([...answers.map(idOf)])].sort((a, b) => a - b),
        );
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
          (commands) =>
            withFixture(make, (repo) =>
              fc.asyncModelRun(
                () => ({ model: { byToken: new Map<string, T>(), stored: 0, creates: 0 }, real: repo }),
                commands,
              ),
            ),
        ),
        runs,
      ));
  });
};

/** Every listed pet (withdrawn ones left out), in id order. */
const listedPets = async (repo: PetRepository) => (await repo.list({ order: { sort: 'id' }, limit: 10_000 })).pets;

/** The pet repository's creation tokens; a pet's token stays bound to it after its withdrawal (docs/rules.md §10, §12). */
export const petCreationTokenCases = (make: MakeFixture<PetRepository>, options: ContractOptions = {}): void => {
  it('creation tokens: a withdrawn pet keeps its token; findByCreationToken answers it as it was when withdrawn (its last listed status), and a create with that token stores nothing and answers it', () =>
    withFixture(make, async (repo) => {
      const rex = await repo.create(entryOf({ name: 'Rex', categoryId: 2, status: 'available' }), 'tok-gone');
      const other = await repo.create(entryOf({ name: 'Other', categoryId: 2, status: 'available' }));
      // It moved once before it went: the answer is the pet as it was last, not as it was created.
      expect(
        await repo.swapHold(rex.id, { status: 'available', orderId: null }, { status: 'sold', orderId: null }),
      ).to.equal(true);
      const last = { ...rex, status: 'sold' };
      const revision = (await repo.findById(rex.id))!.revision;
      expect(await repo.withdraw(rex.id, revision)).to.equal(true);
      const lists = (await listedPets(repo)).map(plain);
      const counts = await repo.countByStatus();
      expect(lists, 'withdrawn: only the other pet is listed').to.deep.equal([plain(other)]);
      expect(plain(await repo.findByCreationToken('tok-gone')), 'found by its token, as it was').to.deep.equal(last);
      expect(
        plain(await repo.create(entryOf({ name: 'Rex again', categoryId: 1, status: 'pending' }), 'tok-gone')),
        'the repeat: that pet',
      ).to.deep.equal(last);
      const race = await Promise.all(
        [1, 2, 3].map((i) =>
          repo.create(entryOf({ name: `Rex race ${i}`, categoryId: 1, status: 'available' }), 'tok-gone'),
        ),
      );
      expect(race.map(plain), 'concurrent repeats: that pet').to.deep.equal([last, last, last]);
      expect((await listedPets(repo)).map(plain), 'nothing stored').to.deep.equal(lists);
      expect(await repo.countByStatus(), 'the counts unchanged').to.deep.equal(counts);
      expect(await repo.findById(rex.id), 'still withdrawn').to.equal(undefined);
      expect(await repo.findHold(rex.id)).to.equal(undefined);
      expect(
        (await repo.create(entryOf({ name: 'Next', categoryId: 1, status: 'available' }))).id,
        'no id spent by the repeats',
      ).to.equal(other.id + 1);
    }));

  creationTokenCases<PetRepository, Pet>(
    {
      what: 'pet',
      create: (repo, i, token) =>
        token === undefined
          ? repo.create(entryOf({ name: `p${i}`, categoryId: 1 + (i % 3), status: 'available' }))
          : repo.create(entryOf({ name: `p${i}`, categoryId: 1 + (i % 3), status: 'available' }), token),
      find: (repo, token) => repo.findByCreationToken(token),
      all: listedPets,
      fields: ['id', 'name', 'categoryId', 'status'],
      noHoles: true,
    },
    make,
    options,
  );
};

const categoryOf = async (created: Promise<Result<Category, unknown>>): Promise<Category> => {
  const result = await created;
  if (!result.ok) throw new Error(`expected a category, got ${JSON.stringify(result.error)}`);
  return result.value;
};

/** The category repository's creation tokens; the token is checked before the name (what a token created has the name). */
export const categoryCreationTokenCases = (
  make: MakeFixture<CategoryRepository>,
  options: ContractOptions = {},
): void => {
  creationTokenCases<CategoryRepository, Category>(
    {
      what: 'category',
      create: (repo, i, token) =>
        categoryOf(
          token === undefined ? repo.create({ name: `Category ${i}` }) : repo.create({ name: `Category ${i}` }, token),
        ),
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
      expect(await repo.create({ name: 'Birds' }, 'tok-other')).to.deep.equal({
        ok: false,
        error: { existingId: birds.id },
      });
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
      create: (repo, i, token) =>
        token === undefined ? repo.create(recordDraft(i)) : repo.create(recordDraft(i), token),
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

// ---------------------------------------------------------------------------------------------
// The adoption flow under an Idempotency-Key: a placement repeated under its token (placedUnder).
// ---------------------------------------------------------------------------------------------

const OWNER = { keyId: 'key_0000000000aa', role: 'client' } as const;
const OTHER = { keyId: 'key_0000000000bb', role: 'client' } as const;
const FIRST: IdempotentCreation = { token: 'tok-order', resumed: false };
const RESUMED: IdempotentCreation = { token: 'tok-order', resumed: true };
const FREE = { status: 'available', orderId: null } as const;

/** A repeat of a placement as the HTTP route runs it: what an earlier attempt created, else a placement. */
const repeat = async (adoption: Adoption, petId: number, creation: IdempotentCreation) =>
  (await adoption.placedUnder(creation)) ?? adoption.place(OWNER, { petId }, creation);

const expectPlaced = (outcome: Result<Order, { code: string; message: string }> | undefined, id: number): void => {
  expect(outcome).to.deep.nested.include({ ok: true, 'value.id': id, 'value.status': 'placed' });
};

/** What `Adoption.place` / `placedUnder` do with a placement's creation token, on an adapter's pet and order stores. */
export const adoptionCreationTokenCases = (make: MakeFixture<AdoptionStores>, options: ContractOptions = {}): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };
  const setup = async (stores: AdoptionStores) => {
    const clock = new ManualClock(T0);
    const adoption = new Adoption(stores.pets, stores.orders, clock);
    const pet = await stores.pets.create(entryOf({ name: 'Rex', categoryId: 1, status: 'available' }));
    /** A record as an earlier attempt under the key left it, in `state`. */
    const left = (state: OrderRecord['state']) =>
      stores.orders.create(
        { petId: pet.id, owner: OWNER.keyId, state, placedAt: timestamp(T0), updatedAt: timestamp(T0) },
        RESUMED.token,
      );
    return { clock, adoption, pet, left };
  };

  describe('a placement repeated under its Idempotency-Key (docs/rules.md §10, packages/domain/src/order/transitions.ts)', () => {
    it('a first claim looks nothing up; a repeat with no record under its token places as new, and its record carries the token; the next repeat answers that order', () =>
      withFixture(make, async (stores) => {
        const { adoption, pet } = await setup(stores);
        expect(await adoption.placedUnder(FIRST)).to.equal(undefined);
        expect(await adoption.placedUnder(RESUMED)).to.equal(undefined);
        const placed = await adoption.place(OWNER, { petId: pet.id }, RESUMED);
        if (!placed.ok) throw new Error(placed.error.message);
        expect((await stores.orders.findByCreationToken(RESUMED.token))?.id).to.equal(placed.value.id);
        expect(await adoption.placedUnder(RESUMED)).to.deep.equal(placed);
      }));

    it('left after write (1), its pet available: the repeat goes on with that record (201 placed, the pet held by it), no second record', () =>
      withFixture(make, async (stores) => {
        const { adoption, pet, left } = await setup(stores);
        const record = await left('placing');
        expectPlaced(await repeat(adoption, pet.id, RESUMED), record.id);
        expect(await stores.pets.findHold(pet.id)).to.deep.equal({ status: 'pending', orderId: record.id });
        expect(await stores.orders.list({ states: ORDER_STATES, afterId: 0, limit: 10 })).to.have.length(1);
      }));

    it('left after write (2), its pet holding it: settled placed and answered', () =>
      withFixture(make, async (stores) => {
        const { adoption, pet, left } = await setup(stores);
        const record = await left('placing');
        await stores.pets.swapHold(pet.id, FREE, { status: 'pending', orderId: record.id });
        expectPlaced(await adoption.placedUnder(RESUMED), record.id);
        expect((await stores.orders.findById(record.id))?.state).to.equal('placed');
      }));

    it('left after write (1) and its pet ordered by another key since: 409 saying the pet is pending; the record stays placing (its swap may yet land), never abandoned', () =>
      withFixture(make, async (stores) => {
        const { adoption, pet, left } = await setup(stores);
        const record = await left('placing');
        const theirs = await adoption.place(OTHER, { petId: pet.id });
        expect(theirs.ok).to.equal(true);
        const refused = await repeat(adoption, pet.id, RESUMED);
        expect(refused).to.deep.nested.include({ ok: false, 'error.code': 'conflict' });
        expect(!refused.ok && refused.error.message).to.contain(`pet ${pet.id} is pending`);
        expect((await stores.orders.findById(record.id))?.state).to.equal('placing');
      }));

    for (const state of ['placed', 'approved', 'cancelled', 'delivered'] as const) {
      it(`left ${state} (and anything done to it since): that order, as it is now`, () =>
        withFixture(make, async (stores) => {
          const { adoption, pet, left } = await setup(stores);
          const record = await left(state);
          if (state === 'placed' || state === 'approved')
            await stores.pets.swapHold(pet.id, FREE, { status: 'pending', orderId: record.id });
          expect(await adoption.placedUnder(RESUMED)).to.deep.nested.include({
            ok: true,
            'value.id': record.id,
            'value.status': state,
          });
        }));
    }

    it('left cancelling (a cancel cut short): settled cancelled, the pet released, and answered', () =>
      withFixture(make, async (stores) => {
        const { adoption, pet, left } = await setup(stores);
        const record = await left('cancelling');
        await stores.pets.swapHold(pet.id, FREE, { status: 'pending', orderId: record.id });
        expect(await adoption.placedUnder(RESUMED)).to.deep.nested.include({
          ok: true,
          'value.id': record.id,
          'value.status': 'cancelled',
        });
        expect(await stores.pets.findHold(pet.id)).to.deep.equal(FREE);
      }));

    it('left abandoned (the earlier attempt lost the pet): 409, no second record; if its pet holds it all the same (a swap landed late), the pet is handed back', () =>
      withFixture(make, async (stores) => {
        const { adoption, pet, left } = await setup(stores);
        const record = await left('abandoned');
        const lost = await repeat(adoption, pet.id, RESUMED);
        expect(lost).to.deep.nested.include({ ok: false, 'error.code': 'conflict' });
        expect(!lost.ok && lost.error.message).to.contain('Idempotency-Key');
        await stores.pets.swapHold(pet.id, FREE, { status: 'pending', orderId: record.id });
        expect(await adoption.placedUnder(RESUMED)).to.deep.nested.include({ ok: false, 'error.code': 'conflict' });
        expect(await stores.pets.findHold(pet.id)).to.deep.equal(FREE);
        expect(await stores.orders.list({ states: ORDER_STATES, afterId: 0, limit: 10 })).to.have.length(1);
      }));

    it("the earlier attempt's abandon lands late, between the repeat's swap and its last write: the pet is handed back and the repeat answers 409", () =>
      withFixture(make, async (stores) => {
        const { clock, pet, left } = await setup(stores);
        const record = await left('placing');
        const orders: OrderRepository = {
          create: (draft, token) =>
            token === undefined ? stores.orders.create(draft) : stores.orders.create(draft, token),
          findByCreationToken: (token) => stores.orders.findByCreationToken(token),
          findById: (id) => stores.orders.findById(id),
          list: (query) => stores.orders.list(query),
          updateState: async (id, expected, next, updatedAt) => {
            if (id === record.id && expected === 'placing' && next === 'placed')
              await stores.orders.updateState(id, 'placing', 'abandoned', updatedAt);
            return stores.orders.updateState(id, expected, next, updatedAt);
          },
        };
        const outcome = await new Adoption(stores.pets, orders, clock).placedUnder(RESUMED);
        expect(outcome).to.deep.nested.include({ ok: false, 'error.code': 'conflict' });
        expect(await stores.pets.findHold(pet.id)).to.deep.equal(FREE);
        expect((await stores.orders.findById(record.id))?.state).to.equal('abandoned');
      }));

    it("a repeat whose create meets a record the token already has (the earlier attempt's late write): goes on with it and never abandons it", () =>
      withFixture(make, async (stores) => {
        const { adoption, pet, left } = await setup(stores);
        const record = await left('placing');
        // `place` without `placedUnder` first: the record appeared after the look-up.
        expectPlaced(await adoption.place(OWNER, { petId: pet.id }, RESUMED), record.id);
        expect(await stores.orders.list({ states: ORDER_STATES, afterId: 0, limit: 10 })).to.have.length(1);
        // The same with the pet taken meanwhile: 409, the record left placing.
        const other = await stores.pets.create(entryOf({ name: 'Mia', categoryId: 1, status: 'available' }));
        const late = await stores.orders.create(
          { petId: other.id, owner: OWNER.keyId, state: 'placing', placedAt: timestamp(T0), updatedAt: timestamp(T0) },
          'tok-late',
        );
        const racing: PetRepository = {
          ...forwardingPets(stores.pets),
          // Another placement takes the pet between the availability check and this one's swap.
          swapHold: async (id, expected, next) => {
            if (id === other.id && next.orderId === late.id)
              await stores.pets.swapHold(id, FREE, { status: 'sold', orderId: null });
            return stores.pets.swapHold(id, expected, next);
          },
        };
        const lost = await new Adoption(racing, stores.orders, new ManualClock(T0)).place(
          OWNER,
          { petId: other.id },
          { token: 'tok-late', resumed: true },
        );
        expect(lost).to.deep.nested.include({ ok: false, 'error.code': 'conflict' });
        expect((await stores.orders.findById(late.id))?.state).to.equal('placing');
      }));

    it("a repeat that meets the earlier attempt's late swap (its pet already held by the record under the token): answers that order, placed, never 409", () =>
      withFixture(make, async (stores) => {
        const { clock, pet, left } = await setup(stores);
        const record = await left('placing');
        // The earlier attempt's swap lands between this attempt's availability check and its own swap.
        const landing: PetRepository = {
          ...forwardingPets(stores.pets),
          swapHold: async (id, expected, next) => {
            if (next.orderId === record.id) await stores.pets.swapHold(id, FREE, next);
            return stores.pets.swapHold(id, expected, next);
          },
        };
        expectPlaced(
          await new Adoption(landing, stores.orders, clock).place(OWNER, { petId: pet.id }, RESUMED),
          record.id,
        );
        // And when both of its writes landed before this attempt looked at the pet (after `placedUnder` found nothing): the same.
        const next = await stores.pets.create(entryOf({ name: 'Mia', categoryId: 1, status: 'available' }));
        const both = await stores.orders.create(
          { petId: next.id, owner: OWNER.keyId, state: 'placing', placedAt: timestamp(T0), updatedAt: timestamp(T0) },
          'tok-both',
        );
        await stores.pets.swapHold(next.id, FREE, { status: 'pending', orderId: both.id });
        expectPlaced(
          await new Adoption(stores.pets, stores.orders, clock).place(
            OWNER,
            { petId: next.id },
            { token: 'tok-both', resumed: true },
          ),
          both.id,
        );
        expect(await stores.orders.list({ states: ORDER_STATES, afterId: 0, limit: 10 })).to.have.length(2);
      }));

    it('property: a placement repeated under its key until it answers, with a fault in any store call of any attempt and another key ordering and cancelling the pet in between, never makes two records; every 201 names the one record, placed; the invariants hold throughout', () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              at: fc.nat(8),
              mode: fc.constantFrom(...FAULT_MODES),
              between: fc.constantFrom('nothing', 'other places', 'other cancels'),
            }),
            { minLength: 1, maxLength: 6 },
          ),
          (attempts) =>
            withFixture(make, async (stores) => {
              const { clock, adoption: healthy, pet } = await setup(stores);
              const faults = new FaultInjector({ hangMs: 1 });
              const faulty = new Adoption(
                faults.petRepository(stores.pets),
                faults.orderRepository(stores.orders),
                clock,
              );
              let answered: number | undefined;
              for (const [i, step] of [...attempts, { at: 0, mode: 'pass' as const, between: 'nothing' }].entries()) {
                clock.advance(1);
                if (step.between === 'other places') await healthy.place(OTHER, { petId: pet.id });
                if (step.between === 'other cancels') {
                  const theirs = await healthy.listOrders(OTHER, { status: 'placed' });
                  for (const order of theirs.ok ? theirs.value.items : []) await healthy.cancel(OTHER, order.id);
                }
                let call = 0;
                faults.use(() => (call++ === step.at ? step.mode : 'pass'));
                let outcome: Awaited<ReturnType<typeof repeat>> | undefined;
                try {
                  outcome = await repeat(faulty, pet.id, i === 0 ? FIRST : RESUMED);
                } catch (error) {
                  if (!(error instanceof StoreUnavailableError)) throw error;
                } finally {
                  faults.use(undefined);
                }
                const mine = (
                  await stores.orders.list({ owner: OWNER.keyId, states: ORDER_STATES, afterId: 0, limit: 10 })
                ).map((r) => r.id);
                expect(mine.length, 'at most one record under the key').to.be.at.most(1);
                expect((await stores.orders.findByCreationToken(RESUMED.token))?.id).to.equal(mine[0]);
                if (outcome?.ok === true) {
                  expect(outcome.value.id).to.equal(mine[0]);
                  if (answered !== undefined) expect(outcome.value.id).to.equal(answered);
                  answered = outcome.value.id;
                } else if (outcome !== undefined) {
                  expect(answered, 'never a 409 once a 201 was answered').to.equal(undefined);
                }
                await checkStoredInvariants(stores);
              }
            }),
        ),
        runs,
      ));
  });
};

import { expect } from 'chai';
import fc from 'fast-check';
import type {
  Pet,
  PetChanges,
  PetDraft,
  PetHold,
  PetListQuery,
  PetRecord,
  PetRepository,
  PetStatus,
} from '../src/index.js';
import { PET_STATUSES, PetCatalog } from '../src/index.js';
import { forwardingPets } from './forwarding.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { petCreationTokenCases } from './creation-token.contract.js';
import { ManualClock } from './manual-clock.js';
import { petDraftArb } from './arbitraries.js';
import {
  afterArb,
  afterFrom,
  expectExactPage,
  expectListAnswer,
  MAX_WALK_PAGES,
  type AfterPick,
} from './exact-page.js';

interface ModelPet {
  readonly id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
  orderId: number | null;
  statusPatchedAt: string | null;
  withdrawn: boolean;
  /** Every revision seen so far for this pet, in order (the last one is current unless `changed`). */
  readonly revisions: number[];
  /** Whether the pet changed since its revision was last seen: the next one seen must be new. */
  changed: boolean;
}
interface Model {
  readonly pets: ModelPet[];
}

const asPet = (p: Pet): Pet => ({ id: p.id, name: p.name, categoryId: p.categoryId, status: p.status });
const listed = (model: Model): ModelPet[] => model.pets.filter((p) => !p.withdrawn);

/**
 * The revision rule (docs/rules.md §12): a pet's revision changes whenever the pet changes (then to
 * one it never had), and only then. Checks what the store shows against what the model knows, and
 * records it.
 */
const observeRevision = (pet: ModelPet, revision: number): void => {
  const last = pet.revisions[pet.revisions.length - 1];
  if (last !== undefined && !pet.changed) expect(revision, `pet ${pet.id}: unchanged, same revision`).to.equal(last);
  if (pet.changed) expect(pet.revisions, `pet ${pet.id}: changed, a revision it never had`).not.to.include(revision);
  if (last !== revision) pet.revisions.push(revision);
  pet.changed = false;
};

/** The stored record the model expects (revision aside). */
const expectedRecord = (pet: ModelPet) => ({
  ...asPet(pet),
  orderId: pet.orderId,
  statusPatchedAt: pet.statusPatchedAt,
});
const withoutRevision = ({ revision: _revision, ...rest }: PetRecord) => rest;

const byId = (p: { readonly id: number }): number => p.id;
/** The pets of `pets` a list query's filters (status, category, both or neither) select. */
const matching = (
  pets: readonly Pet[],
  query: { readonly status?: PetStatus | undefined; readonly categoryId?: number | undefined },
): Pet[] =>
  pets
    .filter(
      (p) =>
        (query.status === undefined || p.status === query.status) &&
        (query.categoryId === undefined || p.categoryId === query.categoryId),
    )
    .map(asPet);
const listQuery = (
  status: PetStatus | undefined,
  categoryId: number | undefined,
  afterId: number,
  limit: number,
): PetListQuery => ({
  afterId,
  limit,
  ...(status === undefined ? {} : { status }),
  ...(categoryId === undefined ? {} : { categoryId }),
});

/** The repository with every `list` answer checked exactly against `model()`, the pets it holds. */
const checkedLists = (repo: PetRepository, model: () => readonly Pet[]): PetRepository => ({
  ...forwardingPets(repo),
  list: async (query) => {
    const rows = await repo.list(query);
    expectListAnswer('PetRepository.list', rows, matching(model(), query), query, byId);
    return rows;
  },
});

/** Pets of a few categories, so that the category filters have something to find. */
const fewCategoriesDraftArb: fc.Arbitrary<PetDraft> = fc.oneof(
  petDraftArb,
  fc.record({
    name: fc.constantFrom('a', 'B b', ' c '),
    categoryId: fc.integer({ min: 1, max: 3 }),
    status: fc.constantFrom(...PET_STATUSES),
  }),
);
const categoryOrAll = fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined });
const holdArb: fc.Arbitrary<PetHold> = fc.record({
  status: fc.constantFrom(...PET_STATUSES),
  orderId: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
});
const changesArb: fc.Arbitrary<PetChanges> = fc.record(
  {
    name: fc.constantFrom('a', 'B b', 'Renamed'),
    categoryId: fc.integer({ min: 1, max: 3 }),
    status: fc.constantFrom(...PET_STATUSES),
  },
  { requiredKeys: [] },
);
/** Which revision a conditional write names: the current one, one the pet had before, or one it never had. */
type RevisionChoice = 'current' | 'stale' | 'unknown';
const revisionChoiceArb = fc.constantFrom<RevisionChoice>('current', 'current', 'stale', 'unknown');

/** The pet a command aims at: an existing one by position, `offset` past it to miss on purpose. */
const target = (model: Model, pick: number, offset: number): { id: number; pet: ModelPet | undefined } => {
  const chosen = model.pets.length === 0 ? undefined : model.pets[pick % model.pets.length];
  const id = (chosen?.id ?? 1) + offset;
  return { id, pet: model.pets.find((p) => p.id === id) };
};

/** The revision a conditional write sends, read from the store for `current` (and checked against the model). */
const revisionFor = async (
  repo: PetRepository,
  id: number,
  pet: ModelPet | undefined,
  choice: RevisionChoice,
): Promise<{ revision: number; current: boolean }> => {
  const record = await repo.findById(id);
  if (record !== undefined && pet !== undefined) observeRevision(pet, record.revision);
  const known = pet?.revisions ?? [];
  if (choice === 'current' && record !== undefined) return { revision: record.revision, current: true };
  if (choice === 'stale' && known.length > 1) return { revision: known[known.length - 2]!, current: false };
  // A revision the pet never had (and so not its current one).
  return { revision: Math.max(0, ...known) + 1000, current: false };
};

class CreateCommand implements fc.AsyncCommand<Model, PetRepository> {
  constructor(readonly draft: PetDraft) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const pet = await repo.create(this.draft);
    const last = model.pets[model.pets.length - 1];
    expect(pet.id)
      .to.be.a('number')
      .and.to.be.greaterThan(last?.id ?? 0);
    expect({ ...pet }).to.deep.equal({ id: pet.id, ...this.draft });
    model.pets.push({
      id: pet.id,
      ...this.draft,
      orderId: null,
      statusPatchedAt: null,
      withdrawn: false,
      revisions: [],
      changed: false,
    });
  }
  toString(): string {
    return `create(${JSON.stringify(this.draft)})`;
  }
}

class FindCommand implements fc.AsyncCommand<Model, PetRepository> {
  /** `pick` chooses an existing pet by position; `offset` makes the id miss on purpose. */
  constructor(
    readonly pick: number,
    readonly offset: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const { id, pet } = target(model, this.pick, this.offset);
    const expected = pet === undefined || pet.withdrawn ? undefined : pet;
    const found = await repo.findById(id);
    expect(found === undefined ? undefined : withoutRevision(found)).to.deep.equal(
      expected === undefined ? undefined : expectedRecord(expected),
    );
    if (found !== undefined && expected !== undefined) observeRevision(expected, found.revision);
    const hold = await repo.findHold(id);
    expect(hold === undefined ? undefined : { ...hold }).to.deep.equal(
      expected === undefined ? undefined : { status: expected.status, orderId: expected.orderId },
    );
  }
  toString(): string {
    return `find(pick=${this.pick}, offset=${this.offset})`;
  }
}

class ListCommand implements fc.AsyncCommand<Model, PetRepository> {
  constructor(
    readonly status: PetStatus | undefined,
    readonly categoryId: number | undefined,
    readonly after: AfterPick,
    readonly limit: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const query = listQuery(this.status, this.categoryId, afterFrom(this.after, model.pets.map(byId)), this.limit);
    expectListAnswer('list', await repo.list(query), matching(listed(model).map(asPet), query), query, byId);
  }
  toString(): string {
    return `list(status=${this.status ?? '*'}, categoryId=${this.categoryId ?? '*'}, after ${JSON.stringify(this.after)}, limit=${this.limit})`;
  }
}

class SwapHoldCommand implements fc.AsyncCommand<Model, PetRepository> {
  /** `current`: expect the pet's real hold (the swap must win); otherwise `expected` as generated (it wins only when it matches). */
  constructor(
    readonly pick: number,
    readonly offset: number,
    readonly current: boolean,
    readonly expected: PetHold,
    readonly next: PetHold,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const { id, pet } = target(model, this.pick, this.offset);
    const expected = this.current && pet !== undefined ? { status: pet.status, orderId: pet.orderId } : this.expected;
    const wins =
      pet !== undefined && !pet.withdrawn && pet.status === expected.status && pet.orderId === expected.orderId;
    expect(await repo.swapHold(id, expected, this.next)).to.equal(wins);
    if (wins) {
      pet.status = this.next.status;
      pet.orderId = this.next.orderId;
      pet.changed = true;
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
    const expected = Object.fromEntries(
      PET_STATUSES.map((st) => [st, listed(model).filter((p) => p.status === st).length]),
    );
    expect({ ...(await repo.countByStatus()) }).to.deep.equal(expected);
  }
  toString(): string {
    return 'countByStatus()';
  }
}

class UpdateCommand implements fc.AsyncCommand<Model, PetRepository> {
  constructor(
    readonly pick: number,
    readonly offset: number,
    readonly choice: RevisionChoice,
    readonly changes: PetChanges,
    readonly tick: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const { id, pet } = target(model, this.pick, this.offset);
    // The port takes only real changes (fields that differ): those of the generated ones.
    const changes: PetChanges =
      pet === undefined
        ? this.changes
        : {
            ...(this.changes.name !== undefined && this.changes.name !== pet.name ? { name: this.changes.name } : {}),
            ...(this.changes.categoryId !== undefined && this.changes.categoryId !== pet.categoryId
              ? { categoryId: this.changes.categoryId }
              : {}),
            ...(this.changes.status !== undefined && this.changes.status !== pet.status
              ? { status: this.changes.status }
              : {}),
          };
    if (Object.keys(changes).length === 0) return;
    const { revision, current } = await revisionFor(repo, id, pet, this.choice);
    const at = new Date(Date.UTC(2027, 0, 1) + this.tick).toISOString();
    const wins =
      pet !== undefined && !pet.withdrawn && current && (changes.status === undefined || pet.orderId === null);
    const updated = await repo.update(id, revision, changes, at);
    if (!wins) return void expect(updated, 'a refused update answers undefined').to.equal(undefined);
    if (changes.name !== undefined) pet.name = changes.name;
    if (changes.categoryId !== undefined) pet.categoryId = changes.categoryId;
    if (changes.status !== undefined) {
      pet.status = changes.status;
      pet.statusPatchedAt = at;
    }
    pet.changed = true;
    expect(
      updated === undefined ? undefined : withoutRevision(updated),
      'update answers the pet after it',
    ).to.deep.equal(expectedRecord(pet));
    observeRevision(pet, updated!.revision);
  }
  toString(): string {
    return `update(pick=${this.pick}, offset=${this.offset}, ${this.choice} revision, ${JSON.stringify(this.changes)})`;
  }
}

class WithdrawCommand implements fc.AsyncCommand<Model, PetRepository> {
  constructor(
    readonly pick: number,
    readonly offset: number,
    readonly choice: RevisionChoice,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, repo: PetRepository): Promise<void> {
    const { id, pet } = target(model, this.pick, this.offset);
    const { revision, current } = await revisionFor(repo, id, pet, this.choice);
    const wins = pet !== undefined && !pet.withdrawn && current && pet.orderId === null;
    expect(await repo.withdraw(id, revision)).to.equal(wins);
    if (wins) pet.withdrawn = true;
  }
  toString(): string {
    return `withdraw(pick=${this.pick}, offset=${this.offset}, ${this.choice} revision)`;
  }
}

const statusOrAll = fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined });

const commandsArb = fc.commands(
  [
    // Creates three times as often as the rest, and lists mostly with small limits: a list shows its
    // page's bound only when more rows match than its limit.
    ...[1, 2, 3].map(() => fewCategoriesDraftArb.map((d) => new CreateCommand(d))),
    fc.tuple(fc.nat(), fc.integer({ min: -1, max: 2 })).map(([pick, offset]) => new FindCommand(pick, offset)),
    fc
      .tuple(
        statusOrAll,
        categoryOrAll,
        afterArb,
        fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 12 })),
      )
      .map(([s, c, a, l]) => new ListCommand(s, c, a, l)),
    fc
      .tuple(fc.nat(), fc.constantFrom(0, 0, 0, 1), fc.boolean(), holdArb, holdArb)
      .map(([pick, offset, current, expected, next]) => new SwapHoldCommand(pick, offset, current, expected, next)),
    fc.constant(new CountCommand()),
    fc
      .tuple(fc.nat(), fc.constantFrom(0, 0, 0, 1), revisionChoiceArb, changesArb, fc.nat(1_000_000))
      .map(([pick, offset, choice, changes, tick]) => new UpdateCommand(pick, offset, choice, changes, tick)),
    fc
      .tuple(fc.nat(), fc.constantFrom(0, 0, 0, 1), revisionChoiceArb)
      .map(([pick, offset, choice]) => new WithdrawCommand(pick, offset, choice)),
  ],
  // 'medium': sequences up to maxCommands long (the default size stops at about 10 commands).
  { maxCommands: 50, size: 'medium' },
);

/** PetCatalog needs a category lookup only to create pets; the list walks below do not create through it. */
const NO_CATEGORIES = { findById: async () => undefined };

/**
 * The `PetRepository` contract: every adapter runs this same suite. `make` gives a fresh, empty
 * repository each time it is called.
 */
export const petRepositoryContract = (
  name: string,
  make: MakeFixture<PetRepository>,
  options: ContractOptions = {},
): void => {
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
        for (const pet of created) {
          const found = (await repo.findById(pet.id))!;
          expect(withoutRevision(found), 'a new pet: no hold, never patched').to.deep.equal({
            ...pet,
            orderId: null,
            statusPatchedAt: null,
          });
          expect(found.revision).to.be.a('number');
        }
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
        expect(plain(await repo.list({ status: 'sold', afterId: pets[5]!.id, limit: 1 }))).to.deep.equal(
          plain([pets[8]!]),
        );
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
        for (let i = 0; i < 18; i++)
          pets.push(await repo.create({ name: `p${i}`, categoryId: 1 + (i % 3), status: PET_STATUSES[(i >> 1) % 3]! }));
        const plain = (rows: readonly Pet[]) => rows.map(asPet);
        expect(plain(await repo.list({ categoryId: 2, afterId: 0, limit: 100 }))).to.deep.equal(
          plain(pets.filter((p) => p.categoryId === 2)),
        );
        expect(plain(await repo.list({ categoryId: 2, afterId: pets[4]!.id, limit: 2 }))).to.deep.equal(
          plain([pets[7]!, pets[10]!]),
        );
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
        expect(
          await repo.swapHold(b.id + 1, { status: 'available', orderId: null }, { status: 'pending', orderId: 1 }),
        ).to.equal(false);
        expect(
          await repo.swapHold(a.id, { status: 'available', orderId: 7 }, { status: 'pending', orderId: 1 }),
        ).to.equal(false);
        expect(
          await repo.swapHold(a.id, { status: 'pending', orderId: null }, { status: 'sold', orderId: null }),
        ).to.equal(false);
        expect(
          await repo.swapHold(a.id, { status: 'available', orderId: null }, { status: 'pending', orderId: 1 }),
        ).to.equal(true);
        expect({ ...(await repo.findHold(a.id)) }).to.deep.equal({ status: 'pending', orderId: 1 });
        expect(withoutRevision((await repo.findById(a.id))!)).to.deep.equal({
          id: a.id,
          name: 'a',
          categoryId: 5,
          status: 'pending',
          orderId: 1,
          statusPatchedAt: null,
        });
        expect((await repo.list({ status: 'pending', afterId: 0, limit: 10 })).map((p) => p.id)).to.deep.equal([a.id]);
        expect(
          (await repo.list({ status: 'available', categoryId: 5, afterId: 0, limit: 10 })).map((p) => p.id),
        ).to.deep.equal([b.id]);
        expect(
          (await repo.list({ status: 'pending', categoryId: 5, afterId: 0, limit: 10 })).map((p) => p.status),
        ).to.deep.equal(['pending']);
        expect((await repo.list({ categoryId: 5, afterId: 0, limit: 10 })).map((p) => p.status)).to.deep.equal([
          'pending',
          'available',
        ]);
        expect({ ...(await repo.countByStatus()) }).to.deep.equal({ available: 1, pending: 1, sold: 0 });
        expect(
          await repo.swapHold(a.id, { status: 'pending', orderId: 1 }, { status: 'sold', orderId: null }),
        ).to.equal(true);
        expect({ ...(await repo.countByStatus()) }).to.deep.equal({ available: 1, pending: 0, sold: 1 });
        expect(
          await repo.swapHold(a.id, { status: 'pending', orderId: 1 }, { status: 'available', orderId: null }),
        ).to.equal(false);
      }));

    it('of N concurrent swapHold calls from the same hold, exactly one wins', () =>
      withFixture(make, async (repo) => {
        const pet = await repo.create({ name: 'contested', categoryId: 1, status: 'available' });
        const from: PetHold = { status: 'available', orderId: null };
        const results = await Promise.all(
          Array.from({ length: 16 }, (_, i) => repo.swapHold(pet.id, from, { status: 'pending', orderId: i + 1 })),
        );
        expect(results.filter((r) => r)).to.have.length(1);
        const winner = results.indexOf(true) + 1;
        expect({ ...(await repo.findHold(pet.id)) }).to.deep.equal({ status: 'pending', orderId: winner });
        expect({ ...(await repo.countByStatus()) }).to.deep.equal({ available: 0, pending: 1, sold: 0 });
      }));

    it('revisions (docs/rules.md §12): a successful swapHold moves the pet to a revision it never had; a refused one changes nothing', () =>
      withFixture(make, async (repo) => {
        const pet = await repo.create({ name: 'r', categoryId: 1, status: 'available' });
        const seen = [(await repo.findById(pet.id))!.revision];
        expect(
          await repo.swapHold(pet.id, { status: 'pending', orderId: 1 }, { status: 'available', orderId: null }),
        ).to.equal(false);
        expect((await repo.findById(pet.id))!.revision, 'a refused swap').to.equal(seen[0]);
        const free = { status: 'available', orderId: null } as const;
        for (const [from, to] of [
          [free, { status: 'pending', orderId: 1 }],
          [{ status: 'pending', orderId: 1 }, free],
          [free, { status: 'pending', orderId: 2 }],
        ] as const) {
          expect(await repo.swapHold(pet.id, from, to)).to.equal(true);
          const revision = (await repo.findById(pet.id))!.revision;
          expect(seen, 'a new revision after each swap').not.to.include(revision);
          seen.push(revision);
        }
      }));

    it('update (docs/rules.md §12) applies only at the given revision, answers the pet after it with a new revision, and lists, indexes and counts follow at once', () =>
      withFixture(make, async (repo) => {
        const a = await repo.create({ name: 'a', categoryId: 1, status: 'available' });
        const b = await repo.create({ name: 'b', categoryId: 1, status: 'sold' });
        const r0 = (await repo.findById(a.id))!.revision;
        const at = '2027-01-01T00:00:01.000Z';
        expect(await repo.update(a.id, r0 + 1, { name: 'stale' }, at), 'another revision').to.equal(undefined);
        expect(await repo.update(b.id + 1, 0, { name: 'nobody' }, at), 'no such pet').to.equal(undefined);
        const renamed = (await repo.update(a.id, r0, { name: 'A', categoryId: 2 }, at))!;
        expect(withoutRevision(renamed)).to.deep.equal({
          id: a.id,
          name: 'A',
          categoryId: 2,
          status: 'available',
          orderId: null,
          statusPatchedAt: null,
        });
        expect(renamed.revision).not.to.equal(r0);
        expect(await repo.update(a.id, r0, { name: 'again' }, at), 'the revision it was at is gone').to.equal(
          undefined,
        );
        expect({ ...(await repo.findById(a.id)) }).to.deep.equal({ ...renamed });
        const r1 = renamed.revision;
        const sold = (await repo.update(a.id, r1, { status: 'sold' }, at))!;
        expect(sold.statusPatchedAt, 'a status change records when').to.equal(at);
        expect(sold.revision).not.to.be.oneOf([r0, r1]);
        const later = '2027-01-01T00:00:02.000Z';
        const named = (await repo.update(a.id, sold.revision, { name: 'Alpha' }, later))!;
        expect(named.statusPatchedAt, 'a change without status keeps it').to.equal(at);
        const ids = (rows: readonly Pet[]) => rows.map((p) => p.id);
        expect(ids(await repo.list({ categoryId: 2, afterId: 0, limit: 10 }))).to.deep.equal([a.id]);
        expect(ids(await repo.list({ categoryId: 1, afterId: 0, limit: 10 }))).to.deep.equal([b.id]);
        expect(ids(await repo.list({ status: 'sold', afterId: 0, limit: 10 }))).to.deep.equal([a.id, b.id]);
        expect(ids(await repo.list({ status: 'sold', categoryId: 2, afterId: 0, limit: 10 }))).to.deep.equal([a.id]);
        expect(await repo.list({ status: 'available', afterId: 0, limit: 10 })).to.have.length(0);
        expect((await repo.list({ afterId: 0, limit: 10 })).map(asPet)).to.deep.equal([
          { id: a.id, name: 'Alpha', categoryId: 2, status: 'sold' },
          { id: b.id, name: 'b', categoryId: 1, status: 'sold' },
        ]);
        expect({ ...(await repo.countByStatus()) }).to.deep.equal({ available: 0, pending: 0, sold: 2 });
      }));

    it('update refuses a status change while the pet is held, and makes any other change while it is', () =>
      withFixture(make, async (repo) => {
        const pet = await repo.create({ name: 'held', categoryId: 1, status: 'available' });
        expect(
          await repo.swapHold(pet.id, { status: 'available', orderId: null }, { status: 'pending', orderId: 4 }),
        ).to.equal(true);
        const { revision } = (await repo.findById(pet.id))!;
        expect(await repo.update(pet.id, revision, { status: 'available' }, '2027-01-01T00:00:00.000Z')).to.equal(
          undefined,
        );
        expect(
          await repo.update(pet.id, revision, { name: 'still held', status: 'sold' }, '2027-01-01T00:00:00.000Z'),
          'nothing of it',
        ).to.equal(undefined);
        expect((await repo.findById(pet.id))!.name).to.equal('held');
        const renamed = (await repo.update(pet.id, revision, { name: 'still held' }, '2027-01-01T00:00:00.000Z'))!;
        expect(withoutRevision(renamed)).to.deep.equal({
          id: pet.id,
          name: 'still held',
          categoryId: 1,
          status: 'pending',
          orderId: 4,
          statusPatchedAt: null,
        });
      }));

    it('withdraw (docs/rules.md §12): only at the given revision and while not held; then the pet is gone from every read, list, count and write, and its id is never given again', () =>
      withFixture(make, async (repo) => {
        const pets: Pet[] = [];
        for (let i = 0; i < 9; i++)
          pets.push(await repo.create({ name: `p${i}`, categoryId: 1 + (i % 2), status: PET_STATUSES[i % 3]! }));
        const [held, gone] = [pets[0]!, pets[3]!];
        expect(
          await repo.swapHold(held.id, { status: 'available', orderId: null }, { status: 'pending', orderId: 8 }),
        ).to.equal(true);
        const heldAt = (await repo.findById(held.id))!.revision;
        expect(await repo.withdraw(held.id, heldAt), 'held').to.equal(false);
        const goneAt = (await repo.findById(gone.id))!.revision;
        expect(await repo.withdraw(gone.id, goneAt + 1), 'another revision').to.equal(false);
        expect(await repo.withdraw(pets[8]!.id + 1, 0), 'no such pet').to.equal(false);
        expect(await repo.findById(gone.id), 'still there after the refusals').not.to.equal(undefined);
        expect(await repo.withdraw(gone.id, goneAt)).to.equal(true);
        expect(await repo.findById(gone.id)).to.equal(undefined);
        expect(await repo.findHold(gone.id)).to.equal(undefined);
        expect(await repo.withdraw(gone.id, goneAt), 'twice').to.equal(false);
        expect(
          await repo.swapHold(gone.id, { status: 'available', orderId: null }, { status: 'pending', orderId: 9 }),
          'a placement after it',
        ).to.equal(false);
        expect(await repo.update(gone.id, goneAt, { name: 'back' }, '2027-01-01T00:00:00.000Z')).to.equal(undefined);
        const rest = pets.filter((p) => p.id !== gone.id).map(asPet);
        const status = (p: Pet) => (p.id === held.id ? 'pending' : p.status);
        const ids = (rows: readonly Pet[]) => rows.map((p) => p.id);
        expect(ids(await repo.list({ afterId: 0, limit: 100 }))).to.deep.equal(ids(rest));
        for (const s of PET_STATUSES) {
          expect(ids(await repo.list({ status: s, afterId: 0, limit: 100 }))).to.deep.equal(
            ids(rest.filter((p) => status(p) === s)),
          );
          for (const c of [1, 2]) {
            expect(ids(await repo.list({ status: s, categoryId: c, afterId: 0, limit: 100 }))).to.deep.equal(
              ids(rest.filter((p) => status(p) === s && p.categoryId === c)),
            );
          }
        }
        expect(ids(await repo.list({ categoryId: gone.categoryId, afterId: 0, limit: 100 }))).to.deep.equal(
          ids(rest.filter((p) => p.categoryId === gone.categoryId)),
        );
        // A page still holds exactly `limit` rows when more exist: the withdrawn pet is not a hole in it.
        expect(ids(await repo.list({ afterId: pets[1]!.id, limit: 3 }))).to.deep.equal([
          pets[2]!.id,
          pets[4]!.id,
          pets[5]!.id,
        ]);
        const counts = { available: 0, pending: 0, sold: 0 };
        for (const p of rest) counts[status(p)]++;
        expect({ ...(await repo.countByStatus()) }).to.deep.equal(counts);
        // Ids are never reused, also when the withdrawn pet had the highest one.
        const last = pets[8]!;
        expect(await repo.withdraw(last.id, (await repo.findById(last.id))!.revision)).to.equal(true);
        expect((await repo.create({ name: 'next', categoryId: 1, status: 'available' })).id).to.be.greaterThan(last.id);
      }));

    it('concurrent conditional writes on one pet: of those at one revision (updates, a withdrawal) at most one wins, of the placements at most one, and never a placement with a withdrawal or a status change', () =>
      withFixture(make, async (repo) => {
        for (let round = 0; round < 6; round++) {
          const pet = await repo.create({ name: `contested ${round}`, categoryId: 1, status: 'available' });
          const { revision } = (await repo.findById(pet.id))!;
          const at = '2027-01-01T00:00:00.000Z';
          const updates = Array.from({ length: 4 }, (_, i) =>
            repo.update(pet.id, revision, i % 2 === round % 2 ? { name: `n${i}` } : { status: 'sold' }, at),
          );
          const swaps = Array.from({ length: 4 }, (_, i) =>
            repo.swapHold(pet.id, { status: 'available', orderId: null }, { status: 'pending', orderId: i + 1 }),
          );
          const withdrawal = repo.withdraw(pet.id, revision);
          const updated = (await Promise.all(updates)).filter((r) => r !== undefined);
          const swapped = (await Promise.all(swaps)).filter((r) => r);
          const withdrawn = await withdrawal;
          expect(updated.length + (withdrawn ? 1 : 0), `round ${round}: writes at the revision that won`).to.be.at.most(
            1,
          );
          expect(swapped.length, `round ${round}: placements that won`).to.be.at.most(1);
          expect(updated.length + swapped.length + (withdrawn ? 1 : 0), `round ${round}: something won`).to.be.at.least(
            1,
          );
          if (withdrawn || updated[0]?.status === 'sold')
            expect(swapped, `round ${round}: a placement with a withdrawal or a status change`).to.have.length(0);
          const after = await repo.findById(pet.id);
          if (withdrawn) expect(after).to.equal(undefined);
          else if (swapped.length === 1) expect(after?.status).to.equal('pending');
        }
      }));

    it('property: agrees with a plain array model over any sequence of creates, finds, lists, swaps, updates, withdrawals and counts; revisions change exactly when a pet does', () =>
      fc.assert(
        fc.asyncProperty(commandsArb, (commands) =>
          withFixture(make, (repo) => fc.asyncModelRun(() => ({ model: { pets: [] }, real: repo }), commands)),
        ),
        { ...runs },
      ));

    it('property: every list answers exactly the first min(limit, remaining) matching pets after afterId, in ascending id order', () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(fewCategoriesDraftArb, { maxLength: 40, size: 'medium' }),
          fc.array(fc.tuple(statusOrAll, categoryOrAll, afterArb, fc.integer({ min: 1, max: 15 })), {
            minLength: 1,
            maxLength: 10,
          }),
          (drafts, queries) =>
            withFixture(make, async (repo) => {
              const pets: Pet[] = [];
              for (const draft of drafts) pets.push(asPet(await repo.create(draft)));
              for (const [status, categoryId, after, limit] of queries) {
                const query = listQuery(status, categoryId, afterFrom(after, pets.map(byId)), limit);
                expectListAnswer(
                  `list(${JSON.stringify(query)})`,
                  await repo.list(query),
                  matching(pets, query),
                  query,
                  byId,
                );
              }
            }),
        ),
        { ...runs },
      ));

    it('property: walking the next-page cursors (no filter, status, category, both) visits every matching pet once, in order, even with creates between pages; each page and each list the catalog asks for is exact; the cursor is refused under other filters', () =>
      fc.assert(
        fc.asyncProperty(
          // 'medium': arrays up to their maxLength (the default size stops at about 10 items).
          fc.array(fewCategoriesDraftArb, { maxLength: 60, size: 'medium' }),
          fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 100 })),
          statusOrAll,
          categoryOrAll,
          fc.array(fc.array(fewCategoriesDraftArb, { maxLength: 4 }), { maxLength: 30, size: 'medium' }),
          (seed, limit, status, categoryId, between) =>
            withFixture(make, async (repo) => {
              // The model: every pet created, as created. Each page, and each list the catalog asks the store for, is checked against it.
              const pets: Pet[] = [];
              const create = async (draft: PetDraft) => void pets.push(asPet(await repo.create(draft)));
              for (const draft of seed) await create(draft);
              const catalog = new PetCatalog(
                checkedLists(repo, () => pets),
                NO_CATEGORIES,
                new ManualClock(),
              );
              const filters = { status, categoryId: categoryId === undefined ? undefined : String(categoryId) };
              let lastSeen = 0;
              let cursor: string | undefined;
              for (let page = 0; ; page++) {
                expect(page, 'a walk ends').to.be.below(MAX_WALK_PAGES);
                const result = await catalog.listPets(
                  cursor === undefined ? { limit, ...filters } : { limit, ...filters, cursor },
                );
                if (!result.ok) throw new Error(`page ${page} failed: ${result.error.message}`);
                const owed = matching(pets, { status, categoryId }).filter((p) => p.id > lastSeen);
                expectExactPage(`page ${page}`, result.value, owed, limit, byId);
                const { items, nextCursor } = result.value;
                lastSeen = items[items.length - 1]?.id ?? lastSeen;
                if (nextCursor === undefined) break;
                cursor = nextCursor;
                // The cursor is bound to these filters: with any other filter it is refused.
                const moved = await catalog.listPets({
                  limit,
                  cursor,
                  status: status === 'sold' ? 'pending' : 'sold',
                  categoryId: filters.categoryId,
                });
                const recategorised = await catalog.listPets({
                  limit,
                  cursor,
                  status,
                  categoryId: String((categoryId ?? 0) + 1),
                });
                expect(moved.ok || moved.error.field).to.equal('cursor');
                expect(recategorised.ok || recategorised.error.field).to.equal('cursor');
                for (const draft of between[page] ?? []) await create(draft);
              }
            }),
        ),
        { ...runs },
      ));

    it('property: walking the next-page cursors while other clients withdraw pets (and create some) shows no pet after its withdrawal, and every pet that remains exactly once, in order; each page and each list the catalog asks for is exact (docs/rules.md §2, §12)', () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(fewCategoriesDraftArb, { minLength: 1, maxLength: 60, size: 'medium' }),
          fc.integer({ min: 1, max: 12 }),
          statusOrAll,
          categoryOrAll,
          // Between pages: pets withdrawn (by position among all pets, ahead of the walk or behind it) and pets created.
          fc.array(
            fc.record({
              withdraw: fc.array(fc.nat(), { maxLength: 4 }),
              create: fc.array(fewCategoriesDraftArb, { maxLength: 2 }),
            }),
            { maxLength: 30 },
          ),
          (seed, limit, status, categoryId, between) =>
            withFixture(make, async (repo) => {
              // The model: every pet created, as created, and the ones withdrawn. Between pages nothing else changes a pet.
              const pets: Pet[] = [];
              const withdrawn = new Set<number>();
              const remaining = (): Pet[] => pets.filter((p) => !withdrawn.has(p.id));
              const create = async (draft: PetDraft) => void pets.push(asPet(await repo.create(draft)));
              for (const draft of seed) await create(draft);
              const catalog = new PetCatalog(checkedLists(repo, remaining), NO_CATEGORIES, new ManualClock());
              const filters = { status, categoryId: categoryId === undefined ? undefined : String(categoryId) };
              const visited: number[] = [];
              let lastSeen = 0;
              let cursor: string | undefined;
              for (let page = 0; ; page++) {
                expect(page, 'a walk ends').to.be.below(MAX_WALK_PAGES);
                const result = await catalog.listPets(
                  cursor === undefined ? { limit, ...filters } : { limit, ...filters, cursor },
                );
                if (!result.ok) throw new Error(`page ${page} failed: ${result.error.message}`);
                // Exact: the next min(limit, owed) pets that remain after the last one shown, none withdrawn before the page.
                const owed = matching(remaining(), { status, categoryId }).filter((p) => p.id > lastSeen);
                expectExactPage(`page ${page}`, result.value, owed, limit, byId);
                const { items, nextCursor } = result.value;
                visited.push(...items.map(byId));
                lastSeen = items[items.length - 1]?.id ?? lastSeen;
                if (nextCursor === undefined) break;
                cursor = nextCursor;
                const { withdraw = [], create: creates = [] } = between[page] ?? {};
                await Promise.all(
                  withdraw.map(async (pick) => {
                    const id = pets[pick % pets.length]!.id;
                    const pet = await repo.findById(id);
                    if (pet !== undefined && (await repo.withdraw(id, pet.revision))) withdrawn.add(id);
                  }),
                );
                for (const draft of creates) await create(draft);
              }
              // Every pet that remains, once, in order (the walk ended: nothing more is owed).
              expect(
                visited.filter((id) => !withdrawn.has(id)),
                'every pet that remains, once',
              ).to.deep.equal(matching(remaining(), { status, categoryId }).map(byId));
            }),
        ),
        { ...runs },
      ));

    petCreationTokenCases(make, options);
  });
};

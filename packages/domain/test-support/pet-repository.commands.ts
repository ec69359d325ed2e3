import { expect } from 'chai';
import fc from 'fast-check';
import type { Pet, PetChanges, PetDraft, PetHold, PetRecord, PetRepository, PetStatus } from '../src/index.js';
import { nameKeysOf, petEdit, PET_STATUSES } from '../src/index.js';
import { petDraftArb } from './arbitraries.js';
import { entryOf } from './pet-entries.js';
import {
  catalogNameArb,
  comparable,
  listShapeArb,
  modelList,
  queryOf,
  shuffleKeyArb,
  type ListModelPet,
  type ListShape,
} from './pet-list.model.js';

/**
 * The model-based half of the `PetRepository` contract: any sequence of creates, finds, lists (every
 * filter, word, order and position of docs/rules.md §16), hold swaps, updates (renames among them),
 * withdrawals and counts, each checked against a plain array model as it runs.
 */

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
  /** As created: it never changes. */
  readonly shuffleKey: number;
}
export interface PetModel {
  readonly pets: ModelPet[];
}

const asPet = (p: Pet): Pet => ({ id: p.id, name: p.name, categoryId: p.categoryId, status: p.status });
const listed = (model: PetModel): ModelPet[] => model.pets.filter((p) => !p.withdrawn);

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

/** A model pet as the list model takes it: its fields and search keys (the name's, by the domain's fold, as the store was given them). */
const listRow = (pet: ModelPet): ListModelPet => ({
  pet: asPet(pet),
  shuffleKey: pet.shuffleKey,
  ...nameKeysOf(pet.name),
});

/** Pets of a few categories, so that the category filters have something to find. */
const fewCategoriesDraftArb: fc.Arbitrary<PetDraft> = fc.oneof(
  petDraftArb,
  fc.record({
    name: fc.oneof(fc.constantFrom('a', 'B b', ' c '), catalogNameArb),
    categoryId: fc.integer({ min: 1, max: 3 }),
    status: fc.constantFrom(...PET_STATUSES),
  }),
);
const holdArb: fc.Arbitrary<PetHold> = fc.record({
  status: fc.constantFrom(...PET_STATUSES),
  orderId: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
});
const changesArb: fc.Arbitrary<PetChanges> = fc.record(
  {
    name: fc.oneof(fc.constantFrom('a', 'B b', 'Renamed'), catalogNameArb),
    categoryId: fc.integer({ min: 1, max: 3 }),
    status: fc.constantFrom(...PET_STATUSES),
  },
  { requiredKeys: [] },
);
/** Which revision a conditional write names: the current one, one the pet had before, or one it never had. */
type RevisionChoice = 'current' | 'stale' | 'unknown';
const revisionChoiceArb = fc.constantFrom<RevisionChoice>('current', 'current', 'stale', 'unknown');

/** The pet a command aims at: an existing one by position, `offset` past it to miss on purpose. */
const target = (model: PetModel, pick: number, offset: number): { id: number; pet: ModelPet | undefined } => {
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

class CreateCommand implements fc.AsyncCommand<PetModel, PetRepository> {
  constructor(
    readonly draft: PetDraft,
    readonly shuffleKey: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: PetModel, repo: PetRepository): Promise<void> {
    const pet = await repo.create(entryOf(this.draft, this.shuffleKey));
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
      shuffleKey: this.shuffleKey,
    });
  }
  toString(): string {
    return `create(${JSON.stringify(this.draft)}, shuffle key ${this.shuffleKey})`;
  }
}

class FindCommand implements fc.AsyncCommand<PetModel, PetRepository> {
  /** `pick` chooses an existing pet by position; `offset` makes the id miss on purpose. */
  constructor(
    readonly pick: number,
    readonly offset: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: PetModel, repo: PetRepository): Promise<void> {
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

/** Any list of docs/rules.md §16 (filters, words, order, a position), against the model's (docs/rules.md §2, §16). */
class ListCommand implements fc.AsyncCommand<PetModel, PetRepository> {
  constructor(readonly shape: ListShape) {}
  check(): boolean {
    return true;
  }
  async run(model: PetModel, repo: PetRepository): Promise<void> {
    // A position may be a withdrawn pet's (a cursor outlives it).
    const query = queryOf(this.shape, model.pets.map(listRow));
    const want = modelList(listed(model).map(listRow), query);
    expect(comparable(query, await repo.list(query)), `list(${JSON.stringify(query)})`).to.deep.equal(
      comparable(query, want),
    );
  }
  toString(): string {
    return `list(${JSON.stringify(this.shape)})`;
  }
}

class SwapHoldCommand implements fc.AsyncCommand<PetModel, PetRepository> {
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
  async run(model: PetModel, repo: PetRepository): Promise<void> {
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

class CountCommand implements fc.AsyncCommand<PetModel, PetRepository> {
  check(): boolean {
    return true;
  }
  async run(model: PetModel, repo: PetRepository): Promise<void> {
    const expected = Object.fromEntries(
      PET_STATUSES.map((st) => [st, listed(model).filter((p) => p.status === st).length]),
    );
    expect({ ...(await repo.countByStatus()) }).to.deep.equal(expected);
  }
  toString(): string {
    return 'countByStatus()';
  }
}

class UpdateCommand implements fc.AsyncCommand<PetModel, PetRepository> {
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
  async run(model: PetModel, repo: PetRepository): Promise<void> {
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
    const updated = await repo.update(id, revision, petEdit(changes), at);
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

class WithdrawCommand implements fc.AsyncCommand<PetModel, PetRepository> {
  constructor(
    readonly pick: number,
    readonly offset: number,
    readonly choice: RevisionChoice,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: PetModel, repo: PetRepository): Promise<void> {
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

/** Sequences of commands for `fc.asyncModelRun`, from an empty model (`emptyPetModel`). */
export const petCommandsArb = fc.commands(
  [
    // Creates three times as often as the rest, and lists mostly with small limits: a list shows its
    // page's bound only when more rows match than its limit.
    ...[1, 2, 3].map(() => fc.tuple(fewCategoriesDraftArb, shuffleKeyArb).map(([d, k]) => new CreateCommand(d, k))),
    fc.tuple(fc.nat(), fc.integer({ min: -1, max: 2 })).map(([pick, offset]) => new FindCommand(pick, offset)),
    listShapeArb.map((shape) => new ListCommand(shape)),
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

/** The model of an empty store. */
export const emptyPetModel = (): PetModel => ({ pets: [] });

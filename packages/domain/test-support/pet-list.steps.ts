import { expect } from 'chai';
import fc from 'fast-check';
import type { PetDraft, PetRepository, PetStatus } from '../src/index.js';
import { nameKeysOf, petEdit, PET_STATUSES } from '../src/index.js';
import { entryOf } from './pet-entries.js';
import {
  catalogCategoryArb,
  catalogNameArb,
  listModelPet,
  shuffleKeyArb,
  type ListModelPet,
} from './pet-list.model.js';

/**
 * What the list properties of the `PetRepository` contract do to a store: create pets (a draft and
 * a shuffle key each), and change them as other clients do (rename, recategorise, move the status
 * by PATCH or by a hold, withdraw), keeping the model row of each.
 */

/** A pet to create: its draft and its shuffle key. */
export interface Seed {
  readonly draft: PetDraft;
  readonly shuffleKey: number;
}
export const seedArb: fc.Arbitrary<Seed> = fc.record({
  draft: fc.record({
    name: catalogNameArb,
    categoryId: catalogCategoryArb,
    status: fc.constantFrom(...PET_STATUSES),
  }),
  shuffleKey: shuffleKeyArb,
});

/** Creates the pets, one after the other: their model rows, in id order. */
export const createAll = async (repo: PetRepository, seeds: readonly Seed[]): Promise<ListModelPet[]> => {
  const rows: ListModelPet[] = [];
  for (const seed of seeds) rows.push(await create(repo, seed));
  return rows;
};
export const create = async (repo: PetRepository, { draft, shuffleKey }: Seed): Promise<ListModelPet> => {
  const entry = entryOf(draft, shuffleKey);
  return listModelPet((await repo.create(entry)).id, entry);
};

/** A change another client makes to a pet (by position among the pets): docs/rules.md §8, §12. */
type Change =
  | { readonly kind: 'rename'; readonly name: string }
  | { readonly kind: 'recategorise'; readonly categoryId: number }
  | { readonly kind: 'patch status'; readonly status: PetStatus }
  | { readonly kind: 'swap status'; readonly status: PetStatus }
  | { readonly kind: 'withdraw' };
export const changeArb: fc.Arbitrary<{ readonly pick: number; readonly change: Change }> = fc.record({
  pick: fc.nat(),
  change: fc.oneof(
    catalogNameArb.map((name): Change => ({ kind: 'rename', name })),
    catalogCategoryArb.map((categoryId): Change => ({ kind: 'recategorise', categoryId })),
    fc.constantFrom(...PET_STATUSES).map((status): Change => ({ kind: 'patch status', status })),
    fc.constantFrom(...PET_STATUSES).map((status): Change => ({ kind: 'swap status', status })),
    fc.constant<Change>({ kind: 'withdraw' }),
  ),
});

/** Makes the change to the pet through the port, and answers its model row after it (`undefined`: withdrawn). */
export const apply = async (
  repo: PetRepository,
  row: ListModelPet,
  change: Change,
): Promise<ListModelPet | undefined> => {
  const { pet } = row;
  const stored = await repo.findById(pet.id);
  if (stored === undefined) throw new Error(`pet ${pet.id} is listed in the model and not found`);
  const at = '2027-01-01T00:00:00.000Z';
  switch (change.kind) {
    case 'withdraw':
      expect(await repo.withdraw(pet.id, stored.revision), `withdraw ${pet.id}`).to.equal(true);
      return undefined;
    case 'swap status': {
      const hold = { status: pet.status, orderId: null };
      expect(await repo.swapHold(pet.id, hold, { status: change.status, orderId: null })).to.equal(true);
      return { ...row, pet: { ...pet, status: change.status } };
    }
    case 'rename':
    case 'recategorise':
    case 'patch status': {
      const changes =
        change.kind === 'rename'
          ? { name: change.name }
          : change.kind === 'recategorise'
            ? { categoryId: change.categoryId }
            : { status: change.status };
      const after = { ...pet, ...changes };
      // The port takes only real changes.
      if (after.name === pet.name && after.categoryId === pet.categoryId && after.status === pet.status) return row;
      expect(await repo.update(pet.id, stored.revision, petEdit(changes), at), `update ${pet.id}`).not.to.equal(
        undefined,
      );
      return { ...row, pet: after, ...nameKeysOf(after.name) };
    }
  }
};

import type { Conflict } from '../errors.js';
import type { Pet, PetChanges, PetRecord } from './pet.js';

/**
 * The rules of pet maintenance (docs/rules.md §12), as pure functions of the stored pet:
 * - `name` and `categoryId` may change in any status;
 * - `status` may change only while the pet holds no open (`placed`/`approved`) order, and a
 *   withdrawal likewise: otherwise 409, whose message says the pet is reserved;
 * - a field sent with the value it has is no change: a `PATCH` that changes nothing answers the pet
 *   as it is and keeps its revision (so it needs no lock and meets no order rule).
 */

/** The fields of `patch` whose value differs from the pet's: what a `PATCH` really changes (empty: nothing). */
export const changesOf = (pet: Pet, patch: PetChanges): PetChanges => ({
  ...(patch.name !== undefined && patch.name !== pet.name ? { name: patch.name } : {}),
  ...(patch.categoryId !== undefined && patch.categoryId !== pet.categoryId ? { categoryId: patch.categoryId } : {}),
  ...(patch.status !== undefined && patch.status !== pet.status ? { status: patch.status } : {}),
});

export const isNoChange = (changes: PetChanges): boolean =>
  changes.name === undefined && changes.categoryId === undefined && changes.status === undefined;

const reserved = (pet: PetRecord, what: string): Conflict => ({
  code: 'conflict',
  message: `pet ${pet.id} is reserved by order ${pet.orderId} (placed or approved); ${what} once that order is delivered or cancelled`,
});

/** Why these changes may not be made to the pet now, or `undefined` when they may. */
export const patchConflict = (pet: PetRecord, changes: PetChanges): Conflict | undefined =>
  changes.status !== undefined && pet.orderId !== null ? reserved(pet, 'its status can change only') : undefined;

/** Why the pet may not be withdrawn now, or `undefined` when it may. */
export const withdrawalConflict = (pet: PetRecord): Conflict | undefined =>
  pet.orderId !== null ? reserved(pet, 'it can be withdrawn only') : undefined;

/**
 * docs/rules.md §8's "a pet with a delivered order is `sold`", read with §12's returns: it binds
 * only orders delivered after the pet's last status change by `PATCH` (`deliveredAt` is the
 * order's `updatedAt`; both times come from the service's clock). For checks and tests.
 */
export const deliveryBindsStatus = (pet: Pick<PetRecord, 'statusPatchedAt'>, deliveredAt: string): boolean =>
  pet.statusPatchedAt === null || deliveredAt > pet.statusPatchedAt;

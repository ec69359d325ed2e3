import type { Clock } from '../ports/clock.port.js';
import type { PetRepository } from '../ports/pet-repository.port.js';
import type { OrderRepository } from '../ports/order-repository.port.js';
import type { CategoryRepository } from '../ports/category-repository.port.js';
import type { Caller } from '../auth/api-key.js';
import type { Conflict, Forbidden, NotFound, PreconditionFailed, ValidationFailed } from '../errors.js';
import { quoteInput, StoreUnavailableError, validationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import type { PetRecord } from '../pet/pet.js';
import { parsePetId, validatePetPatch } from '../pet/validate.js';
import { entityTag, ifMatchAllows, parseIfMatch, type IfMatch } from '../conditional/entity-tags.js';
import { changesOf, isNoChange, patchConflict, withdrawalConflict } from '../pet/maintenance.js';
import { petEdit } from '../pet/keys.js';
import { timestamp } from '../order/order.js';
import { MAX_ROUNDS, OrderRepair } from './order-repair.js';
import { petUpdated, petWithdrawn } from '../events/recorders.js';

type Refusal = ValidationFailed | NotFound | Forbidden | Conflict | PreconditionFailed;

const notFound = (raw: string | number): NotFound => ({
  code: 'not_found',
  message: `no pet has id ${quoteInput(String(raw))}`,
});

const preconditionFailed = (pet: PetRecord): PreconditionFailed => ({
  code: 'precondition_failed',
  message: `If-Match names another revision of pet ${pet.id} than the stored one (its ETag is now ${entityTag(pet.revision)}); nothing changed. Read the pet again and decide on what it is now`,
});

/**
 * Pet maintenance (docs/rules.md §12): correct a pet (`patch`) and withdraw it (`withdraw`), admin
 * keys only. The rules — which field may change when, what "reserved" means — are in
 * `pet/maintenance.ts`; `If-Match` in `conditional/entity-tags.ts`. Each change is one conditional update of
 * the pet alone (`PetRepository.update`, `withdraw`) on the revision just read, so it takes its
 * place in one serial order with the order placements and status moves of §8, which change the same
 * pet the same way; a lost round reads the pet again (without `If-Match`, the last write wins).
 * Expected failures come back as values; only a store outage is thrown.
 */
export class PetMaintenance {
  private readonly repair: OrderRepair;

  constructor(
    private readonly pets: PetRepository,
    /** The order records, to finish what an order holding the pet left half done (docs/rules.md §8). */
    orders: OrderRepository,
    /** Where `patch` checks that a new `categoryId` names a category. */
    private readonly categories: Pick<CategoryRepository, 'findById'>,
    private readonly clock: Clock,
    /**
     * The pet's photos go with it (docs/rules.md §13): called once a withdrawal is done (the pet is
     * gone by then), with the pet's id. A failure is thrown to the caller (503); the pet stays
     * withdrawn. A no-op by default.
     */
    private readonly afterWithdrawal: (petId: number) => Promise<void> = async () => {},
  ) {
    this.repair = new OrderRepair(pets, orders, clock);
  }

  /** The role check of both operations, before anything is read or looked up: a client key learns nothing about any pet id. */
  authorize(caller: Caller | undefined): Result<void, Forbidden> {
    return caller?.role === 'admin'
      ? ok(undefined)
      : fail({ code: 'forbidden', message: 'only an admin key may correct or withdraw a pet' });
  }

  /**
   * `PATCH /v1/pets/{petId}`: changes any of `name`, `categoryId`, `status`; answers the pet after it
   * (with the revision for its `ETag`). `id` may be the raw path segment, `ifMatch` the raw header.
   */
  async patch(
    caller: Caller,
    id: string | number,
    body: unknown,
    ifMatch?: string,
  ): Promise<Result<PetRecord, Refusal>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const petId = parsePetId(String(id));
    if (!petId.ok) return petId;
    const condition = parseIfMatch(ifMatch);
    if (!condition.ok) return condition;
    const patch = validatePetPatch(body);
    if (!patch.ok) return patch;
    // After the shape rules (docs/rules.md §1): a well-formed id must also name a category.
    const { categoryId } = patch.value;
    if (categoryId !== undefined && (await this.categories.findById(categoryId)) === undefined) {
      return fail(validationFailed('categoryId', `categoryId ${categoryId} names no category`));
    }
    if (petId.value === null) return fail(notFound(id));
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const pet = await this.read(petId.value, condition.value);
      if (!pet.ok) return fail(pet.error ?? notFound(id));
      const changes = changesOf(pet.value, patch.value);
      if (isNoChange(changes)) return ok(pet.value);
      const conflict = patchConflict(pet.value, changes);
      if (conflict !== undefined) return fail(conflict);
      const at = timestamp(this.clock.now());
      // A new name is stored with its search keys (docs/rules.md §16), in the same conditional write.
      const updated = await this.pets.update(
        petId.value,
        pet.value.revision,
        petEdit(changes),
        at,
        petUpdated(at, changes.categoryId !== undefined),
      );
      if (updated !== undefined) return ok(updated);
    }
    throw new StoreUnavailableError(`pet ${petId.value} kept changing under this request; retry`);
  }

  /** `DELETE /v1/pets/{petId}`: withdraws the pet. `id` may be the raw path segment, `ifMatch` the raw header. */
  async withdraw(caller: Caller, id: string | number, ifMatch?: string): Promise<Result<void, Refusal>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const petId = parsePetId(String(id));
    if (!petId.ok) return petId;
    const condition = parseIfMatch(ifMatch);
    if (!condition.ok) return condition;
    if (petId.value === null) return fail(notFound(id));
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const pet = await this.read(petId.value, condition.value);
      if (!pet.ok) return fail(pet.error ?? notFound(id));
      const conflict = withdrawalConflict(pet.value);
      if (conflict !== undefined) return fail(conflict);
      if (await this.pets.withdraw(petId.value, pet.value.revision, petWithdrawn(timestamp(this.clock.now())))) {
        await this.afterWithdrawal(petId.value);
        return ok(undefined);
      }
    }
    throw new StoreUnavailableError(`pet ${petId.value} kept changing under this request; retry`);
  }

  /**
   * The pet as it is now, with whatever its order left half done finished first (docs/rules.md §8:
   * the next request touching the pet repairs it), and `If-Match` checked against it. Fails with
   * `undefined` when there is no such pet (a 404: preconditions are not evaluated then, RFC 9110 §13.2.1).
   */
  private async read(
    petId: number,
    condition: IfMatch | undefined,
  ): Promise<Result<PetRecord, PreconditionFailed | undefined>> {
    let pet = await this.pets.findById(petId);
    if (pet !== undefined && pet.orderId !== null && (await this.repair.settleHolder(pet.orderId)))
      pet = await this.pets.findById(petId);
    if (pet === undefined) return fail(undefined);
    return ifMatchAllows(condition, pet.revision) ? ok(pet) : fail(preconditionFailed(pet));
  }
}

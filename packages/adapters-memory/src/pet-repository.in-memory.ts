import type {
  ListedPets,
  Pet,
  PetEdit,
  PetEntry,
  PetHold,
  PetListQuery,
  PetRecord,
  PetRepository,
  PetStatus,
  Recorder,
} from '@petstore/domain';
import { PET_STATUSES } from '@petstore/domain';
import { OrderedIndex } from './ordered-index.js';
import type { MemoryOutbox } from './outbox.in-memory.js';
import { PetFinder } from './pet-finder.in-memory.js';

type Index = OrderedIndex<Pet>;

/**
 * Pets in process memory. Every pet is a frozen object held by four ordered indexes (see
 * `OrderedIndex`): all pets, its status, its category, and its (status, category) pair. So
 * `findById` and every `list` — unfiltered, by status, by category, by both — cost
 * O(log n + limit), whatever the catalogue's size. Ids come from a counter, so a create only
 * appends. A status change (`swapHold`) replaces the frozen pet in the indexes of its id and
 * category, and moves it between the status indexes, keeping each in id order; a `PATCH`
 * (`update`) does the same for whichever of status and category it changes. The open order holding
 * a pet, its revision and the time of its last status change by `PATCH` live in separate maps, each
 * only for the pets that have one (a pet never changed is at revision 0). A withdrawn pet leaves
 * every index and map: lists and counts never meet it, so they cost what they did. It is kept, as it
 * was when withdrawn, in a map of its own (withdrawals are rare) that only the creation tokens read
 * (docs/rules.md §10: a repeat under its key answers it, and creates nothing).
 *
 * The lists of the public catalogue (docs/rules.md §16) that these indexes do not answer alone —
 * search, lists of statuses or categories, the orders `-id`, `name` and `random` — are the
 * `PetFinder`'s, which keeps its own indexes beside these and reads them, and these, without a scan.
 * A list without any of that (the plain list) takes the path it always took, at the cost it always had.
 *
 * With an `outbox` (its store's `EventStoreInMemory`'s), each write that changes a pet records the
 * events its recorder answers there, in the same synchronous step (docs/rules.md §15); without one,
 * nothing is recorded.
 */
export class PetRepositoryInMemory implements PetRepository {
  private lastId = 0;
  private readonly all: Index = new OrderedIndex();
  private readonly byStatus = new Map<PetStatus, Index>(PET_STATUSES.map((s) => [s, new OrderedIndex()]));
  private readonly byCategory = new Map<number, Index>();
  /** Per status, per category. */
  private readonly byStatusCategory = new Map<PetStatus, Map<number, Index>>(PET_STATUSES.map((s) => [s, new Map()]));
  /** Pet id → id of the open order holding it (only pets with one). */
  private readonly holds = new Map<number, number>();
  /** Pet id → its revision (only pets changed since their creation, at revision 0). */
  private readonly revisions = new Map<number, number>();
  /** Pet id → when a `PATCH` last changed its status (only pets with one). */
  private readonly statusPatches = new Map<number, string>();
  /** Creation token → id of the pet created with it (docs/rules.md §10; only pets created with one). */
  private readonly byToken = new Map<string, number>();
  /** Pet id → the pet as it was when withdrawn (its last listed status): what its creation token answers. */
  private readonly withdrawn = new Map<number, Pet>();
  private readonly finder = new PetFinder((statuses, categoryIds) => this.idIndexes(statuses, categoryIds));

  constructor(private readonly outbox?: MemoryOutbox) {}

  async create(entry: PetEntry, token?: string, record?: Recorder<Pet>): Promise<Pet> {
    const earlier = token === undefined ? undefined : this.byToken.get(token);
    if (earlier !== undefined) return this.byCreation(earlier);
    const pet = this.createSync(entry, token);
    this.outbox?.record(record, pet);
    return pet;
  }

  /** The same as `create`, without the promise: for seeding large catalogues. */
  createSync(entry: PetEntry, token?: string): Pet {
    if (token !== undefined) {
      const earlier = this.byToken.get(token);
      if (earlier !== undefined) return this.byCreation(earlier);
      this.byToken.set(token, this.lastId + 1);
    }
    const pet: Pet = Object.freeze({
      id: ++this.lastId,
      name: entry.name,
      categoryId: entry.categoryId,
      status: entry.status,
    });
    this.all.append(pet);
    this.byStatus.get(pet.status)!.append(pet);
    this.categoryIndex(pet.categoryId).append(pet);
    this.statusCategoryIndex(pet.status, pet.categoryId).append(pet);
    this.finder.add(pet, { words: [...entry.words], nameKey: entry.nameKey, shuffleKey: entry.shuffleKey });
    return pet;
  }

  async findById(id: number): Promise<PetRecord | undefined> {
    const pet = this.all.get(id);
    return pet === undefined ? undefined : this.recordOf(pet);
  }

  async findByCreationToken(token: string): Promise<Pet | undefined> {
    const id = this.byToken.get(token);
    return id === undefined ? undefined : this.byCreation(id);
  }

  async list(query: PetListQuery): Promise<ListedPets> {
    const { statuses, categoryIds, order } = query;
    // The plain list: ascending id, at most one status and one category, no words. One id index answers it.
    if (
      order.sort !== 'id' ||
      query.words !== undefined ||
      (statuses?.length ?? 0) > 1 ||
      (categoryIds?.length ?? 0) > 1
    )
      return this.finder.list(query);
    const status = statuses?.[0];
    const categoryId = categoryIds?.[0];
    const index =
      categoryId === undefined
        ? status === undefined
          ? this.all
          : this.byStatus.get(status)
        : status === undefined
          ? this.byCategory.get(categoryId)
          : this.byStatusCategory.get(status)?.get(categoryId);
    return { pets: index === undefined ? [] : index.after(order.after ?? 0, query.limit) };
  }

  async findHold(id: number): Promise<PetHold | undefined> {
    const pet = this.all.get(id);
    return pet === undefined ? undefined : { status: pet.status, orderId: this.holds.get(id) ?? null };
  }

  /** Atomic: it runs to the end without yielding, so no other call sees or makes a change in between. */
  async swapHold(id: number, expected: PetHold, next: PetHold, record?: Recorder<Pet>): Promise<boolean> {
    const pet = this.all.get(id);
    if (pet === undefined || pet.status !== expected.status || (this.holds.get(id) ?? null) !== expected.orderId)
      return false;
    if (next.orderId === null) this.holds.delete(id);
    else this.holds.set(id, next.orderId);
    let after = pet;
    if (next.status !== pet.status) {
      after = Object.freeze({ ...pet, status: next.status });
      this.reindex(pet, after);
      this.finder.change(after);
    }
    this.bump(id);
    this.outbox?.record(record, after);
    return true;
  }

  /** Atomic, as `swapHold`. */
  async update(
    id: number,
    revision: number,
    changes: PetEdit,
    at: string,
    record?: Recorder<Pet>,
  ): Promise<PetRecord | undefined> {
    const pet = this.all.get(id);
    if (pet === undefined || this.revisionOf(id) !== revision || (changes.status !== undefined && this.holds.has(id)))
      return undefined;
    const changed: Pet = Object.freeze({
      id,
      name: changes.name ?? pet.name,
      categoryId: changes.categoryId ?? pet.categoryId,
      status: changes.status ?? pet.status,
    });
    this.reindex(pet, changed);
    this.finder.change(changed, changes.nameKeys);
    if (changes.status !== undefined) this.statusPatches.set(id, at);
    this.bump(id);
    this.outbox?.record(record, changed);
    return this.recordOf(changed);
  }

  /**
   * Atomic, as `swapHold`: the pet leaves every index and map; `lastId` keeps its id from coming back.
   * It is kept as it is now (`withdrawn`): its creation token, if any, stays bound to it.
   */
  async withdraw(id: number, revision: number, record?: Recorder<Pet>): Promise<boolean> {
    const pet = this.all.get(id);
    if (pet === undefined || this.revisionOf(id) !== revision || this.holds.has(id)) return false;
    this.all.remove(id);
    this.byStatus.get(pet.status)!.remove(id);
    this.categoryIndex(pet.categoryId).remove(id);
    this.statusCategoryIndex(pet.status, pet.categoryId).remove(id);
    this.finder.remove(id);
    this.revisions.delete(id);
    this.statusPatches.delete(id);
    this.withdrawn.set(id, pet);
    this.outbox?.record(record, pet);
    return true;
  }

  async countByStatus(): Promise<Readonly<Record<PetStatus, number>>> {
    return {
      available: this.byStatus.get('available')!.size,
      pending: this.byStatus.get('pending')!.size,
      sold: this.byStatus.get('sold')!.size,
    };
  }

  get size(): number {
    return this.all.size;
  }

  /** The id indexes of a filter (each any of; absent: any): one per status and category asked, or per one of them, or all pets. */
  private idIndexes(statuses: readonly PetStatus[] | undefined, categoryIds: readonly number[] | undefined): Index[] {
    if (categoryIds === undefined)
      return statuses === undefined ? [this.all] : statuses.map((s) => this.byStatus.get(s)!);
    // The indexes by category: of each status asked, or of every status.
    const categoryIndexes =
      statuses === undefined ? [this.byCategory] : statuses.map((s) => this.byStatusCategory.get(s)!);
    const out: Index[] = [];
    for (const indexes of categoryIndexes)
      for (const c of categoryIds) {
        const index = indexes.get(c);
        // A category that has had no pet (of that status) has no index.
        if (index !== undefined) out.push(index);
      }
    return out;
  }

  /** The pet created under a token: listed, or as it was when withdrawn. */
  private byCreation(id: number): Pet {
    return this.all.get(id) ?? this.withdrawn.get(id)!;
  }

  private revisionOf(id: number): number {
    return this.revisions.get(id) ?? 0;
  }

  private bump(id: number): void {
    this.revisions.set(id, this.revisionOf(id) + 1);
  }

  /** A frozen copy: nothing a caller does to it reaches the store. */
  private recordOf(pet: Pet): PetRecord {
    return Object.freeze({
      id: pet.id,
      name: pet.name,
      categoryId: pet.categoryId,
      status: pet.status,
      revision: this.revisionOf(pet.id),
      orderId: this.holds.get(pet.id) ?? null,
      statusPatchedAt: this.statusPatches.get(pet.id) ?? null,
    });
  }

  /** Puts `next` (the same id) in the place of `pet` in every id index, moving it between the status and category indexes it changed. */
  private reindex(pet: Pet, next: Pet): void {
    this.all.replace(next);
    const movesCategory = next.categoryId !== pet.categoryId;
    const movesStatus = next.status !== pet.status;
    if (movesCategory) {
      this.categoryIndex(pet.categoryId).remove(pet.id);
      this.categoryIndex(next.categoryId).insert(next);
    } else {
      this.categoryIndex(pet.categoryId).replace(next);
    }
    if (movesStatus) {
      this.byStatus.get(pet.status)!.remove(pet.id);
      this.byStatus.get(next.status)!.insert(next);
    } else {
      this.byStatus.get(pet.status)!.replace(next);
    }
    if (movesCategory || movesStatus) {
      this.statusCategoryIndex(pet.status, pet.categoryId).remove(pet.id);
      this.statusCategoryIndex(next.status, next.categoryId).insert(next);
    } else {
      this.statusCategoryIndex(pet.status, pet.categoryId).replace(next);
    }
  }

  private categoryIndex(categoryId: number): Index {
    let index = this.byCategory.get(categoryId);
    if (index === undefined) this.byCategory.set(categoryId, (index = new OrderedIndex()));
    return index;
  }

  private statusCategoryIndex(status: PetStatus, categoryId: number): Index {
    const byCategory = this.byStatusCategory.get(status)!;
    let index = byCategory.get(categoryId);
    if (index === undefined) byCategory.set(categoryId, (index = new OrderedIndex()));
    return index;
  }
}

import type { Pet, PetDraft, PetHold, PetListQuery, PetRepository, PetStatus } from '@petstore/domain';

/** Index of the first pet in `pets` (ascending ids) whose id is greater than `afterId`. */
const firstAfter = (pets: readonly Pet[], afterId: number): number => {
  let low = 0;
  let high = pets.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (pets[mid]!.id <= afterId) low = mid + 1;
    else high = mid;
  }
  return low;
};

/**
 * Pets in process memory. Ids come from a counter, so every array below stays sorted by id by
 * appending alone: `findById` and `list` are binary searches plus a slice, O(log n + limit),
 * with one ordered index per status. No per-pet map: about 100 bytes of heap per pet.
 */
export class PetRepositoryInMemory implements PetRepository {
  private lastId = 0;
  private readonly all: Pet[] = [];
  private readonly byStatus = new Map<PetStatus, Pet[]>();

  async create(draft: PetDraft): Promise<Pet> {
    return this.createSync(draft);
  }

  /** The same as `create`, without the promise: for seeding large catalogues. */
  createSync(draft: PetDraft): Pet {
    const pet: Pet = Object.freeze({ id: ++this.lastId, name: draft.name, categoryId: draft.categoryId, status: draft.status });
    this.all.push(pet);
    let index = this.byStatus.get(pet.status);
    if (!index) this.byStatus.set(pet.status, (index = []));
    index.push(pet);
    this.counts[pet.status]++;
    return pet;
  }

  async findById(id: number): Promise<Pet | undefined> {
    const at = firstAfter(this.all, id - 1);
    const pet = this.all[at];
    return pet !== undefined && pet.id === id ? pet : undefined;
  }

  async list(query: PetListQuery): Promise<readonly Pet[]> {
    const source = query.status === undefined ? this.all : (this.byStatus.get(query.status) ?? []);
    const start = firstAfter(source, query.afterId);
    return source.slice(start, start + query.limit);
  }

  get size(): number {
    return this.all.length;
  }

  // ---- Adoption holds (PETS-PORT.md): the orders branch's stand-in; the categories branch owns the real one. ----
  // Held pets only: the id of the open order reserving each (a missing entry is `null`).
  private readonly holds = new Map<number, number>();
  private readonly counts: Record<PetStatus, number> = { available: 0, pending: 0, sold: 0 };

  async findHold(id: number): Promise<PetHold | undefined> {
    const pet = this.all[this.indexOf(id)];
    return pet === undefined ? undefined : { status: pet.status, orderId: this.holds.get(id) ?? null };
  }

  async swapHold(id: number, expected: PetHold, next: PetHold): Promise<boolean> {
    const at = this.indexOf(id);
    const pet = this.all[at];
    if (pet === undefined || pet.status !== expected.status || (this.holds.get(id) ?? null) !== expected.orderId) return false;
    if (next.orderId === null) this.holds.delete(id);
    else this.holds.set(id, next.orderId);
    if (next.status !== pet.status) {
      const moved: Pet = Object.freeze({ ...pet, status: next.status });
      this.all[at] = moved;
      const from = this.byStatus.get(pet.status)!;
      from.splice(firstAfter(from, id - 1), 1);
      let to = this.byStatus.get(next.status);
      if (!to) this.byStatus.set(next.status, (to = []));
      to.splice(firstAfter(to, id), 0, moved);
      this.counts[pet.status]--;
      this.counts[next.status]++;
    }
    return true;
  }

  async countByStatus(): Promise<Readonly<Record<PetStatus, number>>> {
    return { ...this.counts };
  }

  /** Position of the pet with this id in `all`, or -1. */
  private indexOf(id: number): number {
    const at = firstAfter(this.all, id - 1);
    return this.all[at]?.id === id ? at : -1;
  }
  // ---- end of adoption holds ----
}

import type { Pet, PetDraft, PetListQuery, PetRepository, PetStatus } from '@petstore/domain';

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
}

import type { Pet, PetDraft, PetStatus } from '../pet/pet.js';

export interface PetListQuery {
  /** Only pets with this status; all pets when absent. */
  readonly status?: PetStatus;
  /** Only pets whose id is greater than this (0 for the first page). */
  readonly afterId: number;
  /** At most this many rows (the use case asks for one more than the page size). */
  readonly limit: number;
}

/**
 * Where pets live. Implementations throw `StoreUnavailableError` when the store cannot answer.
 */
export interface PetRepository {
  /**
   * Stores a pet under a new id: positive, unique, never reused, and greater than every id
   * assigned before (assigned atomically, also under concurrent creates).
   */
  create(draft: PetDraft): Promise<Pet>;
  findById(id: number): Promise<Pet | undefined>;
  /** Matching pets with `id > afterId`, in ascending id order, at most `limit` of them. */
  list(query: PetListQuery): Promise<readonly Pet[]>;
}

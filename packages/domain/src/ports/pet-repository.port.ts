import type { Answer } from './answer.js';
import type { Pet, PetDraft, PetStatus } from '../pet/pet.js';

/** A pet's adoption state: its status and the open order that reserves it, if any. */
export interface PetHold {
  readonly status: PetStatus;
  /** The id of the open (`placed` or `approved`) order that reserves the pet; `null` when none. */
  readonly orderId: number | null;
}

export interface PetListQuery {
  /** Only pets with this status; all pets when absent. */
  readonly status?: PetStatus;
  /** Only pets of this category; all categories when absent. */
  readonly categoryId?: number;
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
   * Stores a pet (with no hold: `orderId` null) under a new id: positive, unique, never reused, and greater than every id
   * assigned before (assigned atomically, also under concurrent creates).
   * With a creation `token` (docs/rules.md §10, `IdempotentCreation`) the pet carries it, written with the pet in the same
   * single write, and tokens are unique: when a pet already carries this token, nothing is stored and the answer is that
   * pet (of N creates with one token, also concurrent, also across processes, exactly one pet is stored).
   */
  create(draft: PetDraft, token?: string): Promise<Pet>;
  /** The pet created with this creation token, or `undefined` when none was (docs/rules.md §10). */
  findByCreationToken(token: string): Promise<Pet | undefined>;
  findById(id: number): Promise<Pet | undefined>;
  /** Matching pets (by status, category, both or neither) with `id > afterId`, in ascending id order, at most `limit` of them. */
  /** On every list request: an in-process store answers with the rows themselves (`Answer`), a networked one with a promise. */
  list(query: PetListQuery): Answer<readonly Pet[]>;
  /** The pet's hold, or `undefined` when no pet has this id. */
  findHold(id: number): Promise<PetHold | undefined>;
  /**
   * The one conditional update of the adoption flow, atomic on one pet: when the pet's hold
   * equals `expected` (status and orderId), set it to `next` and answer `true`; otherwise change
   * nothing and answer `false` (also when no pet has this id). Of N concurrent swaps from the same
   * `expected`, at most one answers `true`. Lists, counts and `findById` see the new status at once.
   */
  swapHold(id: number, expected: PetHold, next: PetHold): Promise<boolean>;
  /** How many pets have each status (the inventory): O(1) on the memory store, index-served counts on MongoDB. */
  countByStatus(): Promise<Readonly<Record<PetStatus, number>>>;
}

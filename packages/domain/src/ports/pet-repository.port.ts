import type { Pet, PetRecord, PetStatus } from '../pet/pet.js';
import type { PetEdit, PetEntry } from '../pet/keys.js';
import type { KeyedRow } from '../pet/fold.js';
import type { Recorder } from '../events/event.js';

/** A pet's adoption state: its status and the open order that reserves it, if any. */
export interface PetHold {
  readonly status: PetStatus;
  /** The id of the open (`placed` or `approved`) order that reserves the pet; `null` when none. */
  readonly orderId: number | null;
}

/**
 * The order of a list (docs/rules.md §16) and the position in it after which the page starts
 * (absent: at the start), as the sort's own key: `id` ascending id; `-id` descending id; `name` by
 * (name key, id), strings in code-point order (`compareKeyedRows`); `random` by the shuffle key's
 * place on the circle that starts at `start` (`shuffleStart` of the seed), then id (`compareShuffled`).
 */
export type PetOrder =
  | { readonly sort: 'id' | '-id'; readonly after?: number }
  | { readonly sort: 'name'; readonly after?: KeyedRow<string> }
  | { readonly sort: 'random'; readonly start: number; readonly after?: KeyedRow<number> };

/** Which pets a list answers, in which order, from where, how many. Each filter absent: no filter; given: never empty. */
export interface PetListQuery {
  /** Only pets with one of these statuses (distinct). */
  readonly statuses?: readonly PetStatus[];
  /** Only pets of one of these categories (distinct, at most 20). */
  readonly categoryIds?: readonly number[];
  /** Only pets whose name has, for each of these folded words (a checked `q`), a folded word that begins with it (`nameMatches`). */
  readonly words?: readonly string[];
  readonly order: PetOrder;
  /** At most this many rows (the use case asks for one more than the page size). */
  readonly limit: number;
}

/**
 * What `list` answers: the pets in the order asked, as the store holds them, and for `sort=random`
 * the shuffle key of each (as stored, in the same order), since the page's cursor holds its last
 * pet's. Other orders leave the keys out.
 */
export interface ListedPets {
  readonly pets: readonly Pet[];
  readonly shuffleKeys?: readonly number[];
}

/**
 * Where pets live. Implementations throw `StoreUnavailableError` when the store cannot answer.
 *
 * A pet is the consistency boundary of the adoption flow and of maintenance (docs/rules.md §8,
 * §12): every change of it is one conditional update of the pet alone (`swapHold`, `update`,
 * `withdraw`), atomic, and each one that changes the pet moves its revision. A **withdrawn** pet is
 * gone for every operation here: `findById` and `findHold` answer `undefined`, lists and counts leave
 * it out (at the cost of the pets they do show: never a page filtered after its query), no update
 * matches it, and its id is never given again. Only its creation token stays bound to it
 * (docs/rules.md §10): `findByCreationToken` and a `create` with that token answer it as it was
 * when it was withdrawn (its last listed status), and store nothing.
 *
 * Events (docs/rules.md §15, `EventStore`): each write that changes the pet and is given a `record`
 * calls it with the pet as the write leaves it (for `withdraw`: as it was when withdrawn) and appends
 * what it answers to the pet's outbox in that same atomic write; a write that changes nothing records nothing.
 */
export interface PetRepository {
  /**
   * Stores a pet (with no hold: `orderId` null) and its search keys (`PetEntry`, as given) under a new id: positive, unique, never reused, and greater than every id
   * assigned before (assigned atomically, also under concurrent creates).
   * With a creation `token` (docs/rules.md §10, `IdempotentCreation`) the pet carries it, written with the pet in the same
   * single write, and tokens are unique: when a pet already carries this token, nothing is stored and the answer is that
   * pet (of N creates with one token, also concurrent, also across processes, exactly one pet is stored), also when that
   * pet was withdrawn since (then as it was when withdrawn).
   */
  create(entry: PetEntry, token?: string, record?: Recorder<Pet>): Promise<Pet>;
  /**
   * The pet created with this creation token, or `undefined` when none was (docs/rules.md §10). A pet withdrawn since is
   * still found, as it was when withdrawn: its status is the last listed one, never a status of its own for withdrawn pets.
   */
  findByCreationToken(token: string): Promise<Pet | undefined>;
  /** The pet as stored (revision, hold, last status change by `PATCH`), or `undefined` when no pet has this id or it was withdrawn. */
  findById(id: number): Promise<PetRecord | undefined>;
  /**
   * The first `limit` pets that match every filter of `query` and come after its position, in its
   * order (docs/rules.md §16). Served from indexes, never by reading every pet: the plain list (ascending
   * id, at most one status and one category, no words) costs what it always did.
   */
  list(query: PetListQuery): Promise<ListedPets>;
  /** The pet's hold, or `undefined` when no pet has this id. */
  findHold(id: number): Promise<PetHold | undefined>;
  /**
   * The one conditional update of the adoption flow, atomic on one pet: when the pet's hold
   * equals `expected` (status and orderId), set it to `next` and answer `true`; otherwise change
   * nothing and answer `false` (also when no pet has this id, or it was withdrawn). Of N concurrent
   * swaps from the same `expected`, at most one answers `true`. A swap that answers `true` moves the
   * revision. Lists, counts and `findById` see the new status at once.
   * `record` gets the pet after the swap, with the name and category it has at that moment (an adapter
   * that builds the outbox entry before its update makes that update conditional on what it read).
   */
  swapHold(id: number, expected: PetHold, next: PetHold, record?: Recorder<Pet>): Promise<boolean>;
  /**
   * The conditional update of a `PATCH` (docs/rules.md §12), atomic on one pet: when the pet exists,
   * is not withdrawn, its revision is `revision` and — when `changes` has a `status` — it holds no
   * order, set the fields of `changes` (and `statusPatchedAt` to `at` when `status` is among them),
   * move the revision, and answer the pet after it; otherwise change nothing and answer `undefined`.
   * `changes` holds at least one field, each different from the stored one; a new name comes with
   * its keys (`PetEdit`), stored in the same write, so that search and the name order follow it at once.
   */
  update(
    id: number,
    revision: number,
    changes: PetEdit,
    at: string,
    record?: Recorder<Pet>,
  ): Promise<PetRecord | undefined>;
  /**
   * The withdrawal (docs/rules.md §12), atomic on one pet: when the pet exists, is not withdrawn, holds
   * no order and its revision is `revision`, withdraw it and answer `true`; otherwise change nothing and
   * answer `false`. From then on it is gone (see above), but for its creation token; the order records that name it stay.
   */
  withdraw(id: number, revision: number, record?: Recorder<Pet>): Promise<boolean>;
  /** How many pets have each status (the inventory), withdrawn pets left out: O(1) on the memory store, index-served counts on MongoDB. */
  countByStatus(): Promise<Readonly<Record<PetStatus, number>>>;
}

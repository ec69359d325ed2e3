/** Availability of an animal. An `as const` object plus its union type. */
export const PetStatus = {
  available: 'available',
  pending: 'pending',
  sold: 'sold',
} as const;
export type PetStatus = (typeof PetStatus)[keyof typeof PetStatus];

export const PET_STATUSES: readonly PetStatus[] = [PetStatus.available, PetStatus.pending, PetStatus.sold];

/** The status stored and returned when a create omits it (docs/rules.md §1). */
export const DEFAULT_PET_STATUS: PetStatus = PetStatus.available;

/** What a caller sends to create an animal, once validated. */
export interface NewPet {
  readonly name: string;
  readonly categoryId: number;
  readonly status?: PetStatus;
}

/** A validated creation with its status resolved: what a repository stores. */
export interface PetDraft {
  readonly name: string;
  readonly categoryId: number;
  readonly status: PetStatus;
}

/** An animal as stored and returned: the draft plus the id the service assigned. */
export interface Pet extends PetDraft {
  readonly id: number;
}

/**
 * A pet as the store keeps it: the `Pet` clients see, plus what the maintenance rules of
 * docs/rules.md §12 need. Never sent as is: the answer is the `Pet`, the revision its `ETag`.
 */
export interface PetRecord extends Pet {
  /**
   * Changes whenever any stored field of the pet changes (a `PATCH`, and the status moves of the
   * adoption flow): the pet's entity tag. Opaque to clients; a per-pet counter in the stores (ids are
   * never reused, so a revision never comes back).
   */
  readonly revision: number;
  /** The open order holding the pet (its hold, docs/rules.md §8); `null` when none. */
  readonly orderId: number | null;
  /**
   * When a `PATCH` last changed the pet's status (the service's clock, RFC 3339 UTC with
   * milliseconds); `null` when none ever did. "A pet with a delivered order is `sold`" holds for the
   * orders delivered after it (a `sold` pet set back to `available` is a returned adoption).
   */
  readonly statusPatchedAt: string | null;
}

/** What a `PATCH` may change: any of the three fields of a `Pet` (docs/rules.md §12). */
export interface PetChanges {
  readonly name?: string;
  readonly categoryId?: number;
  readonly status?: PetStatus;
}

/** Largest `categoryId` (2^53 − 1): integers beyond it do not survive JSON in JavaScript. */
export const MAX_CATEGORY_ID = Number.MAX_SAFE_INTEGER;
export const NAME_MIN_LENGTH = 1;
export const NAME_MAX_LENGTH = 200;

export const isPetStatus = (value: unknown): value is PetStatus =>
  value === PetStatus.available || value === PetStatus.pending || value === PetStatus.sold;

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

/** Largest `categoryId` (2^53 − 1): integers beyond it do not survive JSON in JavaScript. */
export const MAX_CATEGORY_ID = Number.MAX_SAFE_INTEGER;
export const NAME_MIN_LENGTH = 1;
export const NAME_MAX_LENGTH = 200;

export const isPetStatus = (value: unknown): value is PetStatus =>
  value === PetStatus.available || value === PetStatus.pending || value === PetStatus.sold;

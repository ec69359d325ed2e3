import type { PhotoFile, StoredPhoto } from '../photo/photo.js';
import type { Recorder } from '../events/event.js';

/** A place among a pet's photos, taken for an upload under way, with the photo id it will have. */
export interface PhotoUpload {
  readonly petId: number;
  readonly photoId: number;
  /** When the upload took its place (ms since the epoch): a sweep removes unpublished uploads started before its cut-off. */
  readonly startedAt: number;
}

/** The bytes of a stored file: at once when the store holds them in the process, else a stream of chunks. */
export type PhotoBytes = Uint8Array | AsyncIterable<Uint8Array>;

/** What a sweep removed. */
export interface PhotoSweep {
  /** Uploads started before the cut-off and never published: their bytes removed, their places freed. */
  readonly uploads: number;
  /** Files no photo names (left by an upload or a removal cut short), removed. */
  readonly files: number;
}

/** What `publish` did: `true` published, `false` given up meanwhile, `{ earlier }` the token's photo answered instead. */
export type PublishOutcome = boolean | { readonly earlier: StoredPhoto };

/**
 * Where photos live: a record per photo and the bytes of its files. An upload is written around
 * one decisive write (docs/rules.md §13): `reserve` takes one of the pet's `PHOTOS_PER_PET` places
 * and a new id, `putFile` writes each file's bytes, and `publish` makes the photo visible, only
 * once all of them are complete. Until then nothing lists, finds or reads it; an upload cut short
 * is given up with `abandon`, or, when that cannot run (a process killed, the store down), by the
 * next `sweep` (at start). Implementations throw `StoreUnavailableError` when the store cannot answer.
 *
 * Events (docs/rules.md §15, `EventStore`): `publish`, `delete` and `deleteAllOf`, given a `record`,
 * call it with each photo they publish or remove (a published one: uploads given up record nothing)
 * and append the events to that photo's outbox in the same atomic write. A removed photo's record (or
 * a trace of it) stays until its outbox is empty, so that removing it never loses its events.
 */
export interface PhotoStore {
  /**
   * Takes a place among the pet's photos for an upload of `totalBytes` (all its files) and assigns
   * the photo id (positive, unique, never reused). Atomic: with P photos and uploads under way for
   * a pet, of N simultaneous reservations exactly `PHOTOS_PER_PET − P` succeed, the others get
   * `full`, also across processes sharing a store. `no_space` when the store's own bound on bytes
   * (the memory store's budget) would be passed: then nothing is reserved.
   */
  reserve(petId: number, totalBytes: number, now: number): Promise<PhotoUpload | 'full' | 'no_space'>;
  /** Stores one file of the upload (the original or a narrower width) under `file.width`; invisible until `publish`. */
  putFile(upload: PhotoUpload, file: PhotoFile, bytes: Uint8Array): Promise<void>;
  /**
   * The decisive write: from now on `list`, `find` and `read` see the photo (`photo.id` is the
   * upload's id; its files were all put). `false` (nothing published) when the upload no longer
   * holds its place: a sweep or an `abandon` removed it in between.
   * With a creation `token` (docs/rules.md §10, `IdempotentCreation`) the photo carries it, written
   * in this same write, and tokens are unique: when a published photo already carries it (an earlier
   * attempt of the upload under the same `Idempotency-Key`), nothing is published, this upload is
   * given up (its bytes removed, its place freed) and the answer is `{ earlier }`, that photo (of N
   * uploads with one token, also concurrent, also across processes, exactly one is published).
   */
  publish(
    upload: PhotoUpload,
    photo: StoredPhoto,
    token?: string,
    record?: Recorder<StoredPhoto>,
  ): Promise<PublishOutcome>;
  /**
   * The photo published with this creation token, also when it was removed since (`delete`, `deleteAllOf`): then as it
   * was published (the token stays bound to it, docs/rules.md §10, and a `publish` with it answers it as `{ earlier }`);
   * `undefined` when none was.
   */
  findByCreationToken(token: string): Promise<StoredPhoto | undefined>;
  /** Gives an unpublished upload up: its bytes removed, its place freed. Leaves a published photo as it is. Safe to repeat. */
  abandon(upload: PhotoUpload): Promise<void>;
  /** The pet's published photos, ascending id. */
  list(petId: number): Promise<readonly StoredPhoto[]>;
  /**
   * The published photos of all of `petIds` (the pets of one page: at most 100, distinct) in one read, as
   * `list` answers each: ordered by pet id, then photo id. A pet with none has no row (`expand=photos`, docs/rules.md §16).
   */
  listOfPets(petIds: readonly number[]): Promise<readonly StoredPhoto[]>;
  /** The published photo with this id, when it belongs to this pet. */
  find(petId: number, photoId: number): Promise<StoredPhoto | undefined>;
  /** The bytes of one file of a published photo (by its width); `undefined` when there is none. */
  read(photoId: number, width: number): Promise<PhotoBytes | undefined>;
  /** Removes a published photo of this pet (record, bytes, place; its creation token stays bound to it); `false` when there was none. */
  delete(petId: number, photoId: number, record?: Recorder<StoredPhoto>): Promise<boolean>;
  /** Removes every photo of the pet, uploads under way included (their `publish` then answers `false`); how many published ones went. */
  deleteAllOf(petId: number, record?: Recorder<StoredPhoto>): Promise<number>;
  /** Every pet that has a published photo, ascending. */
  pets(): Promise<readonly number[]>;
  /**
   * Removes what an upload or a removal cut short left behind: unpublished uploads started before
   * `startedBefore` (bytes and places), and bytes no photo or upload names. At start, with the
   * start time: every upload of a process that died is gone then.
   */
  sweep(startedBefore: number): Promise<PhotoSweep>;
}

import type {
  PhotoBytes,
  PhotoFile,
  PhotoStore,
  PhotoSweep,
  PhotoUpload,
  PublishOutcome,
  Recorder,
  StoredPhoto,
} from '@petstore/domain';
import type { MemoryOutbox } from './outbox.in-memory.js';
import { PHOTOS_PER_PET } from '@petstore/domain';

/** The default budget: `PETSTORE_PHOTO_MEMORY_MB`'s default, 256 MiB (docs/rules.md §6). */
const DEFAULT_BUDGET_BYTES = 256 * 1024 * 1024;

/** A place among a pet's photos: an upload under way (no `photo` yet), or a published photo. */
interface Place {
  readonly upload: PhotoUpload;
  /** Bytes of the budget this place holds: what the upload reserved. */
  readonly reserved: number;
  /** Files put so far, by width. */
  readonly files: Map<number, Uint8Array>;
  /** Set by `publish`: from then on the photo is visible. */
  photo?: StoredPhoto;
}

/**
 * Photos in process memory, bounded by a budget of bytes (`PETSTORE_PHOTO_MEMORY_MB`): an upload
 * reserves the bytes of all its files at `reserve`, or gets `no_space` and nothing is held. Each
 * call runs to its end without yielding, so the place-taking is atomic (of N racing uploads, exactly
 * the room left succeed). What is not published is invisible; a sweep drops unpublished uploads.
 * (Nothing outlives the process: a restart starts with no photos, and nothing stray.) With an
 * `outbox`, publishing and removing a photo record its events there in the same step (docs/rules.md §15).
 */
export class PhotoStoreInMemory implements PhotoStore {
  private lastId = 0;
  private used = 0;
  /** Pet id → photo id → place, in ascending photo id (ids only grow, and a Map keeps insertion order). */
  private readonly places = new Map<number, Map<number, Place>>();
  /** Photo id → its pet, for `read`. */
  private readonly petOf = new Map<number, number>();
  /**
   * Creation token → the published photo that carries it (docs/rules.md §10). Kept when the photo is
   * removed (its record only, a few fields; no bytes): a repeat under its key answers it as it was.
   */
  private readonly byToken = new Map<string, StoredPhoto>();

  constructor(
    private readonly budgetBytes: number = DEFAULT_BUDGET_BYTES,
    private readonly outbox?: MemoryOutbox,
  ) {}

  async reserve(petId: number, totalBytes: number, now: number): Promise<PhotoUpload | 'full' | 'no_space'> {
    const pet = this.places.get(petId);
    if (pet !== undefined && pet.size >= PHOTOS_PER_PET) return 'full';
    if (this.used + totalBytes > this.budgetBytes) return 'no_space';
    const upload: PhotoUpload = { petId, photoId: ++this.lastId, startedAt: now };
    this.used += totalBytes;
    this.petPlaces(petId).set(upload.photoId, { upload, reserved: totalBytes, files: new Map() });
    this.petOf.set(upload.photoId, petId);
    return upload;
  }

  async putFile(upload: PhotoUpload, file: PhotoFile, bytes: Uint8Array): Promise<void> {
    const place = this.pending(upload);
    // An upload given up (by a sweep or a removal) keeps nothing.
    if (place === undefined) return;
    let held = bytes.length;
    for (const [width, kept] of place.files) if (width !== file.width) held += kept.length;
    if (held > place.reserved)
      throw new Error(`photo ${upload.photoId}: its files pass the ${place.reserved} bytes reserved for them`);
    // The bytes are handed over (the caller keeps no use of them): kept as given, without a copy of
    // megabytes; only a view into a larger buffer is copied, so that it does not hold all of that one.
    place.files.set(
      file.width,
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
        ? bytes
        : Uint8Array.prototype.slice.call(bytes),
    );
  }

  /** The token is checked and set with the photo in one turn, without yielding: of racing publishes with one token, one wins. */
  async publish(
    upload: PhotoUpload,
    photo: StoredPhoto,
    token?: string,
    record?: Recorder<StoredPhoto>,
  ): Promise<PublishOutcome> {
    const place = this.pending(upload);
    if (place === undefined) return false;
    if (photo.files.some((file) => place.files.get(file.width)?.length !== file.bytes)) {
      throw new Error(`photo ${upload.photoId}: published before all its files were put`);
    }
    if (token !== undefined) {
      const earlier = this.byToken.get(token);
      if (earlier !== undefined) {
        this.remove(upload.petId, upload.photoId);
        return { earlier };
      }
      this.byToken.set(token, photo);
    }
    place.photo = photo;
    this.outbox?.record(record, photo);
    return true;
  }

  async findByCreationToken(token: string): Promise<StoredPhoto | undefined> {
    return this.byToken.get(token);
  }

  async abandon(upload: PhotoUpload): Promise<void> {
    if (this.pending(upload) !== undefined) this.remove(upload.petId, upload.photoId);
  }

  async list(petId: number): Promise<readonly StoredPhoto[]> {
    const photos: StoredPhoto[] = [];
    for (const place of this.places.get(petId)?.values() ?? []) if (place.photo !== undefined) photos.push(place.photo);
    return photos;
  }

  async listOfPets(petIds: readonly number[]): Promise<readonly StoredPhoto[]> {
    const photos: StoredPhoto[] = [];
    for (const petId of [...petIds].sort((a, b) => a - b))
      for (const place of this.places.get(petId)?.values() ?? [])
        if (place.photo !== undefined) photos.push(place.photo);
    return photos;
  }

  async find(petId: number, photoId: number): Promise<StoredPhoto | undefined> {
    return this.places.get(petId)?.get(photoId)?.photo;
  }

  async read(photoId: number, width: number): Promise<PhotoBytes | undefined> {
    const petId = this.petOf.get(photoId);
    const place = petId === undefined ? undefined : this.places.get(petId)?.get(photoId);
    return place?.photo === undefined ? undefined : place.files.get(width);
  }

  async delete(petId: number, photoId: number, record?: Recorder<StoredPhoto>): Promise<boolean> {
    const photo = this.places.get(petId)?.get(photoId)?.photo;
    if (photo === undefined) return false;
    this.remove(petId, photoId);
    this.outbox?.record(record, photo);
    return true;
  }

  async deleteAllOf(petId: number, record?: Recorder<StoredPhoto>): Promise<number> {
    const pet = this.places.get(petId);
    if (pet === undefined) return 0;
    let published = 0;
    for (const [photoId, place] of [...pet]) {
      this.remove(petId, photoId);
      if (place.photo === undefined) continue;
      published++;
      this.outbox?.record(record, place.photo);
    }
    return published;
  }

  async pets(): Promise<readonly number[]> {
    return [...this.places]
      .filter(([, pet]) => [...pet.values()].some((place) => place.photo !== undefined))
      .map(([petId]) => petId)
      .sort((a, b) => a - b);
  }

  async sweep(startedBefore: number): Promise<PhotoSweep> {
    let uploads = 0;
    for (const [petId, pet] of [...this.places]) {
      for (const [photoId, place] of [...pet]) {
        if (place.photo === undefined && place.upload.startedAt < startedBefore) {
          this.remove(petId, photoId);
          uploads++;
        }
      }
    }
    // Files live inside their place: none can outlive it.
    return { uploads, files: 0 };
  }

  /** Bytes held: files of published photos and the reservations of uploads under way. */
  get usedBytes(): number {
    return this.used;
  }

  /** Files held, of published photos and uploads under way (for tests: nothing stray). */
  get fileCount(): number {
    let count = 0;
    for (const pet of this.places.values()) for (const place of pet.values()) count += place.files.size;
    return count;
  }

  private pending(upload: PhotoUpload): Place | undefined {
    const place = this.places.get(upload.petId)?.get(upload.photoId);
    return place !== undefined && place.photo === undefined && place.upload.startedAt === upload.startedAt
      ? place
      : undefined;
  }

  private petPlaces(petId: number): Map<number, Place> {
    let pet = this.places.get(petId);
    if (pet === undefined) this.places.set(petId, (pet = new Map()));
    return pet;
  }

  private remove(petId: number, photoId: number): void {
    const pet = this.places.get(petId);
    const place = pet?.get(photoId);
    if (pet === undefined || place === undefined) return;
    this.used -= place.reserved;
    pet.delete(photoId);
    this.petOf.delete(photoId);
    if (pet.size === 0) this.places.delete(petId);
  }
}

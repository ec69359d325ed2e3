import type { Clock } from '../ports/clock.port.js';
import type { Digests } from '../ports/digests.port.js';
import type { ImageProcessor } from '../ports/image-processor.port.js';
import type { PhotoBytes, PhotoStore, PhotoSweep, PhotoUpload, PublishOutcome } from '../ports/photo-store.port.js';
import type { Caller } from '../auth/api-key.js';
import type { IdempotentCreation } from '../idempotency/idempotency.js';
import type {
  Conflict,
  Forbidden,
  InsufficientStorage,
  NotFound,
  UnsupportedMediaType,
  ValidationFailed,
} from '../errors.js';
import { quoteInput, StoreUnavailableError, validationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import { parseIdSegment } from '../text/id.js';
import { timestamp } from '../order/order.js';
import {
  IMAGE_FORMATS,
  PHOTO_STORED_LONG_SIDE,
  PHOTOS_PER_PET,
  toPhoto,
  type Photo,
  type PhotoFile,
  type StoredPhoto,
} from '../photo/photo.js';
import { photoAdded, photoRemoved, photoWithdrawn } from '../events/recorders.js';
import {
  checkImageHeader,
  fileForWidth,
  parsePhotoWidth,
  photoContentTypeOf,
  PHOTO_TYPES_TEXT,
  widthsBelow,
} from '../photo/rules.js';

/** One rendition of a photo, ready to be answered: its file (size, digest) and how to get its bytes. */
export interface PhotoDownload {
  readonly photo: Photo;
  readonly file: PhotoFile;
  /** The file's bytes; `undefined` when the photo was removed since it was found. */
  bytes(): Promise<PhotoBytes | undefined>;
}

/** What the photos ask of the pets: whether one is found (a pet withdrawn or never created is not). `PetRepository` is one. */
export interface PetLookup {
  findById(id: number): Promise<object | undefined>;
}

export type UploadError =
  Forbidden | ValidationFailed | UnsupportedMediaType | NotFound | Conflict | InsufficientStorage;

const forbidden = (action: string): Forbidden => ({
  code: 'forbidden',
  message: `only an admin key may ${action} a photo`,
});
const noPet = (raw: string): NotFound => ({ code: 'not_found', message: `no pet has id ${quoteInput(raw)}` });
const noPhoto = (raw: string): NotFound => ({
  code: 'not_found',
  message: `this pet has no photo with id ${quoteInput(raw)}`,
});
const full = (petId: number): Conflict => ({
  code: 'conflict',
  message: `pet ${petId} already has ${PHOTOS_PER_PET} photos, the most it can have; delete one first`,
});

/**
 * The photos of docs/rules.md §13: upload, list, get (in a width), delete, and what a withdrawal
 * and a start do to them. The rules come from `photo/`; the image work is the `ImageProcessor`'s,
 * the bytes the `PhotoStore`'s. An upload is written around the store's one decisive write
 * (`publish`): place taken, files put, then published; a failure in between gives the upload up,
 * and what even that cannot remove goes with the next `sweep`. Expected failures come back as
 * values; only an outage (`StoreUnavailableError`) is thrown.
 */
export class PhotoLibrary {
  constructor(
    /** Where the pet is looked up: a pet it does not find (none, or withdrawn) has no photos. */
    private readonly pets: PetLookup,
    private readonly photos: PhotoStore,
    private readonly images: ImageProcessor,
    private readonly clock: Clock,
    /** Each file's SHA-256 (its `ETag`). */
    private readonly digests: Digests,
  ) {}

  /**
   * The role check of an upload (docs/rules.md §4, §13: a client key → 403, before anything is
   * looked up), for a transport that has steps of its own before `upload` (the lookup of an
   * `Idempotency-Key`: the 403 comes first). `upload` checks it again.
   */
  authorizeUpload(caller: Caller | undefined): Result<void, Forbidden> {
    return caller?.role === 'admin' ? ok(undefined) : fail(forbidden('add'));
  }

  /**
   * `POST /v1/pets/{petId}/photos`. Checks, in this order: an admin key (before anything is looked
   * up), the pet id, the media type, the pet, room for one more photo; only then is the body read
   * (`readBody`: the transport's reader, which refuses a body over the limit), inspected from its
   * header (a bomb costs nothing), decoded, normalised, and made in the narrower widths.
   * `creation`: the upload runs under an `Idempotency-Key` (docs/rules.md §10); its token is
   * published with the photo, and when an earlier attempt's photo already carries it (its publish
   * landed after this attempt looked: `photoCreatedUnder`), that photo is the answer, nothing stored.
   */
  async upload(
    caller: Caller,
    rawPetId: string,
    contentType: string | undefined,
    readBody: () => Promise<Uint8Array | undefined>,
    creation?: IdempotentCreation,
  ): Promise<Result<Photo, UploadError>> {
    const allowed = this.authorizeUpload(caller);
    if (!allowed.ok) return allowed;
    const id = parseIdSegment(rawPetId, 'petId');
    if (!id.ok) return id;
    const type = photoContentTypeOf(contentType);
    if (type === undefined) {
      return fail({
        code: 'unsupported_media_type',
        message: `send the photo as one of ${PHOTO_TYPES_TEXT}, with that Content-Type`,
      });
    }
    const petId = id.value;
    if (petId === null || (await this.pets.findById(petId)) === undefined) return fail(noPet(rawPetId));
    // The cheap refusal first; the reservation below decides for good, also between racing uploads.
    if ((await this.photos.list(petId)).length >= PHOTOS_PER_PET) return this.fullUnless(petId, creation);

    const body = await readBody();
    if (body === undefined || body.length === 0)
      return fail(validationFailed('body', `the body must be the image itself (${PHOTO_TYPES_TEXT})`));
    const header = checkImageHeader(await this.images.inspect(body), type);
    if (!header.ok) return header;
    const format = IMAGE_FORMATS[type];
    const original = await this.images.normalise(body, format, PHOTO_STORED_LONG_SIDE);
    if (original === undefined)
      return fail(
        validationFailed('body', `the body does not decode as a whole ${type} image (truncated or damaged?)`),
      );
    const renditions = [original];
    for (const width of widthsBelow(original.width))
      renditions.push(await this.images.resize(original.bytes, format, width));
    const files = await Promise.all(
      renditions.map(async (r) => ({
        file: {
          width: r.width,
          height: r.height,
          bytes: r.bytes.length,
          sha256: await this.digests.sha256HexOfBytes(r.bytes),
        },
        bytes: r.bytes,
      })),
    );

    const now = this.clock.now();
    const reserved = await this.photos.reserve(
      petId,
      files.reduce((sum, f) => sum + f.file.bytes, 0),
      now,
    );
    if (reserved === 'full') return this.fullUnless(petId, creation);
    if (reserved === 'no_space') {
      return fail({
        code: 'insufficient_storage',
        message: 'the photo store is full; nothing was stored (its operator can give it more room)',
      });
    }
    const photo: StoredPhoto = {
      id: reserved.photoId,
      petId,
      contentType: type,
      width: original.width,
      height: original.height,
      bytes: original.bytes.length,
      createdAt: timestamp(now),
      files: files.map((f) => f.file),
    };
    const published = await this.write(reserved, photo, files, creation?.token);
    // A withdrawal that ran while this upload was under way took the pet's photos with it: this one
    // follows (docs/rules.md §12, §13), whether the withdrawal's removal gave the upload up before
    // its publish or comes after it. Either way the answer is the withdrawn pet's 404.
    if ((await this.pets.findById(petId)) === undefined) {
      if (published !== undefined)
        await this.photos.delete(petId, published.id, photoWithdrawn(timestamp(this.clock.now())));
      return fail(noPet(rawPetId));
    }
    // Given up while the pet is still there: a sweep of a process that started meanwhile.
    if (published === undefined)
      throw new StoreUnavailableError(
        `the upload of photo ${reserved.photoId} was given up while it was being written; retry`,
      );
    return ok(toPhoto(published));
  }

  /**
   * The photo an earlier attempt of this upload published under its `Idempotency-Key` (docs/rules.md
   * §10), as it is now (one deleted since, or gone with its pet, as it was published: a repeat
   * creates nothing, docs/rules.md §13); `undefined` when none did, or when no earlier attempt can
   * have (a first claim: no look-up). The route asks before `upload`, so a repeat is
   * answered before the photo limit, and before its body is decoded.
   */
  async photoCreatedUnder(creation: IdempotentCreation): Promise<Photo | undefined> {
    if (!creation.resumed) return undefined;
    const earlier = await this.photos.findByCreationToken(creation.token);
    return earlier === undefined ? undefined : toPhoto(earlier);
  }

  /** `GET /v1/pets/{petId}/photos` (any key): the pet's photos, ascending id. */
  async list(rawPetId: string): Promise<Result<readonly Photo[], ValidationFailed | NotFound>> {
    const id = parseIdSegment(rawPetId, 'petId');
    if (!id.ok) return id;
    const petId = await this.findPet(rawPetId, id.value);
    if (!petId.ok) return petId;
    return ok((await this.photos.list(petId.value)).map(toPhoto));
  }

  /**
   * `GET /v1/pets/{petId}/photos/{photoId}` (any key; `HEAD` too): the rendition `width` asks for
   * (raw query values: none, or exactly one of 160, 320, 640), never wider than the original.
   */
  async get(
    rawPetId: string,
    rawPhotoId: string,
    width: readonly string[] = [],
  ): Promise<Result<PhotoDownload, ValidationFailed | NotFound>> {
    const petId = parseIdSegment(rawPetId, 'petId');
    if (!petId.ok) return petId;
    const photoId = parseIdSegment(rawPhotoId, 'photoId');
    if (!photoId.ok) return photoId;
    const wanted = parsePhotoWidth(width);
    if (!wanted.ok) return wanted;
    const pet = await this.findPet(rawPetId, petId.value);
    if (!pet.ok) return pet;
    const stored = photoId.value === null ? undefined : await this.photos.find(pet.value, photoId.value);
    if (stored === undefined) return fail(noPhoto(rawPhotoId));
    const file = fileForWidth(stored, wanted.value);
    return ok({ photo: toPhoto(stored), file, bytes: () => this.photos.read(stored.id, file.width) });
  }

  /** `DELETE /v1/pets/{petId}/photos/{photoId}` (admin keys; a client key is refused before anything is looked up). */
  async delete(
    caller: Caller,
    rawPetId: string,
    rawPhotoId: string,
  ): Promise<Result<void, Forbidden | ValidationFailed | NotFound>> {
    if (caller.role !== 'admin') return fail(forbidden('delete'));
    const petId = parseIdSegment(rawPetId, 'petId');
    if (!petId.ok) return petId;
    const photoId = parseIdSegment(rawPhotoId, 'photoId');
    if (!photoId.ok) return photoId;
    const pet = await this.findPet(rawPetId, petId.value);
    if (!pet.ok) return pet;
    if (
      photoId.value === null ||
      !(await this.photos.delete(pet.value, photoId.value, photoRemoved(timestamp(this.clock.now()))))
    )
      return fail(noPhoto(rawPhotoId));
    return ok(undefined);
  }

  /**
   * A withdrawn pet's photos go with it (docs/rules.md §12): every photo of the pet, uploads under
   * way included. Call it after the withdrawal has been decided; when it fails (an outage), the
   * next `sweep` finishes it. Answers how many published photos went.
   */
  removeAllOf(petId: number): Promise<number> {
    return this.photos.deleteAllOf(petId, photoWithdrawn(timestamp(this.clock.now())));
  }

  /**
   * At start: what uploads and removals cut short left behind (uploads started before now, their
   * bytes and places; bytes no photo names), and the photos of pets no longer found (withdrawn
   * while their removal failed). With several processes on one store, an upload under way in
   * another process when this one starts is given up too (it answers 503; a retry uploads again).
   */
  async sweep(): Promise<PhotoSweep & { readonly orphans: number }> {
    const swept = await this.photos.sweep(this.clock.now());
    let orphans = 0;
    for (const petId of await this.photos.pets()) {
      if ((await this.pets.findById(petId)) === undefined)
        orphans += await this.photos.deleteAllOf(petId, photoWithdrawn(timestamp(this.clock.now())));
    }
    return { ...swept, orphans };
  }

  /**
   * Puts the files, then publishes (with the creation token, when there is one); any failure gives
   * the upload up (what that cannot remove, the next sweep does). Answers the photo published: this
   * one, or the one the token already had (the store then gave this upload up); `undefined` when
   * the upload lost its place while it was written (a withdrawal of its pet, a sweep): what it put
   * since is removed.
   */
  private async write(
    upload: PhotoUpload,
    photo: StoredPhoto,
    files: readonly { file: PhotoFile; bytes: Uint8Array }[],
    token: string | undefined,
  ): Promise<StoredPhoto | undefined> {
    let published: PublishOutcome;
    try {
      for (const { file, bytes } of files) await this.photos.putFile(upload, file, bytes);
      // The decisive write records `photo.added` (docs/rules.md §15); a publish answered with the token's earlier photo records nothing.
      published = await this.photos.publish(upload, photo, token, photoAdded(timestamp(this.clock.now())));
    } catch (error) {
      await this.photos.abandon(upload).catch(() => undefined);
      throw error;
    }
    if (published === false) {
      await this.photos.abandon(upload).catch(() => undefined);
      return undefined;
    }
    return published === true ? photo : published.earlier;
  }

  /** The pet is full: 409, unless it is full with the photo an earlier attempt published under the token (since this attempt looked): that photo. */
  private async fullUnless(petId: number, creation: IdempotentCreation | undefined): Promise<Result<Photo, Conflict>> {
    const earlier = creation === undefined ? undefined : await this.photos.findByCreationToken(creation.token);
    return earlier === undefined ? fail(full(petId)) : ok(toPhoto(earlier));
  }

  /** The pet's id when a pet has it (`id` parsed from `raw`; `null`: beyond any id given). */
  private async findPet(raw: string, id: number | null): Promise<Result<number, NotFound>> {
    if (id === null || (await this.pets.findById(id)) === undefined) return fail(noPet(raw));
    return ok(id);
  }
}

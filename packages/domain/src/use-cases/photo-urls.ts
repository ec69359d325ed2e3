import type { Caller } from '../auth/api-key.js';
import type { Conflict, Forbidden } from '../errors.js';
import type { Clock } from '../ports/clock.port.js';
import type { Digests } from '../ports/digests.port.js';
import type { PhotoLinks, PhotoView } from '../ports/photo-links.port.js';
import type { PhotoUrlSecretStore } from '../ports/photo-url-secret-store.port.js';
import type { Random } from '../ports/random.port.js';
import type { Photo } from '../photo/photo.js';
import { srcsetOf } from '../photo/links.js';
import {
  generatePhotoUrlSecret,
  PHOTO_SIGNATURE_LENGTH,
  signatureHolds,
  signedPhotoUrl,
  signPhoto,
} from '../photo/signature.js';
import { fail, ok, type Result } from '../result.js';

/** The longest a process uses a secret it read from the store: a rotation is in force everywhere within it. */
const PHOTO_URL_SECRET_MAX_AGE_MS = 1_000;
/** Views kept for the pages asked again (about 300 bytes each): past this many, the cache starts over. */
const VIEW_CACHE_MAX = 50_000;

/** Whether two records are of the same photo with the same fields a view shows. */
const samePhoto = (a: Photo, b: Photo): boolean =>
  a.id === b.id &&
  a.petId === b.petId &&
  a.width === b.width &&
  a.height === b.height &&
  a.contentType === b.contentType;

/** Where the signing secret comes from (docs/rules.md §16): the setting, or the store (made there at first use). */
export type PhotoUrlSecretSource = { readonly setting: string } | { readonly store: PhotoUrlSecretStore };

export interface PhotoUrlsOptions {
  readonly digests: Digests;
  readonly random: Random;
  readonly clock: Clock;
  /** `PETSTORE_PUBLIC_URL` (an origin, no path), or `''`: the URLs then start with `/v1/`. */
  readonly base?: string;
}

const forbidden: Forbidden = { code: 'forbidden', message: 'this operation needs an admin key' };
const fromSetting: Conflict = {
  code: 'conflict',
  message:
    'the photo URL signing secret comes from the setting PETSTORE_PHOTO_URL_SECRET: change the setting and restart every process to rotate it',
};

/**
 * Signed photo URLs (docs/rules.md §16): signs the URLs of `expand=photos`, checks the signature of
 * a keyless request, and rotates a kept secret. The secret is read from the store at most once per
 * `PHOTO_URL_SECRET_MAX_AGE_MS` (concurrent requests share the read), so a request costs no store
 * read, and a rotation made by any process is in force here within that bound. Nothing here holds
 * whether a photo exists: that is read on every request (§13).
 */
export class PhotoUrls implements PhotoLinks {
  private cached: { readonly secret: string; readonly until: number } | undefined;
  private reading: Promise<string> | undefined;
  /** Bumped by each rotation here: a read that started before one must not cache the old secret. */
  private rotations = 0;
  /**
   * The views made under `viewsSecret`, by photo id: an HMAC costs more than the rest of a page's
   * work per photo, and the same pages are asked again and again. A view is a function of the
   * secret and of the photo's fields, which never change for an id; it says nothing of whether the
   * photo still exists (its record was just read for the page).
   */
  private readonly views = new Map<number, { readonly photo: Photo; readonly view: PhotoView }>();
  private viewsSecret: string | undefined;
  private readonly base: string;

  constructor(
    private readonly source: PhotoUrlSecretSource,
    private readonly options: PhotoUrlsOptions,
  ) {
    this.base = options.base ?? '';
  }

  async links(photos: readonly Photo[]): Promise<readonly PhotoView[]> {
    if (photos.length === 0) return [];
    const secret = await this.secret();
    if (secret !== this.viewsSecret) {
      this.views.clear();
      this.viewsSecret = secret;
    }
    return photos.map((photo) => {
      const kept = this.views.get(photo.id);
      if (kept !== undefined && samePhoto(kept.photo, photo)) return kept.view;
      const view = this.view(secret, photo);
      if (this.views.size >= VIEW_CACHE_MAX) this.views.clear();
      this.views.set(photo.id, { photo, view });
      return view;
    });
  }

  private view(secret: string, photo: Photo): PhotoView {
    const signature = signPhoto(this.options.digests, secret, String(photo.petId), String(photo.id));
    const url = signedPhotoUrl(this.base, photo.petId, photo.id, signature);
    // Frozen: a value handed out again for every page that shows the photo (an adapter may keep what it makes of it).
    return Object.freeze({
      id: photo.id,
      contentType: photo.contentType,
      width: photo.width,
      height: photo.height,
      url,
      srcset: srcsetOf(url, photo.width),
    });
  }

  /**
   * Whether `signature` is the one of the photo at `/v1/pets/{petId}/photos/{photoId}` (the ids as
   * the path spells them) under the secret in force. A signature of the wrong length is refused
   * before the secret is even read.
   */
  async verify(petId: string, photoId: string, signature: string): Promise<boolean> {
    if (signature.length !== PHOTO_SIGNATURE_LENGTH) return false;
    return signatureHolds(this.options.digests, await this.secret(), petId, photoId, signature);
  }

  /**
   * A new secret in the store: every URL made before stops working (in this process at once, in
   * the others within `PHOTO_URL_SECRET_MAX_AGE_MS`). `forbidden` for anyone but an admin key,
   * before anything else; `conflict` when the secret is the setting's.
   */
  async rotate(caller: Caller | undefined): Promise<Result<void, Forbidden | Conflict>> {
    if (caller?.role !== 'admin') return fail(forbidden);
    if (!('store' in this.source)) return fail(fromSetting);
    const secret = generatePhotoUrlSecret(this.options.random);
    const now = this.options.clock.now();
    await this.source.store.rotate(secret);
    // Stryker disable next-line UpdateOperator: a read in flight only asks whether the counter moved, and `--` moves it too
    this.rotations++;
    this.cached = { secret, until: now + PHOTO_URL_SECRET_MAX_AGE_MS };
    return ok(undefined);
  }

  /** The secret in force: the setting's, or the store's as read at most `PHOTO_URL_SECRET_MAX_AGE_MS` ago. */
  private secret(): Promise<string> {
    if ('setting' in this.source) return Promise.resolve(this.source.setting);
    const cached = this.cached;
    if (cached !== undefined && this.options.clock.now() < cached.until) return Promise.resolve(cached.secret);
    this.reading ??= this.readStore(this.source.store).finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readStore(store: PhotoUrlSecretStore): Promise<string> {
    const startedAt = this.options.clock.now();
    const rotations = this.rotations;
    const secret = (await store.read()) ?? (await store.create(generatePhotoUrlSecret(this.options.random)));
    // Counted from before the read: the secret is never used longer than the bound after the store held it.
    if (rotations === this.rotations) this.cached = { secret, until: startedAt + PHOTO_URL_SECRET_MAX_AGE_MS };
    // Stryker disable next-line OptionalChaining: `cached` is set here, by this read or by the rotation that moved the counter (in the same turn)
    return this.cached?.secret ?? secret;
  }
}

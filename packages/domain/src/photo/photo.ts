/**
 * Photos of the animals (docs/rules.md §13): the rules, as data. The bytes themselves live behind
 * the `PhotoStore` port, the image work behind the `ImageProcessor` port.
 */

/** The image types a photo may be sent and stored in, by their media type. */
export const PHOTO_CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export type PhotoContentType = (typeof PHOTO_CONTENT_TYPES)[number];

/** The format names an `ImageProcessor` reads and writes, by media type. */
export const IMAGE_FORMATS: Readonly<Record<PhotoContentType, ImageFormat>> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
};
export type ImageFormat = 'jpeg' | 'png' | 'webp';

/** The largest upload body: 10 MiB. */
export const PHOTO_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
/** The most pixels an image may have on either side, as its header declares them. */
export const PHOTO_MAX_SIDE = 10_000;
/** The most pixels an image may have in all, as its header declares them. */
export const PHOTO_MAX_PIXELS = 40_000_000;
/** The longest side a stored photo has: larger images are scaled down to it (never up). */
export const PHOTO_STORED_LONG_SIDE = 4_096;
/** The narrower widths a photo is served in (`?width=`), besides its own. */
export const PHOTO_WIDTHS = [160, 320, 640] as const;
export type PhotoWidth = (typeof PHOTO_WIDTHS)[number];
/** The most photos one pet has (published ones and uploads under way together). */
export const PHOTOS_PER_PET = 12;

/** A photo as the API shows it: `width`, `height` and `bytes` of the stored original. */
export interface Photo {
  readonly id: number;
  readonly petId: number;
  readonly contentType: PhotoContentType;
  readonly width: number;
  readonly height: number;
  readonly bytes: number;
  /** RFC 3339, UTC. */
  readonly createdAt: string;
}

/** One stored rendition of a photo: the original, or one of `PHOTO_WIDTHS` narrower than it. */
export interface PhotoFile {
  readonly width: number;
  readonly height: number;
  readonly bytes: number;
  /** SHA-256 of the file's bytes, lowercase hex: the strong entity tag of the rendition. */
  readonly sha256: string;
}

/** A photo with its files, as the store keeps it: `files[0]` is the original, then ascending width. */
export interface StoredPhoto extends Photo {
  readonly files: readonly PhotoFile[];
}

/** The `Photo` of a stored photo (without its files). */
export const toPhoto = (stored: StoredPhoto): Photo => ({
  id: stored.id,
  petId: stored.petId,
  contentType: stored.contentType,
  width: stored.width,
  height: stored.height,
  bytes: stored.bytes,
  createdAt: stored.createdAt,
});

export const isPhotoContentType = (value: string): value is PhotoContentType =>
  (PHOTO_CONTENT_TYPES as readonly string[]).includes(value);

import { validationFailed, type ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import type { ImageHeader } from '../ports/image-processor.port.js';
import {
  IMAGE_FORMATS,
  isPhotoContentType,
  PHOTO_CONTENT_TYPES,
  PHOTO_MAX_PIXELS,
  PHOTO_MAX_SIDE,
  PHOTO_WIDTHS,
  type ImageFormat,
  type PhotoContentType,
  type PhotoFile,
  type PhotoWidth,
  type StoredPhoto,
} from './photo.js';

const FORMAT_NAMES: Readonly<Record<ImageFormat, string>> = { jpeg: 'JPEG', png: 'PNG', webp: 'WebP' };

/** `1,234,567`: numbers in messages, grouped the same way whatever the platform's locale. */
const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** The three types, as a message lists them. */
export const PHOTO_TYPES_TEXT = PHOTO_CONTENT_TYPES.join(', ');

/**
 * The media type of a `Content-Type` header value (parameters and case ignored), when it is one of
 * the three photo types; `undefined` otherwise (a 415).
 */
export const photoContentTypeOf = (header: string | undefined): PhotoContentType | undefined => {
  const media = (header ?? '').split(';')[0]!.trim().toLowerCase();
  return isPhotoContentType(media) ? media : undefined;
};

/**
 * The header rules of docs/rules.md §13, checked before a single pixel is decoded: the bytes are
 * an image of the declared type, a still one, at most `PHOTO_MAX_SIDE` pixels a side and
 * `PHOTO_MAX_PIXELS` in all (as the header declares them, before any turn by orientation).
 * `header` is `undefined` when the bytes are not an image the processor can read at all.
 */
export const checkImageHeader = (
  header: ImageHeader | undefined,
  declared: PhotoContentType,
): Result<ImageHeader, ValidationFailed> => {
  const want = IMAGE_FORMATS[declared];
  if (header === undefined) {
    return fail(
      validationFailed(
        'body',
        `the body is not a ${FORMAT_NAMES[want]} image (its Content-Type says ${declared}); send the image's own bytes`,
      ),
    );
  }
  if (header.format !== want) {
    const found = header.format in FORMAT_NAMES ? `a ${FORMAT_NAMES[header.format as ImageFormat]}` : 'another kind of';
    return fail(
      validationFailed(
        'body',
        `the body is ${found} image, not the ${FORMAT_NAMES[want]} its Content-Type (${declared}) declares`,
      ),
    );
  }
  if (header.frames > 1)
    return fail(validationFailed('body', `the image is animated (${header.frames} frames); send a still image`));
  const { width, height } = header;
  if (!(width >= 1 && height >= 1)) return fail(validationFailed('body', 'the image declares no pixels'));
  if (width > PHOTO_MAX_SIDE || height > PHOTO_MAX_SIDE) {
    return fail(
      validationFailed(
        'body',
        `the image is ${width} × ${height} pixels; at most ${grouped(PHOTO_MAX_SIDE)} pixels a side are accepted`,
      ),
    );
  }
  if (width * height > PHOTO_MAX_PIXELS) {
    return fail(
      validationFailed(
        'body',
        `the image is ${width} × ${height} = ${grouped(width * height)} pixels; at most ${grouped(PHOTO_MAX_PIXELS)} pixels in all are accepted`,
      ),
    );
  }
  return ok(header);
};

/**
 * The size of an image of `width` × `height` once its long side is at most `maxLongSide`: the
 * same size when it already is, else scaled down with its aspect kept (each side rounded, at
 * least 1). The processor may differ by one pixel in the short side from its own rounding.
 */
export const fitLongSide = (width: number, height: number, maxLongSide: number): { width: number; height: number } => {
  const long = Math.max(width, height);
  if (long <= maxLongSide) return { width, height };
  const scale = maxLongSide / long;
  return width >= height
    ? { width: maxLongSide, height: Math.max(1, Math.round(height * scale)) }
    : { width: Math.max(1, Math.round(width * scale)), height: maxLongSide };
};

/** The widths made for a stored photo `width` pixels wide: those of `PHOTO_WIDTHS` narrower than it (a wider one would be an enlargement). */
export const widthsBelow = (width: number): readonly PhotoWidth[] => PHOTO_WIDTHS.filter((w) => w < width);

/**
 * `?width=` of `GET …/photos/{photoId}`: absent (the original), or exactly `160`, `320` or `640`;
 * anything else, the parameter repeated included, is a `validation_failed`.
 */
export const parsePhotoWidth = (raw: readonly string[]): Result<PhotoWidth | undefined, ValidationFailed> => {
  if (raw.length === 0) return ok(undefined);
  const width = PHOTO_WIDTHS.find((w) => raw.length === 1 && String(w) === raw[0]);
  return width === undefined
    ? fail(validationFailed('width', `width must be one of ${PHOTO_WIDTHS.join(', ')}, given once`))
    : ok(width);
};

/** The file a `width` asks for: that width when the photo was made in it, else (the photo is not wider) the original. */
export const fileForWidth = (photo: StoredPhoto, width: PhotoWidth | undefined): PhotoFile => {
  const original = photo.files[0]!;
  if (width === undefined) return original;
  return photo.files.find((file) => file.width === width) ?? original;
};

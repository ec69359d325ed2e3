import type { ImageFormat } from '../photo/photo.js';

/** What an image's header says, read without decoding a single pixel. */
export interface ImageHeader {
  /** The format the bytes are in (`jpeg`, `png`, `webp`, or whatever else the processor recognised, e.g. `gif`). */
  readonly format: string;
  /** Pixels as stored, before any turn by the orientation tag. */
  readonly width: number;
  readonly height: number;
  /** Frames (pages) of the image: more than 1 for an animation. */
  readonly frames: number;
  /** The EXIF orientation tag (1–8; 1 when there is none). */
  readonly orientation: number;
}

/** An image the processor encoded: its bytes and its size in pixels. */
export interface EncodedImage {
  readonly bytes: Uint8Array;
  readonly width: number;
  readonly height: number;
}

/**
 * The image work (docs/rules.md §13), as a port: the domain holds the rules (types, limits, sizes),
 * an adapter (sharp) does the decoding and encoding, off the event loop's thread, with a bound on
 * how many images it works on at once. Every method may throw `StoreUnavailableError` when the
 * processor cannot take more work right now (a 503: retry later).
 */
export interface ImageProcessor {
  /** The header of `bytes`, read without decoding the pixels (a decompression bomb costs nothing here); `undefined` when they are not an image it reads. */
  inspect(bytes: Uint8Array): Promise<ImageHeader | undefined>;
  /**
   * Decodes `bytes` (an image in `format`, already inspected), turns it upright by its orientation
   * tag, scales it down so that its long side is at most `maxLongSide` (never up), and encodes it
   * again in `format` with no metadata at all (no EXIF, XMP, IPTC, ICC profile or comment); colours
   * an embedded ICC profile describes are converted to sRGB first (the profile is not simply dropped).
   * `undefined` when the bytes do not decode as a whole (truncated, corrupt).
   */
  normalise(bytes: Uint8Array, format: ImageFormat, maxLongSide: number): Promise<EncodedImage | undefined>;
  /** `bytes` (a normalised image in `format`) scaled to `width` pixels wide, the height in proportion, in `format`, with no metadata. */
  resize(bytes: Uint8Array, format: ImageFormat, width: number): Promise<EncodedImage>;
}

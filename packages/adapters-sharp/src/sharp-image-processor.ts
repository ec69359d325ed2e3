import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, setPriority } from 'node:os';
import sharp, { type Sharp } from 'sharp';
import type { EncodedImage, ImageFormat, ImageHeader, ImageProcessor } from '@petstore/domain';
import { PHOTO_MAX_PIXELS, StoreUnavailableError } from '@petstore/domain';
import { pngFrames } from './png-frames.js';
import { Semaphore } from './semaphore.js';

export interface SharpImageProcessorOptions {
  /**
   * Images decoded or encoded at once. Default: one less than the cores the process may use, at
   * least 1 (1 on a 2-core machine). Each image is worked on by one libvips thread (see below), so
   * image work never takes every core: one is left to the event loop, which keeps serving the
   * other requests while uploads are processed. It also bounds the memory of image work: each
   * image in flight holds at most its decoded pixels (40 Mpx × 4 bytes in the worst case).
   */
  readonly concurrency?: number;
  /**
   * Images waiting for their turn, at most; past it a request is refused with `StoreUnavailableError`
   * (503, retry later). Default 32: room for a burst of uploads (20 at once for one pet are served),
   * while bounding what waiting uploads hold (their bodies, 10 MiB each at most).
   */
  readonly queueLimit?: number;
  /**
   * The niceness (1–19, Linux) libvips' worker threads are given, the threads that decode and
   * encode: higher is a lower priority than the event loop's thread (0, as the process starts).
   * Default 10: when both want a core (a machine with few cores, or shared with other work), the
   * scheduler gives the event loop about nine tenths of it, so that an image being worked on
   * never delays the other requests by much. 0 leaves them as they are. Elsewhere than Linux,
   * nothing is done.
   */
  readonly threadNiceness?: number;
}

/** Where a Linux process lists its threads (`/proc/self/task/<tid>/comm` is a thread's name). */
const TASKS = '/proc/self/task';
/** The name libvips gives its worker threads. */
const VIPS_THREAD = /vips/i;

/**
 * The encoders, with their settings: every one writes no metadata (sharp strips it all unless asked
 * to keep it), in sRGB (sharp converts an image with an embedded ICC profile to sRGB before it drops
 * the profile: the colours are kept, docs/rules.md §13).
 */
const ENCODE: Readonly<Record<ImageFormat, (image: Sharp) => Sharp>> = {
  // No optimised Huffman tables: they need the whole image's coefficients in memory (for 12 MP, about
  // 250 MB at the peak, much of it never given back to the system) and twice the time, for files
  // some 7 % smaller (BENCHMARKS.md, photos).
  jpeg: (image) => image.jpeg({ quality: 82, optimiseCoding: false }),
  png: (image) => image.png({ compressionLevel: 6 }),
  // Effort 2 of 0–6: a 12-megapixel photo in well under a second, a few percent larger than at the default 4.
  webp: (image) => image.webp({ quality: 82, effort: 2 }),
};

/** The formats this processor reads, by their leading bytes: nothing else ever reaches libvips (no SVG, TIFF, GIF or HEIF parser). */
const sniff = (bytes: Uint8Array): ImageFormat | undefined => {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b))
    return 'png';
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  return undefined;
};

/** A view of the bytes that sharp takes without copying them. */
const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);

let configured = false;
/**
 * sharp's process-wide settings, set once: no operation cache (an upload never repeats an
 * operation, and the cache would hold up to 50 MB of decoded images), and one libvips thread per
 * image (the concurrency of the processor then bounds the threads image work uses).
 */
const configureSharp = (): void => {
  if (configured) return;
  configured = true;
  sharp.cache(false);
  sharp.concurrency(1);
};

/**
/**
 * The `ImageProcessor` port on sharp (libvips): every decode and encode runs on libvips' threads,
 * never on the event loop's thread, at a lower priority than it (`threadNiceness`), and at most
 * `concurrency` at once (a semaphore, with a bounded queue). Headers are read without decoding
 * (`metadata()`, and an APNG's frames from its chunks), and only of the three formats.
 */
export class SharpImageProcessor implements ImageProcessor {
  private readonly slots: Semaphore;
  private readonly niceness: number;
  /** Threads already looked at (and lowered, for libvips' own), by id: each is looked at once. */
  private readonly threadsSeen = new Set<string>();

  constructor(options: SharpImageProcessorOptions = {}) {
    configureSharp();
    this.slots = new Semaphore(
      options.concurrency ?? Math.max(1, availableParallelism() - 1),
      options.queueLimit ?? 32,
    );
    this.niceness = process.platform === 'linux' ? (options.threadNiceness ?? 10) : 0;
  }

  /** Images being worked on now, and waiting for their turn. */
  get load(): { readonly running: number; readonly waiting: number } {
    return { running: this.slots.running, waiting: this.slots.waiting };
  }

  async inspect(bytes: Uint8Array): Promise<ImageHeader | undefined> {
    const format = sniff(bytes);
    if (format === undefined) return undefined;
    try {
      // Reads the header only: no pixel is decoded, whatever size it declares (the rules judge the size).
      const meta = await sharp(asBuffer(bytes), { limitInputPixels: false }).metadata();
      if (meta.format !== format || meta.width === undefined || meta.height === undefined) return undefined;
      // libvips reads an animated PNG as a still (one page): its frames are counted from its chunks.
      const frames = Math.max(meta.pages ?? 1, format === 'png' ? pngFrames(bytes) : 1);
      return { format, width: meta.width, height: meta.height, frames, orientation: meta.orientation ?? 1 };
    } catch {
      return undefined;
    }
  }

  normalise(bytes: Uint8Array, format: ImageFormat, maxLongSide: number): Promise<EncodedImage | undefined> {
    return this.work(async () => {
      try {
        // A libvips warning (a truncated or damaged file) fails the decode: half an image is no photo.
        const image = sharp(asBuffer(bytes), {
          failOn: 'warning',
          limitInputPixels: PHOTO_MAX_PIXELS,
          sequentialRead: true,
        })
          .autoOrient()
          .resize({ width: maxLongSide, height: maxLongSide, fit: 'inside', withoutEnlargement: true });
        const { data, info } = await ENCODE[format](image).toBuffer({ resolveWithObject: true });
        return { bytes: data, width: info.width, height: info.height };
      } catch {
        return undefined;
      }
    });
  }

  resize(bytes: Uint8Array, format: ImageFormat, width: number): Promise<EncodedImage> {
    return this.work(async () => {
      const image = sharp(asBuffer(bytes), {
        failOn: 'warning',
        limitInputPixels: PHOTO_MAX_PIXELS,
        sequentialRead: true,
      }).resize({ width });
      const { data, info } = await ENCODE[format](image).toBuffer({ resolveWithObject: true });
      return { bytes: data, width: info.width, height: info.height };
    });
  }

  private work<T>(task: () => Promise<T>): Promise<T> {
    const run = this.slots.run(async () => {
      try {
        return await task();
      } finally {
        // libvips starts its threads as work comes: the ones a task started are lowered once it ends.
        this.lowerImageThreads();
      }
    });
    if (run === undefined)
      return Promise.reject(
        new StoreUnavailableError('the image processor has too many photos waiting; retry shortly'),
      );
    return run;
  }

  /**
   * Gives libvips' worker threads not seen yet the niceness of `threadNiceness` (the event loop's
   * thread and the others keep theirs). A thread's name is read once; a listing of /proc/self/task
   * (a few dozen entries) per image task is all it costs once they are all seen.
   */
  private lowerImageThreads(): void {
    if (this.niceness === 0) return;
    let threads: string[];
    try {
      threads = readdirSync(TASKS);
    } catch {
      return;
    }
    for (const tid of threads) {
      if (this.threadsSeen.has(tid)) continue;
      this.threadsSeen.add(tid);
      try {
        if (VIPS_THREAD.test(readFileSync(`${TASKS}/${tid}/comm`, 'utf8'))) setPriority(Number(tid), this.niceness);
      } catch {
        // Gone meanwhile, or not allowed: it keeps its priority.
      }
    }
  }
}

// Real images for the tests of the photo operations (docs/rules.md §13), made with sharp on the
// spot: nothing is checked in. Each helper says what it makes; `GPS_TRACES` are byte sequences of
// the GPS position written into the EXIF block, which must not survive an upload.
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

export type TestFormat = 'jpeg' | 'png' | 'webp';

export interface TestImageOptions {
  readonly format: TestFormat;
  readonly width: number;
  readonly height: number;
  /** The EXIF orientation tag to write (1–8); none when absent. */
  readonly orientation?: number;
  /** Write an EXIF block with a GPS position (see `GPS_TRACES`) and a camera make. */
  readonly gps?: boolean;
  /** Write an XMP packet and an ICC profile (Display P3). */
  readonly xmpAndIcc?: boolean;
  /** Write a comment: a COM segment (JPEG) or a tEXt chunk (PNG); WebP has no comment block. */
  readonly comment?: string;
  /** Write an IPTC caption (JPEG only: a Photoshop APP13 segment). */
  readonly iptc?: string;
  /** Pixels: one colour (small, fast), or a noisy gradient, as a photo compresses (default `flat`). */
  readonly content?: 'flat' | 'photo';
  /** Seed of the `photo` content. */
  readonly seed?: number;
}

/** The GPS position written by `gps: true`: 48°51'29.64"N 2°17'40.32"E, as EXIF rationals. */
const GPS = { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2964/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4032/100' };
const rationals = (...pairs: number[]): Buffer => {
  const le = Buffer.alloc(pairs.length * 4);
  const be = Buffer.alloc(pairs.length * 4);
  pairs.forEach((n, i) => {
    le.writeUInt32LE(n, i * 4);
    be.writeUInt32BE(n, i * 4);
  });
  return Buffer.concat([le, Buffer.from([0xff]), be]);
};
/**
 * Byte sequences of the GPS position and the camera make as they stand in the EXIF block (the
 * rationals in either byte order, and the ASCII make): an upload must leave none of them in the
 * stored bytes. Each entry is one sequence (the rational ones, little- and big-endian forms).
 */
export const GPS_TRACES: readonly Buffer[] = (() => {
  const lat = rationals(48, 1, 51, 1, 2964, 100);
  const lon = rationals(2, 1, 17, 1, 4032, 100);
  const split = (b: Buffer): Buffer[] => {
    const at = b.indexOf(0xff);
    return [b.subarray(0, at), b.subarray(at + 1)];
  };
  return [...split(lat), ...split(lon), Buffer.from('PhoneCo Ultra')];
})();

/** A deterministic noisy gradient: compresses like a photo does (JPEG about 2–3 bits a pixel). */
const photoPixels = (width: number, height: number, seed: number): Buffer => {
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed >>> 0 || 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      const noise = (state >>> 0) % 24;
      const i = (y * width + x) * 3;
      pixels[i] = ((x * 255) / width + noise) & 255;
      pixels[i + 1] = ((y * 255) / height + noise) & 255;
      pixels[i + 2] = (((x + y) * 128) / (width + height) + 64 + noise) & 255;
    }
  }
  return pixels;
};

const withComment = (image: Buffer, format: TestFormat, comment: string): Buffer => {
  if (format === 'jpeg') {
    const text = Buffer.from(comment, 'latin1');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(text.length + 2);
    // A COM segment right after SOI.
    return Buffer.concat([image.subarray(0, 2), Buffer.from([0xff, 0xfe]), length, text, image.subarray(2)]);
  }
  if (format === 'png') {
    // A tEXt chunk right after IHDR (8 bytes of signature + 25 of IHDR).
    return Buffer.concat([image.subarray(0, 33), pngChunk('tEXt', Buffer.from(`Comment\0${comment}`, 'latin1')), image.subarray(33)]);
  }
  throw new Error('WebP has no comment block');
};

/** `jpeg` with an APP13 segment holding an IPTC record (2:120, the caption) right after SOI. */
const withIptc = (jpeg: Buffer, caption: string): Buffer => {
  const text = Buffer.from(caption, 'latin1');
  const record = Buffer.concat([Buffer.from([0x1c, 0x02, 0x78, text.length >> 8, text.length & 255]), text]);
  const padded = record.length % 2 === 0 ? record : Buffer.concat([record, Buffer.alloc(1)]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(record.length);
  const body = Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), Buffer.from('8BIM', 'latin1'), Buffer.from([0x04, 0x04, 0, 0]), size, padded]);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(body.length + 2);
  return Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xed]), length, body, jpeg.subarray(2)]);
};

/** A real image as the options say. */
export const testImage = async (options: TestImageOptions): Promise<Buffer> => {
  const { format, width, height } = options;
  let image =
    options.content === 'photo'
      ? sharp(photoPixels(width, height, options.seed ?? 1), { raw: { width, height, channels: 3 } })
      : sharp({ create: { width, height, channels: 3, background: { r: 48, g: 128, b: 192 } } });
  if (options.orientation !== undefined) image = image.withMetadata({ orientation: options.orientation });
  if (options.gps === true) image = image.withExifMerge({ IFD0: { Make: 'PhoneCo Ultra' }, IFD3: GPS });
  if (options.xmpAndIcc === true) {
    image = image
      .withIccProfile('p3')
      .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:creator="Shelter camera"/></rdf:RDF></x:xmpmeta>');
  }
  let bytes: Buffer = await image.toFormat(format, format === 'jpeg' ? { quality: 90 } : {}).toBuffer();
  if (options.iptc !== undefined) {
    if (format !== 'jpeg') throw new Error('IPTC is written into JPEG only here');
    bytes = withIptc(bytes, options.iptc);
  }
  return options.comment === undefined ? bytes : withComment(bytes, format, options.comment);
};

/** An animated WebP: `frames` frames of `width` × `height`. */
export const animatedWebp = async (width = 40, height = 30, frames = 3): Promise<Buffer> => {
  const pages = await Promise.all(
    Array.from({ length: frames }, (_, i) => sharp({ create: { width, height, channels: 3, background: { r: 80 * i, g: 200 - 60 * i, b: 90 } } }).png().toBuffer()),
  );
  return sharp(pages, { join: { animated: true } }).webp({ loop: 0, delay: pages.map(() => 100) }).toBuffer();
};

const pngChunk = (type: string, data: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
};

/**
 * A decompression bomb, made by hand: a valid PNG whose IHDR declares `width` × `height` RGB
 * pixels (20,000 × 20,000 = 400 million by default: 1.2 GB decoded) and whose IDAT holds the
 * compressed zeros of its first rows only: a few hundred bytes in all. Refused from its header.
 */
export const pngBomb = (width = 20_000, height = 20_000): Buffer => {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  // compression, filter, interlace: 0
  const rows = Buffer.alloc(8 * (1 + width * 3));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(rows, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
};

/** What sharp finds in the bytes: size, format and every metadata block it knows of. */
export const describeImage = async (bytes: Uint8Array) => {
  const meta = await sharp(bytes).metadata();
  return {
    format: meta.format,
    width: meta.width,
    height: meta.height,
    pages: meta.pages ?? 1,
    orientation: meta.orientation,
    exif: meta.exif !== undefined,
    xmp: meta.xmp !== undefined || meta.xmpAsString !== undefined,
    iptc: meta.iptc !== undefined,
    icc: meta.icc !== undefined,
    comments: meta.comments ?? [],
  };
};

/** Whether `bytes` decode as a whole (every pixel). */
export const decodesWhole = async (bytes: Uint8Array): Promise<boolean> =>
  sharp(bytes, { failOn: 'warning' })
    .raw()
    .toBuffer()
    .then(
      () => true,
      () => false,
    );

/** True when any of `traces` occurs in `bytes`. */
export const containsAny = (bytes: Uint8Array, traces: readonly Uint8Array[]): boolean => {
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return traces.some((trace) => haystack.indexOf(trace) !== -1);
};

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
const GPS = {
  GPSLatitudeRef: 'N',
  GPSLatitude: '48/1 51/1 2964/100',
  GPSLongitudeRef: 'E',
  GPSLongitude: '2/1 17/1 4032/100',
};
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
    return Buffer.concat([
      image.subarray(0, 33),
      pngChunk('tEXt', Buffer.from(`Comment\0${comment}`, 'latin1')),
      image.subarray(33),
    ]);
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
  const body = Buffer.concat([
    Buffer.from('Photoshop 3.0\0', 'latin1'),
    Buffer.from('8BIM', 'latin1'),
    Buffer.from([0x04, 0x04, 0, 0]),
    size,
    padded,
  ]);
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
      .withXmp(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:creator="Shelter camera"/></rdf:RDF></x:xmpmeta>',
      );
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
    Array.from({ length: frames }, (_, i) =>
      sharp({ create: { width, height, channels: 3, background: { r: 80 * i, g: 200 - 60 * i, b: 90 } } })
        .png()
        .toBuffer(),
    ),
  );
  return sharp(pages, { join: { animated: true } })
    .webp({ loop: 0, delay: pages.map(() => 100) })
    .toBuffer();
};

/** One PNG chunk: its length, type, data and CRC-32 (over type and data), as the PNG specification lays it out. */
const pngChunk = (type: string, data: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An IHDR of an 8-bit RGB image, not interlaced. */
const rgbHeader = (width: number, height: number): Buffer => {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  // compression, filter, interlace: 0
  return ihdr;
};

/** The compressed rows of a `width` × `height` RGB image of one colour, each row with filter 0 (None): the IDAT or fdAT data. */
const flatRows = (width: number, height: number, [r, g, b]: readonly [number, number, number]): Buffer => {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([r, g, b], 1 + x * 3);
  return deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
};

/** The colour of frame `i` of `animatedPng`: red, green, blue, then around again. */
export const apngFrameColour = (i: number): [number, number, number] =>
  [
    [220, 30, 30],
    [30, 200, 60],
    [40, 60, 210],
  ][i % 3] as [number, number, number];

/**
 * An animated PNG made by hand, chunk by chunk, as the APNG specification (1.0) lays it out:
 * IHDR; `acTL` (num_frames = `frames`, num_plays = 0: forever) before the image data; then for each
 * frame an `fcTL` (its sequence number, the full size at 0,0, a delay of 1/10 s, no dispose, source
 * blend), the first frame's pixels in `IDAT` (so it is also the default image a PNG decoder shows),
 * the others in `fdAT` (a sequence number, then the compressed rows); IEND. Every chunk has its
 * CRC; sequence numbers run 0, 1, 2… across `fcTL` and `fdAT`. Frame `i` is `apngFrameColour(i)`.
 */
export const animatedPng = (width = 40, height = 30, frames = 3): Buffer => {
  const actl = Buffer.alloc(8);
  actl.writeUInt32BE(frames, 0);
  actl.writeUInt32BE(0, 4);
  let sequence = 0;
  const fctl = (): Buffer => {
    const data = Buffer.alloc(26);
    data.writeUInt32BE(sequence++, 0);
    data.writeUInt32BE(width, 4);
    data.writeUInt32BE(height, 8);
    data.writeUInt32BE(0, 12); // x offset
    data.writeUInt32BE(0, 16); // y offset
    data.writeUInt16BE(1, 20); // delay numerator
    data.writeUInt16BE(10, 22); // delay denominator: 1/10 s
    data[24] = 0; // dispose: none
    data[25] = 0; // blend: source
    return pngChunk('fcTL', data);
  };
  const chunks = [PNG_SIGNATURE, pngChunk('IHDR', rgbHeader(width, height)), pngChunk('acTL', actl)];
  for (let i = 0; i < frames; i++) {
    chunks.push(fctl());
    const rows = flatRows(width, height, apngFrameColour(i));
    if (i === 0) {
      chunks.push(pngChunk('IDAT', rows));
    } else {
      const number = Buffer.alloc(4);
      number.writeUInt32BE(sequence++);
      chunks.push(pngChunk('fdAT', Buffer.concat([number, rows])));
    }
  }
  chunks.push(pngChunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(chunks);
};

/** The chunks of a PNG, in order: type, data, and whether the stored CRC-32 is right. */
export const pngChunks = (png: Uint8Array): { type: string; data: Buffer; crcOk: boolean }[] => {
  const bytes = Buffer.from(png.buffer, png.byteOffset, png.length);
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG');
  const chunks: { type: string; data: Buffer; crcOk: boolean }[] = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    chunks.push({
      type,
      data,
      crcOk: bytes.readUInt32BE(at + 8 + length) === crc32(bytes.subarray(at + 4, at + 8 + length)) >>> 0,
    });
    at += 12 + length;
  }
  return chunks;
};

/** `png` with a chunk of `type` and `data` inserted right after its IHDR (8 bytes of signature and 25 of IHDR), or right before its IEND (its last 12 bytes). */
export const withPngChunk = (
  png: Buffer,
  type: string,
  data: Buffer,
  where: 'after IHDR' | 'before IEND' = 'after IHDR',
): Buffer => {
  const at = where === 'after IHDR' ? 33 : png.length - 12;
  return Buffer.concat([png.subarray(0, at), pngChunk(type, data), png.subarray(at)]);
};

/**
 * A still PNG made by hand: `width` × `height` pixels of the colour `rgb` (rows with filter 0, so the
 * stored values are exactly `rgb`), with an `iCCP` chunk holding the ICC profile `icc` when given
 * (named `profile`, zlib-compressed, as the PNG specification has it) and no other ancillary chunk.
 */
export const flatPng = (width: number, height: number, rgb: readonly [number, number, number], icc?: Buffer): Buffer =>
  Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', rgbHeader(width, height)),
    ...(icc === undefined
      ? []
      : [pngChunk('iCCP', Buffer.concat([Buffer.from('profile\0\0', 'latin1'), deflateSync(icc)]))]),
    pngChunk('IDAT', flatRows(width, height, rgb)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);

/**
 * A decompression bomb, made by hand: a valid PNG whose IHDR declares `width` × `height` RGB
 * pixels (20,000 × 20,000 = 400 million by default: 1.2 GB decoded) and whose IDAT holds the
 * compressed zeros of its first rows only: a few hundred bytes in all. Refused from its header.
 */
export const pngBomb = (width = 20_000, height = 20_000): Buffer => {
  const rows = Buffer.alloc(8 * (1 + width * 3));
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', rgbHeader(width, height)),
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

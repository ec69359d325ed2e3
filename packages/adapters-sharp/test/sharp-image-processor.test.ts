// The image port on sharp (docs/rules.md §13), with real images made here: headers read without
// decoding, photos turned upright, scaled down, re-encoded without any metadata; bounded work.
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { expect } from 'chai';
import fc from 'fast-check';
import sharp from 'sharp';
import {
  fitLongSide,
  PHOTO_STORED_LONG_SIDE,
  PhotoLibrary,
  StoreUnavailableError,
  widthsBelow,
  type Caller,
  type ImageProcessor,
  type PhotoContentType,
} from '@petstore/domain';
import { collectPhotoBytes, ManualClock, nodeDigests } from '@petstore/domain/testing';
import { PhotoStoreInMemory } from '@petstore/adapters-memory';
import { SharpImageProcessor } from '../src/index.js';
import { Semaphore } from '../src/semaphore.js';
import { inflateSync } from 'node:zlib';
import { pngFrames } from '../src/png-frames.js';
import {
  animatedPng,
  animatedWebp,
  apngFrameColour,
  containsAny,
  decodesWhole,
  describeImage,
  flatPng,
  GPS_TRACES,
  pngBomb,
  pngChunks,
  testImage,
  withPngChunk,
  type TestFormat,
} from '../test-support/index.js';

const images = new SharpImageProcessor();
const TYPES: Readonly<Record<TestFormat, PhotoContentType>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
};

const noMetadata = async (bytes: Uint8Array): Promise<void> => {
  const found = await describeImage(bytes);
  expect(found, 'no metadata block of any kind').to.deep.include({
    exif: false,
    xmp: false,
    iptc: false,
    icc: false,
    comments: [],
  });
  expect(found.orientation ?? 1).to.equal(1);
};

describe('SharpImageProcessor (docs/rules.md §13)', function () {
  this.timeout(60_000);

  describe('inspect: the header, without decoding', () => {
    it('reads format, size, frames and orientation of JPEG, PNG and WebP', async () => {
      expect(
        await images.inspect(await testImage({ format: 'jpeg', width: 64, height: 48, orientation: 6 })),
      ).to.deep.equal({
        format: 'jpeg',
        width: 64,
        height: 48,
        frames: 1,
        orientation: 6,
      });
      expect(await images.inspect(await testImage({ format: 'png', width: 30, height: 70 }))).to.deep.equal({
        format: 'png',
        width: 30,
        height: 70,
        frames: 1,
        orientation: 1,
      });
      expect(
        await images.inspect(await testImage({ format: 'webp', width: 20, height: 10, orientation: 3 })),
      ).to.deep.include({ format: 'webp', orientation: 3 });
      expect(await images.inspect(await animatedWebp(40, 30, 3))).to.deep.include({
        format: 'webp',
        width: 40,
        height: 30,
        frames: 3,
      });
    });

    it('reads the 20,000 × 20,000 the header of a PNG bomb of a few hundred bytes declares (the rules refuse it; nothing is decoded)', async () => {
      const bomb = pngBomb();
      expect(bomb.length).to.be.below(1_000);
      expect(await images.inspect(bomb)).to.deep.equal({
        format: 'png',
        width: 20_000,
        height: 20_000,
        frames: 1,
        orientation: 1,
      });
      // Decoding it would need 1.2 GB: the same bytes are refused by a decode within the rules' pixel bound.
      expect(await images.normalise(bomb, 'png', PHOTO_STORED_LONG_SIDE)).to.equal(undefined);
    });

    it('counts the frames of an animated PNG (APNG), which libvips reads as a still: a real 3-frame APNG is 3 frames (docs/rules.md §13 refuses it)', async () => {
      const apng = animatedPng(40, 30, 3);
      // A real APNG: every CRC right; acTL (3 frames, forever) before the image data; an fcTL per
      // frame, the first frame in IDAT, the others in fdAT, sequence numbers 0…4 in file order; each
      // frame's data inflates to its 30 rows of 1 + 40 × 3 bytes, of its colour.
      const chunks = pngChunks(apng);
      expect(chunks.map((c) => c.type)).to.deep.equal([
        'IHDR',
        'acTL',
        'fcTL',
        'IDAT',
        'fcTL',
        'fdAT',
        'fcTL',
        'fdAT',
        'IEND',
      ]);
      expect(chunks.every((c) => c.crcOk)).to.equal(true);
      expect([chunks[1]!.data.readUInt32BE(0), chunks[1]!.data.readUInt32BE(4)]).to.deep.equal([3, 0]);
      const sequenced = chunks.filter((c) => c.type === 'fcTL' || c.type === 'fdAT');
      expect(sequenced.map((c) => c.data.readUInt32BE(0))).to.deep.equal([0, 1, 2, 3, 4]);
      for (const fctl of chunks.filter((c) => c.type === 'fcTL'))
        expect([fctl.data.readUInt32BE(4), fctl.data.readUInt32BE(8)]).to.deep.equal([40, 30]);
      const frames = chunks
        .filter((c) => c.type === 'IDAT' || c.type === 'fdAT')
        .map((c) => inflateSync(c.type === 'IDAT' ? c.data : c.data.subarray(4)));
      frames.forEach((rows, i) => {
        expect(rows.length).to.equal(30 * (1 + 40 * 3));
        expect([...rows.subarray(1, 4)], `frame ${i}`).to.deep.equal(apngFrameColour(i));
      });
      // What libvips makes of it: a still (one page) of its default image, the first frame.
      expect(await describeImage(apng)).to.deep.include({ format: 'png', width: 40, height: 30, pages: 1 });
      expect([...(await sharp(apng).raw().toBuffer()).subarray(0, 3)]).to.deep.equal(apngFrameColour(0));

      expect(await images.inspect(apng)).to.deep.equal({
        format: 'png',
        width: 40,
        height: 30,
        frames: 3,
        orientation: 1,
      });
      expect(await images.inspect(animatedPng(16, 16, 2))).to.deep.include({ frames: 2 });
    });

    it('a still PNG stays one frame, whatever unrelated ancillary chunks it carries (tIME, a private chunk, an acTL after the image data, which no decoder plays)', async () => {
      const still = await testImage({ format: 'png', width: 30, height: 20 });
      const time = Buffer.from([0x07, 0xea, 1, 2, 3, 4, 5]);
      const decorated = withPngChunk(
        withPngChunk(withPngChunk(still, 'tIME', time), 'prVt', Buffer.from('shelter')),
        'acTL',
        Buffer.from([0, 0, 0, 3, 0, 0, 0, 0]),
        'before IEND',
      );
      expect(pngChunks(decorated).map((c) => c.type)).to.include.members(['tIME', 'prVt', 'acTL']);
      expect(await images.inspect(decorated)).to.deep.equal({
        format: 'png',
        width: 30,
        height: 20,
        frames: 1,
        orientation: 1,
      });
      expect(await images.normalise(decorated, 'png', PHOTO_STORED_LONG_SIDE)).to.deep.include({
        width: 30,
        height: 20,
      });
    });

    it('pngFrames: acTL before IDAT counts (num_frames, or the fcTL chunks when it says fewer); anything else is one frame; cut or lying bytes end the walk', () => {
      const apng = animatedPng(8, 8, 3);
      expect(pngFrames(apng)).to.equal(3);
      // acTL says 1, three fcTL follow: as many as a player shows.
      const understated = Buffer.from(apng);
      understated.writeUInt32BE(1, 8 + 25 + 8);
      expect(pngFrames(understated)).to.equal(3);
      // An acTL of one frame and one fcTL: a still.
      expect(pngFrames(animatedPng(8, 8, 1))).to.equal(1);
      expect(pngFrames(flatPng(8, 8, [1, 2, 3]))).to.equal(1);
      // Cut anywhere: never past the bytes, never a throw.
      for (let end = 0; end <= apng.length; end += 7) expect(pngFrames(apng.subarray(0, end))).to.be.within(1, 3);
      // IHDR's length running far past the end: the walk stops there (the decoder refuses such a file).
      const lying = Buffer.from(apng);
      lying.writeUInt32BE(0x7fffffff, 8);
      expect(pngFrames(lying)).to.equal(1);
    });

    it('answers undefined for anything but the three formats (GIF, SVG, text, nothing), so no other parser ever sees the bytes', async () => {
      const gif = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
        .gif()
        .toBuffer();
      for (const bytes of [
        gif,
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>'),
        Buffer.from('hello'),
        Buffer.alloc(0),
        Buffer.from([0xff, 0xd8]),
      ]) {
        expect(await images.inspect(bytes)).to.equal(undefined);
      }
    });
  });

  describe('normalise: upright, at most 4,096 px on the long side, same format, no metadata', () => {
    it('turns a JPEG with orientation 6 upright (width and height swapped) and removes its EXIF GPS position, XMP, ICC, IPTC and comment', async () => {
      const sent = await testImage({
        format: 'jpeg',
        width: 64,
        height: 48,
        orientation: 6,
        gps: true,
        xmpAndIcc: true,
        iptc: 'Rex, Paris',
        comment: 'shelter note',
      });
      expect(containsAny(sent, GPS_TRACES), 'the test image carries the GPS position').to.equal(true);
      const out = (await images.normalise(sent, 'jpeg', PHOTO_STORED_LONG_SIDE))!;
      expect(out).to.deep.include({ width: 48, height: 64 });
      expect(await describeImage(out.bytes)).to.deep.include({ format: 'jpeg', width: 48, height: 64 });
      expect(containsAny(out.bytes, GPS_TRACES), 'no byte sequence of the GPS position is left').to.equal(false);
      expect(
        containsAny(out.bytes, [Buffer.from('shelter note'), Buffer.from('Rex, Paris'), Buffer.from('Shelter camera')]),
      ).to.equal(false);
      await noMetadata(out.bytes);
      expect(await decodesWhole(out.bytes)).to.equal(true);
    });

    it('keeps PNG as PNG and WebP as WebP, without their metadata (a PNG tEXt comment too)', async () => {
      for (const format of ['png', 'webp'] as const) {
        const sent = await testImage({
          format,
          width: 50,
          height: 20,
          orientation: 8,
          gps: true,
          xmpAndIcc: true,
          ...(format === 'png' ? { comment: 'png note' } : {}),
        });
        const out = (await images.normalise(sent, format, PHOTO_STORED_LONG_SIDE))!;
        expect(await describeImage(out.bytes)).to.deep.include({ format, width: 20, height: 50 });
        expect(containsAny(out.bytes, [...GPS_TRACES, Buffer.from('png note')])).to.equal(false);
        await noMetadata(out.bytes);
      }
    });

    it('converts the colours of an image with a non-sRGB ICC profile (Display P3) to sRGB, then keeps no profile: the pixels are those of the colour the profile meant, not its raw values', async () => {
      // Display P3 to sRGB by hand: both use the sRGB transfer curve and D65; the 3 × 3 matrix takes
      // linear P3 to linear sRGB (P3 primaries to XYZ, then XYZ to sRGB primaries).
      const linear = (c: number): number => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
      const encoded = (v: number): number =>
        255 *
        (Math.min(1, Math.max(0, v)) <= 0.0031308
          ? 12.92 * Math.max(0, v)
          : 1.055 * Math.min(1, v) ** (1 / 2.4) - 0.055);
      const P3_TO_SRGB = [
        [1.2249401, -0.2249404, 0],
        [-0.0420569, 1.0420571, 0],
        [-0.0196376, -0.0786361, 1.0982735],
      ];
      const p3ToSrgb = (rgb: readonly number[]): number[] =>
        P3_TO_SRGB.map((row) => encoded(row.reduce((sum, m, i) => sum + m * linear(rgb[i]!), 0)));
      const centre = async (bytes: Uint8Array, ignoreIcc = false): Promise<number[]> => {
        const { data, info } = await sharp(bytes, { ignoreIcc }).raw().toBuffer({ resolveWithObject: true });
        const at = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * info.channels;
        return [...data.subarray(at, at + 3)];
      };
      const p3Profile = (
        await sharp({ create: { width: 2, height: 2, channels: 3, background: '#808080' } })
          .withIccProfile('p3')
          .png()
          .toBuffer()
          .then((b) => sharp(b).metadata())
      ).icc!;
      expect(
        p3Profile.includes(Buffer.from('\0s\0P\x003\0C', 'latin1')),
        'a Display P3 profile (its description, in UTF-16: sP3C)',
      ).to.equal(true);
      const sent: { format: TestFormat; bytes: Buffer }[] = [
        // Made by hand: the stored values are exactly (202, 59, 50), the profile the only hint of what they mean.
        { format: 'png', bytes: flatPng(32, 32, [202, 59, 50], p3Profile) },
        // Made by sharp: an sRGB colour written in P3 (its values converted, the profile attached).
        ...(['jpeg', 'png', 'webp'] as const).map((format) => ({ format, bytes: Buffer.alloc(0) })),
      ];
      for (const item of sent.slice(1)) {
        item.bytes = await sharp({
          create: { width: 32, height: 32, channels: 3, background: { r: 220, g: 40, b: 40 } },
        })
          .withIccProfile('p3')
          .toFormat(item.format, item.format === 'webp' ? { lossless: true } : { quality: 95 })
          .toBuffer();
      }
      for (const { format, bytes } of sent) {
        expect(await describeImage(bytes), `${format}: sent with its profile`).to.deep.include({ icc: true });
        const stored = await centre(bytes, true);
        const meant = p3ToSrgb(stored);
        // The raw values and the colour they mean differ by far more than the tolerance: a profile only dropped would fail.
        expect(
          Math.max(...meant.map((v, i) => Math.abs(v - stored[i]!))),
          `${format}: P3 ${stored} means sRGB ${meant.map(Math.round)}`,
        ).to.be.above(15);
        const out = (await images.normalise(bytes, format, PHOTO_STORED_LONG_SIDE))!;
        await noMetadata(out.bytes);
        const got = await centre(out.bytes);
        got.forEach((v, i) =>
          expect(
            Math.abs(v - meant[i]!),
            `${format}: channel ${i} of ${got} against ${meant.map((m) => m.toFixed(1))}`,
          ).to.be.at.most(3),
        );
      }
    });

    it('scales a long side over 4,096 down to 4,096 (aspect kept) and never enlarges a small image', async () => {
      const wide = (await images.normalise(
        await testImage({ format: 'jpeg', width: 5_000, height: 1_000 }),
        'jpeg',
        PHOTO_STORED_LONG_SIDE,
      ))!;
      expect(wide).to.deep.include({ width: 4_096, height: 819 });
      const tall = (await images.normalise(
        await testImage({ format: 'png', width: 40, height: 4_500, orientation: 6 }),
        'png',
        PHOTO_STORED_LONG_SIDE,
      ))!;
      expect(tall).to.deep.include({ width: 4_096, height: 36 });
      const small = (await images.normalise(
        await testImage({ format: 'webp', width: 33, height: 21 }),
        'webp',
        PHOTO_STORED_LONG_SIDE,
      ))!;
      expect(small).to.deep.include({ width: 33, height: 21 });
    });

    it('answers undefined for bytes that do not decode whole: a truncated JPEG, a damaged PNG', async () => {
      const jpeg = await testImage({ format: 'jpeg', width: 300, height: 200, content: 'photo' });
      const truncated = jpeg.subarray(0, Math.floor(jpeg.length * 0.6));
      expect(await images.inspect(truncated), 'its header is still whole').to.deep.include({
        format: 'jpeg',
        width: 300,
      });
      expect(await images.normalise(truncated, 'jpeg', PHOTO_STORED_LONG_SIDE)).to.equal(undefined);
      const png = Buffer.from(await testImage({ format: 'png', width: 100, height: 100, content: 'photo' }));
      png.fill(0x5a, 60, 200);
      expect(await images.normalise(png, 'png', PHOTO_STORED_LONG_SIDE)).to.equal(undefined);
    });
  });

  describe('resize: a narrower width, the height in proportion, no metadata', () => {
    it('makes 640, 320 and 160 of a 1,600 × 1,200 photo, in its format', async () => {
      for (const format of ['jpeg', 'png', 'webp'] as const) {
        const original = (await images.normalise(
          await testImage({ format, width: 1_600, height: 1_200, gps: true }),
          format,
          PHOTO_STORED_LONG_SIDE,
        ))!;
        for (const width of [640, 320, 160]) {
          const out = await images.resize(original.bytes, format, width);
          expect(out).to.deep.include({ width, height: width * 0.75 });
          expect(await describeImage(out.bytes)).to.deep.include({ format, width, height: width * 0.75 });
          await noMetadata(out.bytes);
        }
      }
    });
  });

  describe('bounded work', () => {
    it('a semaphore runs at most its limit at once, the rest in arrival order, and refuses past its queue', async () => {
      const gate = new Semaphore(2, 3);
      let running = 0;
      let most = 0;
      const order: number[] = [];
      const releases: (() => void)[] = [];
      const task = (i: number) => () =>
        new Promise<number>((resolve) => {
          running++;
          most = Math.max(most, running);
          order.push(i);
          releases.push(() => {
            running--;
            resolve(i);
          });
        });
      const runs = [0, 1, 2, 3, 4].map((i) => gate.run(task(i)));
      expect(runs.every((r) => r !== undefined)).to.equal(true);
      expect(gate.run(task(5)), 'the queue holds 3').to.equal(undefined);
      expect([gate.running, gate.waiting]).to.deep.equal([2, 3]);
      while (releases.length > 0) {
        releases.shift()!();
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(await Promise.all(runs)).to.deep.equal([0, 1, 2, 3, 4]);
      expect(order).to.deep.equal([0, 1, 2, 3, 4]);
      expect(most).to.equal(2);
      expect([gate.running, gate.waiting]).to.deep.equal([0, 0]);
      expect(() => new Semaphore(0, 1)).to.throw(RangeError);
    });

    it('works on at most `concurrency` images at once; past its queue it refuses with StoreUnavailableError (a 503)', async () => {
      const one = new SharpImageProcessor({ concurrency: 1, queueLimit: 2 });
      const photo = await testImage({ format: 'jpeg', width: 1_200, height: 900, content: 'photo' });
      const busy = [
        one.normalise(photo, 'jpeg', 4_096),
        one.normalise(photo, 'jpeg', 4_096),
        one.normalise(photo, 'jpeg', 4_096),
      ];
      expect(one.load).to.deep.equal({ running: 1, waiting: 2 });
      let refused: unknown;
      await one.resize(photo, 'jpeg', 160).catch((error: unknown) => (refused = error));
      expect(refused).to.be.instanceOf(StoreUnavailableError);
      for (const done of await Promise.all(busy)) expect(done).to.deep.include({ width: 1_200, height: 900 });
      expect(one.load).to.deep.equal({ running: 0, waiting: 0 });
    });

    it("decodes and encodes on libvips' threads at a lower priority than the event loop's (niceness 10, Linux); the other threads keep theirs", async function () {
      // Thread priorities are set through /proc/self/task (Linux only); elsewhere the adapter leaves them
      // as they are, so there is nothing to check: skipped, with that reason in the title.
      if (process.platform !== 'linux') {
        this.test!.title += ' — skipped: not Linux (no /proc/self/task)';
        this.skip();
      }
      const threadNames = (): Map<number, string> => {
        const names = new Map<number, string>();
        for (const tid of readdirSync('/proc/self/task')) {
          try {
            names.set(Number(tid), readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim());
          } catch {
            // ended meanwhile
          }
        }
        return names;
      };
      const mainBefore = getPriority(process.pid);
      const processor = new SharpImageProcessor();
      const photo = await testImage({ format: 'jpeg', width: 1_200, height: 900, content: 'photo' });
      await processor.normalise(photo, 'jpeg', 600);
      await processor.resize(photo, 'jpeg', 160);
      const names = threadNames();
      const vips = [...names].filter(([, name]) => /vips/i.test(name));
      expect(vips, 'libvips has worker threads').not.to.deep.equal([]);
      for (const [tid, name] of vips) expect(getPriority(tid), `${name} ${tid}`).to.equal(10);
      // The event loop's thread (its id is the process's) keeps its priority.
      expect(getPriority(process.pid)).to.equal(mainBefore);
      for (const [tid, name] of names)
        if (!/vips/i.test(name) && tid !== process.pid) expect(getPriority(tid), `${name} ${tid}`).to.equal(mainBefore);
    });
  });
});

describe('PhotoLibrary with sharp and the memory store: property over random real images (docs/rules.md §13)', function () {
  this.timeout(300_000);
  const admin: Caller = { keyId: 'key_00000000000a', role: 'admin' };
  /** Image sizes that stay cheap to make: a long thin side past 4,096 now and then, else up to 700 px. */
  const sizeArb = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({ width: fc.integer({ min: 1, max: 700 }), height: fc.integer({ min: 1, max: 700 }) }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 4_097, max: 6_000 }), fc.integer({ min: 1, max: 40 }), fc.boolean())
        .map(([long, short, wide]) => (wide ? { width: long, height: short } : { width: short, height: long })),
    },
  );

  it('property: any valid image uploads as a photo that decodes whole, has no metadata, is upright and within 4,096 px, with its narrower widths in proportion', () => {
    const clock = new ManualClock();
    return fc.assert(
      fc.asyncProperty(
        fc.record({
          format: fc.constantFrom<TestFormat>('jpeg', 'png', 'webp'),
          size: sizeArb,
          orientation: fc.integer({ min: 1, max: 8 }),
          gps: fc.boolean(),
          xmpAndIcc: fc.boolean(),
          photo: fc.boolean(),
          seed: fc.integer({ min: 1, max: 1_000_000 }),
        }),
        async ({ format, size, orientation, gps, xmpAndIcc, photo, seed }) => {
          const store = new PhotoStoreInMemory();
          const processor: ImageProcessor = images;
          const library = new PhotoLibrary({ findById: async (id) => ({ id }) }, store, processor, clock, nodeDigests);
          const sent = await testImage({
            format,
            ...size,
            orientation,
            gps,
            xmpAndIcc,
            content: photo ? 'photo' : 'flat',
            seed,
          });
          const result = await library.upload(admin, '1', TYPES[format], async () => sent);
          if (!result.ok) throw new Error(`upload refused: ${result.error.message}`);
          const turned = orientation >= 5 ? { width: size.height, height: size.width } : size;
          const want = fitLongSide(turned.width, turned.height, PHOTO_STORED_LONG_SIDE);
          const got = result.value;
          expect(got.contentType).to.equal(TYPES[format]);
          expect(Math.abs(got.width - want.width), `width ${got.width} for ${want.width}`).to.be.at.most(1);
          expect(Math.abs(got.height - want.height), `height ${got.height} for ${want.height}`).to.be.at.most(1);
          expect(Math.max(got.width, got.height)).to.be.at.most(PHOTO_STORED_LONG_SIDE);
          const [stored] = await store.list(1);
          expect(stored!.files.map((f) => f.width)).to.deep.equal([got.width, ...widthsBelow(got.width)]);
          for (const file of stored!.files) {
            const bytes = await collectPhotoBytes((await store.read(got.id, file.width))!);
            expect(await decodesWhole(bytes), `file ${file.width} decodes`).to.equal(true);
            expect(await describeImage(bytes)).to.deep.include({
              format,
              width: file.width,
              height: file.height,
              pages: 1,
            });
            await noMetadata(bytes);
            expect(containsAny(bytes, GPS_TRACES)).to.equal(false);
            // The height in proportion (each side at least one pixel).
            expect(
              Math.abs(file.height - Math.max(1, Math.round((got.height * file.width) / got.width))),
            ).to.be.at.most(1);
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});

// The photo rules of docs/rules.md §13 as plain functions, and the order in which the use case applies them.
import { expect } from 'chai';
import fc from 'fast-check';
import {
  checkImageHeader,
  fileForWidth,
  fitLongSide,
  parsePhotoWidth,
  PHOTO_CONTENT_TYPES,
  PHOTO_MAX_PIXELS,
  PHOTO_MAX_SIDE,
  PHOTO_WIDTHS,
  photoContentTypeOf,
  PhotoLibrary,
  widthsBelow,
  type Caller,
  type ImageHeader,
  type PhotoStore,
  type StoredPhoto,
} from '../src/index.js';
import { ManualClock, TextImageProcessor, textImage, nodeDigests } from '../test-support/index.js';
import { expectRefusal } from './support/refusals.js';

const header = (over: Partial<ImageHeader> = {}): ImageHeader => ({
  format: 'jpeg',
  width: 800,
  height: 600,
  frames: 1,
  orientation: 1,
  ...over,
});

describe('photo rules (docs/rules.md §13)', () => {
  it('takes exactly the three image types as Content-Type (parameters and case ignored)', () => {
    expect(PHOTO_CONTENT_TYPES).to.deep.equal(['image/jpeg', 'image/png', 'image/webp']);
    expect(photoContentTypeOf('image/jpeg')).to.equal('image/jpeg');
    expect(photoContentTypeOf('Image/PNG; q=1')).to.equal('image/png');
    expect(photoContentTypeOf(' image/webp ')).to.equal('image/webp');
    for (const other of [
      undefined,
      '',
      'image/gif',
      'image/jpg',
      'application/json',
      'image/jpeg2000',
      'image/*',
      'text/plain',
    ]) {
      expect(photoContentTypeOf(other), String(other)).to.equal(undefined);
    }
  });

  it('refuses from the header alone: not an image, another format, animated, over 10,000 a side, over 40 million pixels', () => {
    const refused = (
      h: ImageHeader | undefined,
      type: 'image/jpeg' | 'image/png' | 'image/webp' = 'image/jpeg',
    ): string => {
      const result = checkImageHeader(h, type);
      if (result.ok) throw new Error('accepted');
      expect(result.error.code).to.equal('validation_failed');
      return result.error.message;
    };
    expect(refused(undefined)).to.match(/not a JPEG image/);
    expect(refused(header({ format: 'png' }))).to.match(/is a PNG image, not the JPEG/);
    expect(refused(header({ format: 'gif' }), 'image/webp')).to.match(/another kind of image, not the WebP/);
    expect(refused(header({ format: 'webp', frames: 3 }), 'image/webp')).to.match(/animated \(3 frames\)/);
    expect(refused(header({ width: 20_000, height: 20_000 }))).to.equal(
      'the image is 20000 × 20000 pixels; at most 10,000 pixels a side are accepted',
    );
    expect(refused(header({ width: 10_001, height: 10 }))).to.match(/a side/);
    expect(refused(header({ width: 8_000, height: 5_001 }))).to.match(
      /40,008,000 pixels; at most 40,000,000 pixels in all/,
    );
    expect(refused(header({ width: 0, height: 5 }))).to.match(/no pixels/);
    expect(checkImageHeader(header({ width: 10_000, height: 4_000 }), 'image/jpeg').ok).to.equal(true);
    expect(checkImageHeader(header({ format: 'png', width: 1, height: 1 }), 'image/png').ok).to.equal(true);
  });

  it('every header refusal is a 400 about the body (field body), saying which rule failed', () => {
    const cases: Array<[ImageHeader | undefined, RegExp]> = [
      [undefined, /not a JPEG image/],
      [header({ format: 'png' }), /is a PNG image/],
      [header({ frames: 2 }), /animated/],
      [header({ width: 5, height: 0 }), /no pixels/],
      [header({ width: 0, height: 5 }), /no pixels/],
      [header({ width: 3, height: 10_001 }), /^the image is 3 × 10001 pixels; at most 10,000 pixels a side/],
      [header({ width: 10_001, height: 3 }), /a side/],
      [header({ width: 7_000, height: 7_000 }), /^the image is 7000 × 7000 = 49,000,000 pixels/],
    ];
    for (const [h, message] of cases)
      expect(expectRefusal(checkImageHeader(h, 'image/jpeg'), 'validation_failed', 'body', JSON.stringify(h))).to.match(
        message,
      );
    // The bounds themselves pass, on either side.
    for (const [width, height] of [
      [10_000, 4_000],
      [4_000, 10_000],
      [1, 10_000],
      [10_000, 1],
      [1, 1],
    ] as const) {
      expect(checkImageHeader(header({ width, height }), 'image/jpeg').ok, `${width} × ${height}`).to.equal(true);
    }
  });

  it('property: a header passes exactly when it is a still image of the declared format within both size bounds', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('jpeg', 'png', 'webp', 'gif'),
        fc.constantFrom(...PHOTO_CONTENT_TYPES),
        fc.integer({ min: 0, max: 25_000 }),
        fc.integer({ min: 0, max: 25_000 }),
        fc.integer({ min: 1, max: 4 }),
        (format, type, width, height, frames) => {
          const passes = checkImageHeader(header({ format, width, height, frames }), type).ok;
          const want =
            format === type.slice(6) &&
            frames === 1 &&
            width >= 1 &&
            height >= 1 &&
            width <= PHOTO_MAX_SIDE &&
            height <= PHOTO_MAX_SIDE &&
            width * height <= PHOTO_MAX_PIXELS;
          expect(passes).to.equal(want);
        },
      ),
    );
  });

  it('property: fitting to a long side keeps a size that fits, else scales down to exactly that side with the aspect kept', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 5_000 }),
        (width, height, side) => {
          const fit = fitLongSide(width, height, side);
          if (Math.max(width, height) <= side) {
            expect(fit).to.deep.equal({ width, height });
            return;
          }
          expect(Math.max(fit.width, fit.height)).to.equal(side);
          expect(Math.min(fit.width, fit.height)).to.be.at.least(1);
          // The short side is the exact proportion, rounded.
          const exact = (Math.min(width, height) * side) / Math.max(width, height);
          expect(Math.abs(Math.min(fit.width, fit.height) - Math.max(1, exact))).to.be.at.most(0.5);
          // The long side stays the long one (a side rounded up to the other may make a square).
          if (width > height) expect(fit.width).to.be.at.least(fit.height);
          if (height > width) expect(fit.height).to.be.at.least(fit.width);
        },
      ),
    );
  });

  it('makes the widths narrower than the photo, and answers a width it does not have with the original', () => {
    expect(widthsBelow(4_096)).to.deep.equal([160, 320, 640]);
    expect(widthsBelow(640)).to.deep.equal([160, 320]);
    expect(widthsBelow(161)).to.deep.equal([160]);
    expect(widthsBelow(160)).to.deep.equal([]);
    const file = (width: number) => ({ width, height: width, bytes: width, sha256: String(width) });
    const photo: StoredPhoto = {
      id: 1,
      petId: 1,
      contentType: 'image/png',
      width: 500,
      height: 500,
      bytes: 500,
      createdAt: '2027-01-01T00:00:00.000Z',
      files: [file(500), file(160), file(320)],
    };
    expect(fileForWidth(photo, undefined).width).to.equal(500);
    expect(fileForWidth(photo, 160).width).to.equal(160);
    expect(fileForWidth(photo, 320).width).to.equal(320);
    expect(fileForWidth(photo, 640).width, 'never wider than the original').to.equal(500);
  });

  it('reads ?width= as exactly one of 160, 320, 640, given once', () => {
    expect(parsePhotoWidth([])).to.deep.equal({ ok: true, value: undefined });
    for (const w of PHOTO_WIDTHS) expect(parsePhotoWidth([String(w)])).to.deep.equal({ ok: true, value: w });
    for (const bad of [
      ['0'],
      ['161'],
      ['0160'],
      ['160.0'],
      ['+160'],
      [''],
      ['abc'],
      ['160', '160'],
      ['1e3'],
      [' 160'],
    ]) {
      expect(expectRefusal(parsePhotoWidth(bad), 'validation_failed', 'width', bad.join('&'))).to.equal(
        'width must be one of 160, 320, 640, given once',
      );
    }
  });
});

describe('PhotoLibrary: the order of the checks of an upload (docs/rules.md §13)', () => {
  const client: Caller = { keyId: 'key_00000000000c', role: 'client' };
  const admin: Caller = { keyId: 'key_00000000000a', role: 'admin' };
  /** A store and a pet lookup that record every call; the store holds nothing (its calls answer empty). */
  const recording = () => {
    const calls: string[] = [];
    const store = new Proxy({} as PhotoStore, {
      get: (_, method: string) => async () => {
        calls.push(`store.${method}`);
        return method === 'list' ? [] : undefined;
      },
    });
    const pets = {
      findById: async (id: number) => {
        calls.push(`pets.findById(${id})`);
        return id === 7 ? { id } : undefined;
      },
    };
    const images = new TextImageProcessor();
    return { calls, images, library: new PhotoLibrary(pets, store, images, new ManualClock(), nodeDigests) };
  };
  const body = textImage({ format: 'jpeg', width: 30, height: 20 });

  it('a client key is refused (403) before anything is looked up or read, whatever the pet, type or body', async () => {
    const { calls, library } = recording();
    let read = false;
    const result = await library.upload(client, 'abc', 'text/plain', async () => {
      read = true;
      return body;
    });
    expect(result.ok === false && result.error.code).to.equal('forbidden');
    const removal = await library.delete(client, '1', '1');
    expect(removal.ok === false && removal.error.code).to.equal('forbidden');
    expect(calls).to.deep.equal([]);
    expect(read).to.equal(false);
  });

  it('then the pet id (400), the media type (415), the pet (404): each before the body is read', async () => {
    const { calls, library } = recording();
    const never = async (): Promise<Uint8Array> => {
      throw new Error('the body was read');
    };
    const codes = [];
    for (const [petId, type] of [
      ['0x1', 'image/gif'],
      ['7', 'image/gif'],
      ['8', 'image/png'],
      ['99999999999999999999', 'image/png'],
    ] as const) {
      const result = await library.upload(admin, petId, type, never);
      codes.push(result.ok ? 'ok' : result.error.code);
    }
    expect(codes).to.deep.equal(['validation_failed', 'unsupported_media_type', 'not_found', 'validation_failed']);
    expect(calls).to.deep.equal(['pets.findById(8)']);
  });

  it('a header the rules refuse never reaches the decoder; an empty body is a 400', async () => {
    const { library, images } = recording();
    const bomb = await library.upload(admin, '7', 'image/jpeg', async () =>
      textImage({ format: 'jpeg', width: 20_000, height: 20_000 }),
    );
    expect(bomb.ok === false && bomb.error.message).to.match(/10,000 pixels a side/);
    const animated = await library.upload(admin, '7', 'image/jpeg', async () =>
      textImage({ format: 'jpeg', width: 20, height: 20, frames: 2 }),
    );
    expect(animated.ok === false && animated.error.code).to.equal('validation_failed');
    expect(images.normalised).to.equal(0);
    const empty = await library.upload(admin, '7', 'image/jpeg', async () => undefined);
    expect(empty.ok === false && empty.error.message).to.match(/body must be the image itself/);
    const broken = await library.upload(admin, '7', 'image/jpeg', async () =>
      textImage({ format: 'jpeg', width: 20, height: 20 }, 'BROKEN'),
    );
    expect(broken.ok === false && broken.error.message).to.match(/does not decode as a whole image\/jpeg image/);
  });
});

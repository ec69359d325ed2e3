// The photo use case of docs/rules.md §13 over a plain model of the PhotoStore port and the text
// image processor of test-support: uploads (limits, types, sizes, the store's refusals and failures,
// the creation token of docs/rules.md §10), listing, reading a width, deleting, what a withdrawal
// and a start remove. The adapters run the same use case in the PhotoStore contract suite.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import {
  PHOTO_BODY_LIMIT_BYTES,
  PHOTO_STORED_LONG_SIDE,
  PHOTO_WIDTHS,
  PHOTOS_PER_PET,
  PhotoLibrary,
  StoreUnavailableError,
  type Caller,
  type Digests,
  type IdempotentCreation,
  type Photo,
  type PhotoBytes,
  type Result,
} from '../src/index.js';
import { ManualClock, TextImageProcessor, textImage, nodeDigests } from '../test-support/index.js';
import { PhotoStoreModel } from './support/photo-store-model.js';
import { expectRefusal } from './support/refusals.js';

/** SHA-256 of bytes, lowercase hex (`node:crypto`). */
const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const ADMIN: Caller = { keyId: 'key_00000000000a', role: 'admin' };
const CLIENT: Caller = { keyId: 'key_00000000000c', role: 'client' };
const T0 = Date.UTC(2027, 0, 1, 12);
const TYPES_TEXT = 'image/jpeg, image/png, image/webp';

/** A library over a model store, with pets 7 and 8 (and whatever `withdraw` has not removed). */
const setup = (options: ConstructorParameters<typeof PhotoStoreModel>[0] = {}, digests: Digests = nodeDigests) => {
  const store = new PhotoStoreModel(options);
  const pets = new Set([7, 8]);
  const lookups: number[] = [];
  const lookup = {
    findById: async (id: number) => {
      lookups.push(id);
      return pets.has(id) ? { id } : undefined;
    },
  };
  const images = new TextImageProcessor();
  const clock = new ManualClock(T0);
  const library = new PhotoLibrary(lookup, store, images, clock, digests);
  return { store, pets, lookups, images, clock, library };
};

const jpeg =
  (width = 300, height = 200, payload = 'pixels') =>
  async () =>
    textImage({ format: 'jpeg', width, height }, payload);
const made = (result: Result<Photo, { message: string }>): Photo => {
  if (!result.ok) throw new Error(`refused: ${result.error.message}`);
  return result.value;
};
const bytesOf = async (bytes: PhotoBytes | undefined): Promise<Uint8Array> => {
  if (bytes === undefined) throw new Error('no bytes');
  if (bytes instanceof Uint8Array) return bytes;
  const chunks: number[] = [];
  for await (const chunk of bytes) chunks.push(...chunk);
  return Uint8Array.from(chunks);
};
const text = (bytes: Uint8Array): string => String.fromCharCode(...bytes);

describe('PhotoLibrary.upload (docs/rules.md §13)', () => {
  it('a client key gets 403 naming what only an admin may do, before anything is looked up', async () => {
    const { store, lookups, library } = setup();
    const refused = await library.upload(CLIENT, '7', 'image/jpeg', jpeg());
    expect(expectRefusal(refused, 'forbidden')).to.equal('only an admin key may add a photo');
    expect(expectRefusal(await library.delete(CLIENT, '7', '1'), 'forbidden')).to.equal(
      'only an admin key may delete a photo',
    );
    expect(store.calls).to.deep.equal([]);
    expect(lookups).to.deep.equal([]);
  });

  it('authorizeUpload: the same check on its own, for a transport that looks something up before upload (an Idempotency-Key): admin only, no caller refused', () => {
    const { store, lookups, library } = setup();
    expect(library.authorizeUpload(ADMIN)).to.deep.equal({ ok: true, value: undefined });
    for (const caller of [CLIENT, undefined])
      expect(expectRefusal(library.authorizeUpload(caller), 'forbidden')).to.equal('only an admin key may add a photo');
    expect(store.calls).to.deep.equal([]);
    expect(lookups).to.deep.equal([]);
  });

  it('a type other than the three is a 415 whose message names the three', async () => {
    const { library } = setup();
    for (const type of [undefined, 'image/gif', 'text/plain', 'image/jpg']) {
      const message = expectRefusal(
        await library.upload(ADMIN, '7', type, jpeg()),
        'unsupported_media_type',
        undefined,
        String(type),
      );
      expect(message).to.include(TYPES_TEXT);
    }
  });

  it('a pet that is not there (never created, withdrawn, beyond any id) is a 404 naming the id given; an id beyond any pet is not looked up', async () => {
    const { library, pets, lookups } = setup();
    pets.delete(8);
    for (const id of ['9', '8', '9007199254740993']) {
      const message = expectRefusal(await library.upload(ADMIN, id, 'image/png', jpeg()), 'not_found', undefined, id);
      expect(message).to.equal(`no pet has id ${id}`);
    }
    expect(lookups).to.deep.equal([9, 8]);
    expectRefusal(await library.upload(ADMIN, '07', 'image/png', jpeg()), 'validation_failed', 'petId');
  });

  it('stores the original normalised (long side at most 4,096) and every narrower width, each with the digest of its bytes', async () => {
    const { store, library } = setup();
    const photo = made(await library.upload(ADMIN, '7', 'image/jpeg', jpeg(8_000, 4_500, 'cat')));
    expect(store.calls).to.deep.equal(['list', 'reserve', 'putFile', 'putFile', 'putFile', 'putFile', 'publish']);
    expect(photo).to.deep.equal({
      id: 1,
      petId: 7,
      contentType: 'image/jpeg',
      width: PHOTO_STORED_LONG_SIDE,
      height: 2_304,
      bytes: photo.bytes,
      createdAt: '2027-01-01T12:00:00.000Z',
    });
    const stored = await store.find(7, photo.id);
    expect(stored!.files.map((f) => [f.width, f.height])).to.deep.equal([
      [4_096, 2_304],
      [160, 90],
      [320, 180],
      [640, 360],
    ]);
    let total = 0;
    for (const file of stored!.files) {
      const bytes = await bytesOf(await store.read(photo.id, file.width));
      expect(file.bytes).to.equal(bytes.length);
      expect(file.sha256).to.equal(sha256Of(bytes));
      total += bytes.length;
    }
    expect(photo.bytes, 'bytes: the size of the stored original').to.equal(stored!.files[0]!.bytes);
    expect(text(await bytesOf(await store.read(photo.id, 4_096)))).to.equal('TIMG jpeg 4096 2304 1 1\ncat');
    expect(store.reservations, 'the reservation holds the bytes of all the files').to.deep.equal([total]);
  });

  it('a photo no wider than a width is not made in it (never an enlargement); each file carries the digest the Digests port gives', async () => {
    const { store, library } = setup(
      {},
      { ...nodeDigests, sha256HexOfBytes: async (bytes) => `digest-of-${bytes.length}` },
    );
    const photo = made(
      await library.upload(ADMIN, '8', 'image/webp', async () =>
        textImage({ format: 'webp', width: 320, height: 640 }),
      ),
    );
    expect(photo).to.deep.include({ petId: 8, contentType: 'image/webp', width: 320, height: 640 });
    const stored = (await store.find(8, photo.id))!;
    expect(stored.files.map((f) => f.width)).to.deep.equal([320, 160]);
    expect(stored.files[1]).to.deep.include({ height: 320, sha256: `digest-of-${stored.files[1]!.bytes}` });
  });

  it('property: the stored files are the original and exactly the widths narrower than it, heights in proportion', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 5_000 }),
        async (width, height) => {
          const { store, library } = setup();
          const photo = made(
            await library.upload(ADMIN, '7', 'image/png', async () => textImage({ format: 'png', width, height })),
          );
          const files = (await store.find(7, photo.id))!.files;
          expect(Math.max(photo.width, photo.height)).to.equal(
            Math.min(Math.max(width, height), PHOTO_STORED_LONG_SIDE),
          );
          expect(files[0]).to.deep.include({ width: photo.width, height: photo.height });
          expect(files.slice(1).map((f) => f.width)).to.deep.equal(PHOTO_WIDTHS.filter((w) => w < photo.width));
          for (const f of files.slice(1))
            expect(f.height).to.equal(Math.max(1, Math.round((photo.height * f.width) / photo.width)));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('an empty or absent body is a 400 saying to send the image (of the three types)', async () => {
    const { library, images } = setup();
    for (const body of [undefined, new Uint8Array(0)]) {
      const message = expectRefusal(
        await library.upload(ADMIN, '7', 'image/jpeg', async () => body),
        'validation_failed',
        'body',
      );
      expect(message).to.equal(`the body must be the image itself (${TYPES_TEXT})`);
    }
    expect(images.normalised).to.equal(0);
  });

  it('bytes that do not decode whole are a 400 naming the declared type; nothing is reserved', async () => {
    const { library, store } = setup();
    const message = expectRefusal(
      await library.upload(ADMIN, '7', 'image/png', async () =>
        textImage({ format: 'png', width: 9, height: 9 }, 'BROKEN'),
      ),
      'validation_failed',
      'body',
    );
    expect(message).to.equal('the body does not decode as a whole image/png image (truncated or damaged?)');
    expect(store.reservations).to.deep.equal([]);
  });

  it(`a pet with ${PHOTOS_PER_PET} photos gets 409 naming the pet and the limit, before its body is read`, async () => {
    const { library, store } = setup();
    for (let i = 0; i < PHOTOS_PER_PET; i++)
      made(await library.upload(ADMIN, '7', 'image/jpeg', jpeg(100, 100, `p${i}`)));
    let read = false;
    const refused = await library.upload(ADMIN, '7', 'image/jpeg', async () => {
      read = true;
      return textImage({ format: 'jpeg', width: 10, height: 10 });
    });
    const message = expectRefusal(refused, 'conflict');
    expect(message).to.equal(`pet 7 already has ${PHOTOS_PER_PET} photos, the most it can have; delete one first`);
    expect(read, 'the body was read').to.equal(false);
    expect(store.reservations).to.have.length(PHOTOS_PER_PET);
    // Another pet has its own places.
    made(await library.upload(ADMIN, '8', 'image/jpeg', jpeg()));
  });

  it(`places taken by uploads under way count too: the reservation decides (409), nothing is written`, async () => {
    const { library, store } = setup();
    for (let i = 0; i < PHOTOS_PER_PET; i++) await store.reserve(7, 1, T0);
    const message = expectRefusal(await library.upload(ADMIN, '7', 'image/jpeg', jpeg()), 'conflict');
    expect(message).to.include('pet 7 already has 12 photos');
    expect(store.calls.filter((c) => c === 'putFile' || c.startsWith('publish'))).to.deep.equal([]);
  });

  it('a store without room for the bytes answers 507 insufficient_storage; nothing is stored', async () => {
    const { library, store } = setup({ budget: 200 });
    const refused = await library.upload(ADMIN, '7', 'image/jpeg', jpeg(1_000, 1_000, 'x'.repeat(100)));
    const message = expectRefusal(refused, 'insufficient_storage');
    // The rule, not a setting: the domain cannot know how the service that embeds it is configured.
    expect(message).to.equal('the photo store is full; nothing was stored (its operator can give it more room)');
    expect(message).not.to.match(/PETSTORE_/);
    expect(store.placeCount).to.equal(0);
    expect(store.calls.filter((c) => c === 'putFile')).to.deep.equal([]);
    expect(await library.list('7')).to.deep.equal({ ok: true, value: [] });
  });

  it('a file the store cannot write gives the upload up (its place freed) and the outage reaches the caller; so does a failing give-up', async () => {
    for (const abandonFails of [false, true]) {
      const { library, store } = setup();
      const outage = new StoreUnavailableError('photo store down');
      let puts = 0;
      const put = store.putFile.bind(store);
      store.putFile = async (upload, file, bytes) => {
        if (++puts === 2) throw outage;
        return put(upload, file, bytes);
      };
      if (abandonFails) {
        const abandon = store.abandon.bind(store);
        store.abandon = async (upload) => {
          await abandon(upload);
          throw new Error('abandon failed too');
        };
      }
      const error = await library.upload(ADMIN, '7', 'image/jpeg', jpeg(700, 700)).catch((e: unknown) => e);
      expect(error, `abandon fails: ${abandonFails}`).to.equal(outage);
      expect(store.abandoned.map((u) => u.photoId)).to.deep.equal([1]);
      expect(store.placeCount).to.equal(0);
      expect(store.calls.some((c) => c.startsWith('publish'))).to.equal(false);
    }
  });

  it('an upload given up while it was written by a sweep (its pet still there: another process started) is a 503 to retry, never a photo', async () => {
    const { library, store } = setup();
    const put = store.putFile.bind(store);
    store.putFile = async (upload, file, bytes) => {
      await put(upload, file, bytes);
      await store.sweep(T0 + 1);
    };
    const error = await library.upload(ADMIN, '7', 'image/jpeg', jpeg()).catch((e: unknown) => e);
    expect(error)
      .to.be.instanceOf(StoreUnavailableError)
      .with.property('message', 'the upload of photo 1 was given up while it was being written; retry');
    expect(store.abandoned).to.have.length(1);
    expect(await library.list('7')).to.deep.equal({ ok: true, value: [] });
  });

  it("an upload given up while it was written by its pet's withdrawal (its photos removed, the pet gone) is the withdrawn pet's 404, never a 503; what it put is removed", async () => {
    for (const token of [undefined, 'tok-gone']) {
      const { library, store, pets } = setup();
      const put = store.putFile.bind(store);
      store.putFile = async (upload, file, bytes) => {
        await put(upload, file, bytes);
        // The withdrawal lands between two files: the pet goes, then its photos, this upload among them.
        if (pets.delete(7)) await store.deleteAllOf(7);
      };
      const outcome = await library.upload(
        ADMIN,
        '7',
        'image/jpeg',
        jpeg(),
        token === undefined ? undefined : { token, resumed: false },
      );
      expect(expectRefusal(outcome, 'not_found'), `token: ${String(token)}`).to.equal('no pet has id 7');
      expect(
        store.abandoned.map((u) => u.photoId),
        'what it put since is removed',
      ).to.deep.equal([1]);
      expect(store.placeCount).to.equal(0);
      expect(
        store.calls.filter((c) => c === 'delete'),
        'nothing published, nothing to delete',
      ).to.deep.equal([]);
      expect(await store.pets()).to.deep.equal([]);
    }
  });

  it('a publish that fails gives the upload up and throws', async () => {
    const { library, store } = setup();
    store.publish = () => Promise.reject(new StoreUnavailableError('down'));
    const error = await library.upload(ADMIN, '7', 'image/jpeg', jpeg()).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(StoreUnavailableError).with.property('message', 'down');
    expect(store.placeCount).to.equal(0);
  });

  it('a pet withdrawn while its photo was uploaded takes the photo with it: 404', async () => {
    const { library, store, pets } = setup();
    const publish = store.publish.bind(store);
    store.publish = async (upload, photo, token) => {
      pets.delete(7);
      return publish(upload, photo, token);
    };
    expect(expectRefusal(await library.upload(ADMIN, '7', 'image/jpeg', jpeg()), 'not_found')).to.equal(
      'no pet has id 7',
    );
    expect(store.placeCount).to.equal(0);
    expect(store.calls.at(-1)).to.equal('delete');
  });
});

describe('PhotoLibrary: an upload under an Idempotency-Key (docs/rules.md §10, §13)', () => {
  const first: IdempotentCreation = { token: 'tok-1', resumed: false };
  const resumed: IdempotentCreation = { token: 'tok-1', resumed: true };

  it('the token is published with the photo; a first claim looks nothing up, a resumed one finds the photo (as the API shows it)', async () => {
    const { library, store } = setup();
    expect(await library.photoCreatedUnder(resumed)).to.equal(undefined);
    const photo = made(await library.upload(ADMIN, '7', 'image/jpeg', jpeg(), first));
    expect(store.calls).to.include('publish(tok-1)');
    const before = store.calls.length;
    expect(await library.photoCreatedUnder(first)).to.equal(undefined);
    expect(store.calls.length, 'a first claim: no look-up').to.equal(before);
    expect(await library.photoCreatedUnder(resumed)).to.deep.equal(photo);
    expect(await library.photoCreatedUnder({ token: 'tok-2', resumed: true })).to.equal(undefined);
    made(await library.upload(ADMIN, '7', 'image/jpeg', jpeg()));
    expect(store.calls.at(-1), 'without a key: no token').to.equal('publish');
  });

  it('a repeat whose publish meets the token answers the earlier photo, keeping nothing of its own', async () => {
    const { library, store } = setup();
    const photo = made(await library.upload(ADMIN, '7', 'image/jpeg', jpeg(300, 200, 'one'), first));
    const again = await library.upload(ADMIN, '7', 'image/jpeg', jpeg(300, 200, 'one again'), resumed);
    expect(again).to.deep.equal({ ok: true, value: photo });
    expect(store.placeCount).to.equal(1);
    expect((await library.list('7')).ok && (await store.list(7)).map((p) => p.id)).to.deep.equal([photo.id]);
  });

  it('a pet full with the earlier attempt’s photo answers that photo; full without it (or without a key) is a 409', async () => {
    const { library } = setup();
    const photo = made(await library.upload(ADMIN, '7', 'image/jpeg', jpeg(), first));
    for (let i = 1; i < PHOTOS_PER_PET; i++)
      made(await library.upload(ADMIN, '7', 'image/jpeg', jpeg(100, 100, `p${i}`)));
    expect(await library.upload(ADMIN, '7', 'image/jpeg', jpeg(), resumed)).to.deep.equal({ ok: true, value: photo });
    expectRefusal(
      await library.upload(ADMIN, '7', 'image/jpeg', jpeg(), { token: 'tok-other', resumed: true }),
      'conflict',
    );
    expectRefusal(await library.upload(ADMIN, '7', 'image/jpeg', jpeg()), 'conflict');
  });

  it('also when only the reservation finds the pet full (uploads under way): the earlier photo, else 409', async () => {
    const { library, store } = setup();
    const photo = made(await library.upload(ADMIN, '7', 'image/jpeg', jpeg(), first));
    for (let i = 1; i < PHOTOS_PER_PET; i++) await store.reserve(7, 1, T0);
    expect(await library.upload(ADMIN, '7', 'image/jpeg', jpeg(), resumed)).to.deep.equal({ ok: true, value: photo });
    expectRefusal(
      await library.upload(ADMIN, '7', 'image/jpeg', jpeg(), { token: 'tok-3', resumed: false }),
      'conflict',
    );
  });
});

describe('PhotoLibrary: reading and deleting (docs/rules.md §13)', () => {
  const withPhotos = async (options: ConstructorParameters<typeof PhotoStoreModel>[0] = {}) => {
    const s = setup(options);
    const a = made(await s.library.upload(ADMIN, '7', 'image/jpeg', jpeg(1_000, 500, 'a')));
    const b = made(
      await s.library.upload(ADMIN, '8', 'image/png', async () =>
        textImage({ format: 'png', width: 200, height: 100 }, 'b'),
      ),
    );
    const c = made(await s.library.upload(ADMIN, '7', 'image/jpeg', jpeg(300, 300, 'c')));
    return { ...s, a, b, c };
  };

  it('lists a pet’s photos, ascending id, as the API shows them (no files)', async () => {
    const { library, a, b, c } = await withPhotos();
    expect(await library.list('7')).to.deep.equal({ ok: true, value: [a, c] });
    expect(await library.list('8')).to.deep.equal({ ok: true, value: [b] });
    expect(Object.keys(a)).to.have.members(['id', 'petId', 'contentType', 'width', 'height', 'bytes', 'createdAt']);
  });

  it('lists nothing of a pet that is not there (404 naming it), nor for a malformed id (400 petId)', async () => {
    const { library, pets, lookups } = await withPhotos();
    pets.delete(8);
    expect(expectRefusal(await library.list('8'), 'not_found')).to.equal('no pet has id 8');
    lookups.length = 0;
    expect(expectRefusal(await library.list('9007199254740993'), 'not_found')).to.equal(
      'no pet has id 9007199254740993',
    );
    expect(lookups, 'an id beyond any pet is not looked up').to.deep.equal([]);
    for (const id of ['0', 'x', '-7', '7.0']) expectRefusal(await library.list(id), 'validation_failed', 'petId', id);
  });

  it('answers the width asked for, or the original (never wider); its bytes as stored', async () => {
    const { library, a, c } = await withPhotos();
    const widths = async (photo: Photo, width?: readonly string[]) => {
      const got =
        width === undefined
          ? await library.get('7', String(photo.id))
          : await library.get('7', String(photo.id), width);
      if (!got.ok) throw new Error(got.error.message);
      expect(got.value.photo).to.deep.equal(photo);
      const bytes = await bytesOf(await got.value.bytes());
      expect(bytes.length).to.equal(got.value.file.bytes);
      expect(sha256Of(bytes)).to.equal(got.value.file.sha256);
      return [got.value.file.width, text(bytes).split('\n')[0]];
    };
    expect(await widths(a)).to.deep.equal([1_000, 'TIMG jpeg 1000 500 1 1']);
    expect(await widths(a, [])).to.deep.equal([1_000, 'TIMG jpeg 1000 500 1 1']);
    expect(await widths(a, ['160'])).to.deep.equal([160, 'TIMG jpeg 160 80 1 1']);
    expect(await widths(a, ['640'])).to.deep.equal([640, 'TIMG jpeg 640 320 1 1']);
    expect(await widths(c, ['320'])).to.deep.equal([300, 'TIMG jpeg 300 300 1 1']);
  });

  it('a photo of another pet, deleted, or beyond any id (not looked up) is a 404 naming the photo id; bad ids and widths are 400s naming their field', async () => {
    const { library, a, b, pets, store } = await withPhotos();
    for (const [pet, photo] of [
      ['7', String(b.id)],
      ['8', String(a.id)],
      ['7', '99'],
      ['7', '9007199254740993'],
    ] as const) {
      const before = store.calls.length;
      expect(expectRefusal(await library.get(pet, photo), 'not_found', undefined, `${pet}/${photo}`)).to.equal(
        `this pet has no photo with id ${photo}`,
      );
      expect(store.calls.slice(before), `${pet}/${photo}`).to.deep.equal(photo.length > 15 ? [] : ['find']);
    }
    expectRefusal(await library.get('x', String(a.id)), 'validation_failed', 'petId');
    expectRefusal(await library.get('7', '0'), 'validation_failed', 'photoId');
    for (const width of [['100'], ['160', '160'], ['']])
      expectRefusal(await library.get('7', String(a.id), width), 'validation_failed', 'width');
    pets.delete(7);
    expect(expectRefusal(await library.get('7', String(a.id)), 'not_found')).to.equal('no pet has id 7');
  });

  it('the bytes of a photo removed after it was found are undefined (the route answers 404)', async () => {
    const { library, a } = await withPhotos();
    const got = await library.get('7', String(a.id), ['160']);
    if (!got.ok) throw new Error(got.error.message);
    expect((await library.delete(ADMIN, '7', String(a.id))).ok).to.equal(true);
    expect(await got.value.bytes()).to.equal(undefined);
  });

  it('deletes a photo of that pet only; then it is 404 and no longer listed', async () => {
    const { library, a, b, c, store } = await withPhotos();
    expect(expectRefusal(await library.delete(ADMIN, '8', String(a.id)), 'not_found')).to.equal(
      `this pet has no photo with id ${a.id}`,
    );
    const before = store.calls.length;
    expect(expectRefusal(await library.delete(ADMIN, '7', '9007199254740993'), 'not_found')).to.equal(
      'this pet has no photo with id 9007199254740993',
    );
    expect(store.calls.slice(before), 'an id beyond any photo is not looked up').to.deep.equal([]);
    expect(await library.delete(ADMIN, '7', String(a.id))).to.deep.equal({ ok: true, value: undefined });
    expect(expectRefusal(await library.delete(ADMIN, '7', String(a.id)), 'not_found')).to.equal(
      `this pet has no photo with id ${a.id}`,
    );
    expectRefusal(await library.get('7', String(a.id)), 'not_found');
    expect(await library.list('7')).to.deep.equal({ ok: true, value: [c] });
    expect(await library.list('8')).to.deep.equal({ ok: true, value: [b] });
  });

  it('a delete with a malformed id is a 400 naming it; of a pet not there, a 404 naming the pet', async () => {
    const { library, a, pets } = await withPhotos();
    expectRefusal(await library.delete(ADMIN, '07', String(a.id)), 'validation_failed', 'petId');
    expectRefusal(await library.delete(ADMIN, '7', 'one'), 'validation_failed', 'photoId');
    pets.delete(7);
    expect(expectRefusal(await library.delete(ADMIN, '7', String(a.id)), 'not_found')).to.equal('no pet has id 7');
    expect(expectRefusal(await library.delete(ADMIN, '9', '1'), 'not_found')).to.equal('no pet has id 9');
  });
});

describe('PhotoLibrary: what a withdrawal and a start remove (docs/rules.md §12, §13)', () => {
  it('removeAllOf removes every photo of the pet, uploads under way included, and answers how many published ones went', async () => {
    const { library, store } = setup();
    for (const tag of ['a', 'b']) made(await library.upload(ADMIN, '7', 'image/jpeg', jpeg(100, 100, tag)));
    made(await library.upload(ADMIN, '8', 'image/jpeg', jpeg()));
    await store.reserve(7, 10, T0);
    expect(await library.removeAllOf(7)).to.equal(2);
    expect(await store.list(7)).to.deep.equal([]);
    expect(await store.list(8)).to.have.length(1);
    expect(store.placeCount).to.equal(1);
    expect(await library.removeAllOf(7)).to.equal(0);
  });

  it('a sweep at start gives up the uploads started before now and removes the photos of pets no longer there', async () => {
    const { library, store, clock, pets } = setup({ sweepFinds: { uploads: 0, files: 3 } });
    for (const tag of ['a', 'b']) made(await library.upload(ADMIN, '7', 'image/jpeg', jpeg(100, 100, tag)));
    const kept = made(await library.upload(ADMIN, '8', 'image/jpeg', jpeg()));
    await store.reserve(8, 10, T0);
    pets.delete(7);
    clock.advance(5_000);
    expect(await library.sweep()).to.deep.equal({ uploads: 1, files: 3, orphans: 2 });
    expect(store.sweeps).to.deep.equal([T0 + 5_000]);
    expect(store.calls).to.include('deleteAllOf(7)');
    expect(store.calls).not.to.include('deleteAllOf(8)');
    expect(await store.list(8)).to.deep.equal([{ ...kept, files: (await store.find(8, kept.id))!.files }]);
    expect(await library.sweep()).to.deep.equal({ uploads: 0, files: 3, orphans: 0 });
  });
});

describe('photo limits (docs/rules.md §13)', () => {
  it('a body is at most 10 MiB', () => {
    expect(PHOTO_BODY_LIMIT_BYTES).to.equal(10 * 2 ** 20);
  });
});

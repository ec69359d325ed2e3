import { createHash } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import type { Caller, PhotoBytes, PhotoFile, PhotoStore, PhotoUpload, StoredPhoto } from '../src/index.js';
import { PhotoLibrary, PHOTOS_PER_PET, StoreUnavailableError } from '../src/index.js';
import { FAULT_MODES, FaultInjector, type FaultMode } from './fault-injection.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { creationTokenCases } from './creation-token.contract.js';
import { ManualClock } from './manual-clock.js';
import { latin1Bytes, TextImageProcessor, textImage } from './text-images.js';
import { nodeDigests } from './node-digests.js';
import { photoPagesCases } from './photo-store-pages.contract.js';

/** SHA-256 of bytes, lowercase hex (`node:crypto`). */
const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** What the photo store contract needs of an adapter: the store, the same store after a restart, and a count of the bytes it holds. */
export interface PhotoStoreSubject {
  readonly store: PhotoStore;
  /** The store as a new process would open it over the same storage (the memory store: the same one, nothing outlives it). */
  restart(): Promise<PhotoStore>;
  /** Files (blobs of bytes) the storage holds, published or not, whole or partial: what a sweep must leave none of stray. */
  storedFiles(): Promise<number>;
}

const T0 = Date.UTC(2027, 0, 1);
const ADMIN: Caller = { keyId: 'key_000000000001', role: 'admin' };

/** The bytes of a `PhotoBytes`, whichever form the store answers in. */
export const collectPhotoBytes = async (bytes: PhotoBytes): Promise<Uint8Array> => {
  if (bytes instanceof Uint8Array) return bytes;
  const chunks: Uint8Array[] = [];
  for await (const chunk of bytes) chunks.push(chunk);
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
};

const bytesOf = (text: string, size = 0): Uint8Array => {
  const out = new Uint8Array(Math.max(size, text.length));
  out.set(latin1Bytes(text));
  for (let i = text.length; i < out.length; i++) out[i] = (i * 31 + text.length) & 255;
  return out;
};
const fileOf = (width: number, bytes: Uint8Array): PhotoFile => ({
  width,
  height: Math.ceil(width / 2),
  bytes: bytes.length,
  sha256: sha256Of(bytes),
});

/** Files for a photo: an original (`width` wide) and, when wide enough, a 160 rendition. */
const filesFor = (tag: string, width = 400): { file: PhotoFile; bytes: Uint8Array }[] => {
  const original = bytesOf(`${tag}:original`, 300 + (tag.length % 7) * 50);
  const files = [{ file: fileOf(width, original), bytes: original }];
  if (width > 160) {
    const small = bytesOf(`${tag}:160`, 120);
    files.push({ file: fileOf(160, small), bytes: small });
  }
  return files;
};
const photoOf = (upload: PhotoUpload, files: readonly { file: PhotoFile }[]): StoredPhoto => ({
  id: upload.photoId,
  petId: upload.petId,
  contentType: 'image/jpeg',
  width: files[0]!.file.width,
  height: files[0]!.file.height,
  bytes: files[0]!.file.bytes,
  createdAt: new Date(upload.startedAt).toISOString(),
  files: files.map((f) => f.file),
});
const total = (files: readonly { file: PhotoFile }[]): number => files.reduce((n, f) => n + f.file.bytes, 0);

const reserved = (outcome: PhotoUpload | 'full' | 'no_space'): PhotoUpload => {
  if (typeof outcome === 'string') throw new Error(`expected a place, got ${outcome}`);
  return outcome;
};

/** Reserves, puts every file, publishes: a whole upload. */
const upload = async (store: PhotoStore, petId: number, tag: string, now = T0): Promise<StoredPhoto> => {
  const files = filesFor(tag);
  const place = reserved(await store.reserve(petId, total(files), now));
  for (const { file, bytes } of files) await store.putFile(place, file, bytes);
  const photo = photoOf(place, files);
  expect(await store.publish(place, photo)).to.equal(true);
  return photo;
};

/** Every visible photo of `petIds` is whole: each file reads back with its digest and size. */
const expectWhole = async (store: PhotoStore, petIds: readonly number[]): Promise<number> => {
  let files = 0;
  for (const petId of petIds) {
    for (const photo of await store.list(petId)) {
      for (const file of photo.files) {
        const got = await store.read(photo.id, file.width);
        expect(got, `photo ${photo.id} width ${file.width}`).not.to.equal(undefined);
        const bytes = await collectPhotoBytes(got!);
        expect(bytes.length).to.equal(file.bytes);
        expect(sha256Of(bytes)).to.equal(file.sha256);
        files++;
      }
    }
  }
  return files;
};

// ---- The model-based test: a plain Map of places per pet, each pending or published ----

interface ModelPlace {
  readonly upload: PhotoUpload;
  readonly files: { file: PhotoFile; bytes: Uint8Array }[];
  put: number;
  published: boolean;
}
interface Model {
  now: number;
  readonly places: Map<number, ModelPlace>;
  /** Every upload ever reserved (some given up), for the commands that pick one. */
  readonly uploads: ModelPlace[];
}
interface Real {
  readonly store: PhotoStore;
}
const PETS = [1, 2];
const visible = (m: Model, petId: number) =>
  [...m.places.values()]
    .filter((p) => p.upload.petId === petId && p.published)
    .sort((a, b) => a.upload.photoId - b.upload.photoId);

class ReserveCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly petId: number) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    m.now += 1_000;
    const files = filesFor(`m${m.uploads.length}`);
    const outcome = await r.store.reserve(this.petId, total(files), m.now);
    const taken = [...m.places.values()].filter((p) => p.upload.petId === this.petId).length;
    if (taken >= PHOTOS_PER_PET) {
      expect(outcome, this.toString()).to.equal('full');
      return;
    }
    const place = reserved(outcome);
    expect(place.petId).to.equal(this.petId);
    for (const other of m.uploads)
      expect(place.photoId, 'ids are never reused').to.be.greaterThan(other.upload.photoId);
    const entry: ModelPlace = { upload: place, files, put: 0, published: false };
    m.places.set(place.photoId, entry);
    m.uploads.push(entry);
  }
  toString = () => `reserve(pet ${this.petId})`;
}

const pick = (m: Readonly<Model>, n: number): ModelPlace | undefined =>
  m.uploads.length === 0 ? undefined : m.uploads[n % m.uploads.length];

class PutCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = (m: Readonly<Model>) => {
    const p = pick(m, this.n);
    return p !== undefined && m.places.get(p.upload.photoId) === p && !p.published && p.put < p.files.length;
  };
  async run(m: Model, r: Real): Promise<void> {
    const p = pick(m, this.n)!;
    const { file, bytes } = p.files[p.put]!;
    await r.store.putFile(p.upload, file, bytes);
    p.put++;
  }
  toString = () => `put(#${this.n})`;
}

class PublishCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  // Only after all files are put (the use case never publishes before); an upload given up may try.
  check = (m: Readonly<Model>) => {
    const p = pick(m, this.n);
    return p !== undefined && !p.published && p.put === p.files.length;
  };
  async run(m: Model, r: Real): Promise<void> {
    const p = pick(m, this.n)!;
    const held = m.places.get(p.upload.photoId) === p;
    expect(await r.store.publish(p.upload, photoOf(p.upload, p.files)), this.toString()).to.equal(held);
    if (held) p.published = true;
  }
  toString = () => `publish(#${this.n})`;
}

class AbandonCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = (m: Readonly<Model>) => pick(m, this.n) !== undefined;
  async run(m: Model, r: Real): Promise<void> {
    const p = pick(m, this.n)!;
    await r.store.abandon(p.upload);
    if (!p.published) m.places.delete(p.upload.photoId);
  }
  toString = () => `abandon(#${this.n})`;
}

class DeleteCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly n: number,
    readonly petId: number,
  ) {}
  check = (m: Readonly<Model>) => pick(m, this.n) !== undefined;
  async run(m: Model, r: Real): Promise<void> {
    const p = pick(m, this.n)!;
    const there = m.places.get(p.upload.photoId) === p && p.published && p.upload.petId === this.petId;
    expect(await r.store.delete(this.petId, p.upload.photoId), this.toString()).to.equal(there);
    if (there) m.places.delete(p.upload.photoId);
  }
  toString = () => `delete(pet ${this.petId}, #${this.n})`;
}

class DeleteAllCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly petId: number) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const mine = [...m.places.values()].filter((p) => p.upload.petId === this.petId);
    expect(await r.store.deleteAllOf(this.petId), this.toString()).to.equal(mine.filter((p) => p.published).length);
    for (const p of mine) m.places.delete(p.upload.photoId);
  }
  toString = () => `deleteAllOf(pet ${this.petId})`;
}

class SweepCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly back: number) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const cutoff = m.now - this.back;
    const gone = [...m.places.values()].filter((p) => !p.published && p.upload.startedAt < cutoff);
    expect((await r.store.sweep(cutoff)).uploads, this.toString()).to.equal(gone.length);
    for (const p of gone) m.places.delete(p.upload.photoId);
  }
  toString = () => `sweep(now - ${this.back})`;
}

/** After every command: what the store shows is what the model says, and every visible photo reads back whole. */
const checkAgainstModel = async (m: Model, store: PhotoStore): Promise<void> => {
  for (const petId of PETS) {
    const want = visible(m, petId);
    const got = await store.list(petId);
    expect(
      got.map((p) => p.id),
      `list(pet ${petId})`,
    ).to.deep.equal(want.map((p) => p.upload.photoId));
    for (const p of want) expect(await store.find(petId, p.upload.photoId)).to.deep.equal(photoOf(p.upload, p.files));
  }
  for (const p of m.uploads) {
    if (!p.published || m.places.get(p.upload.photoId) !== p)
      expect(await store.read(p.upload.photoId, p.files[0]!.file.width), `read(#${p.upload.photoId})`).to.equal(
        undefined,
      );
  }
  await expectWhole(store, PETS);
  expect(await store.pets()).to.deep.equal(PETS.filter((petId) => visible(m, petId).length > 0));
  expect(
    (await store.listOfPets([...PETS].reverse())).map((p) => p.id),
    'listOfPets: the pets’ photos, by pet then id',
  ).to.deep.equal(PETS.flatMap((petId) => visible(m, petId).map((p) => p.upload.photoId)));
};

/** A whole upload published with `token` when given: the photo the store answers (this one, or the one the token already had). */
const uploadUnder = async (store: PhotoStore, petId: number, tag: string, token?: string): Promise<StoredPhoto> => {
  const files = filesFor(tag);
  const place = reserved(await store.reserve(petId, total(files), T0));
  for (const { file, bytes } of files) await store.putFile(place, file, bytes);
  const photo = photoOf(place, files);
  const outcome = token === undefined ? await store.publish(place, photo) : await store.publish(place, photo, token);
  if (outcome === false) throw new Error(`photo ${place.photoId}: not published`);
  return outcome === true ? photo : outcome.earlier;
};

/** Every published photo, ascending id. */
const allPhotos = async (store: PhotoStore): Promise<readonly StoredPhoto[]> => {
  const photos: StoredPhoto[] = [];
  for (const petId of await store.pets()) photos.push(...(await store.list(petId)));
  return photos.sort((a, b) => a.id - b.id);
};

/**
 * Creation tokens of photo uploads (docs/rules.md §10): `publish` writes the token with the photo,
 * at most one photo per token. The generic cases (shared with pets, categories and orders; a
 * token's photos go to pet 1, one pet per upload without a token, so no limit is met), then what is
 * the photos' own: the upload that met a stored token is given up whole, and a removed photo keeps
 * its token (a repeat answers it as it was published).
 */
const photoCreationTokenCases = (make: MakeFixture<PhotoStoreSubject>, options: ContractOptions): void => {
  creationTokenCases<PhotoStoreSubject, StoredPhoto>(
    {
      what: 'photo',
      create: ({ store }, i, token) => uploadUnder(store, token === undefined ? 100 + i : 1, `t${i}`, token),
      find: ({ store }, token) => store.findByCreationToken(token),
      all: ({ store }) => allPhotos(store),
      fields: ['id', 'petId', 'contentType', 'width', 'height', 'bytes', 'createdAt', 'files'],
      // A reservation spends its id before its publish meets the token.
      noHoles: false,
    },
    make,
    options,
  );

  it('creation tokens: the upload whose publish meets its token already stored is given up whole (no bytes kept, its place freed)', () =>
    withFixture(make, async ({ store, storedFiles }) => {
      const first = await uploadUnder(store, 7, 'first', 'tok-photo');
      const files = await storedFiles();
      expect(await uploadUnder(store, 7, 'again', 'tok-photo')).to.deep.equal(first);
      expect((await store.list(7)).map((p) => p.id)).to.deep.equal([first.id]);
      expect(await storedFiles(), 'the repeat kept no bytes').to.equal(files);
      for (let i = 1; i < PHOTOS_PER_PET; i++)
        expect(typeof (await store.reserve(7, 10, T0)), `place ${i + 1}`).to.equal('object');
      expect(await store.reserve(7, 10, T0), 'the repeat freed its place').to.equal('full');
    }));

  for (const [how, remove] of [
    [
      'deleted',
      (store: PhotoStore, photo: StoredPhoto) =>
        store.delete(photo.petId, photo.id).then((done) => expect(done).to.equal(true)),
    ],
    [
      "removed with all of its pet's photos",
      (store: PhotoStore, photo: StoredPhoto) => store.deleteAllOf(photo.petId).then((n) => expect(n).to.equal(2)),
    ],
  ] as const) {
    it(`creation tokens (docs/rules.md §10, §13): a photo ${how} keeps its token; findByCreationToken answers it as it was published, and an upload whose publish meets that token stores nothing and answers it`, () =>
      withFixture(make, async ({ store, storedFiles }) => {
        const first = await uploadUnder(store, 7, 'first', 'tok-photo');
        const other = await uploadUnder(store, 7, 'other');
        await remove(store, first);
        const files = await storedFiles();
        const photos = await allPhotos(store);
        expect(
          photos.map((p) => p.id),
          'it is gone',
        ).to.not.include(first.id);
        expect(await store.find(7, first.id)).to.equal(undefined);
        expect(await store.read(first.id, first.width)).to.equal(undefined);
        expect(await store.findByCreationToken('tok-photo'), 'found by its token, as it was').to.deep.equal(first);
        expect(await uploadUnder(store, 7, 'again', 'tok-photo'), 'the repeat: that photo').to.deep.equal(first);
        expect(await uploadUnder(store, 8, 'elsewhere', 'tok-photo'), 'also for another pet').to.deep.equal(first);
        expect(await allPhotos(store), 'nothing published').to.deep.equal(photos);
        expect(await storedFiles(), 'no bytes kept').to.equal(files);
        expect(await store.pets()).to.deep.equal(photos.length === 0 ? [] : [7]);
        // Its place is free: the pet holds what is left and the room for the rest.
        for (let i = photos.length; i < PHOTOS_PER_PET; i++)
          expect(typeof (await store.reserve(7, 10, T0)), `place ${i + 1}`).to.equal('object');
        expect(await store.reserve(7, 10, T0)).to.equal('full');
        expect((await uploadUnder(store, 9, 'new', 'tok-new')).id, 'ids are never reused').to.be.greaterThan(
          Math.max(first.id, other.id),
        );
      }));
  }

  it('creation tokens through the use case: a first claim looks nothing up; a repeat finds the earlier photo; an upload whose earlier attempt published meanwhile answers that photo, also when the pet is full with it', () =>
    withFixture(make, async ({ store }) => {
      const clock = new ManualClock(T0);
      const pets = { findById: async (id: number) => (id === 5 ? { id } : undefined) };
      const library = new PhotoLibrary(pets, store, new TextImageProcessor(), clock, nodeDigests);
      const image = (tag: string) => async () => textImage({ format: 'jpeg', width: 300, height: 200 }, tag);
      const first = { token: 'tok-lib', resumed: false } as const;
      const resumed = { token: 'tok-lib', resumed: true } as const;
      expect(await library.photoCreatedUnder(resumed)).to.equal(undefined);
      const made = await library.upload(ADMIN, '5', 'image/jpeg', image('one'), first);
      if (!made.ok) throw new Error(made.error.message);
      expect(await library.photoCreatedUnder(first), 'a first claim: no look-up').to.equal(undefined);
      expect(await library.photoCreatedUnder(resumed)).to.deep.equal(made.value);
      // The repeat did not look (or looked too early): its own publish meets the token.
      expect(await library.upload(ADMIN, '5', 'image/jpeg', image('one'), resumed)).to.deep.equal(made);
      expect(await store.list(5)).to.have.length(1);
      for (let i = 1; i < PHOTOS_PER_PET; i++)
        expect((await library.upload(ADMIN, '5', 'image/jpeg', image(`f${i}`))).ok).to.equal(true);
      expect(
        await library.upload(ADMIN, '5', 'image/jpeg', image('one'), resumed),
        'full, with the earlier photo among them',
      ).to.deep.equal(made);
      expect(
        await library.upload(ADMIN, '5', 'image/jpeg', image('one'), { token: 'tok-other', resumed: true }),
      ).to.deep.nested.include({ ok: false, 'error.code': 'conflict' });
    }));
};

/**
 * The `PhotoStore` contract (docs/rules.md §13): every adapter runs this same suite. `make` gives a
 * fresh, empty store each time it is called.
 */
export const photoStoreContract = (
  name: string,
  make: MakeFixture<PhotoStoreSubject>,
  options: ContractOptions = {},
): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };

  describe(`PhotoStore contract: ${name}`, function () {
    photoCreationTokenCases(make, options);
    photoPagesCases(make);

    it('an upload is invisible until it is published; then it is listed, found and read back whole', () =>
      withFixture(make, async ({ store }) => {
        const files = filesFor('a');
        const place = reserved(await store.reserve(7, total(files), T0));
        expect(place).to.deep.include({ petId: 7, startedAt: T0 });
        expect(place.photoId).to.be.a('number').and.greaterThan(0);
        for (const { file, bytes } of files) await store.putFile(place, file, bytes);
        expect(await store.list(7)).to.deep.equal([]);
        expect(await store.find(7, place.photoId)).to.equal(undefined);
        expect(await store.read(place.photoId, files[0]!.file.width)).to.equal(undefined);
        expect(await store.pets()).to.deep.equal([]);
        const photo = photoOf(place, files);
        expect(await store.publish(place, photo)).to.equal(true);
        expect(await store.list(7)).to.deep.equal([photo]);
        expect(await store.find(7, place.photoId)).to.deep.equal(photo);
        expect(await store.find(8, place.photoId), "another pet's id").to.equal(undefined);
        expect(await store.list(8)).to.deep.equal([]);
        for (const { file, bytes } of files)
          expect(await collectPhotoBytes((await store.read(place.photoId, file.width))!)).to.deep.equal(bytes);
        expect(await store.read(place.photoId, 640), 'a width it was not made in').to.equal(undefined);
        expect(await store.pets()).to.deep.equal([7]);
      }));

    it('ids are positive, unique and increasing; a pet lists its own photos in ascending id', () =>
      withFixture(make, async ({ store }) => {
        const made: StoredPhoto[] = [];
        for (let i = 0; i < 5; i++) made.push(await upload(store, i % 2 === 0 ? 1 : 2, `p${i}`));
        const ids = made.map((p) => p.id);
        expect([...ids].sort((a, b) => a - b)).to.deep.equal(ids);
        expect(new Set(ids).size).to.equal(5);
        expect((await store.list(1)).map((p) => p.id)).to.deep.equal([ids[0], ids[2], ids[4]]);
        expect((await store.list(2)).map((p) => p.id)).to.deep.equal([ids[1], ids[3]]);
        expect(await store.pets()).to.deep.equal([1, 2]);
      }));

    it(`a pet has at most ${PHOTOS_PER_PET} places, uploads under way included; a removal or a give-up frees one`, () =>
      withFixture(make, async ({ store }) => {
        for (let i = 0; i < PHOTOS_PER_PET - 2; i++) await upload(store, 3, `f${i}`);
        const a = reserved(await store.reserve(3, 100, T0));
        const b = reserved(await store.reserve(3, 100, T0));
        expect(await store.reserve(3, 100, T0)).to.equal('full');
        expect(await store.reserve(4, 100, T0), 'another pet').not.to.equal('full');
        await store.abandon(a);
        const c = reserved(await store.reserve(3, 100, T0));
        expect(await store.reserve(3, 100, T0)).to.equal('full');
        await store.abandon(b);
        await store.abandon(c);
        await upload(store, 3, 'f10');
        await upload(store, 3, 'f11');
        expect(await store.reserve(3, 100, T0)).to.equal('full');
        const first = (await store.list(3))[0]!;
        expect(await store.delete(3, first.id)).to.equal(true);
        expect(await store.reserve(3, 100, T0)).not.to.equal('full');
      }));

    it(`of 20 simultaneous reservations for one pet exactly ${PHOTOS_PER_PET} succeed (${PHOTOS_PER_PET - 3} when 3 photos are there)`, () =>
      withFixture(make, async ({ store }) => {
        const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.reserve(5, 100, T0)));
        const won = outcomes.filter((o): o is PhotoUpload => typeof o !== 'string');
        expect(won).to.have.length(PHOTOS_PER_PET);
        expect(outcomes.filter((o) => o === 'full')).to.have.length(20 - PHOTOS_PER_PET);
        expect(new Set(won.map((o) => o.photoId)).size).to.equal(PHOTOS_PER_PET);
        for (let i = 0; i < 3; i++) await upload(store, 6, `c${i}`);
        const more = await Promise.all(Array.from({ length: 20 }, () => store.reserve(6, 100, T0)));
        expect(more.filter((o) => typeof o !== 'string')).to.have.length(PHOTOS_PER_PET - 3);
      }));

    it('abandon removes an unpublished upload (bytes and place) and leaves a published photo as it is; it may be repeated', () =>
      withFixture(make, async ({ store, storedFiles }) => {
        const files = filesFor('x');
        const place = reserved(await store.reserve(9, total(files), T0));
        for (const { file, bytes } of files) await store.putFile(place, file, bytes);
        expect(await storedFiles()).to.equal(files.length);
        await store.abandon(place);
        await store.abandon(place);
        expect(await storedFiles()).to.equal(0);
        expect(await store.publish(place, photoOf(place, files)), 'a given-up upload is not published').to.equal(false);
        expect(await store.list(9)).to.deep.equal([]);
        const kept = await upload(store, 9, 'y');
        await store.abandon({ petId: 9, photoId: kept.id, startedAt: T0 });
        expect(await store.list(9)).to.deep.equal([kept]);
        expect(await expectWhole(store, [9])).to.equal(kept.files.length);
      }));

    it('delete removes a published photo of that pet only (record, bytes, place); then it is gone', () =>
      withFixture(make, async ({ store, storedFiles }) => {
        const photo = await upload(store, 11, 'd');
        expect(await store.delete(12, photo.id), "another pet's id").to.equal(false);
        const pending = reserved(await store.reserve(11, 100, T0));
        expect(await store.delete(11, pending.photoId), 'an upload under way is not a photo').to.equal(false);
        expect(await store.delete(11, photo.id)).to.equal(true);
        expect(await store.delete(11, photo.id)).to.equal(false);
        expect(await store.find(11, photo.id)).to.equal(undefined);
        expect(await store.read(photo.id, photo.width)).to.equal(undefined);
        expect(await store.list(11)).to.deep.equal([]);
        await store.abandon(pending);
        expect(await storedFiles()).to.equal(0);
        expect(await store.pets()).to.deep.equal([]);
      }));

    it("deleteAllOf removes every photo of the pet, uploads under way included (their publish then fails), and no other pet's", () =>
      withFixture(make, async ({ store, storedFiles }) => {
        await upload(store, 21, 'a');
        await upload(store, 21, 'b');
        const other = await upload(store, 22, 'c');
        const files = filesFor('d');
        const place = reserved(await store.reserve(21, total(files), T0));
        await store.putFile(place, files[0]!.file, files[0]!.bytes);
        expect(await store.deleteAllOf(21)).to.equal(2);
        await store.putFile(place, files[1]!.file, files[1]!.bytes);
        expect(await store.publish(place, photoOf(place, files))).to.equal(false);
        await store.abandon(place);
        expect(await store.list(21)).to.deep.equal([]);
        expect(await store.list(22)).to.deep.equal([other]);
        expect(await storedFiles()).to.equal(other.files.length);
        expect(await store.deleteAllOf(21)).to.equal(0);
        for (let i = 0; i < PHOTOS_PER_PET; i++) expect(await store.reserve(21, 10, T0)).not.to.equal('full');
      }));

    it('a sweep removes the uploads started before its cut-off and never published (a restart), and keeps the rest', () =>
      withFixture(make, async ({ store, restart, storedFiles }) => {
        const kept = await upload(store, 31, 'kept', T0);
        const oldFiles = filesFor('old');
        const old = reserved(await store.reserve(31, total(oldFiles), T0 + 1_000));
        for (const { file, bytes } of oldFiles) await store.putFile(old, file, bytes);
        const youngFiles = filesFor('young');
        const young = reserved(await store.reserve(31, total(youngFiles), T0 + 5_000));
        await store.putFile(young, youngFiles[0]!.file, youngFiles[0]!.bytes);
        // A process dies: a new one starts and sweeps everything started before it.
        const after = await restart();
        expect(await after.sweep(T0 + 2_000)).to.deep.include({ uploads: 1 });
        expect(await after.publish(old, photoOf(old, oldFiles)), 'the swept upload cannot publish').to.equal(false);
        expect(await storedFiles()).to.equal(kept.files.length + 1);
        await after.putFile(young, youngFiles[1]!.file, youngFiles[1]!.bytes);
        const published = photoOf(young, youngFiles);
        expect(await after.publish(young, published), 'an upload after the cut-off goes on').to.equal(true);
        expect(await after.list(31)).to.deep.equal([kept, published]);
        expect(await after.sweep(T0 + 60_000)).to.deep.equal({ uploads: 0, files: 0 });
        expect(await storedFiles()).to.equal(kept.files.length + published.files.length);
        expect(await expectWhole(after, [31])).to.equal(kept.files.length + published.files.length);
      }));

    it('property (model-based): reservations, files, publications, give-ups, removals and sweeps behave as a plain map of places', () =>
      fc.assert(
        fc.asyncProperty(
          fc.commands(
            [
              fc.constantFrom(...PETS).map((petId) => new ReserveCommand(petId)),
              fc.nat().map((n) => new PutCommand(n)),
              fc.nat().map((n) => new PublishCommand(n)),
              fc.nat().map((n) => new AbandonCommand(n)),
              fc.tuple(fc.nat(), fc.constantFrom(...PETS)).map(([n, petId]) => new DeleteCommand(n, petId)),
              fc.constantFrom(...PETS).map((petId) => new DeleteAllCommand(petId)),
              fc.constantFrom(0, 1_500, 10_000).map((back) => new SweepCommand(back)),
            ],
            { maxCommands: 40 },
          ),
          (commands) =>
            withFixture(make, async ({ store }) => {
              const model: Model = { now: T0, places: new Map(), uploads: [] };
              const real: Real = { store };
              await fc.asyncModelRun(() => ({ model, real }), commands);
              await checkAgainstModel(model, store);
            }),
        ),
        runs,
      ));

    it("an upload through the use case racing its pet's withdrawal answers the photo (the withdrawal then removes it) or 404, never an outage, at whatever step the withdrawal and its removal of the photos land; nothing of the upload is left (docs/rules.md §12, §13)", () =>
      withFixture(make, async ({ store, storedFiles }) => {
        const clock = new ManualClock(T0);
        const files = await storedFiles();
        let petId = 600;
        /** One upload of a new pet; `withdrawAt` and `removeAt` (≥ it): before which of the upload's calls (to the store or the pets) the withdrawal's two writes land, each after the upload when past its last call. */
        const race = async (withdrawAt: number, removeAt: number, token: string | undefined) => {
          const pet = ++petId;
          let withdrawn = false;
          let calls = 0;
          let lastLookup = -1;
          const before = async (): Promise<void> => {
            if (calls === withdrawAt) withdrawn = true;
            if (calls === removeAt) await store.deleteAllOf(pet);
            calls++;
          };
          const pets = {
            findById: async (id: number) => {
              await before();
              lastLookup = calls - 1;
              return id === pet && !withdrawn ? { id } : undefined;
            },
          };
          // Every call of the store goes through `before` first.
          const racing = new Proxy(store, {
            get: (target, name, receiver) => {
              const value: unknown = Reflect.get(target, name, receiver);
              return typeof value === 'function'
                ? async (...args: unknown[]) => (await before(), value.apply(target, args))
                : value;
            },
          });
          const library = new PhotoLibrary(pets, racing, new TextImageProcessor(), clock, nodeDigests);
          const body = async () => textImage({ format: 'jpeg', width: 400, height: 300 }, `race ${pet}`);
          const outcome = await library.upload(
            ADMIN,
            String(pet),
            'image/jpeg',
            body,
            token === undefined ? undefined : { token: `${token}-${pet}`, resumed: false },
          );
          const upload = calls;
          if (removeAt >= upload) await store.deleteAllOf(pet);
          return { pet, outcome, upload, lastLookup };
        };
        // The calls of an upload the withdrawal never meets.
        const { upload: steps, outcome: undisturbed } = await race(
          Number.MAX_SAFE_INTEGER,
          Number.MAX_SAFE_INTEGER,
          undefined,
        );
        expect(undisturbed.ok).to.equal(true);
        for (const token of [undefined, 'tok-withdrawn']) {
          for (let withdrawAt = 0; withdrawAt <= steps; withdrawAt++) {
            for (let removeAt = withdrawAt; removeAt <= steps; removeAt++) {
              const { pet, outcome, lastLookup } = await race(withdrawAt, removeAt, token).catch((error: unknown) => {
                throw new Error(
                  `withdrawn before call ${withdrawAt}, photos removed before call ${removeAt}${token === undefined ? '' : ', under a key'}: ${String(error)}`,
                );
              });
              const where = `withdrawn before call ${withdrawAt}, photos removed before call ${removeAt} (last look-up: call ${lastLookup})${token === undefined ? '' : ', under a key'}`;
              // The upload saw its pet at its last look-up: it answers the photo; else the pet went first: 404.
              if (withdrawAt > lastLookup)
                expect(outcome, where).to.deep.nested.include({ ok: true, 'value.petId': pet });
              else
                expect(outcome, where).to.deep.nested.include({
                  ok: false,
                  'error.code': 'not_found',
                  'error.message': `no pet has id ${pet}`,
                });
              expect(await store.list(pet), where).to.deep.equal([]);
            }
          }
        }
        expect(await store.pets(), 'no photo of a withdrawn pet').to.deep.equal([]);
        expect(await storedFiles(), 'no bytes left').to.equal(files);
        expect(await store.sweep(T0 + 60_000), 'no upload left under way, no stray file').to.deep.equal({
          uploads: 0,
          files: 0,
        });
      }));

    describe('an upload through the use case, with the store failing or hanging at each of its writes (docs/rules.md §13)', () => {
      const steps = ['reserve', 'putFile', 'publish', 'abandon'] as const;
      const modes = FAULT_MODES.filter((mode): mode is Exclude<FaultMode, 'pass'> => mode !== 'pass');
      for (const step of steps) {
        for (const mode of modes) {
          it(`${step} ${mode}: no half photo is ever visible, and after a restart nothing stray is left and all ${PHOTOS_PER_PET} places are there`, () =>
            withFixture(make, async ({ store, restart, storedFiles }) => {
              const faults = new FaultInjector({ hangMs: 20 });
              const clock = new ManualClock(T0);
              const pets = { findById: async (id: number) => (id === 41 ? { id } : undefined) };
              const library = new PhotoLibrary(
                pets,
                faults.photoStore(store),
                new TextImageProcessor(),
                clock,
                nodeDigests,
              );
              const body = textImage({ format: 'jpeg', width: 900, height: 600 }, 'fault');
              // The first call of `step` fails (a give-up only happens after an earlier fault, so `abandon` is paired with a putFile failure).
              let struck = false;
              faults.use((call) => {
                if (step === 'abandon' && call.method === 'putFile' && !struck) return 'fail';
                if (call.method !== step || struck) return undefined;
                struck = true;
                return mode;
              });
              const answer = await library
                .upload(ADMIN, '41', 'image/jpeg', async () => body)
                .then(
                  (result) => ({ result }),
                  (error: unknown) => ({ error }),
                );
              faults.reset();
              // A fault is either an outage answer (503) or, when the decisive write landed before the answer was lost, a published photo.
              if ('error' in answer) expect(answer.error).to.be.instanceOf(StoreUnavailableError);
              else expect(answer.result.ok, JSON.stringify(answer.result)).to.equal(true);
              const visibleNow = await store.list(41);
              expect(visibleNow.length).to.be.at.most(1);
              await expectWhole(store, [41]);

              clock.advance(1_000);
              const after = await restart();
              const restarted = new PhotoLibrary(pets, after, new TextImageProcessor(), clock, nodeDigests);
              await restarted.sweep();
              const photos = await after.list(41);
              expect(photos.map((p) => p.id)).to.deep.equal(visibleNow.map((p) => p.id));
              const files = await expectWhole(after, [41]);
              expect(await storedFiles(), 'no stray bytes after the restart').to.equal(files);
              for (let i = photos.length; i < PHOTOS_PER_PET; i++) {
                const again = await restarted.upload(ADMIN, '41', 'image/jpeg', async () =>
                  textImage({ format: 'jpeg', width: 300, height: 200 }, `r${i}`),
                );
                expect(again.ok, `upload ${i + 1} after the restart`).to.equal(true);
              }
              const refused = await restarted.upload(ADMIN, '41', 'image/jpeg', async () => body);
              expect(refused.ok === false && refused.error.code).to.equal('conflict');
            }));
        }
      }
    });
  });
};

// Signed photo URLs (docs/rules.md §16): the signature (HMAC-SHA256 over the pet's and the photo's
// ids, base64url, compared in constant time), the URLs and srcsets of `PhotoUrls`, its secret read
// through a cache of at most 1 s, and the rotation.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import {
  PHOTO_SIGNATURE_LENGTH,
  PhotoUrls,
  signatureHolds,
  signPhoto,
  srcsetOf,
  type Caller,
  type Digests,
  type Photo,
  type PhotoUrlSecretStore,
} from '../src/index.js';
import { ManualClock, SeededRandom, nodeDigests } from '../test-support/index.js';
import { CountingStore, photoOf, signatureOf } from './support/photo-urls.js';

const ADMIN: Caller = { keyId: 'key_00000000000a', role: 'admin' };
const CLIENT: Caller = { keyId: 'key_00000000000c', role: 'client' };
const SECRET = 'k'.repeat(43);
/** docs/rules.md §16: a rotation is in force in every process within 1 second. */
const ROTATION_BOUND_MS = 1_000;

const idArb = fc.integer({ min: 1, max: 2 ** 53 - 1 }).map(String);

describe('photo signatures (docs/rules.md §16)', () => {
  it('are the HMAC-SHA256 of "photo:v1:<petId>:<photoId>" under the secret, in unpadded base64url (256 bits)', () => {
    const expected = createHmac('sha256', SECRET).update('photo:v1:12:34').digest('base64url');
    expect(signPhoto(nodeDigests, SECRET, '12', '34')).to.equal(expected);
    expect(expected).to.have.length(PHOTO_SIGNATURE_LENGTH);
  });

  it('property: a signature holds for its own pet, photo and secret, and for no other', () => {
    fc.assert(
      fc.property(idArb, idArb, idArb, idArb, fc.string({ minLength: 1 }), (pet, id, otherPet, otherId, other) => {
        const sig = signPhoto(nodeDigests, SECRET, pet, id);
        expect(signatureHolds(nodeDigests, SECRET, pet, id, sig)).to.equal(true);
        if (otherPet !== pet) expect(signatureHolds(nodeDigests, SECRET, otherPet, id, sig)).to.equal(false);
        if (otherId !== id) expect(signatureHolds(nodeDigests, SECRET, pet, otherId, sig)).to.equal(false);
        if (other !== SECRET) expect(signatureHolds(nodeDigests, other, pet, id, sig)).to.equal(false);
      }),
    );
  });

  it('property: the ids cannot be shifted across the separator (12:34 is not 1:234)', () => {
    fc.assert(
      fc.property(idArb, idArb, fc.nat(), (pet, id, cut) => {
        const joined = pet + id;
        const at = 1 + (cut % (joined.length - 1));
        const [p, q] = [joined.slice(0, at), joined.slice(at)];
        fc.pre(p !== pet);
        expect(signPhoto(nodeDigests, SECRET, p, q)).not.to.equal(signPhoto(nodeDigests, SECRET, pet, id));
      }),
    );
  });

  it('property: any other text, of any shape, does not hold', () => {
    const sig = signPhoto(nodeDigests, SECRET, '1', '2');
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary', minLength: 43, maxLength: 43 })), (text) => {
        fc.pre(text !== sig);
        expect(signatureHolds(nodeDigests, SECRET, '1', '2', text)).to.equal(false);
      }),
    );
  });

  it("are compared with the port's constant-time equality, and one of another length is not even computed", () => {
    const calls: string[][] = [];
    const digests: Digests = { ...nodeDigests, equal: (a, b) => (calls.push([a, b]), nodeDigests.equal(a, b)) };
    const sig = signPhoto(nodeDigests, SECRET, '1', '2');
    expect(signatureHolds(digests, SECRET, '1', '2', sig)).to.equal(true);
    expect(calls).to.deep.equal([[sig, sig]]);
    expect(signatureHolds(digests, SECRET, '1', '2', sig + 'A')).to.equal(false);
    expect(signatureHolds(digests, SECRET, '1', '2', '')).to.equal(false);
    expect(calls).to.have.length(1);
  });
});

describe('PhotoUrls (docs/rules.md §16)', () => {
  const make = (store: PhotoUrlSecretStore, clock = new ManualClock(), base = '') =>
    new PhotoUrls({ store }, { digests: nodeDigests, random: new SeededRandom(), clock, base });

  it('links each photo to <base>/v1/pets/{petId}/photos/{photoId}?sig=…, with its srcset, in order', async () => {
    const setting = new PhotoUrls(
      { setting: SECRET },
      { digests: nodeDigests, random: new SeededRandom(), clock: new ManualClock(), base: 'https://pets.example' },
    );
    const views = await setting.links([photoOf(7, 3, 700), photoOf(7, 1, 200)]);
    const url = `https://pets.example/v1/pets/7/photos/3?sig=${signPhoto(nodeDigests, SECRET, '7', '3')}`;
    expect(views[0]).to.deep.equal({
      id: 3,
      contentType: 'image/jpeg',
      width: 700,
      height: 300,
      url,
      srcset: srcsetOf(url, 700),
    });
    expect(views[1]!.url).to.equal(
      `https://pets.example/v1/pets/7/photos/1?sig=${signPhoto(nodeDigests, SECRET, '7', '1')}`,
    );
    const relative = await make(new CountingStore()).links([photoOf(7, 3)]);
    expect(relative[0]!.url).to.match(/^\/v1\/pets\/7\/photos\/3\?sig=[A-Za-z0-9_-]{43}$/);
  });

  it('property: every view is the one the rules make for its photo, whatever came before it (views are reused only for the same photo, fields and secret)', async () => {
    const urls = new PhotoUrls(
      { setting: SECRET },
      { digests: nodeDigests, random: new SeededRandom(), clock: new ManualClock(), base: 'https://p.example' },
    );
    const expected = (p: Photo) => {
      const url = `https://p.example/v1/pets/${p.petId}/photos/${p.id}?sig=${signPhoto(nodeDigests, SECRET, String(p.petId), String(p.id))}`;
      return {
        id: p.id,
        contentType: p.contentType,
        width: p.width,
        height: p.height,
        url,
        srcset: srcsetOf(url, p.width),
      };
    };
    const photoArb = fc
      .record({
        id: fc.integer({ min: 1, max: 6 }),
        petId: fc.integer({ min: 1, max: 3 }),
        width: fc.constantFrom(100, 500, 4096),
        height: fc.constantFrom(80, 300),
        contentType: fc.constantFrom('image/jpeg' as const, 'image/png' as const),
      })
      .map((p): Photo => ({ ...p, bytes: 1, createdAt: '2027-01-01T00:00:00.000Z' }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(photoArb, { maxLength: 12 }), { maxLength: 8 }), async (pages) => {
        for (const page of pages) expect(await urls.links(page)).to.deep.equal(page.map(expected));
      }),
    );
  });

  it("verifies the signature of its own URLs, and not another photo's", async () => {
    const urls = make(new CountingStore());
    const [a, b] = await urls.links([photoOf(1, 1), photoOf(1, 2)]);
    expect(await urls.verify('1', '1', signatureOf(a!.url))).to.equal(true);
    expect(await urls.verify('1', '2', signatureOf(b!.url))).to.equal(true);
    expect(await urls.verify('1', '2', signatureOf(a!.url))).to.equal(false);
    expect(await urls.verify('2', '1', signatureOf(a!.url))).to.equal(false);
  });

  it('makes the secret once, at first use, and concurrent first uses share one read and one create', async () => {
    const store = new CountingStore();
    const urls = make(store);
    await Promise.all([
      urls.links([photoOf(1, 1)]),
      urls.verify('1', '1', 'A'.repeat(43)),
      urls.links([photoOf(2, 2)]),
    ]);
    expect([store.reads, store.creates]).to.deep.equal([1, 1]);
    expect(store.secret).to.be.a('string').with.length(43);
  });

  it('reads the store at most once per second, however many requests', async () => {
    const store = new CountingStore();
    const clock = new ManualClock();
    const urls = make(store, clock);
    for (let i = 0; i < 50; i++) {
      await urls.links([photoOf(1, i + 1)]);
      clock.advance(ROTATION_BOUND_MS / 50 - 1);
    }
    expect(store.reads).to.equal(1);
    clock.advance(50);
    await urls.links([photoOf(1, 1)]);
    expect(store.reads).to.equal(2);
    await urls.links([]);
    expect(store.reads, 'a page without photos reads nothing').to.equal(2);
  });

  it('a rotation voids the URLs made before: at once here, within 1 s in another process on the same store', async () => {
    const store = new CountingStore();
    const clock = new ManualClock();
    const here = make(store, clock);
    const there = make(store, clock);
    const [before] = await here.links([photoOf(5, 9)]);
    const old = signatureOf(before!.url);
    expect(await there.verify('5', '9', old)).to.equal(true);
    clock.advance(400);
    expect((await here.rotate(ADMIN)).ok).to.equal(true);
    expect(await here.verify('5', '9', old)).to.equal(false);
    const [after] = await here.links([photoOf(5, 9)]);
    expect(signatureOf(after!.url)).not.to.equal(old);
    expect(await here.verify('5', '9', signatureOf(after!.url))).to.equal(true);
    clock.advance(ROTATION_BOUND_MS - 400);
    expect(await there.verify('5', '9', old), 'the other process, 1 s after its read').to.equal(false);
    expect(await there.verify('5', '9', signatureOf(after!.url))).to.equal(true);
    expect(await there.links([photoOf(5, 9)]), 'and links anew').to.deep.equal([after]);
  });

  it('rotate: forbidden to anyone but an admin key, before the store is touched; conflict for the setting', async () => {
    const store = new CountingStore();
    const urls = make(store);
    const [view] = await urls.links([photoOf(1, 1)]);
    const secret = store.secret;
    for (const caller of [CLIENT, undefined]) {
      const refused = await urls.rotate(caller);
      expect(!refused.ok && refused.error.code).to.equal('forbidden');
    }
    expect(store.secret).to.equal(secret);
    expect(await urls.verify('1', '1', signatureOf(view!.url))).to.equal(true);
    const setting = new PhotoUrls(
      { setting: SECRET },
      { digests: nodeDigests, random: new SeededRandom(), clock: new ManualClock() },
    );
    const conflict = await setting.rotate(ADMIN);
    expect(!conflict.ok && conflict.error.code).to.equal('conflict');
    expect(!conflict.ok && conflict.error.message).to.include('PETSTORE_PHOTO_URL_SECRET');
    expect(!conflict.ok && conflict.error.message).not.to.include(SECRET);
    expect(!(await setting.rotate(CLIENT)).ok && 'forbidden').to.equal('forbidden');
  });

  it('a signature of the wrong length is refused without reading the store', async () => {
    const store = new CountingStore();
    const urls = make(store);
    for (const sig of ['', 'x', 'A'.repeat(42), 'A'.repeat(44), 'A'.repeat(100_000)])
      expect(await urls.verify('1', '1', sig)).to.equal(false);
    expect(store.reads).to.equal(0);
  });
});

// docs/rules.md §16 "Signed photo URLs" over HTTP on the memory store: a keyless GET or HEAD of a
// photo with its URL's `sig` is served as §13 says with public caching; a missing or wrong `sig` of
// any shape is 401; keyless reads are counted per address with the business plan's numbers, apart
// from the address's other keyless requests; a deleted photo or a withdrawn pet is 404 at once; the
// rotation route voids the URLs made before (admin keys; 409 for a secret from the setting).
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { PLAN_QUOTAS, PhotoUrls, type Photo } from '@petstore/domain';
import { ManualClock, SeededRandom, nodeDigests } from '@petstore/domain/testing';
import { PhotoUrlSecretStoreInMemory } from '@petstore/adapters-memory';
import { testImage } from '@petstore/adapters-sharp/testing';
import { expectError, KEYS, rateLimitOf, startServer, T0, type TestServer } from './support/server.js';

const SECRET = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7 + 1)).toString('base64url');
const business = PLAN_QUOTAS.business;

describe('signed photo URLs (docs/rules.md §16)', function () {
  this.timeout(60_000);
  let s: TestServer;
  let urls: PhotoUrls;
  let jpeg: Buffer;

  const createPet = async (server = s): Promise<number> => {
    const res = await server.postJson('{"name":"Rex","categoryId":1}');
    expect(res.status).to.equal(201);
    return (res.json() as { id: number }).id;
  };
  const uploaded = async (petId: number, server = s): Promise<Photo> => {
    const res = await server.request({
      method: 'POST',
      path: `/v1/pets/${petId}/photos`,
      key: KEYS.admin,
      headers: { 'content-type': 'image/jpeg' },
      body: jpeg,
    });
    expect(res.status, res.text).to.equal(201);
    return res.json() as Photo;
  };
  /** The photo's URL as `expand=photos` gives it: `/v1/pets/{petId}/photos/{photoId}?sig=…`. */
  const urlOf = async (photo: Photo, signer = urls): Promise<string> => (await signer.links([photo]))[0]!.url;
  const keyless = (path: string, headers: Record<string, string> = {}, method = 'GET', server = s) =>
    server.request({ method, path, headers });

  beforeEach(async () => {
    urls = new PhotoUrls(
      { store: new PhotoUrlSecretStoreInMemory() },
      { digests: nodeDigests, random: new SeededRandom('signed'), clock: new ManualClock(T0) },
    );
    s = await startServer({ photoUrls: urls });
  });
  afterEach(() => s.close());
  before(async () => {
    jpeg = await testImage({ format: 'jpeg', width: 800, height: 600, content: 'photo' });
  });

  it("GET without a key and with the URL's sig → 200, the bytes of §13, Cache-Control public a day, CORP cross-origin", async () => {
    const photo = await uploaded(await createPet());
    const url = await urlOf(photo);
    expect(url).to.match(new RegExp(`^/v1/pets/${photo.petId}/photos/${photo.id}\\?sig=[A-Za-z0-9_-]{43}$`));
    const keyed = await s.request({ path: `/v1/pets/${photo.petId}/photos/${photo.id}`, key: KEYS.huge });
    const res = await keyless(url);
    expect(res.status, res.text).to.equal(200);
    expect(res.header('content-type')).to.equal('image/jpeg');
    expect(res.bytes.equals(keyed.bytes)).to.equal(true);
    expect(res.header('content-length')).to.equal(String(photo.bytes));
    expect(res.header('etag')).to.equal(keyed.header('etag'));
    expect(res.header('cache-control')).to.equal('public, max-age=86400');
    expect(res.header('cross-origin-resource-policy')).to.equal('cross-origin');
    expect(res.header('x-content-type-options')).to.equal('nosniff');
    // A keyed read keeps §13's private caching, with the key's sig or without.
    for (const path of [url, `/v1/pets/${photo.petId}/photos/${photo.id}`]) {
      const withKey = await s.request({ path, key: KEYS.huge });
      expect(withKey.status).to.equal(200);
      expect(withKey.header('cache-control')).to.equal('private, max-age=86400');
      expect(withKey.headers).not.to.have.property('cross-origin-resource-policy');
    }
  });

  it('HEAD, width and If-None-Match work as in §13, publicly cached', async () => {
    const photo = await uploaded(await createPet());
    const url = await urlOf(photo);
    const head = await keyless(url, {}, 'HEAD');
    expect(head.status).to.equal(200);
    expect(head.bytes.length).to.equal(0);
    expect(head.header('content-length')).to.equal(String(photo.bytes));
    expect(head.header('cache-control')).to.equal('public, max-age=86400');
    const narrow = await keyless(`${url}&width=160`);
    expect(narrow.status).to.equal(200);
    expect(narrow.bytes.length).to.be.greaterThan(0).and.lessThan(photo.bytes);
    expect(narrow.header('cache-control')).to.equal('public, max-age=86400');
    expectError(await keyless(`${url}&width=161`), 400, 'validation_failed');
    const notModified = await keyless(url, { 'if-none-match': head.header('etag') });
    expect(notModified.status).to.equal(304);
    expect(notModified.header('cache-control')).to.equal('public, max-age=86400');
    expect(notModified.header('cross-origin-resource-policy')).to.equal('cross-origin');
  });

  it('a missing or wrong sig without a key → 401 with WWW-Authenticate, whatever its shape, never echoed', async () => {
    const petId = await createPet();
    const [photo, other] = [await uploaded(petId), await uploaded(petId)];
    const otherPet = await uploaded(await createPet());
    const good = new URLSearchParams((await urlOf(photo)).split('?')[1]).get('sig')!;
    const otherSig = (await urlOf(other)).split('sig=')[1]!;
    const otherPetSig = (await urlOf(otherPet)).split('sig=')[1]!;
    const forged = createHmac('sha256', SECRET).update(`photo:v1:${petId}:${photo.id}`).digest('base64url');
    const path = `/v1/pets/${petId}/photos/${photo.id}`;
    const wrong = [
      '',
      'x',
      good.slice(0, 42),
      `${good}A`,
      good.toUpperCase() === good ? good.toLowerCase() : good.toUpperCase(),
      'A'.repeat(43),
      '%00'.repeat(15),
      '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
      'Z'.repeat(4000),
      '%F0%9F%90%B6'.repeat(11),
      '%ED%A0%80'.repeat(20),
      '%',
      '%zz' + 'A'.repeat(40),
      good.replace(/[-_]/g, (c) => (c === '-' ? '+' : '/')),
      `${good}%00`,
      otherSig,
      otherPetSig,
      forged,
    ];
    for (const sig of wrong.filter((text) => text !== good)) {
      const res = await keyless(`${path}?sig=${sig}`);
      const body = expectError(res, 401, 'unauthorized');
      expect(res.header('www-authenticate')).to.equal('Bearer realm="petstore"');
      if (sig.length > 3) expect(body.message).not.to.contain(sig.slice(0, 20));
      expect(res.headers).not.to.have.property('cross-origin-resource-policy');
      // Counted as any request without a valid key: the address's free-plan window.
      expect(rateLimitOf(res).limit).to.equal(PLAN_QUOTAS.free.perMinute);
    }
    // Missing: the plain answer to a request without a key.
    for (const query of ['', '?width=160', '?si=' + good, '?SIG=' + good]) {
      const res = await keyless(path + query);
      expect(expectError(res, 401, 'unauthorized').message).to.contain('Authorization: Bearer');
      expect(res.header('www-authenticate')).to.equal('Bearer realm="petstore"');
    }
    // The right one twice is not one sig; the right one on another path is not this path's.
    expectError(await keyless(`${path}?sig=${good}&sig=${good}`), 401, 'unauthorized');
    expectError(await keyless(`/v1/pets/${petId}/photos/${other.id}?sig=${good}`), 401, 'unauthorized');
    expectError(await keyless(`/v1/pets/0${petId}/photos/${photo.id}?sig=${good}`), 401, 'unauthorized');
    // And the sig is no credential for anything else.
    expectError(await keyless(`/v1/pets/${petId}/photos?sig=${good}`), 401, 'unauthorized');
    expectError(await keyless(`/v1/pets/${petId}?sig=${good}`), 401, 'unauthorized');
    expect((await keyless(`${path}?sig=${good}`)).status).to.equal(200);
  });

  it('a deleted photo and a withdrawn pet → 404 at once, by the URL made before', async () => {
    let removeAll: (petId: number) => Promise<void> = async () => undefined;
    await s.close();
    s = await startServer({ photoUrls: urls, afterWithdrawal: (petId) => removeAll(petId) });
    removeAll = async (petId) => void (await s.photos.removeAllOf(petId));
    const petId = await createPet();
    const [kept, deleted] = [await uploaded(petId), await uploaded(petId)];
    const [keptUrl, deletedUrl] = [await urlOf(kept), await urlOf(deleted)];
    expect((await keyless(deletedUrl)).status).to.equal(200);
    const del = await s.request({ method: 'DELETE', path: `/v1/pets/${petId}/photos/${deleted.id}`, key: KEYS.admin });
    expect(del.status).to.equal(204);
    expectError(await keyless(deletedUrl), 404, 'not_found');
    expect((await keyless(deletedUrl, {}, 'HEAD')).status).to.equal(404);
    expect((await keyless(keptUrl)).status).to.equal(200);
    const withdraw = await s.request({ method: 'DELETE', path: `/v1/pets/${petId}`, key: KEYS.admin });
    expect(withdraw.status, withdraw.text).to.equal(204);
    expectError(await keyless(keptUrl), 404, 'not_found');
  });

  it("keyless signed reads are counted per address with the business plan's numbers, apart from its other keyless requests; 429 and a ban past them", async () => {
    const photo = await uploaded(await createPet());
    const url = await urlOf(photo);
    const first = await keyless(url, {}, 'HEAD');
    const limits = rateLimitOf(first);
    expect([limits.limit, limits.remaining]).to.deep.equal([business.perMinute, business.perMinute - 1]);
    expect(limits.policy).to.equal(`"minute";q=${business.perMinute};w=60, "day";q=${business.perDay};w=86400`);
    // The address's own keyless window (the free plan's) is untouched by them, and spends apart.
    const anonymous = rateLimitOf(await keyless(`/v1/pets/${photo.petId}`));
    expect([anonymous.limit, anonymous.remaining]).to.deep.equal([
      PLAN_QUOTAS.free.perMinute,
      PLAN_QUOTAS.free.perMinute - 1,
    ]);
    // A key's request with the sig is the key's.
    const keyed = rateLimitOf(await s.request({ path: url, key: KEYS.pro }));
    expect([keyed.limit, keyed.remaining]).to.deep.equal([PLAN_QUOTAS.pro.perMinute, PLAN_QUOTAS.pro.perMinute - 1]);
    for (let i = 1; i < business.perMinute; i++) {
      const res = await keyless(url, {}, 'HEAD');
      expect(res.status).to.equal(200);
    }
    const refused = await keyless(url);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.header('retry-after'))).to.be.at.least(1);
    expect(rateLimitOf(refused).remaining).to.equal(0);
    for (let i = 0; i < 10; i++) await keyless(url, {}, 'HEAD');
    expectError(await keyless(url), 429, 'temporarily_banned');
    // The address's other keyless requests are not banned with them.
    expectError(await keyless(`/v1/pets/${photo.petId}`), 401, 'unauthorized');
  });

  describe('POST /v1/admin/photo-url-secret/rotate', () => {
    const rotate = (key?: string, server = s) =>
      server.request({
        method: 'POST',
        path: '/v1/admin/photo-url-secret/rotate',
        ...(key === undefined ? {} : { key }),
      });

    it('admin keys: 204, and every URL made before is 401 from then on while new ones work', async () => {
      const photo = await uploaded(await createPet());
      const before = await urlOf(photo);
      expect((await keyless(before)).status).to.equal(200);
      const res = await rotate(KEYS.admin);
      expect(res.status, res.text).to.equal(204);
      expect(res.text).to.equal('');
      rateLimitOf(res);
      expectError(await keyless(before), 401, 'unauthorized');
      const after = await urlOf(photo);
      expect(after).not.to.equal(before);
      expect((await keyless(after)).status).to.equal(200);
    });

    it('a client key → 403 and nothing rotates; no key → 401', async () => {
      const photo = await uploaded(await createPet());
      const url = await urlOf(photo);
      for (const key of [KEYS.huge, KEYS.free]) {
        const res = await rotate(key);
        expect(expectError(res, 403, 'forbidden').message).to.equal('this operation needs an admin key');
      }
      expectError(await rotate(), 401, 'unauthorized');
      expect((await keyless(url)).status).to.equal(200);
    });

    it('409 conflict when the secret comes from the setting, which keeps signing', async () => {
      const fromSetting = new PhotoUrls(
        { setting: SECRET },
        { digests: nodeDigests, random: new SeededRandom('setting'), clock: new ManualClock(T0) },
      );
      const other = await startServer({ photoUrls: fromSetting });
      try {
        const photo = await uploaded(await createPet(other), other);
        const url = await urlOf(photo, fromSetting);
        const sig = createHmac('sha256', SECRET).update(`photo:v1:${photo.petId}:${photo.id}`).digest('base64url');
        expect(url).to.equal(`/v1/pets/${photo.petId}/photos/${photo.id}?sig=${sig}`);
        const res = await rotate(KEYS.admin, other);
        const body = expectError(res, 409, 'conflict');
        expect(body.message).to.contain('PETSTORE_PHOTO_URL_SECRET');
        expect(body.message).not.to.contain(SECRET);
        expect((await keyless(url, {}, 'GET', other)).status).to.equal(200);
      } finally {
        await other.close();
      }
    });
  });
});

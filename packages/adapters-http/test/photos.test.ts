// docs/rules.md §13, sentence by sentence, over HTTP on the memory store, with real images made by
// sharp in the tests: upload, list, get (widths, ETag, 304, HEAD), delete; the limits, the 12 per
// pet, the budget, Idempotency-Key, rate-limit headers on every answer, and faults of the store.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { PHOTOS_PER_PET, type PetRepository } from '@petstore/domain';
import { FaultInjector, forwardingPets } from '@petstore/domain/testing';
import {
  animatedPng,
  animatedWebp,
  containsAny,
  decodesWhole,
  describeImage,
  GPS_TRACES,
  pngBomb,
  testImage,
  withPngChunk,
} from '@petstore/adapters-sharp/testing';
import { buildOpenApiDocument, PrometheusMetrics } from '../src/index.js';
import { expectError, KEYS, rateLimitOf, startServer, streamingRequest, type TestServer } from './support/server.js';

const TYPES = 'image/jpeg, image/png, image/webp';
const MiB = 1024 * 1024;

/** A repository whose pets can be withdrawn: `findById` no longer finds them (as docs/rules.md §12 says of a withdrawn pet). */
class WithdrawingRepository {
  readonly withdrawn = new Set<number>();
  constructor(private readonly inner: PetRepository) {}
  wrap(): PetRepository {
    const inner = this.inner;
    return {
      ...forwardingPets(inner),
      findById: async (id: number) => (this.withdrawn.has(id) ? undefined : inner.findById(id)),
    };
  }
}

const photoKeys = ['id', 'petId', 'contentType', 'width', 'height', 'bytes', 'createdAt'];

describe('photos (docs/rules.md §13)', function () {
  this.timeout(120_000);
  let s: TestServer;
  let withdrawals: WithdrawingRepository;
  let jpeg: Buffer;

  const createPet = async (): Promise<number> => {
    const res = await s.postJson('{"name":"Rex","categoryId":1}');
    expect(res.status).to.equal(201);
    return (res.json() as { id: number }).id;
  };
  const upload = (
    petId: number | string,
    body: Buffer,
    type = 'image/jpeg',
    key: string = KEYS.admin,
    headers: Record<string, string> = {},
  ) =>
    s.request({
      method: 'POST',
      path: `/v1/pets/${petId}/photos`,
      key,
      headers: { 'content-type': type, ...headers },
      body,
    });
  const get = (path: string, key: string = KEYS.huge, headers: Record<string, string> = {}, method = 'GET') =>
    s.request({ method, path, key, headers });
  const uploaded = async (
    petId: number,
    body: Buffer,
    type = 'image/jpeg',
  ): Promise<{ id: number; width: number; height: number; bytes: number; location: string }> => {
    const res = await upload(petId, body, type);
    expect(res.status, res.text).to.equal(201);
    return {
      ...(res.json() as { id: number; width: number; height: number; bytes: number }),
      location: res.header('location'),
    };
  };

  before(async () => {
    const { PetRepositoryInMemory } = await import('@petstore/adapters-memory');
    withdrawals = new WithdrawingRepository(new PetRepositoryInMemory());
    s = await startServer({ repository: withdrawals.wrap() });
    jpeg = await testImage({ format: 'jpeg', width: 800, height: 600, content: 'photo' });
  });
  after(() => s.close());

  describe('POST /v1/pets/{petId}/photos', () => {
    it('201 with the Photo (id, petId, contentType, width, height, bytes of the stored original, createdAt) and its Location', async () => {
      const petId = await createPet();
      const res = await upload(petId, jpeg);
      expect(res.status, res.text).to.equal(201);
      const photo = res.json() as Record<string, unknown>;
      expect(Object.keys(photo)).to.deep.equal(photoKeys);
      expect(photo).to.deep.include({
        petId,
        contentType: 'image/jpeg',
        width: 800,
        height: 600,
        createdAt: new Date(s.clock.now()).toISOString(),
      });
      expect(photo['id']).to.be.a('number').greaterThan(0);
      expect(res.header('location')).to.equal(`/v1/pets/${petId}/photos/${String(photo['id'])}`);
      expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
      const bytes = await get(res.header('location'));
      expect(bytes.status).to.equal(200);
      expect(bytes.bytes.length, 'bytes is the size of the stored original').to.equal(photo['bytes']);
      rateLimitOf(res);
    });

    it('client keys → 403 before any lookup (whatever the pet id, type or body), and before the body is read', async () => {
      for (const [petId, type] of [
        ['999999', 'image/jpeg'],
        ['abc', 'image/jpeg'],
        ['1', 'text/plain'],
        ['1', 'image/png'],
      ] as const) {
        const res = await upload(petId, jpeg, type, KEYS.huge);
        expect(expectError(res, 403, 'forbidden').message).to.equal('only an admin key may add a photo');
        rateLimitOf(res);
      }
      // Headers declaring 5 MiB, then nothing more: the answer comes without waiting for the body.
      const petId = await createPet();
      const res = await streamingRequest(
        s.port,
        {
          path: `/v1/pets/${petId}/photos`,
          key: KEYS.huge,
          headers: { 'content-type': 'image/jpeg', 'content-length': String(5 * MiB) },
        },
        [jpeg.subarray(0, 1000)],
      );
      expectError(res, 403, 'forbidden');
      expect(res.bytesWritten).to.be.at.most(1000);
    });

    it('client keys → 403 before their Idempotency-Key is looked at: a malformed key, a key another request used, a key in use, a key of an upload (issue 26 #10)', async () => {
      const petId = await createPet();
      // A key this client key already used for a pet (a different request: 422 if it were looked up).
      const used = await s.request({
        method: 'POST',
        path: '/v1/pets',
        key: KEYS.huge,
        headers: { 'content-type': 'application/json', 'idempotency-key': `used-${petId}` },
        body: '{"name":"Rex","categoryId":1}',
      });
      expect(used.status).to.equal(201);
      for (const key of [`used-${petId}`, '', 'é', 'x'.repeat(256), `fresh-${petId}`]) {
        const res = await upload(petId, jpeg, 'image/jpeg', KEYS.huge, { 'idempotency-key': key });
        expect(expectError(res, 403, 'forbidden').message, JSON.stringify(key)).to.equal(
          'only an admin key may add a photo',
        );
        rateLimitOf(res);
      }
      // The same upload again: 403 again, never a kept answer replayed.
      const again = await upload(petId, jpeg, 'image/jpeg', KEYS.huge, { 'idempotency-key': `fresh-${petId}` });
      expectError(again, 403, 'forbidden');
      expect(again.header('idempotent-replayed')).to.equal('');
      // And before the body is read, with a key as without one: 5 MiB declared, a thousand bytes sent.
      const unread = await streamingRequest(
        s.port,
        {
          path: `/v1/pets/${petId}/photos`,
          key: KEYS.huge,
          headers: {
            'content-type': 'image/jpeg',
            'content-length': String(5 * MiB),
            'idempotency-key': `unread-${petId}`,
          },
        },
        [jpeg.subarray(0, 1000)],
      );
      expectError(unread, 403, 'forbidden');
      expect(unread.bytesWritten).to.be.at.most(1000);
      // Over 10 MiB declared: 403 as well (the 413 of an admin's upload is kept under its key; a client key's 403 is not).
      for (const headers of [{}, { 'idempotency-key': `big-${petId}` }]) {
        const big = await streamingRequest(
          s.port,
          {
            path: `/v1/pets/${petId}/photos`,
            key: KEYS.huge,
            headers: { 'content-type': 'image/jpeg', 'content-length': String(11 * MiB), ...headers },
          },
          [],
        );
        expectError(big, 403, 'forbidden');
      }
    });

    it('a 403 leaves the Idempotency-Key free (docs/rules.md §10 keeps no 403): the client key may use it for any create after (issue 26 #11)', async () => {
      const petId = await createPet();
      const key = `refused-then-free-${petId}`;
      expectError(await upload(petId, jpeg, 'image/jpeg', KEYS.huge, { 'idempotency-key': key }), 403, 'forbidden');
      const pet = await s.request({
        method: 'POST',
        path: '/v1/pets',
        key: KEYS.huge,
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: '{"name":"Rex","categoryId":1}',
      });
      expect(pet.status, pet.text).to.equal(201);
      expect(pet.header('idempotent-replayed')).to.equal('');
      // From then on the key is that create's: the create again is its replay.
      const replay = await s.request({
        method: 'POST',
        path: '/v1/pets',
        key: KEYS.huge,
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: '{"name":"Rex","categoryId":1}',
      });
      expect(replay.header('idempotent-replayed')).to.equal('true');
      expect(replay.text).to.equal(pet.text);
    });

    it(`415 for any other Content-Type, listing the three (${TYPES}); checked before the body is read`, async () => {
      const petId = await createPet();
      for (const type of ['image/gif', 'application/json', 'image/jpg', 'application/octet-stream', 'text/plain', '']) {
        const res = await s.request({
          method: 'POST',
          path: `/v1/pets/${petId}/photos`,
          key: KEYS.admin,
          headers: type === '' ? {} : { 'content-type': type },
          body: jpeg,
        });
        expect(expectError(res, 415, 'unsupported_media_type').message, type).to.include(TYPES);
      }
      // Parameters and case do not matter.
      expect((await upload(petId, jpeg, 'IMAGE/JPEG; name=rex.jpg')).status).to.equal(201);
      const unread = await streamingRequest(
        s.port,
        {
          path: `/v1/pets/${petId}/photos`,
          key: KEYS.admin,
          headers: { 'content-type': 'image/gif', 'content-length': String(2 * MiB) },
        },
        [],
      );
      expectError(unread, 415, 'unsupported_media_type');
    });

    it('413 beyond 10 MiB: a declared length is refused unread; a chunked body as soon as it passes 10 MiB; the JSON routes keep 1 MiB', async () => {
      const petId = await createPet();
      const declared = await streamingRequest(
        s.port,
        {
          path: `/v1/pets/${petId}/photos`,
          key: KEYS.admin,
          headers: { 'content-type': 'image/jpeg', 'content-length': String(10 * MiB + 1) },
        },
        [],
      );
      expect(expectError(declared, 413, 'payload_too_large').message).to.equal(
        `the body is larger than ${10 * MiB} bytes`,
      );
      rateLimitOf(declared);
      const chunks = Array.from({ length: 12 * 16 }, () => Buffer.alloc(64 * 1024, 1));
      const streamed = await streamingRequest(
        s.port,
        {
          path: `/v1/pets/${petId}/photos`,
          key: KEYS.admin,
          headers: { 'content-type': 'image/jpeg', 'transfer-encoding': 'chunked' },
        },
        chunks,
      );
      expectError(streamed, 413, 'payload_too_large');
      expect(streamed.bytesWritten).to.be.below(12 * MiB);
      // 2 MiB: too large for a JSON route, fine for a photo.
      const json = await streamingRequest(
        s.port,
        {
          path: '/v1/pets',
          key: KEYS.admin,
          headers: { 'content-type': 'application/json', 'content-length': String(2 * MiB) },
        },
        [],
      );
      expect(expectError(json, 413, 'payload_too_large').message).to.equal(`the body is larger than ${MiB} bytes`);
      const big = await testImage({ format: 'png', width: 1_000, height: 800, content: 'photo' });
      expect(big.length).to.be.above(MiB);
      const res = await upload(petId, big, 'image/png');
      expect(res.status, res.text).to.equal(201);
      expect(await s.photoStore.list(petId)).to.have.length(1);
    });

    it('400 when the bytes are not an image of the declared type: PNG bytes declared as JPEG, text, nothing', async () => {
      const petId = await createPet();
      const png = await testImage({ format: 'png', width: 40, height: 30 });
      expect(expectError(await upload(petId, png, 'image/jpeg'), 400, 'validation_failed').message).to.equal(
        'the body is a PNG image, not the JPEG its Content-Type (image/jpeg) declares',
      );
      expect(expectError(await upload(petId, jpeg, 'image/webp'), 400, 'validation_failed').message).to.match(
        /is a JPEG image, not the WebP/,
      );
      expect(
        expectError(await upload(petId, Buffer.from('not an image at all'), 'image/png'), 400, 'validation_failed')
          .message,
      ).to.match(/not a PNG image/);
      expect(
        expectError(
          await s.request({
            method: 'POST',
            path: `/v1/pets/${petId}/photos`,
            key: KEYS.admin,
            headers: { 'content-type': 'image/png' },
          }),
          400,
          'validation_failed',
        ).message,
      ).to.match(/body must be the image itself/);
      expect(await s.photoStore.list(petId)).to.deep.equal([]);
    });

    it('400 for a truncated JPEG (it does not decode whole) and for an animated WebP', async () => {
      const petId = await createPet();
      const truncated = jpeg.subarray(0, Math.floor(jpeg.length / 2));
      expect(expectError(await upload(petId, truncated), 400, 'validation_failed').message).to.equal(
        'the body does not decode as a whole image/jpeg image (truncated or damaged?)',
      );
      expect(
        expectError(await upload(petId, await animatedWebp(), 'image/webp'), 400, 'validation_failed').message,
      ).to.equal('the image is animated (3 frames); send a still image');
      expect(s.photoStore.fileCount).to.be.a('number');
      expect(await s.photoStore.list(petId)).to.deep.equal([]);
    });

    it('400 for an animated PNG (APNG: acTL, fcTL, fdAT), as for an animated WebP; a still PNG with unrelated ancillary chunks uploads', async () => {
      const petId = await createPet();
      expect(
        expectError(await upload(petId, animatedPng(40, 30, 3), 'image/png'), 400, 'validation_failed').message,
      ).to.equal('the image is animated (3 frames); send a still image');
      expect(await s.photoStore.list(petId)).to.deep.equal([]);
      const still = withPngChunk(
        withPngChunk(
          await testImage({ format: 'png', width: 40, height: 30 }),
          'tIME',
          Buffer.from([0x07, 0xea, 1, 2, 3, 4, 5]),
        ),
        'prVt',
        Buffer.from('shelter'),
      );
      const res = await upload(petId, still, 'image/png');
      expect(res.status, res.text).to.equal(201);
      expect(res.json()).to.deep.include({ contentType: 'image/png', width: 40, height: 30 });
    });

    it('400 from the header for a PNG that claims 20,000 × 20,000 in a few hundred bytes (a decompression bomb is never decoded)', async () => {
      const petId = await createPet();
      const bomb = pngBomb();
      expect(bomb.length).to.be.below(1_000);
      const res = await upload(petId, bomb, 'image/png');
      expect(expectError(res, 400, 'validation_failed').message).to.equal(
        'the image is 20000 × 20000 pixels; at most 10,000 pixels a side are accepted',
      );
      expect(
        expectError(await upload(petId, pngBomb(8_000, 6_000), 'image/png'), 400, 'validation_failed').message,
      ).to.match(/48,000,000 pixels; at most 40,000,000 pixels in all/);
    });

    it('stores the JPEG re-encoded, upright by its orientation (6: width and height swapped), without a byte of its GPS position or any metadata', async () => {
      const petId = await createPet();
      const sent = await testImage({
        format: 'jpeg',
        width: 640,
        height: 480,
        orientation: 6,
        gps: true,
        xmpAndIcc: true,
        iptc: 'Rex at 12 Rue X',
        comment: 'found near the station',
        content: 'photo',
      });
      expect(containsAny(sent, GPS_TRACES)).to.equal(true);
      const photo = await uploaded(petId, sent);
      expect(photo).to.deep.include({ width: 480, height: 640 });
      for (const width of ['', '?width=160', '?width=320']) {
        const res = await get(`${photo.location}${width}`);
        expect(res.status).to.equal(200);
        expect(containsAny(res.bytes, GPS_TRACES), `GPS bytes in ${width || 'the original'}`).to.equal(false);
        expect(
          containsAny(res.bytes, [
            Buffer.from('Rex at 12 Rue X'),
            Buffer.from('found near the station'),
            Buffer.from('Shelter camera'),
          ]),
        ).to.equal(false);
        const found = await describeImage(res.bytes);
        expect(found).to.deep.include({ format: 'jpeg', exif: false, xmp: false, iptc: false, icc: false });
        expect(found.orientation ?? 1).to.equal(1);
        expect(await decodesWhole(res.bytes)).to.equal(true);
      }
      expect(await describeImage((await get(photo.location)).bytes)).to.deep.include({ width: 480, height: 640 });
      expect((await get(photo.location)).bytes.equals(sent), 're-encoded, not the bytes sent').to.equal(false);
    });

    it('keeps PNG and WebP in their format, and scales anything over 4,096 px on the long side down to 4,096', async () => {
      const petId = await createPet();
      const png = await uploaded(
        petId,
        await testImage({ format: 'png', width: 300, height: 200, comment: 'a PNG comment' }),
        'image/png',
      );
      const pngBytes = (await get(png.location)).bytes;
      expect(await describeImage(pngBytes)).to.deep.include({ format: 'png', width: 300, height: 200, comments: [] });
      expect((await get(png.location)).header('content-type')).to.equal('image/png');
      const webp = await uploaded(
        petId,
        await testImage({ format: 'webp', width: 5_000, height: 1_000 }),
        'image/webp',
      );
      expect(webp).to.deep.include({ width: 4_096, height: 819 });
      const webpRes = await get(webp.location);
      expect(webpRes.header('content-type')).to.equal('image/webp');
      expect(await describeImage(webpRes.bytes)).to.deep.include({ format: 'webp', width: 4_096, height: 819 });
    });

    it('404 for a pet that does not exist, or that is withdrawn; 400 for a pet id that is not canonical', async () => {
      expect(expectError(await upload(999_999, jpeg), 404, 'not_found').message).to.equal('no pet has id 999999');
      expect(expectError(await upload('9223372036854775807', jpeg), 404, 'not_found').message).to.equal(
        'no pet has id 9223372036854775807',
      );
      const petId = await createPet();
      withdrawals.withdrawn.add(petId);
      expectError(await upload(petId, jpeg), 404, 'not_found');
      for (const bad of ['0', '007', '-1', '1.5', 'abc', '%31', '9223372036854775808'])
        expectError(await upload(bad, jpeg), 400, 'validation_failed');
      const long = 'x'.repeat(300);
      const res = await upload(long, jpeg);
      expect(res.text.length).to.be.below(2048);
      expect(res.text).not.to.include(long.slice(0, 65));
    });

    it(`at most ${PHOTOS_PER_PET} photos a pet: the next is 409; a deletion makes room`, async () => {
      const petId = await createPet();
      const small = await testImage({ format: 'jpeg', width: 60, height: 40 });
      const ids: number[] = [];
      for (let i = 0; i < PHOTOS_PER_PET; i++) ids.push((await uploaded(petId, small)).id);
      expect(expectError(await upload(petId, small), 409, 'conflict').message).to.equal(
        `pet ${petId} already has ${PHOTOS_PER_PET} photos, the most it can have; delete one first`,
      );
      expect(
        (await s.request({ method: 'DELETE', path: `/v1/pets/${petId}/photos/${ids[0]}`, key: KEYS.admin })).status,
      ).to.equal(204);
      expect((await upload(petId, small)).status).to.equal(201);
      expectError(await upload(petId, small), 409, 'conflict');
    });

    it(`of 20 simultaneous uploads for one pet exactly ${PHOTOS_PER_PET} succeed, the others get 409`, async () => {
      const petId = await createPet();
      const images = await Promise.all(
        Array.from({ length: 20 }, (_, i) => testImage({ format: 'jpeg', width: 50 + i, height: 40 })),
      );
      const answers = await Promise.all(images.map((image) => upload(petId, image)));
      const statuses = answers.map((a) => a.status).sort();
      expect(
        statuses.filter((x) => x === 201),
        statuses.join(','),
      ).to.have.length(PHOTOS_PER_PET);
      expect(statuses.filter((x) => x === 409)).to.have.length(20 - PHOTOS_PER_PET);
      const list = (await get(`/v1/pets/${petId}/photos`)).json() as { id: number }[];
      expect(list).to.have.length(PHOTOS_PER_PET);
      // No bytes of the refused ones are kept: every file held belongs to a published photo.
      let published = 0;
      for (const pet of await s.photoStore.pets())
        for (const p of await s.photoStore.list(pet)) published += p.files.length;
      expect(s.photoStore.fileCount).to.equal(published);
    });

    it('Idempotency-Key: the same upload again replays the 201 and stores nothing more; the same key with other bytes is 422 (the fingerprint hashes the body)', async () => {
      const petId = await createPet();
      const headers = { 'idempotency-key': `photo-${petId}` };
      const first = await upload(petId, jpeg, 'image/jpeg', KEYS.admin, headers);
      expect(first.status).to.equal(201);
      const again = await upload(petId, jpeg, 'image/jpeg', KEYS.admin, headers);
      expect(again.status).to.equal(201);
      expect(again.header('idempotent-replayed')).to.equal('true');
      expect(again.text).to.equal(first.text);
      expect(again.header('location')).to.equal(first.header('location'));
      expect(await s.photoStore.list(petId)).to.have.length(1);
      // The same length, one byte changed: another body.
      const other = Buffer.from(jpeg);
      other[other.length - 3] = other[other.length - 3]! ^ 0xff;
      expectError(await upload(petId, other, 'image/jpeg', KEYS.admin, headers), 422, 'idempotency_key_reused');
      // A refusal is kept too (a 400), and a body over 10 MiB is fingerprinted without being read.
      const bad = await upload(petId, Buffer.from('nope'), 'image/png', KEYS.admin, {
        'idempotency-key': `bad-${petId}`,
      });
      expectError(bad, 400, 'validation_failed');
      const replayed = await upload(petId, Buffer.from('nope'), 'image/png', KEYS.admin, {
        'idempotency-key': `bad-${petId}`,
      });
      expect(replayed.header('idempotent-replayed')).to.equal('true');
      expectError(
        await upload(petId, jpeg, 'image/jpeg', KEYS.admin, { 'idempotency-key': 'x'.repeat(256) }),
        400,
        'validation_failed',
      );
      const declared = await streamingRequest(
        s.port,
        {
          path: `/v1/pets/${petId}/photos`,
          key: KEYS.admin,
          headers: {
            'content-type': 'image/jpeg',
            'content-length': String(11 * MiB),
            'idempotency-key': `big-${petId}`,
          },
        },
        [],
      );
      expectError(declared, 413, 'payload_too_large');
    });

    it("507 when the memory store's photo budget would be passed; nothing of that upload is stored", async () => {
      const small = await startServer({ photoBudgetBytes: 300_000 });
      try {
        const created = await small.postJson('{"name":"Mia","categoryId":2}');
        const petId = (created.json() as { id: number }).id;
        const one = await small.request({
          method: 'POST',
          path: `/v1/pets/${petId}/photos`,
          key: KEYS.admin,
          headers: { 'content-type': 'image/jpeg' },
          body: jpeg,
        });
        expect(one.status, one.text).to.equal(201);
        const used = small.photoStore.usedBytes;
        const files = small.photoStore.fileCount;
        const big = await testImage({ format: 'jpeg', width: 1_600, height: 1_200, content: 'photo' });
        const refused = await small.request({
          method: 'POST',
          path: `/v1/pets/${petId}/photos`,
          key: KEYS.admin,
          headers: { 'content-type': 'image/jpeg' },
          body: big,
        });
        expect(expectError(refused, 507, 'insufficient_storage').message).to.match(/^the photo store is full/);
        rateLimitOf(refused);
        expect([small.photoStore.usedBytes, small.photoStore.fileCount]).to.deep.equal([used, files]);
        expect(
          ((await small.request({ path: `/v1/pets/${petId}/photos`, key: KEYS.huge })).json() as unknown[]).length,
        ).to.equal(1);
      } finally {
        await small.close();
      }
    });
  });

  describe('GET /v1/pets/{petId}/photos', () => {
    it('any key: a plain array of Photo in ascending id, at most 12, no paging; [] for a pet without photos', async () => {
      const petId = await createPet();
      const empty = await get(`/v1/pets/${petId}/photos`);
      expect(empty.status).to.equal(200);
      expect(empty.json()).to.deep.equal([]);
      const a = await uploaded(petId, jpeg);
      const b = await uploaded(petId, await testImage({ format: 'png', width: 30, height: 20 }), 'image/png');
      const res = await get(`/v1/pets/${petId}/photos`, KEYS.free);
      expect(res.status).to.equal(200);
      const list = res.json() as Record<string, unknown>[];
      expect(list.map((p) => p['id'])).to.deep.equal([a.id, b.id]);
      for (const p of list) expect(Object.keys(p)).to.deep.equal(photoKeys);
      expect(list[1]).to.deep.include({ petId, contentType: 'image/png', width: 30, height: 20 });
      expect(res.header('link')).to.equal('');
      rateLimitOf(res);
    });

    it('404 for a pet that does not exist or is withdrawn (its photos went with it: removeAllOf); 400 for a bad pet id', async () => {
      expectError(await get('/v1/pets/999999/photos'), 404, 'not_found');
      expectError(await get('/v1/pets/0x10/photos'), 400, 'validation_failed');
      const petId = await createPet();
      const photo = await uploaded(petId, jpeg);
      await uploaded(petId, jpeg);
      // A withdrawal (docs/rules.md §12) decides, then takes the photos with it.
      withdrawals.withdrawn.add(petId);
      expect(await s.photos.removeAllOf(petId)).to.equal(2);
      expectError(await get(`/v1/pets/${petId}/photos`), 404, 'not_found');
      expectError(await get(photo.location), 404, 'not_found');
      expect(await s.photoStore.list(petId)).to.deep.equal([]);
    });
  });

  describe('GET /v1/pets/{petId}/photos/{photoId} (and HEAD)', () => {
    let petId: number;
    let photo: { id: number; width: number; height: number; bytes: number; location: string };
    before(async () => {
      petId = await createPet();
      photo = await uploaded(petId, jpeg);
    });

    it('200: the bytes with Content-Type, Content-Length, a strong ETag from the bytes, Cache-Control: private, max-age=86400, nosniff', async () => {
      const res = await get(photo.location, KEYS.free);
      expect(res.status).to.equal(200);
      expect(res.header('content-type')).to.equal('image/jpeg');
      expect(res.header('content-length')).to.equal(String(photo.bytes));
      expect(res.bytes.length).to.equal(photo.bytes);
      expect(res.header('etag')).to.equal(`"${createHash('sha256').update(res.bytes).digest('hex')}"`);
      expect(res.header('cache-control')).to.equal('private, max-age=86400');
      expect(res.header('x-content-type-options')).to.equal('nosniff');
      rateLimitOf(res);
      const again = await get(photo.location);
      expect(again.header('etag'), 'the same bytes, the same tag').to.equal(res.header('etag'));
    });

    it('HEAD: the same headers, no body', async () => {
      const full = await get(photo.location);
      const head = await get(photo.location, KEYS.huge, {}, 'HEAD');
      expect(head.status).to.equal(200);
      expect(head.bytes.length).to.equal(0);
      for (const name of ['content-type', 'content-length', 'etag', 'cache-control', 'x-content-type-options'])
        expect(head.header(name), name).to.equal(full.header(name));
      rateLimitOf(head);
    });

    it('?width=160, 320 or 640: that width, the height in proportion, the same format, its own ETag', async () => {
      const tags = new Set<string>();
      for (const width of [160, 320, 640]) {
        const res = await get(`${photo.location}?width=${width}`);
        expect(res.status).to.equal(200);
        expect(res.header('content-type')).to.equal('image/jpeg');
        expect(await describeImage(res.bytes)).to.deep.include({ format: 'jpeg', width, height: (width * 3) / 4 });
        expect(res.header('etag')).to.equal(`"${createHash('sha256').update(res.bytes).digest('hex')}"`);
        expect(res.header('content-length')).to.equal(String(res.bytes.length));
        tags.add(res.header('etag'));
      }
      tags.add((await get(photo.location)).header('etag'));
      expect(tags.size).to.equal(4);
    });

    it('never wider than the original: a 500 px wide photo asked at 640 answers its own 500 px', async () => {
      const narrow = await uploaded(petId, await testImage({ format: 'webp', width: 500, height: 250 }), 'image/webp');
      const at640 = await get(`${narrow.location}?width=640`);
      expect(await describeImage(at640.bytes)).to.deep.include({ format: 'webp', width: 500, height: 250 });
      expect(at640.header('etag')).to.equal((await get(narrow.location)).header('etag'));
      expect(await describeImage((await get(`${narrow.location}?width=320`)).bytes)).to.deep.include({
        width: 320,
        height: 160,
      });
    });

    it('400 for any other width (or the parameter repeated); other parameters are ignored', async () => {
      for (const query of [
        'width=100',
        'width=1600',
        'width=abc',
        'width=',
        'width=0160',
        'width=160&width=160',
        'width=160.0',
        'width=%31%36%30x',
      ]) {
        expect(expectError(await get(`${photo.location}?${query}`), 400, 'validation_failed').message, query).to.equal(
          'width must be one of 160, 320, 640, given once',
        );
      }
      expect((await get(`${photo.location}?size=big`)).status).to.equal(200);
      expect((await get(`${photo.location}?width=%31%36%30`)).status, 'percent-encoded 160').to.equal(200);
    });

    it('If-None-Match with the current tag (or W/ the tag, or *, or in a list) → 304 with no body and the tag; another tag → 200', async () => {
      const etag = (await get(photo.location)).header('etag');
      for (const value of [etag, `W/${etag}`, '*', `"other", ${etag}`, `"a","b",W/${etag}`]) {
        const res = await get(photo.location, KEYS.huge, { 'if-none-match': value });
        expect(res.status, value).to.equal(304);
        expect(res.bytes.length).to.equal(0);
        expect(res.header('etag')).to.equal(etag);
        expect(res.header('cache-control')).to.equal('private, max-age=86400');
        rateLimitOf(res);
      }
      expect((await get(photo.location, KEYS.huge, { 'if-none-match': '"not-it"' })).status).to.equal(200);
      expect(
        (await get(`${photo.location}?width=160`, KEYS.huge, { 'if-none-match': etag })).status,
        'another rendition, another tag',
      ).to.equal(200);
      expect((await get(photo.location, KEYS.huge, { 'if-none-match': etag }, 'HEAD')).status).to.equal(304);
    });

    it('every answer (200, 304, HEAD, 400, 404) counts one request against the rate limit and carries its headers', async () => {
      const limited = await startServer({
        keys: [
          { key: KEYS.free, plan: 'free' },
          { key: KEYS.admin, plan: 'business', role: 'admin' },
        ],
      });
      try {
        const pet = await limited.request({
          method: 'POST',
          path: '/v1/pets',
          key: KEYS.admin,
          headers: { 'content-type': 'application/json' },
          body: '{"name":"Ace","categoryId":1}',
        });
        const id = (pet.json() as { id: number }).id;
        const added = await limited.request({
          method: 'POST',
          path: `/v1/pets/${id}/photos`,
          key: KEYS.admin,
          headers: { 'content-type': 'image/jpeg' },
          body: jpeg,
        });
        const location = added.header('location');
        const etag = (await limited.request({ path: location, key: KEYS.free })).header('etag');
        const remaining: number[] = [];
        for (const req of [
          { path: location },
          { path: location, headers: { 'if-none-match': etag } },
          { path: location, method: 'HEAD' },
          { path: `${location}?width=7` },
          { path: `/v1/pets/${id}/photos/999999` },
          { path: `/v1/pets/${id}/photos` },
        ]) {
          const res = await limited.request({ ...req, key: KEYS.free });
          remaining.push(rateLimitOf(res).remaining);
        }
        // The first GET above (for the tag) took one: 58 left after the next, then one less each time.
        expect(remaining).to.deep.equal([58, 57, 56, 55, 54, 53]);
      } finally {
        await limited.close();
      }
    });

    it('404 for a photo of another pet, an unknown photo id, or a pet that does not exist; 400 for a bad photo id', async () => {
      const other = await createPet();
      expectError(await get(`/v1/pets/${other}/photos/${photo.id}`), 404, 'not_found');
      expectError(await get(`/v1/pets/${petId}/photos/999999`), 404, 'not_found');
      expectError(await get(`/v1/pets/999999/photos/${photo.id}`), 404, 'not_found');
      for (const bad of ['0', '007', 'abc', '%31', '1.0'])
        expectError(await get(`/v1/pets/${petId}/photos/${bad}`), 400, 'validation_failed');
    });
  });

  describe('DELETE /v1/pets/{petId}/photos/{photoId}', () => {
    it('admin → 204, then the photo is 404 and gone from the list; again → 404', async () => {
      const petId = await createPet();
      const keep = await uploaded(petId, jpeg);
      const gone = await uploaded(petId, jpeg);
      const res = await s.request({ method: 'DELETE', path: gone.location, key: KEYS.admin });
      expect(res.status).to.equal(204);
      expect(res.bytes.length).to.equal(0);
      rateLimitOf(res);
      expectError(await get(gone.location), 404, 'not_found');
      expect(((await get(`/v1/pets/${petId}/photos`)).json() as { id: number }[]).map((p) => p.id)).to.deep.equal([
        keep.id,
      ]);
      expectError(await s.request({ method: 'DELETE', path: gone.location, key: KEYS.admin }), 404, 'not_found');
      expect((await s.photoStore.list(petId)).length).to.equal(1);
    });

    it('client keys → 403 before any lookup, whatever the ids', async () => {
      const petId = await createPet();
      const photo = await uploaded(petId, jpeg);
      for (const path of [photo.location, '/v1/pets/999999/photos/1', '/v1/pets/abc/photos/xyz']) {
        expect(
          expectError(await s.request({ method: 'DELETE', path, key: KEYS.huge }), 403, 'forbidden').message,
        ).to.equal('only an admin key may delete a photo');
      }
      expect((await get(photo.location)).status).to.equal(200);
    });
  });

  describe('routing, metrics and the document', () => {
    it('other methods → 405 with Allow; OPTIONS → 204 with Allow', async () => {
      const petId = await createPet();
      const put = await s.request({ method: 'PUT', path: `/v1/pets/${petId}/photos`, key: KEYS.huge });
      expectError(put, 405, 'method_not_allowed');
      expect(put.header('allow')).to.equal('HEAD, GET, POST, OPTIONS');
      const post = await s.request({ method: 'POST', path: `/v1/pets/${petId}/photos/1`, key: KEYS.admin });
      expect(post.header('allow')).to.equal('HEAD, GET, DELETE, OPTIONS');
    });

    it('counts requests under the route templates, never the raw path', async () => {
      const metrics = new PrometheusMetrics();
      const counted = await startServer({ metrics });
      try {
        const pet = await counted.postJson('{"name":"Tom","categoryId":1}');
        const id = (pet.json() as { id: number }).id;
        const added = await counted.request({
          method: 'POST',
          path: `/v1/pets/${id}/photos`,
          key: KEYS.admin,
          headers: { 'content-type': 'image/jpeg' },
          body: jpeg,
        });
        await counted.request({ path: added.header('location'), key: KEYS.huge });
        await counted.request({ path: `/v1/pets/${id}/photos`, key: KEYS.huge });
        const text = await metrics.registry.metrics();
        expect(text).to.include('http_requests_total{method="POST",route="/v1/pets/:petId/photos",status="201"} 1');
        expect(text).to.include(
          'http_requests_total{method="GET",route="/v1/pets/:petId/photos/:photoId",status="200"} 1',
        );
        expect(text).to.include('http_requests_total{method="GET",route="/v1/pets/:petId/photos",status="200"} 1');
        expect(text).not.to.include(`/v1/pets/${id}/`);
      } finally {
        await counted.close();
      }
    });

    it('the OpenAPI document has the four operations: tag pets, x-stability beta, binary request and response bodies of the three types', () => {
      const doc = buildOpenApiDocument() as {
        paths: Record<
          string,
          Record<
            string,
            {
              operationId: string;
              tags: string[];
              'x-stability': string;
              requestBody?: { content: Record<string, unknown> };
              responses: Record<string, { content?: Record<string, unknown> }>;
            }
          >
        >;
      };
      const list = doc.paths['/pets/{petId}/photos']!;
      const one = doc.paths['/pets/{petId}/photos/{photoId}']!;
      const ops = [list['get']!, list['post']!, one['get']!, one['delete']!];
      expect(ops.map((o) => o.operationId)).to.deep.equal([
        'listPetPhotos',
        'uploadPetPhoto',
        'getPetPhoto',
        'deletePetPhoto',
      ]);
      for (const op of ops) expect([op.tags, op['x-stability']]).to.deep.equal([['pets'], 'beta']);
      expect(Object.keys(list['post']!.requestBody!.content)).to.deep.equal(['image/jpeg', 'image/png', 'image/webp']);
      expect(Object.keys(one['get']!.responses['200']!.content!)).to.deep.equal([
        'image/jpeg',
        'image/png',
        'image/webp',
      ]);
      expect(list['post']!.responses).to.include.keys('201', '400', '403', '404', '409', '413', '415', '422', '507');
      expect(one['get']!.responses).to.include.keys('200', '304', '400', '404');
    });
  });

  describe('faults of the photo store during an upload (docs/rules.md §13)', () => {
    for (const [step, mode] of [
      ['reserve', 'fail'],
      ['putFile', 'fail'],
      ['putFile', 'hang'],
      ['publish', 'fail'],
      ['publish', 'hang'],
    ] as const) {
      it(`${step} ${mode}: 503 unavailable with Retry-After, no photo shown, no bytes kept; then the service answers by itself`, async () => {
        const faults = new FaultInjector({ hangMs: 50 });
        const faulty = await startServer({ wrapPhotoStore: (inner) => faults.photoStore(inner) });
        try {
          const pet = await faulty.postJson('{"name":"Ivy","categoryId":1}');
          const id = (pet.json() as { id: number }).id;
          faults.use((call) => (call.method === step ? mode : undefined));
          const res = await faulty.request({
            method: 'POST',
            path: `/v1/pets/${id}/photos`,
            key: KEYS.admin,
            headers: { 'content-type': 'image/jpeg' },
            body: jpeg,
          });
          expectError(res, 503, 'unavailable');
          expect(res.header('retry-after')).to.equal('5');
          faults.reset();
          expect((await faulty.request({ path: `/v1/pets/${id}/photos`, key: KEYS.huge })).json()).to.deep.equal([]);
          expect([faulty.photoStore.fileCount, faulty.photoStore.usedBytes], 'given up: nothing held').to.deep.equal([
            0, 0,
          ]);
          const retry = await faulty.request({
            method: 'POST',
            path: `/v1/pets/${id}/photos`,
            key: KEYS.admin,
            headers: { 'content-type': 'image/jpeg' },
            body: jpeg,
          });
          expect(retry.status).to.equal(201);
        } finally {
          await faulty.close();
        }
      });
    }
  });
});

// docs/rules.md §13 through the composition root: PETSTORE_PHOTO_MEMORY_MB bounds the memory store
// (507 beyond), and on MongoDB the sweep at start removes what an upload cut short left in GridFS.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { type PhotoUpload } from '@petstore/domain';
import { PhotoStoreMongo } from '@petstore/adapters-mongo';
import { silentLogger } from '@petstore/adapters-http';
import { testImage } from '@petstore/adapters-sharp/testing';
import { parseSettings } from '../src/settings.js';
import { startServer, type StartedServer } from '../src/server.js';
import { seedCategories } from './hardening/support.js';

/** SHA-256 of bytes, lowercase hex (`node:crypto`). */
const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const ADMIN = 'photos-admin-key-0123456789';
const CLIENT = 'photos-client-key-0123456789';

const call = async (server: StartedServer, path: string, init: RequestInit & { key?: string } = {}) => {
  const { key = ADMIN, ...rest } = init;
  return fetch(`${server.url}${path}`, {
    ...rest,
    headers: { Authorization: `Bearer ${key}`, ...(rest.headers as Record<string, string> | undefined) },
  });
};
const createPet = async (server: StartedServer): Promise<number> => {
  const res = await call(server, '/v1/pets', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"name":"Rex","categoryId":1}',
  });
  expect(res.status).to.equal(201);
  return ((await res.json()) as { id: number }).id;
};
const upload = (server: StartedServer, petId: number, body: Buffer) =>
  call(server, `/v1/pets/${petId}/photos`, { method: 'POST', headers: { 'Content-Type': 'image/jpeg' }, body });

/** The URI of `uri` with another database in its path (credentials and options kept). */
const withDatabase = (uri: string, database: string): string => {
  const scheme = uri.startsWith('mongodb+srv://') ? 'mongodb+srv://' : 'mongodb://';
  const rest = uri.slice(scheme.length);
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const slash = beforeQuery.indexOf('/');
  return `${scheme}${slash === -1 ? beforeQuery : beforeQuery.slice(0, slash)}/${database}${queryAt === -1 ? '' : rest.slice(queryAt)}`;
};

describe('photos in the server (docs/rules.md §13)', function () {
  this.timeout(120_000);

  it('the memory store keeps at most PETSTORE_PHOTO_MEMORY_MB of photos: past it 507 insufficient_storage, nothing stored', async () => {
    const env = {
      HOST: '127.0.0.1',
      PORT: '0',
      PETSTORE_API_KEYS: `${CLIENT}:pro`,
      PETSTORE_ADMIN_KEYS: ADMIN,
      PETSTORE_PHOTO_MEMORY_MB: '1',
    };
    const server = await startServer(parseSettings(env), { logger: silentLogger });
    try {
      await seedCategories(server.url, ADMIN);
      const petId = await createPet(server);
      const photo = await testImage({ format: 'jpeg', width: 640, height: 480, content: 'photo', seed: 3 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await upload(server, petId, photo);
        statuses.push(res.status);
        if (res.status === 507) {
          expect(await res.json()).to.deep.include({ code: 'insufficient_storage', status: 507 });
          break;
        }
      }
      // A 640 × 480 photo and its two widths take some 100 KB: 1 MiB holds a handful, then 507.
      expect(statuses.at(-1)).to.equal(507);
      expect(statuses.slice(0, -1).every((s) => s === 201)).to.equal(true);
      expect(statuses.length).to.be.within(3, 12);
      const listed = (await (await call(server, `/v1/pets/${petId}/photos`, { key: CLIENT })).json()) as {
        id: number;
      }[];
      expect(listed).to.have.length(statuses.length - 1);
      // The entity tag is the SHA-256 of the bytes, hashed by the server off the event loop's thread (WebCrypto).
      const got = await call(server, `/v1/pets/${petId}/photos/${listed[0]!.id}?width=320`, { key: CLIENT });
      expect(got.headers.get('etag')).to.equal(`"${sha256Of(Buffer.from(await got.arrayBuffer()))}"`);
    } finally {
      await server.stop();
    }
  });

  const uri = process.env.MONGODB_URI ?? '';
  if (uri === '') {
    it.skip('on MongoDB (GridFS): skipped, MONGODB_URI is not set');
    return;
  }

  it('on MongoDB: upload, list, get and delete through GridFS; a sweep at start removes an upload a process left half done', async () => {
    const database = `petstore_test_photos_${process.pid}_${Date.now().toString(36)}`;
    const dbUri = withDatabase(uri, database);
    const env = {
      HOST: '127.0.0.1',
      PORT: '0',
      PETSTORE_STORE: 'mongo',
      MONGODB_URI: dbUri,
      PETSTORE_API_KEYS: `${CLIENT}:pro`,
      PETSTORE_ADMIN_KEYS: ADMIN,
    };
    const client = new MongoClient(uri);
    await client.connect();
    const db = client.db(database);
    try {
      let server = await startServer(parseSettings(env), { logger: silentLogger });
      let petId: number;
      let location: string;
      try {
        await seedCategories(server.url, ADMIN);
        petId = await createPet(server);
        const photo = await testImage({
          format: 'jpeg',
          width: 900,
          height: 600,
          content: 'photo',
          orientation: 6,
          gps: true,
        });
        const res = await upload(server, petId, photo);
        expect(res.status, await res.clone().text()).to.equal(201);
        expect(await res.json()).to.deep.include({ width: 600, height: 900 });
        location = res.headers.get('location')!;
        const got = await call(server, `${location}?width=320`, { key: CLIENT });
        expect(got.status).to.equal(200);
        const bytes = Buffer.from(await got.arrayBuffer());
        expect(got.headers.get('etag')).to.equal(`"${sha256Of(bytes)}"`);
        expect(
          await db.collection('photos.files').countDocuments(),
          'the original (600 wide) and its 160 and 320',
        ).to.equal(3);
      } finally {
        await server.stop();
      }
      // A process died mid-upload: its record never published, a file written, chunks of another never finished.
      const store = new PhotoStoreMongo(db);
      const left = (await store.reserve(petId, 10, Date.now() - 1_000)) as PhotoUpload;
      const bytes = new Uint8Array(10).fill(9);
      await store.putFile(left, { width: 10, height: 10, bytes: 10, sha256: sha256Of(bytes) }, bytes);
      await db
        .collection('photos.chunks')
        .insertOne({ files_id: `${left.photoId + 1000}:160`, n: 0, data: Buffer.alloc(5) } as never);
      expect(await db.collection('photos').countDocuments({ state: 'uploading' })).to.equal(1);

      server = await startServer(parseSettings(env), { logger: silentLogger });
      try {
        expect(await db.collection('photos').countDocuments({ state: 'uploading' })).to.equal(0);
        expect(
          await db.collection('photos.files').countDocuments(),
          'the original (600 wide) and its 160 and 320',
        ).to.equal(3);
        expect(
          await db
            .collection('photos.chunks')
            .countDocuments({ files_id: { $in: [`${left.photoId}:10`, `${left.photoId + 1000}:160`] } }),
        ).to.equal(0);
        const list = (await (await call(server, `/v1/pets/${petId}/photos`, { key: CLIENT })).json()) as {
          id: number;
        }[];
        expect(list).to.have.length(1);
        expect((await call(server, location, { method: 'DELETE' })).status).to.equal(204);
        expect((await call(server, location, { key: CLIENT })).status).to.equal(404);
        expect(await db.collection('photos.files').countDocuments()).to.equal(0);
        expect(await db.collection('photos.chunks').countDocuments()).to.equal(0);
      } finally {
        await server.stop();
      }
    } finally {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    }
  });
});

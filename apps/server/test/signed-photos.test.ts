// docs/rules.md §16 through the composition root: PETSTORE_PHOTO_URL_SECRET signs the photo URLs
// (an HMAC-SHA256 of the ids anyone holding the setting can check), PETSTORE_PUBLIC_URL starts them,
// the rotation route refuses to rotate the setting's secret (409), and neither value is ever logged.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { testImage } from '@petstore/adapters-sharp/testing';
import type { HttpLogger } from '@petstore/adapters-http';
import { parseSettings } from '../src/settings.js';
import { startServer } from '../src/server.js';
import { createContainer, type ProvidedStores } from '../src/container.js';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  PhotoUrlSecretStoreInMemory,
  QuotaStoreInMemory,
} from '@petstore/adapters-memory';
import { TOKENS } from '../src/tokens.js';
import { seedCategories } from './hardening/support.js';

const ADMIN = 'signed-admin-key-0123456789';
const SECRET = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 29 + 5) & 255)).toString('base64');

/** A logger that keeps every line it is given, as JSON. */
const keepingLogger = (lines: string[]): HttpLogger => {
  const keep = (fields: object, message: string) => void lines.push(JSON.stringify({ ...fields, message }));
  return { info: keep, warn: keep, error: keep };
};

describe('signed photo URLs in the server (docs/rules.md §16)', function () {
  this.timeout(60_000);

  it('the links of expand=photos start with PETSTORE_PUBLIC_URL and carry the HMAC of the ids under PETSTORE_PHOTO_URL_SECRET', async () => {
    const env = { PETSTORE_PHOTO_URL_SECRET: SECRET, PETSTORE_PUBLIC_URL: 'https://pets.example.org:8443' };
    const container = await createContainer(parseSettings(env), { logger: keepingLogger([]) });
    const links = container.get(TOKENS.PhotoLinks);
    const photo = {
      id: 9,
      petId: 4,
      contentType: 'image/webp',
      width: 200,
      height: 100,
      bytes: 1,
      createdAt: '',
    } as const;
    const [view] = await links.links([photo]);
    const sig = createHmac('sha256', SECRET).update('photo:v1:4:9').digest('base64url');
    const url = `https://pets.example.org:8443/v1/pets/4/photos/9?sig=${sig}`;
    expect(view).to.deep.equal({
      id: 9,
      contentType: 'image/webp',
      width: 200,
      height: 100,
      url,
      srcset: `${url}&width=160 160w, ${url} 200w`,
    });
    // Without the settings: a secret of the process's own, and URLs from /v1/.
    const plain = await createContainer(parseSettings({}), { logger: keepingLogger([]) });
    const [own] = await plain.get(TOKENS.PhotoLinks).links([photo]);
    expect(own!.url).to.match(/^\/v1\/pets\/4\/photos\/9\?sig=[A-Za-z0-9_-]{43}$/);
    expect(own!.url).not.to.equal(`/v1/pets/4/photos/9?sig=${sig}`);
  });

  it('stores given by an embedder: processes given one secret store sign alike, each otherwise with its own', async () => {
    const stores = (photoUrlSecrets?: PhotoUrlSecretStoreInMemory): ProvidedStores => ({
      pets: new PetRepositoryInMemory(),
      categories: new CategoryRepositoryInMemory(),
      orders: new OrderRepositoryInMemory(),
      quotas: new QuotaStoreInMemory(),
      keys: new ApiKeyStoreInMemory(),
      ...(photoUrlSecrets === undefined ? {} : { photoUrlSecrets }),
    });
    const photo = {
      id: 2,
      petId: 1,
      contentType: 'image/png',
      width: 100,
      height: 100,
      bytes: 1,
      createdAt: '',
    } as const;
    const urlOf = async (given: ProvidedStores) => {
      const container = await createContainer(parseSettings({}), { logger: keepingLogger([]), stores: given });
      return (await container.get(TOKENS.PhotoLinks).links([photo]))[0]!.url;
    };
    const shared = new PhotoUrlSecretStoreInMemory();
    expect(await urlOf(stores(shared))).to.equal(await urlOf(stores(shared)));
    expect(await urlOf(stores())).not.to.equal(await urlOf(stores()));
  });

  it('PETSTORE_PHOTO_URL_SECRET signs them; the rotation route answers 409; the secret is never logged', async () => {
    const lines: string[] = [];
    const settings = parseSettings({
      HOST: '127.0.0.1',
      PORT: '0',
      PETSTORE_ADMIN_KEYS: ADMIN,
      PETSTORE_API_KEYS: 'signed-client-key-0123456789:pro',
      PETSTORE_PHOTO_URL_SECRET: SECRET,
      PETSTORE_PUBLIC_URL: 'https://pets.example.org',
      PETSTORE_LOG_LEVEL: 'trace',
    });
    const server = await startServer(settings, { logger: keepingLogger(lines) });
    try {
      await seedCategories(server.url, ADMIN);
      const auth = { Authorization: `Bearer ${ADMIN}` };
      const pet = await fetch(`${server.url}/v1/pets`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: '{"name":"Rex","categoryId":1}',
      });
      const petId = ((await pet.json()) as { id: number }).id;
      const upload = await fetch(`${server.url}/v1/pets/${petId}/photos`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'image/png' },
        body: await testImage({ format: 'png', width: 300, height: 200, content: 'photo' }),
      });
      const photoId = ((await upload.json()) as { id: number }).id;
      const sig = createHmac('sha256', SECRET).update(`photo:v1:${petId}:${photoId}`).digest('base64url');
      const res = await fetch(`${server.url}/v1/pets/${petId}/photos/${photoId}?sig=${sig}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('image/png');
      expect(res.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
      const rotate = await fetch(`${server.url}/v1/admin/photo-url-secret/rotate`, { method: 'POST', headers: auth });
      expect(rotate.status).to.equal(409);
      const body = (await rotate.json()) as { code: string; message: string };
      expect(body.code).to.equal('conflict');
      expect((await fetch(`${server.url}/v1/pets/${petId}/photos/${photoId}?sig=${sig}`)).status).to.equal(200);
    } finally {
      await server.stop();
    }
    expect(lines.length).to.be.greaterThan(3);
    const log = lines.join('\n');
    for (const spelling of [SECRET, Buffer.from(SECRET, 'base64').toString('hex'), SECRET.slice(0, 16)])
      expect(log).not.to.contain(spelling);
  });
});

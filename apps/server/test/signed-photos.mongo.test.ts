// docs/rules.md §16 "Signed photo URLs" across two server processes on one MongoDB: one signing
// secret for the database (made once, kept in it), the URL of a photo works on both processes, and
// a rotation through one voids it on the other within 1 second while the new URL works on both.
// Skipped without MONGODB_URI.
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { signPhoto } from '@petstore/domain';
import { nodeDigests } from '@petstore/domain/testing';
import { testImage } from '@petstore/adapters-sharp/testing';
import { seedCategories, sleep, spawnServer, type ServerProcess } from './hardening/support.js';

const ADMIN = 'signed-photos-admin-key-0123456789';

describe('signed photo URLs across two server processes on one MongoDB (docs/rules.md §16)', function () {
  this.timeout(120_000);
  const uri = process.env['MONGODB_URI'];
  if (uri === undefined || uri === '') {
    // Pending on purpose, the reason in its title: two server processes need a MongoDB (or a compatible server) to share.
    it('skipped: MONGODB_URI is not set (no MongoDB can run on this machine without it)');
    return;
  }
  const database = `petstore_signed_${process.pid}_${Date.now().toString(36)}`;
  const withDatabase = uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?(\?.*)?$/, `$1/${database}$3`);
  let processes: ServerProcess[];
  let urls: string[];
  let client: MongoClient;

  before(async () => {
    const env = { PETSTORE_STORE: 'mongo', MONGODB_URI: withDatabase, PETSTORE_ADMIN_KEYS: ADMIN };
    processes = [spawnServer(env), spawnServer(env)];
    urls = await Promise.all(processes.map(async (p) => String(await p.url()).replace(/\/$/, '')));
    await seedCategories(urls[0]!, ADMIN);
    client = await MongoClient.connect(withDatabase);
  });
  after(async () => {
    for (const p of processes) {
      p.child.kill('SIGTERM');
      expect(await p.exited).to.equal(0);
    }
    await client.db(database).dropDatabase();
    await client.close();
  });

  const admin = { Authorization: `Bearer ${ADMIN}` };
  /** The one secret the database keeps (the service's own document). */
  const keptSecrets = async (): Promise<string[]> =>
    (await client.db(database).collection<{ _id: string; secret: string }>('settings').find().toArray()).map(
      (doc) => doc.secret,
    );

  it('both processes sign alike with the one secret of the database; a rotation through one voids the URLs on the other within 1 s', async () => {
    const pet = await fetch(`${urls[0]}/v1/pets`, {
      method: 'POST',
      headers: { ...admin, 'Content-Type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}',
    });
    const petId = ((await pet.json()) as { id: number }).id;
    const jpeg = await testImage({ format: 'jpeg', width: 400, height: 300, content: 'photo' });
    const upload = await fetch(`${urls[1]}/v1/pets/${petId}/photos`, {
      method: 'POST',
      headers: { ...admin, 'Content-Type': 'image/jpeg' },
      body: jpeg,
    });
    expect(upload.status).to.equal(201);
    const photoId = ((await upload.json()) as { id: number }).id;
    const path = `/v1/pets/${petId}/photos/${photoId}`;
    const keyless = async (url: string, sig: string): Promise<Response> => {
      const res = await fetch(`${url}${path}?sig=${sig}`);
      await res.arrayBuffer();
      return res;
    };

    // Both processes need the secret at once: the database ends up with one, which both use.
    const first = await Promise.all(urls.map((url) => keyless(url, 'A'.repeat(43))));
    expect(first.map((r) => r.status)).to.deep.equal([401, 401]);
    const [secret, ...more] = await keptSecrets();
    expect(more).to.deep.equal([]);
    const before = signPhoto(nodeDigests, secret!, String(petId), String(photoId));
    for (const url of urls) {
      const res = await keyless(url, before);
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('public, max-age=86400');
    }

    const rotated = await fetch(`${urls[0]}/v1/admin/photo-url-secret/rotate`, { method: 'POST', headers: admin });
    expect(rotated.status).to.equal(204);
    const rotatedAt = Date.now();
    expect((await keyless(urls[0]!, before)).status, 'the rotating process, at once').to.equal(401);
    const [renewed, ...others] = await keptSecrets();
    expect(others).to.deep.equal([]);
    expect(renewed).not.to.equal(secret);
    const after = signPhoto(nodeDigests, renewed!, String(petId), String(photoId));
    expect((await keyless(urls[0]!, after)).status).to.equal(200);
    // The other process caches the secret for at most 1 s: past that it must refuse the old URL.
    await sleep(Math.max(0, rotatedAt + 1_050 - Date.now()));
    expect((await keyless(urls[1]!, before)).status, 'the other process, 1 s after').to.equal(401);
    expect((await keyless(urls[1]!, after)).status).to.equal(200);
  });
});

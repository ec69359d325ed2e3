// docs/rules.md §12 and §13 across two server processes on one MongoDB: a photo upload sent to one
// process while its pet is withdrawn through the other answers 201 (and the withdrawal then removes
// the photo) or 404, never a 5xx (it was a 503 "given up while it was being written" in some
// rounds), and leaves nothing behind: no record, no GridFS file or chunk, no place. Skipped without
// MONGODB_URI.
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { testImage } from '@petstore/adapters-sharp/testing';
import { seedCategories, sleep, spawnServer, type ServerProcess } from './hardening/support.js';

const ADMIN = 'photo-race-admin-key-0123456789';
const ROUNDS = 40;

describe("a photo upload racing its pet's withdrawal through another process, on MongoDB (docs/rules.md §12, §13)", function () {
  this.timeout(180_000);
  const uri = process.env['MONGODB_URI'];
  if (uri === undefined || uri === '') {
    // Pending on purpose, the reason in its title: two server processes need a MongoDB (or a compatible server) to share.
    it('skipped: MONGODB_URI is not set (no MongoDB can run on this machine without it)');
    return;
  }
  const database = `petstore_photo_race_${process.pid}_${Date.now().toString(36)}`;
  const withDatabase = uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?(\?.*)?$/, `$1/${database}$3`);
  let processes: ServerProcess[];
  let urls: string[];

  before(async () => {
    const env = {
      PETSTORE_STORE: 'mongo',
      MONGODB_URI: withDatabase,
      PETSTORE_ADMIN_KEYS: ADMIN,
      PETSTORE_API_KEYS: 'photo-race-client-key-0123456789:pro',
    };
    // The second starts once the first listens: its sweep at start then meets no upload of the first.
    processes = [spawnServer(env)];
    urls = [String(await processes[0]!.url()).replace(/\/$/, '')];
    processes.push(spawnServer(env));
    urls.push(String(await processes[1]!.url()).replace(/\/$/, ''));
    await seedCategories(urls[0]!, ADMIN);
  });
  after(async () => {
    for (const p of processes) {
      p.child.kill('SIGTERM');
      expect(await p.exited).to.equal(0);
    }
    const client = await MongoClient.connect(withDatabase);
    await client.db(database).dropDatabase();
    await client.close();
  });

  const auth = { Authorization: `Bearer ${ADMIN}` };
  const createPet = async (url: string): Promise<number> => {
    const res = await fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(res.status).to.equal(201);
    return ((await res.json()) as { id: number }).id;
  };

  it(`of ${ROUNDS} uploads each sent to one process while the other withdraws the pet, every one answers 201 or 404, never a 5xx; the withdrawn pets keep no photo, no bytes and no place`, async () => {
    const jpeg = await testImage({ format: 'jpeg', width: 1_200, height: 900, content: 'photo', seed: 26 });
    const upload = (url: string, petId: number) =>
      fetch(`${url}/v1/pets/${petId}/photos`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'image/jpeg' },
        body: jpeg,
      });
    // How long an upload takes here: each round's withdrawal leaves after a different part of it
    // (from a fifth to 1.2 times of it), so that some land while the upload's bytes are written.
    const took: number[] = [];
    for (let i = 0; i < 3; i++) {
      const petId = await createPet(urls[0]!);
      const started = performance.now();
      expect((await upload(urls[i % 2]!, petId)).status).to.equal(201);
      took.push(performance.now() - started);
    }
    const typical = took.sort((x, y) => x - y)[1]!;
    const raced: number[] = [];
    const answers: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [up, down] = round % 2 === 0 ? [urls[0]!, urls[1]!] : [urls[1]!, urls[0]!];
      const petId = await createPet(down);
      raced.push(petId);
      const [uploaded, withdrawn] = await Promise.all([
        upload(up, petId),
        sleep(typical * (0.2 + round / ROUNDS)).then(() =>
          fetch(`${down}/v1/pets/${petId}`, { method: 'DELETE', headers: auth }),
        ),
      ]);
      const text = await uploaded.text();
      expect(withdrawn.status, `round ${round}: the withdrawal`).to.equal(204);
      expect([201, 404], `round ${round}: the upload answered ${uploaded.status} ${text}`).to.include(uploaded.status);
      if (uploaded.status === 404)
        expect(JSON.parse(text)).to.deep.equal({ code: 'not_found', message: `no pet has id ${petId}`, status: 404 });
      answers.push(uploaded.status);
      expect(
        (await fetch(`${up}/v1/pets/${petId}/photos`, { headers: auth })).status,
        `round ${round}: the pet is gone with its photos`,
      ).to.equal(404);
    }
    expect(answers.length).to.equal(ROUNDS);
    for (const p of processes)
      expect(p.stdout(), 'no upload given up, no error logged').not.to.match(
        /given up while it was being written|"level":50/,
      );

    const client = await MongoClient.connect(withDatabase);
    try {
      const db = client.db(database);
      // No upload here sends an Idempotency-Key: a removed photo's record stays only as the `deleted`
      // trace that holds its `photo.removed` until the relay has moved it into the feed (docs/rules.md §15).
      expect(
        await db.collection('photos').countDocuments({ petId: { $in: raced }, state: { $ne: 'deleted' } }),
        'no record of a withdrawn pet',
      ).to.equal(0);
      expect(
        await db
          .collection('photos')
          .countDocuments({ petId: { $in: raced }, state: 'deleted', 'outbox.0': { $exists: false } }),
        'a trace is kept only while it holds an event',
      ).to.equal(0);
      expect(
        await db.collection('photos.files').countDocuments({ 'metadata.petId': { $in: raced } }),
        'no GridFS file of a withdrawn pet',
      ).to.equal(0);
      const files = new Set((await db.collection('photos.files').distinct('_id')).map(String));
      const chunked = (await db.collection('photos.chunks').distinct('files_id')).map(String);
      expect(
        chunked.filter((id) => !files.has(id)),
        'no chunk of a file that is not there',
      ).to.deep.equal([]);
      const places = await db
        .collection<{ _id: number; ids: number[] }>('photo_places')
        .find({ _id: { $in: raced } })
        .toArray();
      expect(
        places.flatMap((p) => p.ids),
        'no place held for a withdrawn pet',
      ).to.deep.equal([]);
      // The three timing uploads, whose pets stay, are all that is stored.
      expect(await db.collection('photos').countDocuments({ state: 'ready' })).to.equal(3);
      expect(await db.collection('photos').countDocuments({ state: { $nin: ['ready', 'deleted'] } })).to.equal(0);
    } finally {
      await client.close();
    }
  });
});

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import { Admission, Authenticator, KeyAdmin, PetCatalog } from '@petstore/domain';
import { ApiKeyStoreMongo, PetRepositoryMongo, QuotaStoreMongo } from '@petstore/adapters-mongo';
import { SystemClock } from '@petstore/adapters-memory';
import { createHttpApp, listen } from '@petstore/adapters-http';
import { SystemRandom } from '../src/system-random.js';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));

const closedPort = async (): Promise<number> => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
};

describe('the service on MongoDB', function () {
  this.timeout(60_000);

  it('answers 503 unavailable with Retry-After within a bounded time while the database is out, and keeps serving', async () => {
    // A client that never reached a server: every store call meets the outage.
    const client = new MongoClient(`mongodb://127.0.0.1:${await closedPort()}`, { serverSelectionTimeoutMS: 500 });
    const db = client.db('petstore_outage');
    const clock = new SystemClock();
    const keys = new ApiKeyStoreMongo(db);
    const app = createHttpApp({
      catalog: new PetCatalog(new PetRepositoryMongo(db), clock),
      authenticator: new Authenticator(keys),
      admission: new Admission(new QuotaStoreMongo(db), clock),
      keyAdmin: new KeyAdmin(keys, new SystemRandom(), clock, clock.now()),
    });
    const server = await listen(app, { port: 0, host: '127.0.0.1' });
    try {
      const started = Date.now();
      const answers = await Promise.all(
        ['/v1/pets', '/v1/pets/1'].map((path) => fetch(`${server.url}${path}`, { headers: { Authorization: 'Bearer some-key' } })),
      );
      expect(Date.now() - started, 'bounded by the 500 ms server selection, never the driver default of 30 s').to.be.below(10_000);
      for (const answer of answers) {
        expect(answer.status).to.equal(503);
        expect(answer.headers.get('retry-after')).to.match(/^[1-9][0-9]*$/);
        const body = (await answer.json()) as Record<string, unknown>;
        expect(body).to.deep.equal({ code: 'unavailable', message: body['message'], status: 503 });
        expect(String(body['message'])).not.to.match(/127\.0\.0\.1|Mongo|ECONNREFUSED/);
      }
      expect((await fetch(`${server.url}/healthz`)).status).to.equal(200);
    } finally {
      await server.close();
      await client.close();
    }
  });

  describe('two server processes on one database (needs MONGODB_URI)', function () {
    const uri = process.env['MONGODB_URI'];
    if (uri === undefined || uri === '') {
      it('skipped: MONGODB_URI is not set (no MongoDB can run on this machine without it)');
      return;
    }
    const database = `petstore_mp_${process.pid}_${Date.now()}`;
    const withDatabase = uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?(\?.*)?$/, `$1/${database}$3`);
    const key = 'multi-process-key';
    const limit = 50;
    type Proc = { url: Promise<string>; stop(): Promise<number | null> };
    const start = (): Proc => {
      const child = spawn(process.execPath, [MAIN], {
        env: {
          PATH: process.env['PATH'] ?? '',
          PORT: '0',
          HOST: '127.0.0.1',
          PETSTORE_STORE: 'mongo',
          MONGODB_URI: withDatabase,
          PETSTORE_API_KEYS: `${key}:enterprise:${limit}:100000`,
        },
      });
      let out = '';
      const url = new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /"url":"([^"]+)"/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`server exited with ${String(code)} before listening`)));
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      return { url, stop: () => (child.kill('SIGTERM'), exited) };
    };
    let a: Proc, b: Proc;
    before(() => {
      a = start();
      b = start();
    });
    after(async () => {
      expect(await a.stop()).to.equal(0);
      expect(await b.stop()).to.equal(0);
      const client = await MongoClient.connect(withDatabase);
      await client.db(database).dropDatabase();
      await client.close();
    });
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };

    it('a pet created through one process is found through the other, with ids from one sequence', async () => {
      const created = await fetch(`${await a.url}/v1/pets`, { method: 'POST', headers, body: JSON.stringify({ name: 'Shared', categoryId: 3 }) });
      expect(created.status).to.equal(201);
      const pet = (await created.json()) as { id: number };
      const found = await fetch(`${await b.url}/v1/pets/${pet.id}`, { headers });
      expect(await found.json()).to.deep.equal({ id: pet.id, name: 'Shared', categoryId: 3, status: 'available' });
      const next = (await (await fetch(`${await b.url}/v1/pets`, { method: 'POST', headers, body: '{"name":"Next","categoryId":3}' })).json()) as { id: number };
      expect(next.id).to.be.greaterThan(pet.id);
    });

    it('a key limit holds exactly across both: of 80 simultaneous requests, exactly the remaining quota is admitted', async () => {
      const first = await fetch(`${await a.url}/v1/pets?limit=1`, { headers });
      const remaining = Number(first.headers.get('x-ratelimit-remaining'));
      const urls = [await a.url, await b.url];
      const statuses = await Promise.all(Array.from({ length: 80 }, (_, i) => fetch(`${urls[i % 2]}/v1/pets?limit=1`, { headers }).then((r) => r.status)));
      expect(statuses.filter((s) => s === 200)).to.have.length(remaining);
      expect(statuses.filter((s) => s === 429)).to.have.length(80 - remaining);
    });
  });
});


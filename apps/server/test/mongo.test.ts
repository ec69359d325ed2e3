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
    const adminKey = 'multi-process-admin-key';
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
          PETSTORE_ADMIN_KEYS: adminKey,
          // Waiting for a plan change to arrive sends requests past a 429: no ban meanwhile.
          PETSTORE_BAN_THRESHOLD: '1000',
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

    const admin = { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' };
    /** Milliseconds until `check` holds (polling every 20 ms, at most 3 s). */
    const until = async (check: () => Promise<boolean>): Promise<number> => {
      const started = Date.now();
      while (!(await check())) {
        if (Date.now() - started > 3_000) throw new Error('not seen within 3 s');
        await new Promise((r) => setTimeout(r, 20));
      }
      return Date.now() - started;
    };
    const issue = async (plan: string): Promise<{ id: string; key: string }> => {
      const res = await fetch(`${await a.url}/v1/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ plan }) });
      expect(res.status).to.equal(201);
      return (await res.json()) as { id: string; key: string };
    };

    it('a key issued through one process works at once through the other; revoked through one, the other refuses it within 1 s', async () => {
      const made = await issue('pro');
      const through = async (url: string) => (await fetch(`${url}/v1/pets?limit=1`, { headers: { Authorization: `Bearer ${made.key}` } })).status;
      expect(await through(await b.url), 'issued through a, used through b').to.equal(200);
      const listed = (await (await fetch(`${await b.url}/v1/admin/keys?limit=100`, { headers: admin })).json()) as Array<{ id: string }>;
      expect(listed.map((k) => k.id)).to.include(made.id);
      expect((await fetch(`${await a.url}/v1/admin/keys/${made.id}`, { method: 'DELETE', headers: admin })).status).to.equal(204);
      expect(await through(await a.url), 'at once on the process that revoked it').to.equal(401);
      const elapsed = await until(async () => (await through(await b.url)) === 401);
      expect(elapsed, 'refused by the other process within 1 s (ms)').to.be.at.most(1_000);
      expect(await through(await b.url)).to.equal(401);
    });

    it('a plan change through one process applies through the other within 1 s, with the counts kept: a free key at 60/60, upgraded to pro, is admitted again', async () => {
      const made = await issue('free');
      const auth = { Authorization: `Bearer ${made.key}` };
      // All of it within one UTC minute: start early in one.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
      for (let i = 0; i < 60; i++) expect((await fetch(`${await b.url}/v1/pets?limit=1`, { headers: auth })).status).to.equal(200);
      expect((await fetch(`${await b.url}/v1/pets?limit=1`, { headers: auth })).status).to.equal(429);
      const patched = await fetch(`${await a.url}/v1/admin/keys/${made.id}`, { method: 'PATCH', headers: admin, body: '{"plan":"pro"}' });
      expect(patched.status).to.equal(200);
      expect((await fetch(`${await a.url}/v1/pets?limit=1`, { headers: auth })).status, 'at once on the process that changed it').to.equal(200);
      const elapsed = await until(async () => (await fetch(`${await b.url}/v1/pets?limit=1`, { headers: auth })).headers.get('x-ratelimit-limit') === '300');
      expect(elapsed, 'the pro numbers in the other process within 1 s (ms)').to.be.at.most(1_000);
    });
  });
});


import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { MongoClient, MongoServerError } from 'mongodb';
import {
  Admission,
  Adoption,
  apiKeyRecord,
  Authenticator,
  CategoryCatalog,
  KeyAdmin,
  PetCatalog,
  PetMaintenance,
  publicKeyId,
  type ApiKeyRecord,
  type PetRepository,
} from '@petstore/domain';
import {
  ApiKeyStoreMongo,
  CategoryRepositoryMongo,
  MongoCommandError,
  OrderRepositoryMongo,
  PetRepositoryMongo,
  QuotaStoreMongo,
} from '@petstore/adapters-mongo';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  QuotaStoreInMemory,
  SystemClock,
} from '@petstore/adapters-memory';
import { createHttpApp, listen } from '@petstore/adapters-http';
import { seedCategories } from './hardening/support.js';
import { SystemRandom } from '../src/system-random.js';
import { serialOrderOf, type RaceRequest, nodeDigests } from '@petstore/domain/testing';

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
    const categories = new CategoryRepositoryMongo(db);
    const pets = new PetRepositoryMongo(db);
    const keys = new ApiKeyStoreMongo(db);
    const orders = new OrderRepositoryMongo(db);
    const app = createHttpApp({
      catalog: new PetCatalog(pets, categories, clock, new SystemRandom()),
      categories: new CategoryCatalog(categories),
      adoption: new Adoption(pets, orders, clock),
      maintenance: new PetMaintenance(pets, orders, categories, clock),
      authenticator: new Authenticator(keys, nodeDigests),
      admission: new Admission(new QuotaStoreMongo(db), clock),
      keyAdmin: new KeyAdmin(keys, new SystemRandom(), clock, clock.now(), nodeDigests),
    });
    const server = await listen(app, { port: 0, host: '127.0.0.1' });
    try {
      const started = Date.now();
      const answers = await Promise.all(
        ['/v1/pets', '/v1/pets/1', '/v1/categories', '/v1/categories/1'].map((path) =>
          fetch(`${server.url}${path}`, { headers: { Authorization: 'Bearer some-key' } }),
        ),
      );
      expect(
        Date.now() - started,
        'bounded by the 500 ms server selection, never the driver default of 30 s',
      ).to.be.below(10_000);
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

  it('a command the server refuses is a 500 without detail, and its log line names the command and the server message', async () => {
    const serverMessage =
      "Cannot apply $inc to a value of non-numeric type. {_id: 7} has the field 'n' of non-numeric type string";
    const refused = new MongoCommandError(
      'find on pets',
      new MongoServerError({ message: serverMessage, code: 14, codeName: 'TypeMismatch' }),
    );
    const pets: PetRepository = Object.assign(new PetRepositoryInMemory(), { list: () => Promise.reject(refused) });
    const keys = new ApiKeyStoreInMemory();
    await keys.save(apiKeyRecord(nodeDigests, 'refusal-test-key', 'pro') as ApiKeyRecord);
    const lines: Record<string, unknown>[] = [];
    const clock = new SystemClock();
    const categories = new CategoryRepositoryInMemory();
    const orders = new OrderRepositoryInMemory();
    const app = createHttpApp({
      catalog: new PetCatalog(pets, categories, clock, new SystemRandom()),
      categories: new CategoryCatalog(categories),
      adoption: new Adoption(pets, orders, clock),
      maintenance: new PetMaintenance(pets, orders, categories, clock),
      authenticator: new Authenticator(keys, nodeDigests),
      admission: new Admission(new QuotaStoreInMemory(), clock),
      keyAdmin: new KeyAdmin(keys, new SystemRandom(), clock, clock.now(), nodeDigests),
      logger: { info: () => {}, warn: () => {}, error: (fields) => void lines.push(fields) },
    });
    const server = await listen(app, { port: 0, host: '127.0.0.1' });
    try {
      const answer = await fetch(`${server.url}/v1/pets`, { headers: { Authorization: 'Bearer refusal-test-key' } });
      expect(answer.status).to.equal(500);
      const body = await answer.text();
      expect(body).not.to.match(/find on pets|non-numeric|Mongo/);
      expect(lines).to.have.length(1);
      const logged = JSON.stringify(lines[0]);
      expect(logged)
        .to.include('MongoDB refused find on pets')
        .and.to.include(JSON.stringify(serverMessage).slice(1, -1));
    } finally {
      await server.close();
    }
  });

  describe('two server processes on one database (needs MONGODB_URI)', function () {
    const uri = process.env['MONGODB_URI'];
    if (uri === undefined || uri === '') {
      // Pending on purpose, the reason in its title: two server processes need a real MongoDB (or a
      // compatible server) to share; none can be installed here, and a mock of the driver proves nothing.
      it('skipped: MONGODB_URI is not set (no MongoDB can run on this machine without it)');
      return;
    }
    const database = `petstore_mp_${process.pid}_${Date.now()}`;
    const withDatabase = uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?(\?.*)?$/, `$1/${database}$3`);
    const key = 'multi-process-key';
    const proKey = 'mongo-pro-key-0123456789';
    // Seeds the categories, so that the 50 requests of the seeding do not spend the tests' quotas.
    const seedKey = 'mongo-seed-key-0123456789';
    const adminKey = 'multi-process-admin-key';
    const limit = 50;
    /** A key that no test here takes to its limit (for the order race). */
    const roomyKey = 'multi-process-roomy-key';
    type Proc = { url: Promise<string>; stop(): Promise<number | null> };
    const start = (): Proc => {
      const child = spawn(process.execPath, [MAIN], {
        // The compiled tests' folder: no `.env` there (the server reads one from its working directory).
        cwd: fileURLToPath(new URL('.', import.meta.url)),
        env: {
          PATH: process.env['PATH'] ?? '',
          PORT: '0',
          HOST: '127.0.0.1',
          PETSTORE_STORE: 'mongo',
          MONGODB_URI: withDatabase,
          PETSTORE_API_KEYS: `${key}:enterprise:${limit}:100000,${proKey}:pro,${seedKey}:business,${roomyKey}:enterprise:100000:1000000`,
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
    before(async () => {
      a = start();
      b = start();
      await seedCategories(await a.url, seedKey);
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
      const created = await fetch(`${await a.url}/v1/pets`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Shared', categoryId: 3 }),
      });
      expect(created.status).to.equal(201);
      const pet = (await created.json()) as { id: number };
      const found = await fetch(`${await b.url}/v1/pets/${pet.id}`, { headers });
      expect(await found.json()).to.deep.equal({ id: pet.id, name: 'Shared', categoryId: 3, status: 'available' });
      const next = (await (
        await fetch(`${await b.url}/v1/pets`, { method: 'POST', headers, body: '{"name":"Next","categoryId":3}' })
      ).json()) as { id: number };
      expect(next.id).to.be.greaterThan(pet.id);
    });

    it('both are ready: /readyz makes a conditional write round trip', async () => {
      for (const url of [await a.url, await b.url]) {
        const ready = await fetch(`${url}/readyz`);
        expect(ready.status).to.equal(200);
        expect(await ready.json()).to.deep.equal({ status: 'ready' });
      }
    });

    it('creates, lists, pages through and gets pets, across both processes', async () => {
      const urls = [await a.url, await b.url];
      const created: { id: number; name: string }[] = [];
      for (let i = 0; i < 9; i++) {
        const res = await fetch(`${urls[i % 2]}/v1/pets`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `Walk ${i}`, categoryId: 5, status: i % 3 === 0 ? 'sold' : 'available' }),
        });
        expect(res.status).to.equal(201);
        created.push((await res.json()) as { id: number; name: string });
      }
      let path: string | undefined = '/v1/pets?limit=4';
      const seen: number[] = [];
      for (let page = 0; path !== undefined; page++) {
        const res = await fetch(`${urls[page % 2]}${path}`, { headers });
        expect(res.status).to.equal(200);
        seen.push(...((await res.json()) as { id: number }[]).map((p) => p.id));
        const link = res.headers.get('link');
        path = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
      }
      expect(seen).to.deep.equal([...seen].sort((x, y) => x - y));
      for (const pet of created) expect(seen).to.include(pet.id);
      const sold = (await (await fetch(`${urls[1]}/v1/pets?status=sold&limit=100`, { headers })).json()) as {
        id: number;
        status: string;
      }[];
      for (const pet of created.filter((_, i) => i % 3 === 0)) expect(sold.map((p) => p.id)).to.include(pet.id);
      for (const p of sold) expect(p.status).to.equal('sold');
      const got = await fetch(`${urls[0]}/v1/pets/${created[4]!.id}`, { headers });
      expect(await got.json()).to.deep.equal({
        id: created[4]!.id,
        name: 'Walk 4',
        categoryId: 5,
        status: 'available',
      });
      expect((await fetch(`${urls[1]}/v1/pets/${created[8]!.id + 1000}`, { headers })).status).to.equal(404);
    });

    it('350 simultaneous requests with a pro key (300/minute) on one process: exactly 300 are admitted and 50 are 429, each unit once', async () => {
      const url = await a.url;
      // The service counts by the real clock: keep the burst inside one UTC minute.
      const toNextMinute = 60_000 - (Date.now() % 60_000);
      if (toNextMinute < 10_000) await new Promise((resolve) => setTimeout(resolve, toNextMinute + 50));
      const responses = await Promise.all(
        Array.from({ length: 350 }, () =>
          fetch(`${url}/v1/pets?limit=1`, { headers: { Authorization: `Bearer ${proKey}` } }),
        ),
      );
      const admitted = responses.filter((r) => r.status === 200);
      expect(admitted).to.have.length(300);
      expect(responses.filter((r) => r.status === 429)).to.have.length(50);
      const remaining = admitted.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
      expect(remaining).to.deep.equal(Array.from({ length: 300 }, (_, i) => i));
    });

    it('a category name is unique across both: of simultaneous same-name creates through the two processes exactly one gets 201', async () => {
      const urls = [await a.url, await b.url];
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          fetch(`${urls[i % 2]}/v1/categories`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ name: i % 3 === 0 ? 'Ferrets' : 'FERRETS' }),
          }).then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 201)).to.have.length(1);
      expect(statuses.filter((s) => s === 409)).to.have.length(19);
    });

    /** The one place this suite creates a pet over HTTP (adapt it here when a pet needs more). */
    const createPet = async (url: string): Promise<number> => {
      const roomy = { Authorization: `Bearer ${roomyKey}`, 'Content-Type': 'application/json' };
      const created = await fetch(`${url}/v1/pets`, {
        method: 'POST',
        headers: roomy,
        body: JSON.stringify({ name: 'Contested', categoryId: 3 }),
      });
      expect(created.status).to.equal(201);
      return ((await created.json()) as { id: number }).id;
    };

    it('of 50 simultaneous orders for one pet sent to both processes, exactly one gets 201 (docs/rules.md §8)', async () => {
      const roomy = { Authorization: `Bearer ${roomyKey}`, 'Content-Type': 'application/json' };
      const petId = await createPet(await a.url);
      const urls = [await a.url, await b.url];
      const statuses = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`${urls[i % 2]}/v1/store/orders`, {
            method: 'POST',
            headers: roomy,
            body: JSON.stringify({ petId }),
          }).then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 201)).to.have.length(1);
      expect(statuses.filter((s) => s === 409)).to.have.length(49);
      const pet = (await (await fetch(`${urls[1]}/v1/pets/${petId}`, { headers: roomy })).json()) as { status: string };
      expect(pet.status).to.equal('pending');
    });

    it('of a DELETE, a PATCH of status and 8 orders sent together for one pet through both processes, the outcomes are those of a serial order (docs/rules.md §12: decided on the pet document alone)', async () => {
      const roomy = { Authorization: `Bearer ${roomyKey}`, 'Content-Type': 'application/json' };
      const urls = [await a.url, await b.url];
      const codeOf = async (res: Response): Promise<string> =>
        res.status < 300 ? 'ok' : ((await res.json()) as { code: string }).code;
      for (let round = 0; round < 12; round++) {
        const petId = await createPet(urls[round % 2]!);
        const tag =
          (await fetch(`${urls[1 - (round % 2)]}/v1/pets/${petId}`, { headers: roomy })).headers.get('etag') ?? '';
        expect(tag).to.match(/^"[^"]+"$/);
        const status = (['sold', 'pending', 'available'] as const)[round % 3]!;
        const ifMatch = (['none', 'initial', '*'] as const)[Math.floor(round / 3) % 3]!;
        const condition: Record<string, string> = ifMatch === 'none' ? {} : { 'If-Match': ifMatch === '*' ? '*' : tag };
        // The withdrawal and the patch go out at a different place among the orders each round.
        const requests: RaceRequest[] = Array.from({ length: 8 }, () => ({ kind: 'place' }) as const);
        requests.splice((round * 5) % 9, 0, { kind: 'withdraw', ifMatch });
        requests.splice((round * 7 + 3) % 10, 0, { kind: 'patch', status, ifMatch });
        const outcomes = await Promise.all(
          requests.map(async (request, i) => {
            const url = urls[i % 2]!;
            if (request.kind === 'withdraw')
              return codeOf(
                await fetch(`${url}/v1/pets/${petId}`, { method: 'DELETE', headers: { ...admin, ...condition } }),
              );
            if (request.kind === 'patch')
              return codeOf(
                await fetch(`${url}/v1/pets/${petId}`, {
                  method: 'PATCH',
                  headers: { ...admin, ...condition },
                  body: JSON.stringify({ status }),
                }),
              );
            return codeOf(
              await fetch(`${url}/v1/store/orders`, {
                method: 'POST',
                headers: roomy,
                body: JSON.stringify({ petId }),
              }),
            );
          }),
        );
        const after = await fetch(`${urls[round % 2]}/v1/pets/${petId}`, { headers: roomy });
        const end =
          after.status === 404
            ? ({ withdrawn: true } as const)
            : ({
                withdrawn: false,
                status: ((await after.json()) as { status: 'available' | 'pending' | 'sold' }).status,
              } as const);
        expect(
          serialOrderOf('available', requests, outcomes, end),
          `round ${round}: ${outcomes.join(' ')} ending ${JSON.stringify(end)}`,
        ).not.to.equal(undefined);
      }
    });

    it('a key limit holds exactly across both: of 80 simultaneous requests, exactly the remaining quota is admitted', async () => {
      const first = await fetch(`${await a.url}/v1/pets?limit=1`, { headers });
      const remaining = Number(first.headers.get('x-ratelimit-remaining'));
      const urls = [await a.url, await b.url];
      const statuses = await Promise.all(
        Array.from({ length: 80 }, (_, i) =>
          fetch(`${urls[i % 2]}/v1/pets?limit=1`, { headers }).then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 200)).to.have.length(remaining);
      expect(statuses.filter((s) => s === 429)).to.have.length(80 - remaining);
    });

    it('a create never happens twice under one Idempotency-Key (docs/rules.md §10): what a process left half done (its write landed, its answer not kept, its lease over) is answered by the other process as a replay, for a pet, a category and an order', async () => {
      const roomy = { Authorization: `Bearer ${roomyKey}`, 'Content-Type': 'application/json' };
      const client = await MongoClient.connect(withDatabase);
      try {
        const db = client.db(database);
        const petId = await createPet(await a.url);
        for (const [path, collection, body] of [
          ['/v1/pets', 'pets', '{"name":"Once","categoryId":3}'],
          ['/v1/categories', 'categories', '{"name":"Only Once"}'],
          ['/v1/store/orders', 'orders', JSON.stringify({ petId })],
        ] as const) {
          const key = `half-done-${collection}`;
          const first = await fetch(`${await a.url}${path}`, {
            method: 'POST',
            headers: { ...roomy, 'Idempotency-Key': key },
            body,
          });
          expect(first.status, path).to.equal(201);
          const text = await first.text();
          const { id } = JSON.parse(text) as { id: number };
          const created = db.collection<{ _id: number; token?: string }>(collection);
          const { token } = (await created.findOne({ _id: id })) ?? {};
          expect(token, `${path}: written with its creation token by process a`).to.match(/^[0-9a-f]{64}$/);
          const before = await created.countDocuments();
          // What a process that died after this write leaves: the claim in progress, its answer never kept, its lease over.
          const records = db.collection<{ _id: string }>('idempotency_keys');
          const left = await records.updateOne(
            { _id: `${publicKeyId(nodeDigests.sha256Hex(roomyKey))}:${key}` },
            {
              $set: { state: 'in_progress', token, leaseUntil: new Date(0) },
              $unset: { status: '', body: '', location: '' },
            },
          );
          expect(left.modifiedCount, path).to.equal(1);
          const again = await fetch(`${await b.url}${path}`, {
            method: 'POST',
            headers: { ...roomy, 'Idempotency-Key': key },
            body,
          });
          expect(
            [again.status, await again.text(), again.headers.get('location'), again.headers.get('idempotent-replayed')],
            path,
          ).to.deep.equal([201, text, first.headers.get('location'), 'true']);
          expect(await created.countDocuments(), `${path}: nothing created again`).to.equal(before);
        }
      } finally {
        await client.close();
      }
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
      const res = await fetch(`${await a.url}/v1/admin/keys`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ plan }),
      });
      expect(res.status).to.equal(201);
      return (await res.json()) as { id: string; key: string };
    };

    it('a key issued through one process works at once through the other; revoked through one, the other refuses it within 1 s', async () => {
      const made = await issue('pro');
      const through = async (url: string) =>
        (await fetch(`${url}/v1/pets?limit=1`, { headers: { Authorization: `Bearer ${made.key}` } })).status;
      expect(await through(await b.url), 'issued through a, used through b').to.equal(200);
      const listed = (await (
        await fetch(`${await b.url}/v1/admin/keys?limit=100`, { headers: admin })
      ).json()) as Array<{ id: string }>;
      expect(listed.map((k) => k.id)).to.include(made.id);
      expect(
        (await fetch(`${await a.url}/v1/admin/keys/${made.id}`, { method: 'DELETE', headers: admin })).status,
      ).to.equal(204);
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
      for (let i = 0; i < 60; i++)
        expect((await fetch(`${await b.url}/v1/pets?limit=1`, { headers: auth })).status).to.equal(200);
      expect((await fetch(`${await b.url}/v1/pets?limit=1`, { headers: auth })).status).to.equal(429);
      const patched = await fetch(`${await a.url}/v1/admin/keys/${made.id}`, {
        method: 'PATCH',
        headers: admin,
        body: '{"plan":"pro"}',
      });
      expect(patched.status).to.equal(200);
      expect(
        (await fetch(`${await a.url}/v1/pets?limit=1`, { headers: auth })).status,
        'at once on the process that changed it',
      ).to.equal(200);
      const elapsed = await until(
        async () =>
          (await fetch(`${await b.url}/v1/pets?limit=1`, { headers: auth })).headers.get('x-ratelimit-limit') === '300',
      );
      expect(elapsed, 'the pro numbers in the other process within 1 s (ms)').to.be.at.most(1_000);
    });
  });
});

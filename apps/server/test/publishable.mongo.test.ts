// docs/rules.md §16 "Publishable keys" on MongoDB: a publishable key's plan counts per visitor, and
// exactly, across two server processes on one database (§5 "Exact counting"): of N > L requests of
// one visitor arriving together through both processes, exactly L are admitted.
import { expect } from 'chai';
import { request } from 'node:http';
import { MongoClient } from 'mongodb';
import { spawnServer, type ServerProcess } from './hardening/support.js';

const ADMIN = 'publishable-mongo-admin-key-0123456789';
const SITE = 'https://shelter.example';

/** One request through node:http (it sends `Origin` as given), from `localAddress`; resolves with its status and body. */
const call = (
  url: string,
  path: string,
  options: { method?: string; key?: string; origin?: string; body?: string; localAddress?: string } = {},
): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: options.method ?? 'GET',
        agent: false,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        headers: {
          ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
          ...(options.origin === undefined ? {} : { origin: options.origin }),
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });

describe('publishable keys on MongoDB, two server processes (docs/rules.md §16)', function () {
  this.timeout(60_000);
  const uri = process.env['MONGODB_URI'];
  if (uri === undefined || uri === '') {
    // Pending on purpose, the reason in its title: two processes need a MongoDB (or a compatible server) to share.
    it('skipped: MONGODB_URI is not set (no MongoDB can run on this machine without it)');
    return;
  }
  const database = `petstore_pk_${process.pid}_${Date.now()}`;
  const withDatabase = uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?(\?.*)?$/, `$1/${database}$3`);
  let processes: ServerProcess[];
  let urls: string[];
  before(async () => {
    const env = { PETSTORE_STORE: 'mongo', MONGODB_URI: withDatabase, PETSTORE_ADMIN_KEYS: ADMIN };
    processes = [spawnServer(env), spawnServer(env)];
    urls = await Promise.all(processes.map(async (p) => String(await p.url())));
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

  it('one visitor, N > L requests at once through both processes: exactly L admitted; another visitor is unaffected', async () => {
    const limit = 12;
    const issued = await call(urls[0]!, '/v1/admin/keys', {
      method: 'POST',
      key: ADMIN,
      // perMinute = perDay: a minute that ends during the test cannot admit more than L.
      body: JSON.stringify({
        plan: 'enterprise',
        perMinute: limit,
        perDay: limit,
        role: 'publishable',
        origins: [SITE],
      }),
    });
    expect(issued.status, issued.text).to.equal(201);
    const { key } = JSON.parse(issued.text) as { key: string };
    const statuses = await Promise.all(
      Array.from({ length: 3 * limit }, (_, i) =>
        call(urls[i % 2]!, '/v1/categories', { key, origin: SITE, localAddress: '127.0.0.2' }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).to.have.length(limit);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).to.deep.equal([]);
    for (const url of urls)
      expect((await call(url, '/v1/categories', { key, origin: SITE, localAddress: '127.0.0.3' })).status).to.equal(
        200,
      );
    // The key stays refused from elsewhere and for anything but the catalogue, in both processes.
    for (const url of urls) {
      expect(
        (await call(url, '/v1/categories', { key, origin: 'https://evil.example', localAddress: '127.0.0.4' })).status,
      ).to.equal(403);
      expect(
        (await call(url, '/v1/store/inventory', { key, origin: SITE, localAddress: '127.0.0.4' })).status,
      ).to.equal(403);
    }
  });
});

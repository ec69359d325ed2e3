import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedCategories } from './hardening/support.js';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
/** The working directory of the processes: empty, so no `.env` of a developer's is read. */
const WORKDIR = mkdtempSync(join(tmpdir(), 'petstore-process-'));

interface Proc {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const run = (env: Record<string, string>, cwd = WORKDIR): Proc => {
  const child = spawn(process.execPath, [MAIN], { cwd, env: { PATH: process.env['PATH'] ?? '', ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
};

const waitFor = async (check: () => boolean, what: string, ms = 10_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

const listeningUrl = async (p: Proc): Promise<string> => {
  await waitFor(() => /"msg":"listening"/.test(p.stdout()), 'the listening line');
  return /"url":"([^"]+)"/.exec(p.stdout())![1]!;
};

describe('the server process', function () {
  this.timeout(30_000);
  after(() => rmSync(WORKDIR, { recursive: true, force: true }));

  it('refuses a malformed setting with one clear line and a non-zero exit', async () => {
    const p = run({ PETSTORE_BAN_THRESHOLD: 'lots' });
    expect(await p.exited).to.equal(1);
    expect(p.stderr().trim().split('\n')).to.deep.equal([
      'petstore: PETSTORE_BAN_THRESHOLD must be a whole number from 1 to 1000000 (got "lots")',
    ]);
  });

  it('a HOST it cannot listen on stops the start with one line naming HOST/PORT', async () => {
    const p = run({ HOST: '256.1.1.1', PORT: '0' });
    expect(await p.exited).to.equal(1);
    expect(p.stderr().trim().split('\n')).to.have.length(1);
    expect(p.stderr()).to.match(/^petstore: HOST\/PORT: cannot listen on 256\.1\.1\.1:0 \(E[A-Z_]+\)/);
  });

  it('with PETSTORE_STORE=mongo and no reachable database, stops after a bounded wait with one clear line', async () => {
    const started = Date.now();
    const p = run({ PETSTORE_STORE: 'mongo', MONGODB_URI: 'mongodb://user:hunter2@127.0.0.1:1/pets', PORT: '0' });
    expect(await p.exited).to.equal(1);
    expect(Date.now() - started).to.be.below(15_000);
    expect(p.stderr().trim().split('\n')).to.deep.equal([
      'petstore: cannot reach MongoDB at 127.0.0.1:1 within 2000 ms',
    ]);
    expect(p.stderr() + p.stdout()).not.to.contain('hunter2');
  });

  it('with no key configured on the memory store, prints one development key and one development admin key that work, as one marked block on stderr; stdout holds JSON log lines only', async () => {
    const p = run({ PORT: '0', HOST: '127.0.0.1' });
    try {
      const url = await listeningUrl(p);
      await waitFor(() => /end of development keys/.test(p.stderr()), 'the development keys');
      // One block, nothing around it: a marked first and last line, the keys and their examples between.
      const block = p.stderr().trim().split('\n');
      expect(block[0]).to.match(
        /^===== petstore: development keys \(PETSTORE_API_KEYS is unset; .*never in production\) =====$/,
      );
      expect(block.at(-1)).to.equal('===== end of development keys =====');
      expect(block).to.have.length(6);
      const key = /Development API key \(plan free\): (\S+)/.exec(p.stderr())![1]!;
      expect(p.stderr().split(key).length - 1, 'printed in one message (line and example)').to.equal(2);
      const ok = await fetch(`${url}/v1/pets`, { headers: { Authorization: `Bearer ${key}` } });
      expect(ok.status).to.equal(200);
      expect((await fetch(`${url}/v1/openapi.json`)).status).to.equal(200);
      // And a development admin key next to it, that issues keys (and is never logged).
      const admin = /Development admin key: (\S+)/.exec(p.stderr())![1]!;
      expect(p.stderr().split(admin).length - 1, 'printed in one message (line and example)').to.equal(2);
      const issued = await fetch(`${url}/v1/admin/keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
        body: '{"plan":"pro"}',
      });
      expect(issued.status).to.equal(201);
      const fresh = ((await issued.json()) as { key: string }).key;
      expect((await fetch(`${url}/v1/pets`, { headers: { Authorization: `Bearer ${fresh}` } })).status).to.equal(200);
      expect(
        (await fetch(`${url}/v1/admin/keys`, { headers: { Authorization: `Bearer ${key}` } })).status,
        'the development key is a client key',
      ).to.equal(403);
      const stdout = p
        .stdout()
        .split('\n')
        .filter((l) => l !== '');
      for (const line of stdout)
        expect(() => JSON.parse(line) as unknown, `a JSON log line: ${line.slice(0, 80)}`).not.to.throw();
      expect(p.stdout()).not.to.contain(admin).and.not.to.contain(key).and.not.to.contain(fresh);
    } finally {
      p.child.kill('SIGTERM');
      expect(await p.exited).to.equal(0);
    }
  });

  it('the listening line shows the address and port the socket is bound to, and the URL to reach it', async () => {
    for (const host of ['127.0.0.1', '0.0.0.0']) {
      const p = run({ PORT: '0', HOST: host, PETSTORE_API_KEYS: 'listen-key:pro' });
      try {
        await listeningUrl(p);
        const line = JSON.parse(
          p
            .stdout()
            .split('\n')
            .find((l) => l.includes('"msg":"listening"'))!,
        ) as { address: string; port: number; url: string };
        expect(line.address).to.equal(host);
        expect(line.port).to.be.a('number').and.above(0);
        expect(line.url).to.equal(`http://127.0.0.1:${line.port}`);
        expect((await fetch(`${line.url}/healthz`)).status).to.equal(200);
      } finally {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    }
  });

  it('refuses, with one line and exit 1: an unknown PETSTORE_* variable (naming the closest setting), NODE_ENV=production with generated keys, the metrics port equal to PORT', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [
        { PETSTORE_API_KEY: 'k:pro' },
        'petstore: PETSTORE_API_KEY is not a setting of this service; did you mean PETSTORE_API_KEYS?',
      ],
      [
        { NODE_ENV: 'production' },
        'petstore: NODE_ENV=production needs PETSTORE_API_KEYS (and PETSTORE_ADMIN_KEYS to manage keys): development keys are never generated in production',
      ],
      [
        { NODE_ENV: 'production', PETSTORE_ADMIN_KEYS: 'only-admin' },
        'petstore: NODE_ENV=production needs PETSTORE_API_KEYS (and PETSTORE_ADMIN_KEYS to manage keys): development keys are never generated in production',
      ],
      [
        { PORT: '9464', PETSTORE_METRICS_PORT: '9464', PETSTORE_API_KEYS: 'k:pro' },
        'petstore: PETSTORE_METRICS_PORT must differ from PORT (both are 9464): /metrics has a listener of its own',
      ],
    ];
    for (const [env, line] of cases) {
      const p = run({ HOST: '127.0.0.1', ...env });
      expect(await p.exited, JSON.stringify(env)).to.equal(1);
      expect(p.stderr().trim().split('\n')).to.deep.equal([line]);
      expect(p.stdout()).to.equal('');
    }
  });

  it('reads .env from the working directory (the real environment wins over it), and refuses a typo in it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-dotenv-'));
    try {
      writeFileSync(
        join(dir, '.env'),
        '# settings for this folder\nPETSTORE_API_KEYS=dotenv-key:pro\nHOST=127.0.0.1\nPORT=1\nPETSTORE_LOG_LEVEL="info"\n',
      );
      const p = run({ PORT: '0', NODE_ENV: 'production' }, dir);
      try {
        const url = await listeningUrl(p);
        expect(new URL(url).port, 'PORT from the environment, not the file').not.to.equal('1');
        expect(p.stdout()).to.contain(`"envFile":${JSON.stringify(join(dir, '.env'))}`);
        expect(
          (await fetch(`${url}/v1/pets`, { headers: { Authorization: 'Bearer dotenv-key' } })).status,
          'the key from .env',
        ).to.equal(200);
        expect(p.stderr(), 'no development key: keys came from .env').to.equal('');
      } finally {
        p.child.kill('SIGTERM');
        expect(await p.exited).to.equal(0);
      }
      writeFileSync(join(dir, '.env'), 'PETSTORE_METRICS_PRT=9464\n');
      const typo = run({ PORT: '0' }, dir);
      expect(await typo.exited).to.equal(1);
      expect(typo.stderr().trim()).to.equal(
        'petstore: PETSTORE_METRICS_PRT is not a setting of this service; did you mean PETSTORE_METRICS_PORT?',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on SIGTERM stops accepting, finishes the request in flight, and exits 0', async () => {
    const p = run({ PORT: '0', HOST: '127.0.0.1', PETSTORE_API_KEYS: 'graceful-key:pro' });
    const url = new URL(await listeningUrl(p));
    await seedCategories(url, 'graceful-key');
    // A create whose body arrives slowly: SIGTERM lands while it is in flight.
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/v1/pets',
          method: 'POST',
          headers: { Authorization: 'Bearer graceful-key', 'Content-Type': 'application/json', 'Content-Length': '30' },
        },
        (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write('{"name":"Slow",');
      setTimeout(() => {
        p.child.kill('SIGTERM');
        setTimeout(() => req.end('"categoryId":7}'), 300);
      }, 200);
    });
    const answer = await response;
    expect(answer.status).to.equal(201);
    expect(JSON.parse(answer.body)).to.deep.include({ name: 'Slow', categoryId: 7 });
    expect(await p.exited).to.equal(0);
    expect(p.stdout()).to.contain('stopping: finishing requests in flight');
    expect(p.stdout()).not.to.contain('graceful-key');
  });
});

import { expect } from 'chai';
import { request } from 'node:http';
import { seedCategories, sleep, spawnServer } from './support.js';

const KEY = 'shutdown-key';

type Outcome =
  | { readonly kind: 'full'; readonly status: number }
  /** The connection was refused or closed before any byte of an answer: the request was not accepted. */
  | { readonly kind: 'not-accepted'; readonly code: string }
  /** An answer started and did not finish: must never happen. */
  | { readonly kind: 'truncated'; readonly detail: string };

/** One request on its own connection; classifies how it ended. */
const attempt = (port: number, method: string, path: string, body?: string): Promise<Outcome> =>
  new Promise<Outcome>((resolve) => {
    let started = false;
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: {
          Authorization: `Bearer ${KEY}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
      },
      (res) => {
        started = true;
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          try {
            JSON.parse(text);
            resolve({ kind: 'full', status: res.statusCode ?? 0 });
          } catch {
            resolve({ kind: 'truncated', detail: `unparseable body: ${text.slice(0, 80)}` });
          }
        });
        res.on('aborted', () => resolve({ kind: 'truncated', detail: 'aborted' }));
        res.on('error', (e) => resolve({ kind: 'truncated', detail: e.message }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) =>
      resolve(started ? { kind: 'truncated', detail: e.message } : { kind: 'not-accepted', code: e.code ?? e.message }),
    );
    req.end(body);
  });

describe('hardening: graceful shutdown under load (child process)', function () {
  this.timeout(40_000);

  it('SIGTERM while requests are in flight: every accepted request gets its full response, the process exits 0 within 12 s', async () => {
    const p = spawnServer({ PETSTORE_API_KEYS: `${KEY}:enterprise:1000000:100000000` });
    const url = await p.url();
    await seedCategories(url, KEY);
    const port = Number(url.port);

    // 1. Twenty creates whose bodies are half sent: in flight when the signal lands.
    const slow = Array.from(
      { length: 20 },
      (_, i) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const body = JSON.stringify({ name: `slow-${i}`, categoryId: 9 });
          const req = request(
            {
              host: '127.0.0.1',
              port,
              method: 'POST',
              path: '/v1/pets',
              agent: false,
              headers: {
                Authorization: `Bearer ${KEY}`,
                'Content-Type': 'application/json',
                'Content-Length': String(Buffer.byteLength(body)),
              },
            },
            (res) => {
              let text = '';
              res.on('data', (d: Buffer) => (text += d.toString()));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
              res.on('aborted', () => reject(new Error(`slow-${i}: answer aborted`)));
            },
          );
          req.on('error', reject);
          req.write(body.slice(0, 10));
          setTimeout(() => req.end(body.slice(10)), 1_500);
        }),
    );

    // 2. Eight clients looping on list, get and create until the server is gone.
    let stop = false;
    const outcomes: Outcome[] = [];
    const loops = Array.from({ length: 8 }, async (_, w) => {
      for (let n = 0; !stop; n++) {
        const o =
          n % 3 === 0
            ? await attempt(port, 'POST', '/v1/pets', JSON.stringify({ name: `loop-${w}-${n}`, categoryId: 1 }))
            : await attempt(port, 'GET', n % 3 === 1 ? '/v1/pets?limit=5' : '/v1/pets/1');
        outcomes.push(o);
        if (o.kind === 'not-accepted') await sleep(20);
      }
    });

    await sleep(700);
    const signalled = Date.now();
    p.child.kill('SIGTERM');
    const code = await p.exited;
    const tookMs = Date.now() - signalled;
    stop = true;
    await Promise.all(loops);
    const slowAnswers = await Promise.all(slow);

    expect(code, p.stderr()).to.equal(0);
    expect(tookMs, 'exit within the bound').to.be.below(12_000);
    for (const a of slowAnswers) {
      expect(a.status).to.equal(201);
      expect(JSON.parse(a.body)).to.have.property('id');
    }
    const full = outcomes.filter((o) => o.kind === 'full');
    expect(
      outcomes.filter((o) => o.kind === 'truncated'),
      'truncated answers',
    ).to.deep.equal([]);
    expect(full.length).to.be.greaterThan(50);
    for (const o of full) expect((o as { status: number }).status).to.be.oneOf([200, 201, 404]);
    expect(p.stdout()).to.contain('stopping: finishing requests in flight');
    expect(p.stdout() + p.stderr()).not.to.contain(KEY);
  });
});

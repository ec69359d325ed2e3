// docs/rules.md §6, §13 through the server process: PETSTORE_UPLOADS_IN_FLIGHT reaches the upload
// admission, and a refused upload's client that writes its whole body at once, without waiting for
// 100 Continue, still reads the 503 (the server, in a process of its own as in production, does not
// reset the connection under it).
import { request } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'chai';
import { spawnServer, type ServerProcess } from './hardening/support.js';

const KEY = 'uploads-client-key-0123456789';
const ADMIN = 'uploads-admin-key-0123456789';
const MiB = 1024 * 1024;

/** One upload of `body`, written at once; the status and `Retry-After` it got, or how it failed. */
const uploadAtOnce = (port: number, petId: number, body: Buffer): Promise<string> =>
  new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/v1/pets/${petId}/photos`,
        agent: false,
        headers: {
          authorization: `Bearer ${ADMIN}`,
          'content-type': 'image/jpeg',
          'content-length': String(body.length),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolve(`${res.statusCode} ${res.headers['retry-after'] ?? '-'}`);
          req.destroy();
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(`no answer: ${error.code}`));
    req.end(body);
  });

describe('photo uploads in the server process (docs/rules.md §6, §13)', function () {
  this.timeout(60_000);
  let p: ServerProcess;

  afterEach(async () => {
    p.child.kill('SIGKILL');
    await p.exited;
  });

  it('PETSTORE_UPLOADS_IN_FLIGHT=1: with one upload in flight the next gets 503, and a client writing its whole 10 MiB body at once reads that 503 every time', async () => {
    p = spawnServer({
      PETSTORE_API_KEYS: `${KEY}:enterprise:1000000:100000000`,
      PETSTORE_ADMIN_KEYS: ADMIN,
      PETSTORE_UPLOADS_IN_FLIGHT: '1',
    });
    const url = await p.url();
    const port = Number(url.port);
    const post = (path: string, body: string) =>
      fetch(new URL(path, url), {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body,
      });
    expect((await post('/v1/categories', '{"name":"Dogs"}')).status).to.equal(201);
    const petId = ((await (await post('/v1/pets', '{"name":"Rex","categoryId":1}')).json()) as { id: number }).id;

    // One upload in flight: its head and a few bytes of its body, then nothing more.
    const held = connect({ host: '127.0.0.1', port });
    held.on('error', () => undefined);
    held.write(
      `POST /v1/pets/${petId}/photos HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: image/jpeg\r\nContent-Length: 5000\r\n\r\n${'x'.repeat(100)}`,
    );
    try {
      const body = Buffer.alloc(10 * MiB, 0xff);
      // The first 503 tells the held upload was admitted (before that, an upload may get its own 400).
      const deadline = Date.now() + 10_000;
      while ((await uploadAtOnce(port, petId, Buffer.from('x'))) !== '503 5')
        if (Date.now() > deadline) throw new Error('the held upload was never admitted');
      const outcomes: string[] = [];
      for (let i = 0; i < 20; i++) outcomes.push(await uploadAtOnce(port, petId, body));
      expect(outcomes).to.deep.equal(Array.from({ length: 20 }, () => '503 5'));
    } finally {
      held.destroy();
    }
  });
});

import { expect } from 'chai';
import { connect } from 'node:net';
import { KEYS, parseRawResponse, rawSocket, sequential, startServer, type TestServer } from './support/server.js';

const TWO_MIB = 2 * 1024 * 1024;

/** A request whose body is declared but never sent: the answer must come without it, and the connection close. */
const declared = (method: string, path: string, length: number, auth?: string): string =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\n${auth === undefined ? '' : `Authorization: Bearer ${auth}\r\n`}Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('refusals that come before the body (docs/rules.md §6, §5)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('a declared Content-Length over 1 MiB gets 413 at once on any path, counted, and the connection closes unread', async () => {
    for (const [method, path, key] of [
      ['POST', '/v1/pets', undefined],
      ['POST', '/v1/pets', KEYS.huge],
      ['GET', '/v1/pets?limit=1', KEYS.huge],
      ['POST', '/v1/nowhere', KEYS.huge],
      ['PUT', '/v1/pets/1', KEYS.huge],
    ] as const) {
      // rawSocket resolves only when the server ends the connection: a server waiting for the
      // 2 MiB (to drain them) would leave this test hanging.
      const answer = parseRawResponse(await rawSocket(server.port, declared(method, path, TWO_MIB, key)));
      expect(answer.status, `${method} ${path}`).to.equal(413);
      expect(JSON.parse(answer.body)).to.deep.include({ code: 'payload_too_large', status: 413 });
      expect(answer.headers.get('connection')).to.equal('close');
      expect(answer.headers.has('x-ratelimit-remaining'), 'counted like any answered request').to.equal(true);
    }
  });

  it('a client over its limit that declares a huge body gets its 429 without the server reading the body', async () => {
    await sequential(60, () =>
      server.request({ path: '/v1/pets?limit=1', headers: { Authorization: `Bearer ${KEYS.free}` } }),
    );
    const answer = parseRawResponse(
      await rawSocket(server.port, declared('POST', '/v1/pets', 100 * 1024 * 1024, KEYS.free)),
    );
    expect(answer.status).to.equal(429);
    expect(answer.headers.get('connection')).to.equal('close');
    expect(answer.headers.get('retry-after')).to.match(/^[1-9][0-9]*$/);
  });

  it('an HTTP/1.1 request without Host gets 400 with the rate-limit headers (it is counted)', async () => {
    const answer = parseRawResponse(
      await rawSocket(
        server.port,
        `GET /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEYS.huge}\r\nConnection: close\r\n\r\n`,
      ),
    );
    expect(answer.status).to.equal(400);
    expect(JSON.parse(answer.body)).to.deep.include({ code: 'validation_failed', status: 400 });
    expect(answer.headers.has('x-ratelimit-limit')).to.equal(true);
    expect(answer.headers.has('x-request-id')).to.equal(true);
  });
});

describe('CONNECT and request targets without a path (docs/rules.md §2: 405, never 501, never a dropped connection)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('CONNECT on a known path is 405 with Allow and an Error body; on a host:port target, 404; the connection then closes', async () => {
    const known = parseRawResponse(
      await rawSocket(
        server.port,
        `CONNECT /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.huge}\r\n\r\n`,
      ),
    );
    expect(known.status).to.equal(405);
    expect(known.headers.get('allow')).to.equal('HEAD, GET, POST, OPTIONS');
    expect(JSON.parse(known.body)).to.deep.include({ code: 'method_not_allowed', status: 405 });
    expect(known.headers.has('x-ratelimit-limit')).to.equal(true);
    const authority = parseRawResponse(
      await rawSocket(server.port, `CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n`),
    );
    expect(authority.status).to.equal(404);
    expect(JSON.parse(authority.body)).to.deep.include({ code: 'not_found', status: 404 });
  });

  it('a GET whose target is host:port (no path) gets a 4xx, not a fault', async () => {
    const answer = parseRawResponse(
      await rawSocket(server.port, `GET 127.0.0.1:80 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    expect(answer.status).to.be.within(400, 499);
  });
});

describe('Expect: 100-continue', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const BODY = '{"name":"Polite","categoryId":9}';
  const head = (key?: string) =>
    `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${key === undefined ? '' : `Authorization: Bearer ${key}\r\n`}Content-Type: application/json\r\nContent-Length: ${BODY.length}\r\nExpect: 100-continue\r\n\r\n`;

  it('a request refused before its body gets its final answer and no invitation to send the body', async () => {
    const raw = await rawSocket(server.port, head());
    expect(raw).not.to.contain('100 Continue');
    const answer = parseRawResponse(raw);
    expect(answer.status).to.equal(401);
    expect(answer.headers.get('connection')).to.equal('close');
  });

  it('an accepted request is invited (100 Continue), then sends its body and gets 201', async () => {
    const transcript = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: server.port });
      let got = '';
      socket.on('data', (chunk: Buffer) => {
        got += chunk.toString('latin1');
        if (got.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && !got.includes('201')) socket.write(BODY);
        if (/\r\n\r\n\{.*\}$/s.test(got.slice(25))) {
          socket.destroy();
          resolve(got);
        }
      });
      socket.on('error', reject);
      socket.write(head(KEYS.huge));
    });
    expect(transcript.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).to.equal(true);
    const final = parseRawResponse(transcript.slice('HTTP/1.1 100 Continue\r\n\r\n'.length));
    expect(final.status, final.body).to.equal(201);
    expect(JSON.parse(final.body)).to.deep.include({ name: 'Polite', categoryId: 9, status: 'available' });
  });
});

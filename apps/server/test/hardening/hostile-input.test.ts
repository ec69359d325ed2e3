import { expect } from 'chai';
import {
  Admission,
  Adoption,
  Authenticator,
  apiKeyRecord,
  CategoryCatalog,
  KeyAdmin,
  PetCatalog,
  PetMaintenance,
  type ApiKeyRecord,
} from '@petstore/domain';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  QuotaStoreInMemory,
  SystemClock,
} from '@petstore/adapters-memory';
import { createHttpApp, listen } from '@petstore/adapters-http';
import { SystemRandom } from '../../src/system-random.js';
import { errorOf, parseRaw, rawExchange, send, startHarness, type Answer, type Harness } from './support.js';
import { nodeDigests } from '@petstore/domain/testing';

const KEY = 'hostile-key';
const auth = { Authorization: `Bearer ${KEY}` };
const json = { ...auth, 'Content-Type': 'application/json' };
const MiB = 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A clear 4xx: the status, an `Error` body whose status repeats it, JSON, and a request id. */
const expectClear4xx = (a: Answer, code?: string): void => {
  expect(a.status, a.text.slice(0, 200)).to.be.within(400, 499);
  const body = errorOf(a.text);
  expect(body.status).to.equal(a.status);
  if (code !== undefined) expect(body.code).to.equal(code);
  expect(a.headers['content-type']).to.equal('application/json; charset=utf-8');
  expect(a.headers['x-request-id']).to.be.a('string');
};

/** A raw exchange ended in a 4xx (with an `Error` body when it has one) or a closed connection: never a 5xx. */
const expect4xxOrClosed = (text: string, closed: boolean): void => {
  if (text === '') {
    expect(closed, 'no answer, and the connection is still open').to.equal(true);
    return;
  }
  const { status, body } = parseRaw(text);
  expect(status, text.slice(0, 200)).to.be.within(400, 499);
  if (body !== '') expect(errorOf(body).status).to.equal(status);
};

const post = (h: Harness, body: string | Buffer, headers: Record<string, string> = json): Promise<Answer> =>
  send(h.port, { method: 'POST', path: '/v1/pets', headers, body });

describe('hardening: hostile input gets a clear 4xx or a closed connection, never a 5xx, crash or hang', function () {
  this.timeout(30_000);
  let h: Harness;

  before(async () => {
    h = await startHarness({ env: { PETSTORE_API_KEYS: `${KEY}:enterprise:1000000:100000000` } });
  });
  afterEach(async () => {
    // Still serving after each attack.
    expect((await send(h.port, { path: '/v1/pets?limit=1', headers: auth })).status).to.equal(200);
  });
  after(() => h.stop());

  it('deeply nested JSON (depth 100,000): arrays, objects, and nesting inside a field', async () => {
    expectClear4xx(await post(h, '['.repeat(100_000) + ']'.repeat(100_000)), 'validation_failed');
    expectClear4xx(await post(h, '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)), 'validation_failed');
    expectClear4xx(
      await post(h, `{"name":"x","categoryId":1,"status":${'['.repeat(100_000)}${']'.repeat(100_000)}}`),
      'validation_failed',
    );
    expectClear4xx(
      await post(h, `{"name":${'{"n":'.repeat(100_000)}1${'}'.repeat(100_000)},"categoryId":1}`),
      'validation_failed',
    );
    // Unbalanced: never parses.
    expectClear4xx(await post(h, '['.repeat(100_000)), 'malformed_json');
    expect(h.pets.size).to.equal(0);
  });

  it('a body of 1 MiB + 1 byte is refused with 413: declared (at once) or chunked (while reading)', async () => {
    const big = Buffer.alloc(MiB + 1, 0x20);
    expectClear4xx(await post(h, big), 'payload_too_large');
    // Declared over the limit, nothing sent: answered without reading the body.
    const declared = await rawExchange(h.port, [
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${MiB + 1}\r\n\r\n`,
    ]);
    expect(parseRaw(declared.text).status).to.equal(413);
    expect(errorOf(parseRaw(declared.text).body).code).to.equal('payload_too_large');
    // Chunked, no length declared.
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pieces: Buffer[] = [
      Buffer.from(
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      ),
    ];
    for (let sent = 0; sent <= MiB; sent += chunk.length)
      pieces.push(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
    const chunked = await rawExchange(h.port, pieces);
    expect4xxOrClosed(chunked.text, chunked.closed);
    expect(parseRaw(chunked.text).status).to.equal(413);
    // Exactly 1 MiB is read and judged on its content (the name is too long), not refused for size.
    const exact = `{"name":"${'a'.repeat(MiB - 26)}","categoryId":1}`;
    expect(Buffer.byteLength(exact)).to.equal(MiB);
    expectClear4xx(await post(h, exact), 'validation_failed');
  });

  it('a huge number of fields: within 1 MiB (the unknown one is named) and beyond (413)', async () => {
    const fields = (n: number) =>
      `{"name":"x","categoryId":1,${Array.from({ length: n }, (_, i) => `"f${i}":${i}`).join(',')}}`;
    const within = fields(60_000);
    expect(Buffer.byteLength(within)).to.be.below(MiB);
    const a = await post(h, within);
    expectClear4xx(a, 'validation_failed');
    expect(errorOf(a.text).message).to.contain("'f0'");
    expectClear4xx(await post(h, fields(120_000)), 'payload_too_large');
    // The same key repeated 90,000 times: JSON.parse keeps the last; the result is judged like any body.
    const repeated = `{"categoryId":1${',"name":"y"'.repeat(90_000)}}`;
    const r = await post(h, repeated);
    expect(r.status).to.equal(201);
    expect(JSON.parse(r.text)).to.deep.include({ name: 'y', categoryId: 1 });
  });

  it('huge headers (one of 20 KB, or 40 KB in 4,000 headers) get 431 headers_too_large with an Error body; many small ones are served', async () => {
    const one = await rawExchange(h.port, [
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]);
    expect(one.closed).to.equal(true);
    expect(parseRaw(one.text).status).to.equal(431);
    expect(errorOf(parseRaw(one.text).body)).to.deep.include({ code: 'headers_too_large', status: 431 });
    expect(parseRaw(one.text).headers).to.match(/^content-type: application\/json; charset=utf-8$/im);
    expect(parseRaw(one.text).headers).to.match(/^x-request-id: /im);
    const many = Array.from({ length: 4_000 }, (_, i) => `X-H${i}: 1234567\r\n`).join('');
    const lots = await rawExchange(h.port, [
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n${many}\r\n`,
    ]);
    expect(parseRaw(lots.text).status).to.equal(431);
    expect(errorOf(parseRaw(lots.text).body).code).to.equal('headers_too_large');
    // 1,500 small headers fit the 16 KB header limit: an ordinary request, none of its headers
    // dropped (Node used to keep the first 1,000 only, and answer a bare 400 once Host fell off).
    const headers: Record<string, string> = {};
    for (let i = 0; i < 1_500; i++) headers[`x-h${i}`] = '1';
    expect((await send(h.port, { path: '/v1/pets', headers: { ...headers, ...auth } })).status).to.equal(200);
    // No Host at all (HTTP/1.1 requires one): 400 with an Error body and a request id.
    const hostless = await rawExchange(h.port, [
      `GET /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`,
    ]);
    expect(parseRaw(hostless.text).status).to.equal(400);
    expect(errorOf(parseRaw(hostless.text).body).code).to.equal('validation_failed');
    expect(parseRaw(hostless.text).headers).to.match(/^x-request-id: /im);
    // A 10 KB Authorization header: an invalid credential, answered 401.
    expectClear4xx(
      await send(h.port, { path: '/v1/pets', headers: { Authorization: `Bearer ${'k'.repeat(10_000)}` } }),
      'unauthorized',
    );
  });

  it('slow headers: a request whose headers never complete gets 408 request_timeout with an Error body at the 10 s header deadline, and is closed', async () => {
    const started = Date.now();
    const slow = await rawExchange(
      h.port,
      [
        'GET /v1/pets HTTP/1.1\r\n',
        'Host: x\r\n',
        ...Array.from({ length: 60 }, (_, i) => [{ pauseMs: 250 }, `X-Drip-${i}: 1\r\n`]).flat(),
      ],
      20_000,
    );
    expect(slow.closed, 'closed by the server').to.equal(true);
    expect(Date.now() - started).to.be.below(16_000);
    // Nothing was answered yet, so the 408 can still be written: with its Error body.
    expect(parseRaw(slow.text).status).to.equal(408);
    expect(errorOf(parseRaw(slow.text).body)).to.deep.include({ code: 'request_timeout', status: 408 });
  });

  it('slow bodies: a body that never completes gets 408 request_timeout with an Error body at the request deadline, and is closed (the same listen, shorter bounds)', async () => {
    const keys = new ApiKeyStoreInMemory([apiKeyRecord(nodeDigests, KEY, 'pro') as ApiKeyRecord]);
    const clock = new SystemClock();
    const categories = new CategoryRepositoryInMemory();
    const pets = new PetRepositoryInMemory();
    const orders = new OrderRepositoryInMemory();
    const app = createHttpApp({
      catalog: new PetCatalog(pets, categories, clock, new SystemRandom()),
      categories: new CategoryCatalog(categories),
      adoption: new Adoption(pets, orders, clock),
      maintenance: new PetMaintenance(pets, orders, categories, clock),
      authenticator: new Authenticator(keys, nodeDigests),
      admission: new Admission(new QuotaStoreInMemory(), clock),
      keyAdmin: new KeyAdmin(keys, new SystemRandom(), clock, clock.now(), nodeDigests),
    });
    const running = await listen(app, { port: 0, host: '127.0.0.1', headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
    try {
      const drip = Array.from({ length: 40 }, () => [{ pauseMs: 200 }, ' ']).flat();
      const slow = await rawExchange(
        running.port,
        [
          `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`,
          ...drip,
        ],
        10_000,
      );
      expect(slow.closed, 'closed by the server').to.equal(true);
      expect(parseRaw(slow.text).status).to.equal(408);
      expect(errorOf(parseRaw(slow.text).body)).to.deep.include({ code: 'request_timeout', status: 408 });
      expect(parseRaw(slow.text).headers).to.match(/^x-request-id: /im);
    } finally {
      await running.close(100);
    }
  });

  it('invalid UTF-8 and lone surrogates in names: 400, nothing stored', async () => {
    const before = h.pets.size;
    const bytes = (b: number[]) =>
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from(b), Buffer.from('","categoryId":1}')]);
    for (const bad of [[0xff], [0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]) {
      expectClear4xx(await post(h, bytes(bad)), 'malformed_json');
    }
    for (const escaped of ['\\ud800', '\\udfff', 'a\\ud83d', '\\udc00\\ud83d']) {
      expectClear4xx(await post(h, `{"name":"${escaped}","categoryId":1}`), 'validation_failed');
    }
    // A well-formed pair is a valid name.
    expect((await post(h, '{"name":"\\ud83d\\udc08","categoryId":1}')).status).to.equal(201);
    expect(h.pets.size).to.equal(before + 1);
  });

  it('__proto__, constructor and prototype at every depth: 400 and no prototype is touched', async () => {
    const attacks = [
      '{"__proto__":{"polluted":1},"name":"x","categoryId":1}',
      '{"constructor":{"prototype":{"polluted":1}},"name":"x","categoryId":1}',
      '{"prototype":{"polluted":1},"name":"x","categoryId":1}',
      '{"name":{"__proto__":{"polluted":1}},"categoryId":1}',
      '{"name":"x","categoryId":{"constructor":{"prototype":{"polluted":1}}}}',
      '{"name":"x","categoryId":1,"status":{"__proto__":{"polluted":1}}}',
      '{"name":"x","categoryId":1,"status":[{"__proto__":{"polluted":1}}]}',
      `${'{"a":'.repeat(50)}{"__proto__":{"polluted":1}}${'}'.repeat(50)}`,
      '{"__proto__":null}',
      '{"__proto__":[]}',
    ];
    for (const body of attacks) expectClear4xx(await post(h, body), 'validation_failed');
    for (const q of [
      '__proto__=1',
      'constructor=1',
      '__proto__[polluted]=1',
      'constructor[prototype][polluted]=1',
      'limit[__proto__]=1',
    ]) {
      const a = await send(h.port, { path: `/v1/pets?${q}`, headers: auth });
      expect(a.status, q).to.be.oneOf([200, 400]);
      if (a.status === 400) expectClear4xx(a, 'validation_failed');
    }
    expect(({} as Record<string, unknown>)['polluted']).to.equal(undefined);
    expect(Object.prototype).not.to.have.property('polluted');
  });

  it('very long query strings (12 KB served, 64 KB refused) and repeated parameters', async () => {
    const long = await send(h.port, { path: `/v1/pets?x=${'a'.repeat(12_000)}`, headers: auth });
    expect(long.status).to.equal(200);
    const huge = await rawExchange(h.port, [
      `GET /v1/pets?x=${'a'.repeat(64 * 1024)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
    ]);
    expect4xxOrClosed(huge.text, huge.closed);
    expectClear4xx(
      await send(h.port, { path: `/v1/pets?limit=${'9'.repeat(10_000)}`, headers: auth }),
      'validation_failed',
    );
    expectClear4xx(
      await send(h.port, { path: `/v1/pets?cursor=${'A'.repeat(10_000)}`, headers: auth }),
      'validation_failed',
    );
    for (const q of [
      'limit=1&limit=2',
      'limit=1&limit=1',
      'status=sold&status=sold',
      'cursor=a&cursor=b',
      'limit=1&status=sold&limit=1',
    ]) {
      expectClear4xx(await send(h.port, { path: `/v1/pets?${q}`, headers: auth }), 'validation_failed');
    }
    // Bracket spellings are other (unknown) parameters: ignored, never parsed into objects.
    for (const q of ['limit[]=1', 'status[0]=sold', 'limit[a]=0']) {
      expect((await send(h.port, { path: `/v1/pets?${q}`, headers: auth })).status, q).to.equal(200);
    }
    const many = Array.from({ length: 1_500 }, (_, i) => `u=${i}`).join('&');
    expect((await send(h.port, { path: `/v1/pets?${many}`, headers: auth })).status).to.equal(200);
    const manyLimits = Array.from({ length: 1_500 }, () => 'limit=5').join('&');
    expectClear4xx(await send(h.port, { path: `/v1/pets?${manyLimits}`, headers: auth }), 'validation_failed');
  });

  it('percent-encoded and other tricks in petId: 400 (or 404 for another path), never a pet by another name', async () => {
    const created = await post(h, '{"name":"Target","categoryId":1}');
    const id = (JSON.parse(created.text) as { id: number }).id;
    const tricks = [
      `%${(0x30 + id).toString(16)}`,
      `${id}%00`,
      `${id}%20`,
      `%20${id}`,
      `+${id}`,
      `%2B${id}`,
      `0${id}`,
      `${id}.0`,
      `${id}e0`,
      `0x${id.toString(16)}`,
      '%2e%2e',
      '..',
      '.',
      `..%2f${id}`,
      `${id}%2f`,
      `${id}%2F..`,
      '%',
      '%zz',
      '%ff',
      '%c0%ae',
      '%E2%80%AE1',
      '%F0%9F%90%88',
      `${id}%0d%0aX-Injected:%201`,
      '-1',
      '0',
      '9223372036854775808',
      '99999999999999999999999999',
      `${'1'.repeat(5_000)}`,
      '%EF%BC%91',
      '%D9%A3',
      `${id};x`,
      `${id}%3Bx`,
    ];
    for (const t of tricks) {
      const a = await send(h.port, { path: `/v1/pets/${t}`, headers: auth });
      expect(a.status, t).to.be.oneOf([400, 404]);
      expectClear4xx(a);
      expect(a.headers['x-injected'], t).to.equal(undefined);
    }
    // Other spellings of the path never reach another route or a 5xx.
    for (const p of [
      `/v1//pets/${id}`,
      `/v1/pets/${id}/`,
      `/v1/pets/${id}/x`,
      `/V1/pets/${id}`,
      `/v1/%70ets/${id}`,
      `/v1/pets/${id}#x`,
      `//v1/pets`,
    ]) {
      const a = await send(h.port, { path: p, headers: auth });
      expect(a.status, p).to.be.below(500);
      if (a.status >= 400) expectClear4xx(a);
    }
    expect((await send(h.port, { path: `/v1/pets/${id}`, headers: auth })).status).to.equal(200);
  });

  it('X-Request-Id with CR/LF, control characters, 10 KB or odd characters is replaced by a generated id, never reflected', async () => {
    // Line breaks and control characters in the value (sent raw: no HTTP client would send them).
    // A CR LF ends the header line, so the id is `abc` and the rest another request header; a
    // folded line, a bare CR or LF, NUL or DEL make Node's parser refuse the request, which
    // still gets a generated id. Nothing after the break is ever reflected.
    for (const value of [
      'abc\r\nX-Injected: 1',
      'abc\r\n X-Injected: 1',
      'abc\rX-Injected: 1',
      'abc\nX-Injected: 1',
      'abc\x00X-Injected',
      'abc\x7fX-Injected',
    ]) {
      const r = await rawExchange(h.port, [
        `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nX-Request-Id: ${value}\r\nConnection: close\r\n\r\n`,
      ]);
      const { status, headers, body } = parseRaw(r.text);
      expect(status, JSON.stringify(value)).to.be.oneOf([200, 400]);
      if (status === 400) expect(errorOf(body).code).to.equal('validation_failed');
      expect(headers, JSON.stringify(value)).not.to.match(/injected/i);
      const id = /^x-request-id: (.*)$/im.exec(headers)?.[1];
      expect(id, JSON.stringify(value)).to.satisfy((v: string) => v === 'abc' || UUID.test(v));
    }
    for (const value of [
      'a'.repeat(10 * 1024),
      'a'.repeat(129),
      'has space',
      'semi;colon',
      '<script>',
      'ü',
      '../../etc',
      '',
    ]) {
      const a = await send(h.port, { path: '/v1/pets', headers: { ...auth, 'X-Request-Id': value } });
      expect(a.status).to.equal(200);
      expect(a.headers['x-request-id'], value.slice(0, 20)).to.match(UUID);
    }
    // Sent twice: Node joins them with ", ", which is not a valid id.
    const twice = await send(h.port, { path: '/v1/pets', headers: { ...auth, 'X-Request-Id': ['one', 'two'] } });
    expect(twice.headers['x-request-id']).to.match(UUID);
    const fine = await send(h.port, { path: '/v1/pets', headers: { ...auth, 'X-Request-Id': 'a'.repeat(128) } });
    expect(fine.headers['x-request-id']).to.equal('a'.repeat(128));
  });

  it('request smuggling shapes (Content-Length with Transfer-Encoding, two lengths), malformed request lines, TLS bytes: a 4xx or a closed connection', async () => {
    for (const head of [
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello`,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n`,
      `GET /v1/pets\x00 HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET  HTTP/1.1\r\n\r\n`,
      `\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03`,
      `GET /v1/pets HTTP/9.9\r\nHost: x\r\n\r\n`,
    ]) {
      const r = await rawExchange(h.port, [head], 5_000);
      expect4xxOrClosed(r.text, r.closed);
    }
  });
});

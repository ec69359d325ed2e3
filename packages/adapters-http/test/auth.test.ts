// docs/rules.md §3 401 and §4: Bearer on every /v1 operation, WWW-Authenticate with and without
// error="invalid_token", scheme case-insensitive, key case-sensitive, no raw key anywhere.
import { expect } from 'chai';
import type { HttpLogger } from '../src/index.js';
import { expectError, KEYS, rateLimitOf, startServer, type RawResponse, type TestServer } from './support/server.js';

const REALM = 'Bearer realm="petstore"';
const INVALID = 'Bearer realm="petstore", error="invalid_token"';

describe('authentication (docs/rules.md §3, §4)', () => {
  let s: TestServer;
  const lines: Record<string, unknown>[] = [];
  const logger: HttpLogger = {
    info: (fields, message) => lines.push({ ...fields, message }),
    warn: (fields, message) => lines.push({ ...fields, message }),
    error: (fields, message) => lines.push({ ...fields, message }),
  };
  before(async () => {
    s = await startServer({ logger });
    await s.postJson('{"name":"Rex","categoryId":1}');
  });
  after(() => s.close());
  beforeEach(() => s.clock.advance(60_000));

  const operations = (headers: Record<string, string>): Promise<RawResponse>[] => [
    s.request({ path: '/v1/pets', headers }),
    s.request({ path: '/v1/pets?limit=5&status=sold', headers }),
    s.request({
      method: 'POST',
      path: '/v1/pets',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"name":"a","categoryId":1}',
    }),
    s.request({
      method: 'POST',
      path: '/v1/pets',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{not json',
    }),
    s.request({ path: '/v1/pets/1', headers }),
    s.request({ path: '/v1/pets/abc', headers }),
    s.request({ method: 'HEAD', path: '/v1/pets', headers }),
  ];

  it('every /v1 operation without a credential is 401 unauthorized with WWW-Authenticate: Bearer realm="petstore" (no error)', async () => {
    for (const headers of [
      {},
      { authorization: '' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Token abc' },
    ]) {
      for (const res of await Promise.all(operations(headers))) {
        expect(res.status).to.equal(401);
        if (res.bytes.length > 0) expectError(res, 401, 'unauthorized');
        if (!('authorization' in headers) || headers.authorization === '')
          expect(res.header('www-authenticate')).to.equal(REALM);
        else expect(res.header('www-authenticate')).to.match(/^Bearer realm="petstore"/);
        rateLimitOf(res);
      }
    }
    expect((await s.postJson('{"name":"a","categoryId":1}', 'x')).status).to.equal(401);
    expect(await s.repository.findById(2)).to.equal(undefined);
  });

  it('an unknown, altered or malformed bearer credential is 401 with error="invalid_token"', async () => {
    for (const authorization of [
      'Bearer unknown-key',
      `Bearer ${KEYS.free.toUpperCase()}`,
      `Bearer ${KEYS.free}x`,
      `Bearer ${KEYS.free.slice(1)}`,
      `Bearer ${KEYS.free} extra`,
      'Bearer',
      'Bearer ',
      'Bearer a b',
      'Bearer ké',
    ]) {
      s.clock.advance(60_000); // each round within the address's 60 a minute
      for (const res of await Promise.all(operations({ authorization }))) {
        expect(res.status, authorization).to.equal(401);
        expect(res.header('www-authenticate'), authorization).to.equal(INVALID);
        if (res.bytes.length > 0) expectError(res, 401, 'unauthorized');
      }
    }
  });

  it('takes the scheme in any case; the key is case-sensitive', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      const res = await s.request({ path: '/v1/pets', headers: { authorization: `${scheme} ${KEYS.free}` } });
      expect(res.status, scheme).to.equal(200);
    }
    expect(
      (await s.request({ path: '/v1/pets', headers: { authorization: `Bearer ${KEYS.free.toUpperCase()}` } })).status,
    ).to.equal(401);
  });

  it('accepts every configured key on its plan (the plan shows in RateLimit-Policy)', async () => {
    const policies = {
      [KEYS.free]: '"minute";q=60;w=60, "day";q=1000;w=86400',
      [KEYS.pro]: '"minute";q=300;w=60, "day";q=10000;w=86400',
      [KEYS.business]: '"minute";q=1000;w=60, "day";q=100000;w=86400',
    };
    for (const [key, policy] of Object.entries(policies)) {
      const res = await s.request({ path: '/v1/pets', key });
      expect(res.status).to.equal(200);
      expect(rateLimitOf(res).policy).to.equal(policy);
    }
  });

  it('no response and no log line holds a raw key', async () => {
    lines.length = 0;
    const secret = 'my-secret-key-that-is-unknown';
    const responses = await Promise.all([
      ...operations({ authorization: `Bearer ${secret}` }),
      ...operations({ authorization: `Bearer ${KEYS.pro}` }),
    ]);
    for (const res of responses) {
      const all = res.text + JSON.stringify(res.headers);
      expect(all).to.not.include(secret);
      expect(all).to.not.include(KEYS.pro);
    }
    expect(lines.length).to.be.greaterThan(0);
    const log = JSON.stringify(lines);
    expect(log).to.not.include(secret);
    expect(log).to.not.include(KEYS.pro);
  });
});

// docs/rules.md §11: CORS only when origins are configured; preflights need no key and are not counted.
import { expect } from 'chai';
import { CORS_EXPOSED_HEADERS } from '../src/index.js';
import { expectError, KEYS, rateLimitOf, startServer, type RawResponse, type TestServer } from './support/server.js';

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.net';

/** Every header name of the contract a client reads (docs/rules.md §11's list). */
const CONTRACT_EXPOSED = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Link',
  'Location',
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'Idempotent-Replayed',
  'ETag',
];

const corsHeaders = (res: RawResponse): string[] =>
  Object.keys(res.headers).filter((h) => h.startsWith('access-control-'));
const preflight = (s: TestServer, origin: string, path = '/v1/pets', method = 'POST') =>
  s.request({
    method: 'OPTIONS',
    path,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  });

describe('CORS (docs/rules.md §11)', () => {
  describe('with PETSTORE_CORS_ORIGINS set to a list', () => {
    let s: TestServer;
    beforeEach(async () => {
      s = await startServer({ corsOrigins: [APP, 'http://localhost:3000'] });
    });
    afterEach(() => s.close());

    it('an allowed origin gets Access-Control-Allow-Origin (its origin), Vary: Origin and the exposed headers, on 2xx and errors alike', async () => {
      for (const res of [
        await s.request({ path: '/v1/pets', key: KEYS.huge, headers: { origin: APP } }),
        await s.request({ path: '/v1/pets', headers: { origin: APP } }),
        await s.request({ path: '/v1/pets/abc', key: KEYS.huge, headers: { origin: APP } }),
        await s.request({ path: '/nowhere', key: KEYS.huge, headers: { origin: APP } }),
      ]) {
        expect(res.header('access-control-allow-origin'), String(res.status)).to.equal(APP);
        expect(res.header('vary').split(/,\s*/)).to.include('Origin');
        const exposed = res.header('access-control-expose-headers').split(',');
        expect(exposed).to.include.members(CONTRACT_EXPOSED);
        expect(res.header('access-control-allow-credentials')).to.equal('');
      }
      expect([...CORS_EXPOSED_HEADERS]).to.include.members(CONTRACT_EXPOSED);
      expect(
        (await s.request({ path: '/v1/pets', key: KEYS.huge, headers: { origin: 'http://localhost:3000' } })).header(
          'access-control-allow-origin',
        ),
      ).to.equal('http://localhost:3000');
    });

    it('a preflight from an allowed origin → 204 with methods, headers and max age; no key needed, not counted, no rate-limit headers', async () => {
      for (let i = 0; i < 80; i++) {
        const res = await preflight(s, APP);
        expect(res.status).to.equal(204);
        expect(res.header('access-control-allow-origin')).to.equal(APP);
        expect(res.header('access-control-allow-methods').split(',')).to.include.members([
          'GET',
          'POST',
          'OPTIONS',
          'PATCH',
          'DELETE',
        ]);
        expect(res.header('access-control-allow-headers').split(',')).to.have.members([
          'Authorization',
          'Content-Type',
          'Idempotency-Key',
          'X-Request-Id',
          'If-Match',
          'If-None-Match',
        ]);
        expect(Number(res.header('access-control-max-age'))).to.be.greaterThan(0);
        expect(res.header('x-ratelimit-limit')).to.equal('');
        expect(res.header('ratelimit')).to.equal('');
        expect(res.header('x-request-id')).not.to.equal('');
      }
      // 80 preflights from one address (over the anonymous 60/minute), none counted: the address still has its whole minute.
      const after = await s.request({ path: '/v1/pets' });
      expectError(after, 401, 'unauthorized');
      expect(rateLimitOf(after).remaining).to.equal(59);
    });

    it('preflights on the routes of §7–§9 allow their methods (PATCH and DELETE of admin keys, POST of order actions), with Idempotency-Key on the creates; a browser reads Location, Link and Idempotent-Replayed', async () => {
      for (const [path, method] of [
        ['/v1/admin/keys/key_0123456789ab', 'PATCH'],
        ['/v1/admin/keys/key_0123456789ab', 'DELETE'],
        ['/v1/admin/keys', 'POST'],
        ['/v1/store/orders/1/cancel', 'POST'],
        ['/v1/store/orders', 'POST'],
        ['/v1/categories', 'POST'],
      ] as const) {
        const res = await preflight(s, APP, path, method);
        expect(res.status, `${method} ${path}`).to.equal(204);
        expect(res.header('access-control-allow-methods').split(','), `${method} ${path}`).to.include(method);
        expect(res.header('access-control-allow-headers').split(',')).to.include('Idempotency-Key');
      }
      const created = await s.request({
        method: 'POST',
        path: '/v1/categories',
        key: KEYS.huge,
        headers: { origin: APP, 'content-type': 'application/json', 'idempotency-key': 'cors-1' },
        body: '{"name":"Cors"}',
      });
      const replayed = await s.request({
        method: 'POST',
        path: '/v1/categories',
        key: KEYS.huge,
        headers: { origin: APP, 'content-type': 'application/json', 'idempotency-key': 'cors-1' },
        body: '{"name":"Cors"}',
      });
      expect([created.status, replayed.status, replayed.header('idempotent-replayed')]).to.deep.equal([
        201,
        201,
        'true',
      ]);
      expect(replayed.header('access-control-allow-origin')).to.equal(APP);
      expect(replayed.header('access-control-expose-headers').split(',')).to.include.members([
        'Location',
        'Idempotent-Replayed',
        'Link',
      ]);
    });

    it('other origins get no CORS header at all, and their preflight is an ordinary OPTIONS (counted)', async () => {
      const plain = await s.request({ path: '/v1/pets', key: KEYS.huge, headers: { origin: OTHER } });
      expect(plain.status).to.equal(200);
      expect(corsHeaders(plain)).to.deep.equal([]);
      const refused = await preflight(s, OTHER);
      expect(corsHeaders(refused)).to.deep.equal([]);
      expect(refused.header('x-ratelimit-limit')).not.to.equal('');
      // A near miss is another origin.
      expect(
        corsHeaders(await s.request({ path: '/v1/pets', key: KEYS.huge, headers: { origin: `${APP}:443` } })),
      ).to.deep.equal([]);
      expect(
        corsHeaders(
          await s.request({ path: '/v1/pets', key: KEYS.huge, headers: { origin: 'http://app.example.com' } }),
        ),
      ).to.deep.equal([]);
      // No Origin: no CORS header.
      expect(corsHeaders(await s.request({ path: '/v1/pets', key: KEYS.huge }))).to.deep.equal([]);
    });
  });

  it('with `*`, any origin is allowed and gets its own origin back (never a literal *)', async () => {
    const s = await startServer({ corsOrigins: '*' });
    try {
      const res = await s.request({ path: '/v1/pets', key: KEYS.huge, headers: { origin: OTHER } });
      expect(res.header('access-control-allow-origin')).to.equal(OTHER);
      expect((await preflight(s, 'http://anything.test:81')).status).to.equal(204);
    } finally {
      await s.close();
    }
  });

  it('without PETSTORE_CORS_ORIGINS, no CORS header on any answer, preflights included', async () => {
    const s = await startServer();
    try {
      expect(
        corsHeaders(await s.request({ path: '/v1/pets', key: KEYS.huge, headers: { origin: APP } })),
      ).to.deep.equal([]);
      const res = await preflight(s, APP);
      expect(corsHeaders(res)).to.deep.equal([]);
      expect(res.header('vary')).to.equal('');
    } finally {
      await s.close();
    }
  });
});

// docs/rules.md §16 "Publishable keys" over HTTP: issuing one, what it may do (403 before anything
// is looked up), the origin check, CORS for its origins, and limits per visitor (two client
// addresses on the loopback network, 127.0.0.2 and 127.0.0.3).
import { expect } from 'chai';
import fc from 'fast-check';
import { PUBLISHABLE_KEY_PATTERN, type IdempotencyStore } from '@petstore/domain';
import { visitorOf } from '../src/middleware/publishable.js';
import {
  expectError,
  KEYS,
  startServer,
  type RawRequest,
  type RawResponse,
  type TestServer,
} from './support/server.js';

const SITE = 'https://shelter.example';
const DEV = 'http://localhost:5173';
const JSON_TYPE = { 'content-type': 'application/json' };
const WRONG_ORIGIN = 'this publishable key is not allowed from this origin';

interface Issued {
  readonly id: string;
  readonly key: string;
  readonly role: string;
  readonly origins?: readonly string[];
}

const issue = async (s: TestServer, body: unknown): Promise<Issued> => {
  const res = await s.request({
    method: 'POST',
    path: '/v1/admin/keys',
    key: KEYS.admin,
    headers: JSON_TYPE,
    body: JSON.stringify(body),
  });
  expect(res.status, res.text).to.equal(201);
  return res.json() as Issued;
};

describe('publishable keys over HTTP (docs/rules.md §16)', () => {
  let s: TestServer;
  let claims = 0;
  let pk: Issued;
  beforeEach(async () => {
    claims = 0;
    s = await startServer({
      // Counts what reaches the idempotency store: a refused publishable request must reach nothing.
      wrapIdempotencyStore: (inner: IdempotencyStore): IdempotencyStore => ({
        claim: (...args) => (claims++, inner.claim(...args)),
        complete: (...args) => inner.complete(...args),
        release: (...args) => inner.release(...args),
        discard: (...args) => inner.discard(...args),
      }),
    });
    pk = await issue(s, { plan: 'pro', role: 'publishable', origins: [`${SITE}/`, DEV], label: 'site' });
  });
  afterEach(() => s.close());

  /** A request with the publishable key, from `origin` (`null`: no Origin header). */
  const asSite = (req: RawRequest, origin: string | null = SITE): Promise<RawResponse> =>
    s.request({ key: pk.key, ...req, headers: { ...(origin === null ? {} : { origin }), ...req.headers } });

  it('the admin API issues it: pk_ key, role and origins shown; admin refused, origins only with publishable, PATCH changes them', async () => {
    expect(pk.key).to.match(PUBLISHABLE_KEY_PATTERN);
    expect(pk).to.deep.include({ role: 'publishable', origins: [SITE, DEV] });
    const post = (body: unknown) =>
      s.request({
        method: 'POST',
        path: '/v1/admin/keys',
        key: KEYS.admin,
        headers: JSON_TYPE,
        body: JSON.stringify(body),
      });
    const admin = expectError(await post({ plan: 'pro', role: 'admin' }), 400, 'validation_failed');
    expect(admin.message).to.match(/role admin .*settings/);
    expect(expectError(await post({ plan: 'pro', origins: [SITE] }), 400, 'validation_failed').message).to.match(
      /origins .*only for a publishable key/,
    );
    expect(expectError(await post({ plan: 'pro', role: 'publishable' }), 400, 'validation_failed').message).to.match(
      /needs origins/,
    );
    const patched = await s.request({
      method: 'PATCH',
      path: `/v1/admin/keys/${pk.id}`,
      key: KEYS.admin,
      headers: JSON_TYPE,
      body: JSON.stringify({ origins: ['https://other.example'] }),
    });
    expect(patched.status, patched.text).to.equal(200);
    expect((patched.json() as Issued).origins).to.deep.equal(['https://other.example']);
    expectError(await asSite({ path: '/v1/pets' }), 403, 'forbidden');
    expect((await asSite({ path: '/v1/pets' }, 'https://other.example')).status).to.equal(200);
  });

  it('reads the catalogue (pets, categories, photos, GET /v1/me) from its origins, with CORS headers for the page', async () => {
    const created = await s.postJson('{"name":"Rex","categoryId":1}');
    expect(created.status).to.equal(201);
    for (const path of ['/v1/pets?limit=5', '/v1/categories', '/v1/categories/1', '/v1/pets/1/photos', '/v1/me']) {
      const res = await asSite({ path });
      expect(res.status, `${path}: ${res.text}`).to.equal(200);
      expect(res.header('access-control-allow-origin'), path).to.equal(SITE);
      expect(res.header('vary'), path).to.match(/\bOrigin\b/);
      expect(res.header('access-control-expose-headers'), path).to.contain('X-RateLimit-Remaining');
    }
    const head = await asSite({ method: 'HEAD', path: '/v1/pets' });
    expect(head.status).to.equal(200);
    const me = (await asSite({ path: '/v1/me' })).json() as { role: string; keyId: string };
    expect(me).to.deep.include({ role: 'publishable', keyId: pk.id });
    // A page of the development origin, or a Referer alone (no Origin) from the site, works as well.
    expect((await asSite({ path: '/v1/pets' }, DEV)).header('access-control-allow-origin')).to.equal(DEV);
    const byReferer = await asSite({ path: '/v1/pets', headers: { referer: `${SITE}/animals?page=2` } }, null);
    expect(byReferer.status).to.equal(200);
    expect(byReferer.header('access-control-allow-origin'), 'no Origin to answer').to.equal('');
  });

  it('anything else → 403 forbidden, before a lookup or the body, and an Idempotency-Key sent with it stays unbound', async () => {
    const refusals: RawRequest[] = [
      { method: 'POST', path: '/v1/pets', headers: { ...JSON_TYPE, 'idempotency-key': 'k-1' }, body: '{not json' },
      { method: 'POST', path: '/v1/categories', headers: { ...JSON_TYPE, 'idempotency-key': 'k-2' }, body: '{}' },
      { method: 'POST', path: '/v1/store/orders', headers: JSON_TYPE, body: '{"petId":1}' },
      { path: '/v1/pets/1' },
      { path: '/v1/pets/999999' },
      { method: 'PATCH', path: '/v1/pets/999999', headers: JSON_TYPE, body: '{}' },
      { method: 'DELETE', path: '/v1/pets/1/photos/1' },
      { path: '/v1/store/inventory' },
      { path: '/v1/store/orders' },
      { path: '/v1/admin/keys' },
      { path: `/v1/admin/keys/${pk.id}` },
      { path: '/v1/events' },
    ];
    for (const req of refusals) {
      const res = await asSite(req);
      const body = expectError(res, 403, 'forbidden');
      expect(body.message, `${req.method ?? 'GET'} ${req.path}`).to.match(
        /publishable key may only read the catalogue/,
      );
      expect(res.header('access-control-allow-origin'), 'the page may read why').to.equal(SITE);
    }
    expect(claims, 'no Idempotency-Key was claimed').to.equal(0);
    // The same Idempotency-Key with a key that may create: a fresh create (201), not a replay.
    const created = await s.postJson('{"name":"Rex","categoryId":1}', KEYS.huge, { 'idempotency-key': 'k-1' });
    expect(created.status).to.equal(201);
    expect(created.header('idempotent-replayed')).to.equal('');
  });

  it('from no origin of the key’s → 403 whatever the route; the origin is decided first', async () => {
    const cases: [string | null, Record<string, string>][] = [
      [null, {}],
      ['https://evil.example', {}],
      ['null', {}],
      ['https://evil.example', { referer: `${SITE}/` }],
      [null, { referer: 'https://evil.example/' }],
      [null, { referer: 'not a url' }],
      [`${SITE}.evil.example`, {}],
      ['http://shelter.example', {}],
    ];
    for (const [origin, headers] of cases) {
      for (const req of [{ path: '/v1/pets' }, { method: 'POST', path: '/v1/pets', body: '{}' }]) {
        const res = await asSite({ ...req, headers: { ...headers } }, origin);
        expect(expectError(res, 403, 'forbidden').message, `${origin} ${JSON.stringify(headers)}`).to.equal(
          WRONG_ORIGIN,
        );
        expect(res.header('access-control-allow-origin')).to.equal('');
      }
    }
  });

  it('a preflight from an origin of a live publishable key is answered (no key, not counted); after a revocation it stops within 1 s', async () => {
    const preflight = (origin: string) =>
      s.request({
        method: 'OPTIONS',
        path: '/v1/pets',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
    const ok = await preflight(DEV);
    expect(ok.status).to.equal(204);
    expect(ok.header('access-control-allow-origin')).to.equal(DEV);
    expect(ok.header('access-control-allow-headers')).to.contain('Authorization');
    expect(ok.header('access-control-max-age')).to.equal('600');
    expect(ok.header('x-ratelimit-limit'), 'not counted').to.equal('');
    const other = await preflight('https://evil.example');
    expect(other.header('access-control-allow-origin')).to.equal('');
    const revoked = await s.request({ method: 'DELETE', path: `/v1/admin/keys/${pk.id}`, key: KEYS.admin });
    expect(revoked.status).to.equal(204);
    s.clock.advance(1000);
    expect((await preflight(DEV)).header('access-control-allow-origin')).to.equal('');
  });

  it('limits per visitor: one visitor exhausts the key’s minute and is banned alone; another is unaffected and GET /v1/me shows each its own', async () => {
    await s.close();
    s = await startServer({ ban: { threshold: 2, seconds: 900 } });
    pk = await issue(s, { plan: 'enterprise', perMinute: 3, perDay: 100, role: 'publishable', origins: [SITE] });
    const from = (localAddress: string, path = '/v1/pets') => asSite({ path, localAddress });
    for (let i = 0; i < 3; i++) expect((await from('127.0.0.2')).status).to.equal(200);
    const limited = await from('127.0.0.2');
    expectError(limited, 429, 'rate_limited');
    expect(limited.header('access-control-allow-origin'), 'the page may read the 429').to.equal(SITE);
    expectError(await from('127.0.0.2'), 429, 'temporarily_banned');
    const other = await from('127.0.0.3');
    expect(other.status).to.equal(200);
    expect(other.header('x-ratelimit-remaining')).to.equal('2');
    const meOther = (await from('127.0.0.3', '/v1/me')).json() as {
      windows: { remaining: number }[];
      bannedUntil: unknown;
    };
    expect(meOther.windows[0]!.remaining).to.equal(2);
    expect(meOther.bannedUntil).to.equal(null);
    const meBanned = (await from('127.0.0.2', '/v1/me')).json() as { bannedUntil: unknown };
    expect(meBanned.bannedUntil).to.be.a('string');
    // The key's secret-key neighbours and anonymous callers from the banned address are not affected either.
    expect((await s.request({ path: '/v1/pets', key: KEYS.free, localAddress: '127.0.0.2' })).status).to.equal(200);
  });
});

describe('the visitor of a client address (docs/rules.md §16)', () => {
  it('IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64, anything else as it is', () => {
    expect(visitorOf('203.0.113.7')).to.equal('203.0.113.7');
    expect(visitorOf('::ffff:203.0.113.7')).to.equal('203.0.113.7');
    expect(visitorOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).to.equal('2001:db8:1:2::/64');
    expect(visitorOf('2001:0DB8:0001:0002::1')).to.equal('2001:db8:1:2::/64');
    expect(visitorOf('::1')).to.equal('::/64');
    expect(visitorOf('not an address')).to.equal('not an address');
  });

  it('property: two IPv6 addresses are one visitor exactly when their first 64 bits agree', () => {
    const hextets = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 });
    const text = (parts: readonly number[]) => parts.map((p) => p.toString(16)).join(':');
    fc.assert(
      fc.property(hextets, hextets, fc.boolean(), (a, b, samePrefix) => {
        const other = samePrefix ? [...a.slice(0, 4), ...b.slice(4)] : b;
        if (other.slice(0, 2).every((p) => p === 0) && other[2] === 0 && other[3] === 0xffff) return; // IPv4-mapped range
        if (a.slice(0, 5).every((p) => p === 0) && a[5] === 0xffff) return;
        const same = a.slice(0, 4).every((p, i) => p === other[i]);
        expect(visitorOf(text(a)) === visitorOf(text(other))).to.equal(same);
      }),
    );
  });
});

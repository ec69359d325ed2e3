// docs/rules.md §3: a message quotes at most 64 characters of anything the client sent, and an
// error body is never larger than 2 KiB, whatever the request. Stated as a property over HTTP:
// huge and odd property names, values, paths, query strings, methods and headers.
import { expect } from 'chai';
import fc from 'fast-check';
import { QUOTE_LIMIT } from '@petstore/domain';
import { KEYS, startServer, type RawRequest, type TestServer } from './support/server.js';

const MAX_ERROR_BODY = 2048;

/**
 * Text a client might send: odd code points (astral, combining, quotes, backslashes, NUL), short
 * or very long. Never the cut mark `…` itself, so that a quote and its mark are told apart.
 */
const oddText = fc
  .tuple(
    fc.string({
      unit: fc.oneof(
        fc.constantFrom('"', '\\', '/', 'é', 'e\u0301', '😀', '\u0000', '\u202e', ' ', '%', '&', '='),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      ),
      minLength: 1,
      maxLength: 12,
    }),
    fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 9, max: 400 }), fc.integer({ min: 401, max: 20_000 })),
  )
  .map(([unit, times]) => unit.replaceAll('…', '.').repeat(times));

/** Longer than 64 code points, so that quoting it whole would break the rule. */
const longText = oddText.filter((t) => [...t].length > QUOTE_LIMIT + 1);

/** Header-safe text (visible ASCII), short or past the header size limit. */
const headerText = fc
  .tuple(
    fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
      minLength: 1,
      maxLength: 10,
    }),
    fc.integer({ min: 1, max: 3_000 }),
  )
  .map(([unit, times]) => unit.repeat(times));

type Attack = { readonly request: RawRequest; readonly input: string };

const json = { 'content-type': 'application/json' };
const attacks: fc.Arbitrary<Attack> = fc.oneof(
  longText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/pets',
      key: KEYS.huge,
      headers: json,
      body: JSON.stringify({ [t]: 1, name: 'x', categoryId: 1 }),
    },
  })),
  longText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/pets',
      key: KEYS.huge,
      headers: json,
      body: JSON.stringify({ name: t, categoryId: 1 }),
    },
  })),
  longText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/pets',
      key: KEYS.huge,
      headers: json,
      body: JSON.stringify({ name: 'x', categoryId: t, status: t }),
    },
  })),
  longText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/pets',
      key: KEYS.huge,
      headers: json,
      body: `{"name":"x","categoryId":1,${JSON.stringify(t)}`,
    },
  })),
  longText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/pets',
      key: KEYS.huge,
      headers: { 'content-type': `application/${t.replace(/[^\x21-\x7e]/g, 'x')}` },
      body: '{}',
    },
  })),
  longText.map((t) => ({
    input: encodeURIComponent(t),
    request: { path: `/v1/pets/${encodeURIComponent(t)}`, key: KEYS.huge },
  })),
  longText.map((t) => ({
    input: encodeURIComponent(t),
    request: { path: `/${encodeURIComponent(t)}`, key: KEYS.huge },
  })),
  longText.map((t) => ({
    input: encodeURIComponent(t),
    request: { path: `/v1/${encodeURIComponent(t)}`, key: KEYS.huge },
  })),
  longText.map((t) => ({ input: t, request: { path: `/v1/pets?limit=${encodeURIComponent(t)}`, key: KEYS.huge } })),
  longText.map((t) => ({
    input: t,
    request: { path: `/v1/pets?status=${encodeURIComponent(t)}&${encodeURIComponent(t)}=1`, key: KEYS.huge },
  })),
  longText.map((t) => ({ input: t, request: { path: `/v1/pets?cursor=${encodeURIComponent(t)}`, key: KEYS.huge } })),
  headerText.map((t) => ({ input: t, request: { path: '/v1/pets', headers: { authorization: `Bearer ${t}` } } })),
  headerText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/pets',
      key: KEYS.huge,
      headers: { ...json, 'idempotency-key': t, 'x-request-id': t },
      body: '{"name":"x"}',
    },
  })),
  // The routes of §7–§10: categories, orders, admin keys, Idempotency-Key on every create.
  longText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/categories',
      key: KEYS.huge,
      headers: json,
      body: JSON.stringify({ name: t }),
    },
  })),
  longText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/categories',
      key: KEYS.huge,
      headers: json,
      body: JSON.stringify({ name: 'x', [t]: t }),
    },
  })),
  longText.map((t) => ({
    input: encodeURIComponent(t),
    request: { path: `/v1/categories/${encodeURIComponent(t)}`, key: KEYS.huge },
  })),
  longText.map((t) => ({
    input: t,
    request: { path: `/v1/categories?limit=${encodeURIComponent(t)}&cursor=${encodeURIComponent(t)}`, key: KEYS.huge },
  })),
  longText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/store/orders',
      key: KEYS.huge,
      headers: json,
      body: JSON.stringify({ petId: t, [t]: 1 }),
    },
  })),
  longText.map((t) => ({
    input: encodeURIComponent(t),
    request: { path: `/v1/store/orders/${encodeURIComponent(t)}`, key: KEYS.huge },
  })),
  fc
    .tuple(fc.constantFrom('approve', 'deliver', 'cancel'), fc.constantFrom(KEYS.huge, KEYS.admin), longText)
    .map(([action, key, t]) => ({
      input: encodeURIComponent(t),
      request: { method: 'POST', path: `/v1/store/orders/${encodeURIComponent(t)}/${action}`, key },
    })),
  longText.map((t) => ({
    input: t,
    request: {
      path: `/v1/store/orders?status=${encodeURIComponent(t)}&cursor=${encodeURIComponent(t)}`,
      key: KEYS.huge,
    },
  })),
  longText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/admin/keys',
      key: KEYS.admin,
      headers: json,
      body: JSON.stringify({ plan: t, label: t }),
    },
  })),
  longText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/admin/keys',
      key: KEYS.admin,
      headers: json,
      body: JSON.stringify({ plan: 'pro', label: t }),
    },
  })),
  longText.map((t) => ({
    input: t,
    request: {
      method: 'POST',
      path: '/v1/admin/keys',
      key: KEYS.admin,
      headers: json,
      body: JSON.stringify({ plan: 'enterprise', perMinute: t, perDay: t, [t]: 1 }),
    },
  })),
  fc
    .tuple(fc.constantFrom('GET', 'PATCH', 'DELETE'), fc.constantFrom(KEYS.admin, KEYS.huge), longText)
    .map(([method, key, t]) => ({
      input: encodeURIComponent(t),
      request: {
        method,
        path: `/v1/admin/keys/${encodeURIComponent(t)}`,
        key,
        ...(method === 'PATCH' ? { headers: json, body: JSON.stringify({ label: t }) } : {}),
      },
    })),
  fc.tuple(fc.constantFrom('/v1/categories', '/v1/store/orders'), headerText).map(([path, t]) => ({
    input: t,
    request: {
      method: 'POST',
      path,
      key: KEYS.huge,
      headers: { ...json, 'idempotency-key': t },
      body: '{"name":"x","petId":1}',
    },
  })),
  fc
    .tuple(fc.constantFrom('PUT', 'PATCH', 'DELETE', 'PROPFIND', 'TRACE', 'MKCOL', 'LOCK'), longText)
    .map(([method, t]) => ({
      input: encodeURIComponent(t),
      request: { method, path: `/v1/pets/${encodeURIComponent(t)}`, key: KEYS.huge },
    })),
);

/** Windows of `QUOTE_LIMIT + 1` code points of `text`: none may appear in an error message. */
const longestQuoted = (message: string, input: string): number => {
  const points = [...message];
  for (let length = Math.min(points.length, QUOTE_LIMIT + 1); length > QUOTE_LIMIT; length--) {
    for (let start = 0; start + length <= points.length; start++) {
      if (input.includes(points.slice(start, start + length).join(''))) return length;
    }
  }
  return 0;
};

describe('errors quote at most 64 characters of the request, and no error body exceeds 2 KiB (property, over HTTP)', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('property: whatever the request, an error body is an Error of at most 2 KiB quoting at most 64 characters of it', async () => {
    await fc.assert(
      fc.asyncProperty(attacks, async ({ request, input }) => {
        const res = await server.request(request);
        if (res.status < 400) return;
        expect(res.bytes.length, `${res.status} body of ${res.bytes.length} bytes`).to.be.at.most(MAX_ERROR_BODY);
        const body = res.json() as { code: string; message: string; status: number };
        expect(body.status).to.equal(res.status);
        expect(longestQuoted(body.message, input), body.message.slice(0, 200)).to.equal(0);
      }),
      { numRuns: 150 },
    );
  });

  it('a 20,000-character property name comes back cut to 64 characters and …', async () => {
    const name = 'p'.repeat(20_000);
    const res = await server.postJson(JSON.stringify({ [name]: 1, name: 'x', categoryId: 1 }));
    expect(res.status).to.equal(400);
    const { message } = res.json() as { message: string };
    expect(message).to.include(`'${'p'.repeat(64)}…'`);
    expect(message).not.to.include('p'.repeat(65));
  });

  it('an unknown path and a method are quoted cut as well', async () => {
    const path = `/${'q'.repeat(5_000)}`;
    const missing = await server.request({ path, key: KEYS.huge });
    expect(missing.status).to.equal(404);
    expect((missing.json() as { message: string }).message)
      .to.include(`${'q'.repeat(63)}…`)
      .and.not.include('q'.repeat(64));
  });
});

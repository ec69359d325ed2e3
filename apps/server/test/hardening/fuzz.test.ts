import { expect } from 'chai';
import fc from 'fast-check';
import { send, startHarness, type Harness } from './support.js';

const KEY = 'fuzz-key';
const RUNS = Math.max(400, Number(process.env['FC_NUM_RUNS'] ?? 0));

/** Statuses the contract documents; anything else (and every 5xx) fails the run. 403: PATCH and DELETE of a pet with this client key (docs/rules.md §12). */
const DOCUMENTED = new Set([200, 201, 204, 400, 401, 403, 404, 405, 410, 413, 415, 429]);

const token = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~!$*+^`|'.split('')),
  minLength: 1,
  maxLength: 12,
});
const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});
const pathChar = fc.constantFrom(
  ..."abcxyz019-._~%/?&=+;:@!$*,'()[]".split(''),
  '%2F',
  '%00',
  '%ff',
  '%E2%80%AE',
  '%25',
  '..',
  '//',
);

const methodArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH') },
  { weight: 1, arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'CONNECTX', 'get', 'M-SEARCH') },
);

const pathArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '/v1/pets',
      '/v1/pets/1',
      '/v1/pets/2',
      '/v1/openapi.json',
      '/healthz',
      '/readyz',
      '/v1',
      '/',
      '/v1/pets/',
    ),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom('/v1/pets', '/v1/pets/', '/v1/', '/'), fc.array(pathChar, { maxLength: 12 }))
      .map(([p, cs]) => p + cs.join('')),
  },
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.constantFrom('limit', 'status', 'cursor', 'x', '__proto__', 'limit[]'),
          fc.oneof(
            fc.constantFrom(
              '1',
              '20',
              '100',
              '0',
              '-1',
              '101',
              '1.5',
              'available',
              'sold',
              'Available',
              '',
              'eyJ4IjoxfQ',
            ),
            token,
          ),
        ),
        { maxLength: 4 },
      )
      .map((pairs) => `/v1/pets?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`),
  },
);

const authArb = fc.oneof(
  fc.constant(undefined),
  fc.constant(`Bearer ${KEY}`),
  fc.constant(`bearer ${KEY}`),
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'Basic abc',
    'Bearer wrong',
    `Bearer ${KEY}x`,
    `Bearer  ${KEY}`,
    `Bearer ${KEY}==`,
  ),
  headerValue,
);

const bodyArb = fc.oneof(
  fc.constant(undefined),
  fc
    .record({ name: fc.string({ maxLength: 10 }), categoryId: fc.integer({ min: 1, max: 50 }) })
    .map((b) => JSON.stringify(b)),
  fc.json({ maxDepth: 4 }),
  fc.string({ maxLength: 80 }),
  fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b)),
  fc.constantFrom(
    '{"name":"x","categoryId":1,"__proto__":{"a":1}}',
    '{"name":"\\ud800","categoryId":1}',
    '[',
    '{"id":1,"name":"x","categoryId":1}',
  ),
);

const requestArb = fc.record({
  method: methodArb,
  path: pathArb,
  auth: authArb,
  contentType: fc.option(
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      '',
    ),
    { nil: undefined },
  ),
  requestId: fc.option(fc.oneof(token, headerValue), { nil: undefined }),
  extra: fc.array(
    fc.tuple(
      token.map((t) => `x-${t}`),
      headerValue,
    ),
    { maxLength: 3 },
  ),
  body: bodyArb,
});

describe('hardening: fuzzing a running server (random method, path, headers, body)', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await startHarness({ env: { PETSTORE_API_KEYS: `${KEY}:enterprise:100000000:1000000000` } });
  });
  after(() => h.stop());

  it(`property: every answer is a documented success or a well-formed Error, never a 5xx (${RUNS} runs)`, () =>
    fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of r.extra) headers[k] = v;
        if (r.auth !== undefined) headers['Authorization'] = r.auth;
        if (r.contentType !== undefined) headers['Content-Type'] = r.contentType;
        if (r.requestId !== undefined) headers['X-Request-Id'] = r.requestId;
        const a = await send(h.port, {
          method: r.method,
          path: r.path,
          headers,
          ...(r.body === undefined ? {} : { body: r.body }),
          timeoutMs: 10_000,
        });
        expect(a.status, a.text).to.be.below(500);
        expect(DOCUMENTED.has(a.status), `status ${a.status}`).to.equal(true);
        expect(a.headers['x-request-id']).to.match(/^[A-Za-z0-9._-]{1,128}$/);
        // HTTP trims the white space around a header value: the id the server sees is the trimmed one.
        if (r.requestId !== undefined && a.headers['x-request-id'] !== r.requestId.trim()) {
          expect(a.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
        }
        if (r.method === 'HEAD' || a.status === 204) return;
        expect(a.headers['content-type']).to.equal('application/json; charset=utf-8');
        const body = JSON.parse(a.text) as unknown;
        if (a.status >= 400) {
          expect(body).to.have.all.keys('code', 'message', 'status');
          expect((body as { status: number }).status).to.equal(a.status);
        }
      }),
      { numRuns: RUNS },
    ));
});

// docs/rules.md §2 "Every response" and §3 "Errors": Content-Type of JSON bodies, X-Request-Id
// (echoed, generated, replaced, never reflected), and the Error body.
import { expect } from 'chai';
import {
  expectError,
  KEYS,
  parseRawResponse,
  rawSocket,
  startServer,
  type RawResponse,
  type TestServer,
} from './support/server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('every response (docs/rules.md §2, §3)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
    await s.postJson('{"name":"Rex","categoryId":1}');
  });
  after(() => s.close());
  // Anonymous requests below count against 127.0.0.1: start each test in a fresh minute.
  beforeEach(() => s.clock.advance(60_000));

  /** One request of each kind of answer the API gives. */
  const everyKind = (headers: Record<string, string> = {}): Promise<RawResponse>[] => [
    s.request({ path: '/v1/pets', key: KEYS.huge, headers }), // 200
    s.postJson('{"name":"Kit","categoryId":2}', KEYS.huge, headers), // 201
    s.request({ path: '/v1/pets/1', key: KEYS.huge, headers }), // 200 (deprecated)
    s.request({ path: '/v1/pets?limit=0', key: KEYS.huge, headers }), // 400
    s.postJson('{', KEYS.huge, headers), // 400 malformed_json
    s.request({ path: '/v1/pets', headers }), // 401
    s.request({ path: '/v1/pets/99', key: KEYS.huge, headers }), // 404
    s.request({ path: '/nowhere', key: KEYS.huge, headers }), // 404
    s.request({ method: 'DELETE', path: '/v1/pets', key: KEYS.huge, headers }), // 405
    s.request({
      method: 'POST',
      path: '/v1/pets',
      key: KEYS.huge,
      headers: { ...headers, 'content-type': 'text/plain' },
      body: 'x',
    }), // 415
    s.request({ path: '/v1/openapi.json', headers }),
    s.request({ path: '/healthz', headers }),
    s.request({ path: '/readyz', headers }),
  ];

  it('JSON bodies carry Content-Type: application/json; charset=utf-8, success and error alike', async () => {
    const responses = await Promise.all(everyKind());
    expect(responses.map((r) => r.status)).to.deep.equal([
      200, 201, 200, 400, 400, 401, 404, 404, 405, 415, 200, 200, 200,
    ]);
    for (const res of responses) {
      expect(res.header('content-type'), `${res.status} ${res.text.slice(0, 60)}`).to.equal(
        'application/json; charset=utf-8',
      );
      expect(() => res.json()).to.not.throw();
    }
  });

  it('every non-2xx body is exactly { code, message, status } with status = the HTTP status', async () => {
    const responses = await Promise.all(everyKind());
    const codes = {
      400: ['validation_failed', 'malformed_json'],
      401: ['unauthorized'],
      404: ['not_found'],
      405: ['method_not_allowed'],
      415: ['unsupported_media_type'],
    };
    for (const res of responses.filter((r) => r.status >= 400)) {
      const body = res.json() as { code: string };
      expect(codes[res.status as keyof typeof codes]).to.include(body.code);
      expectError(res, res.status, body.code);
    }
  });

  it('echoes a well-formed incoming X-Request-Id (^[A-Za-z0-9._-]{1,128}$) on every kind of answer', async () => {
    for (const id of ['a', 'req-1', 'A.b_C-9', 'x'.repeat(128), '...', '-_-']) {
      const responses = await Promise.all(everyKind({ 'x-request-id': id }));
      for (const res of responses) expect(res.header('x-request-id'), `${res.status}`).to.equal(id);
    }
  });

  it('generates a request id when none is sent: a fresh one for each request', async () => {
    const responses = await Promise.all([...everyKind(), ...everyKind()]);
    const ids = responses.map((r) => r.header('x-request-id'));
    for (const id of ids) expect(id).to.match(UUID);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('replaces an ill-formed X-Request-Id (129+ characters, characters outside the set, empty) and never reflects it', async () => {
    const bad = [
      'y'.repeat(129),
      'z'.repeat(1000),
      'abc def',
      'a<script>b',
      'id;drop',
      'a/b',
      'a:b',
      'caf\u00e9',
      '"quoted"',
      'a,b',
      'tab\there',
      '',
    ];
    for (const id of bad) {
      const responses = await Promise.all(everyKind({ 'x-request-id': id }));
      for (const res of responses) {
        expect(res.header('x-request-id'), JSON.stringify(id)).to.match(UUID);
        if (id.length >= 3) {
          expect(res.text, `${res.status} body reflects ${JSON.stringify(id)}`).to.not.include(id);
          for (const [name, value] of Object.entries(res.headers)) {
            expect(String(value), `${name} reflects ${JSON.stringify(id)}`).to.not.include(id);
          }
        }
      }
    }
  });

  it('a value with CR, LF, CR-LF or a control character is never reflected, and the answer carries a generated id', async () => {
    const evil = 'evil-marker';
    const values = [
      `ok\r\nX-Injected: ${evil}`, // CR-LF: the rest becomes another request header, which nothing reflects
      `ok\r\n ${evil}`, // obs-fold
      `ok\r${evil}`,
      `ok\n${evil}`,
      `ok\u0000${evil}`,
      `ok\u0001${evil}`,
      `ok\u007f${evil}`,
    ];
    for (const value of values) {
      for (const path of ['/v1/pets', '/healthz', '/v1/pets/1']) {
        const raw = await rawSocket(
          s.port,
          `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${KEYS.huge}\r\nX-Request-Id: ${value}\r\nConnection: close\r\n\r\n`,
        );
        const res = parseRawResponse(raw);
        expect(raw, JSON.stringify(value)).to.not.include(evil);
        expect(raw.toLowerCase()).to.not.include('x-injected');
        const id = res.headers.get('x-request-id') ?? '';
        if (value.startsWith('ok\r\nX-Injected')) {
          // The header that arrived is the well-formed `ok`.
          expect(res.status).to.equal(200);
          expect(id).to.equal('ok');
        } else {
          expect(id, `${JSON.stringify(value)} → ${raw.slice(0, 200)}`).to.match(UUID);
          if (res.status >= 400) {
            expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
            const body = JSON.parse(res.body) as { code: string; status: number; message: string };
            expect(body.status).to.equal(res.status);
            expect(body.code).to.equal('validation_failed');
          }
        }
      }
    }
  });

  it('no error body holds a stack trace, a raw key or the internals of the service', async () => {
    const responses = await Promise.all([
      ...everyKind(),
      s.request({ path: '/v1/pets', key: 'not-a-key-secret-123' }),
      s.request({ path: '/v1/pets', headers: { authorization: 'Bearer secret with spaces' } }),
    ]);
    for (const res of responses.filter((r) => r.status >= 400)) {
      expect(res.text).to.not.match(/\n\s+at |node_modules|\.js:\d+|Error:/);
      expect(res.text).to.not.include('secret');
      expect(res.text).to.not.include(KEYS.huge);
    }
  });
});

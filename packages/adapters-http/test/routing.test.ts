// docs/rules.md §2 routing: unknown path 404, wrong method 405 with Allow (TRACE, PROPFIND… too,
// never 501), HEAD and OPTIONS; the OpenAPI document; and the probes of §6 that §2 relies on.
import { METHODS } from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import { Validator } from '@seriousme/openapi-schema-validator';
import {
  ApiKeyPatchSchema,
  ListCategoriesQuerySchema,
  ListKeysQuerySchema,
  ListOrdersQuerySchema,
  ListPetsQuerySchema,
  NewApiKeySchema,
  NewCategorySchema,
  NewOrderSchema,
  NewPetSchema,
  PetPatchSchema,
  PetSchema,
} from '@petstore/domain';
import {
  expectError,
  KEYS,
  parseRawResponse,
  rateLimitOf,
  rawSocket,
  startServer,
  type RawResponse,
  type TestServer,
} from './support/server.js';
import { buildOpenApiDocument } from '../src/index.js';

const allowOf = (res: RawResponse): string[] =>
  res
    .header('allow')
    .split(',')
    .map((m) => m.trim())
    .sort();

const PETS_ALLOW = ['GET', 'HEAD', 'OPTIONS', 'POST'];
/** `/v1/pets/{petId}`: the deprecated read, and the maintenance of docs/rules.md §12. */
const PET_ALLOW = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH'];
const PROBE_ALLOW = ['GET', 'HEAD', 'OPTIONS'];

describe('routing (docs/rules.md §2)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
    for (let i = 0; i < 25; i++) await s.postJson(JSON.stringify({ name: `p${i}`, categoryId: 1 }));
  });
  after(() => s.close());
  // Anonymous requests count against 127.0.0.1: each test starts in a fresh minute.
  beforeEach(() => s.clock.advance(60_000));

  it('an unknown path is 404 not_found, with or without a credential', async () => {
    for (const path of [
      '/',
      '/v1',
      '/v1/',
      '/v2/pets',
      '/v1/pet',
      '/pets',
      '/v1/pets/1/extra',
      '/V1/PETS',
      '/v1/Pets',
      '/v1/store/order',
      '/v1/category',
      '/v1/categories/1/pets',
      '/v1/openapi.yaml',
      '/healthz/x',
    ]) {
      for (const key of [KEYS.huge, undefined]) {
        const res = await s.request({ path, ...(key === undefined ? {} : { key }) });
        expectError(res, 404, 'not_found');
        rateLimitOf(res);
      }
    }
    expectError(await s.request({ method: 'OPTIONS', path: '/nowhere' }), 404, 'not_found');
    expectError(await s.request({ method: 'DELETE', path: '/nowhere', key: KEYS.huge }), 404, 'not_found');
  });

  it('a known path with a wrong method is 405 method_not_allowed with Allow', async () => {
    const cases: [string, string, string[]][] = [
      ['PUT', '/v1/pets', PETS_ALLOW],
      ['DELETE', '/v1/pets', PETS_ALLOW],
      ['PATCH', '/v1/pets', PETS_ALLOW],
      ['POST', '/v1/pets/1', PET_ALLOW],
      ['PUT', '/v1/pets/1', PET_ALLOW],
      ['PUT', '/v1/pets/abc', PET_ALLOW],
      ['POST', '/v1/openapi.json', PROBE_ALLOW],
      ['DELETE', '/v1/openapi.json', PROBE_ALLOW],
      ['POST', '/healthz', PROBE_ALLOW],
      ['PUT', '/readyz', PROBE_ALLOW],
    ];
    for (const [method, path, allow] of cases) {
      for (const key of [KEYS.huge, undefined]) {
        const res = await s.request({ method, path, ...(key === undefined ? {} : { key }) });
        expectError(res, 405, 'method_not_allowed');
        expect(allowOf(res), `${method} ${path}`).to.deep.equal(allow);
        if (path.startsWith('/v1/pets')) rateLimitOf(res);
      }
    }
  });

  it('TRACE, PROPFIND and every other method Node knows are 405 on a known path, never 501', async () => {
    const allowed = new Set(['GET', 'HEAD', 'POST', 'OPTIONS']);
    for (const method of METHODS.filter((m) => m !== 'CONNECT')) {
      for (const path of ['/v1/pets', '/v1/pets/1', '/v1/openapi.json', '/healthz']) {
        const res = await s.request({ method, path, key: KEYS.huge });
        expect(res.status, `${method} ${path}`).to.not.equal(501);
        if (allowed.has(method) || (path === '/v1/pets/1' && (method === 'PATCH' || method === 'DELETE'))) continue;
        expectError(res, 405, 'method_not_allowed');
        expect(allowOf(res)).to.include.members(['GET', 'HEAD', 'OPTIONS']);
      }
    }
    for (const method of ['TRACE', 'PROPFIND']) {
      for (const [path, allow] of [
        ['/v1/pets', PETS_ALLOW],
        ['/v1/pets/5', PET_ALLOW],
      ] as const) {
        const res = await s.request({ method, path, key: KEYS.huge });
        expectError(res, 405, 'method_not_allowed');
        expect(allowOf(res)).to.deep.equal(allow);
      }
    }
  });

  it('property: any path is 404 unless it is an operation path of the document, where another method is 405 with Allow naming the operations (OPTIONS: 204)', async () => {
    // The model: the document's paths (the test server has no webhooks: their routes are absent),
    // `/v1` before each, `{name}` taking one non-empty segment, one trailing `/` allowed (not after
    // the document's own path, which the probes serve as it is), case counting.
    const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, unknown>> };
    const templates = Object.entries(doc.paths)
      .filter(([path]) => !path.startsWith('/webhooks'))
      .map(([path, item]) => ({
        path: `/v1${path}`,
        segments: `/v1${path}`.split('/').slice(1),
        methods: Object.keys(item)
          .filter((key) => METHODS.includes(key.toUpperCase()))
          .flatMap((m) => (m === 'get' ? ['GET', 'HEAD'] : [m.toUpperCase()])),
      }));
    const allowAt = (path: string): string[] | undefined => {
      const trimmed = path.length > 1 && path.endsWith('/') && path !== '/v1/openapi.json/' ? path.slice(0, -1) : path;
      const segments = trimmed.split('/').slice(1);
      const found = templates.filter(
        (t) =>
          t.segments.length === segments.length &&
          t.segments.every((part, i) => (part.startsWith('{') ? segments[i] !== '' : part === segments[i])),
      );
      return found.length === 0 ? undefined : [...new Set([...found.flatMap((t) => t.methods), 'OPTIONS'])].sort();
    };
    const literal = fc.constantFrom(
      ...new Set(templates.flatMap((t) => t.segments).filter((part) => !part.startsWith('{'))),
      'webhooks',
    );
    const value = fc.constantFrom('1', '42', '%31', 'abc', '', '..', 'V1', 'Pets', '%2F', 'x');
    const anyPath = fc
      .tuple(fc.boolean(), fc.array(fc.oneof(literal, literal, value), { maxLength: 5 }), fc.boolean())
      .map(([v1, parts, slash]) => `${v1 ? '/v1' : ''}/${parts.join('/')}${slash && parts.length > 0 ? '/' : ''}`);
    // A template with its parameters filled in (often a route's own path), sometimes with a tail.
    const templatePath = fc
      .tuple(fc.constantFrom(...templates.map((t) => t.path)), value, fc.constantFrom('', '/', '//', '/x'))
      .map(([path, filled, tail]) => `${path.replace(/\{\w+\}/g, filled)}${tail}`);
    const path = fc.oneof(anyPath, templatePath);
    const method = fc.constantFrom('PUT', 'TRACE', 'PROPFIND', 'OPTIONS');
    await fc.assert(
      fc.asyncProperty(path, method, async (p, m) => {
        const allow = allowAt(p);
        const res = await s.request({ method: m, path: p, key: KEYS.huge });
        if (allow === undefined) expectError(res, 404, 'not_found');
        else {
          if (m === 'OPTIONS') expect(res.status, `${m} ${p}`).to.equal(204);
          else expectError(res, 405, 'method_not_allowed');
          expect(allowOf(res), `${m} ${p}`).to.deep.equal(allow);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a method Node does not know is refused by the parser: never 501, an Error body and a request id', async () => {
    const res = parseRawResponse(
      await rawSocket(s.port, 'FROBNICATE /v1/pets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    );
    expect(res.status).to.not.equal(501);
    expect(res.status).to.be.within(400, 405);
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    expect((JSON.parse(res.body) as { status: number }).status).to.equal(res.status);
  });

  it('OPTIONS is 204 with Allow and no body', async () => {
    for (const [path, allow] of [
      ['/v1/pets', PETS_ALLOW],
      ['/v1/pets/1', PET_ALLOW],
      ['/v1/pets/abc', PET_ALLOW],
      ['/v1/openapi.json', PROBE_ALLOW],
      ['/healthz', PROBE_ALLOW],
      ['/readyz', PROBE_ALLOW],
    ] as const) {
      const res = await s.request({ method: 'OPTIONS', path });
      expect(res.status, path).to.equal(204);
      expect(allowOf(res)).to.deep.equal(allow);
      expect(res.bytes).to.have.length(0);
    }
  });

  it('HEAD answers the headers GET would, without a body', async () => {
    const volatile = new Set([
      'date',
      'x-request-id',
      'x-ratelimit-remaining',
      'ratelimit',
      'connection',
      'keep-alive',
    ]);
    const comparable = (res: RawResponse): Record<string, unknown> =>
      Object.fromEntries(Object.entries(res.headers).filter(([name]) => !volatile.has(name)));
    for (const [path, key] of [
      ['/v1/pets', KEYS.huge],
      ['/v1/pets?limit=3&status=available', KEYS.huge],
      ['/v1/pets/2', KEYS.huge],
      ['/v1/pets/999', KEYS.huge],
      ['/v1/pets', undefined],
      ['/v1/openapi.json', undefined],
      ['/healthz', undefined],
      ['/readyz', undefined],
    ] as const) {
      const auth = key === undefined ? {} : { key };
      const get = await s.request({ path, ...auth });
      const head = await s.request({ method: 'HEAD', path, ...auth });
      expect(head.status, path).to.equal(get.status);
      expect(head.bytes, path).to.have.length(0);
      expect(comparable(head), path).to.deep.equal(comparable(get));
      expect(Number(head.header('content-length'))).to.equal(get.bytes.length);
    }
    // The Link of the next page is there too.
    expect((await s.request({ method: 'HEAD', path: '/v1/pets?limit=3', key: KEYS.huge })).header('link')).to.match(
      /rel="next"$/,
    );
  });

  describe('GET /v1/openapi.json', () => {
    // The document is walked by path below; its shape is checked by the lint and the schema tests.
    let doc: Record<string, any>; // oxlint-disable-line typescript/no-explicit-any
    before(async () => {
      const res = await s.request({ path: '/v1/openapi.json' });
      expect(res.status).to.equal(200);
      expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
      doc = res.json() as Record<string, any>; // oxlint-disable-line typescript/no-explicit-any
    });

    it('needs no credential, and an invalid one does not stop it', async () => {
      expect((await s.request({ path: '/v1/openapi.json', key: 'wrong' })).status).to.equal(200);
      expect((await s.request({ path: '/v1/openapi.json', headers: { authorization: 'Basic eA==' } })).status).to.equal(
        200,
      );
    });

    it('is a valid OpenAPI 3.1 document', async () => {
      const result = await new Validator().validate(doc);
      expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
      expect(result.valid).to.equal(true);
      expect(doc['openapi']).to.match(/^3\.1\./);
    });

    it('describes v1: version 1.0.0, servers /v1, bearer authentication, the three stable operations, getPet deprecated, the tags', () => {
      expect(doc['info'].version).to.equal('1.0.0');
      expect(doc['servers'].map((x: { url: string }) => x.url)).to.deep.equal(['/v1']);
      const schemes = doc['components'].securitySchemes as Record<string, { type: string; scheme: string }>;
      const bearer = Object.entries(schemes).find(([, v]) => v.type === 'http' && v.scheme.toLowerCase() === 'bearer');
      expect(bearer, 'an http bearer scheme').to.not.equal(undefined);
      expect(doc['security']).to.deep.equal([{ [bearer![0]]: [] }]);
      expect(doc['paths']['/openapi.json'].get.security).to.deep.equal([]);
      expect(doc['paths']['/pets'].get.operationId).to.equal('listPets');
      expect(doc['paths']['/pets'].post.operationId).to.equal('createPet');
      const getPet = doc['paths']['/pets/{petId}'].get;
      expect(getPet.operationId).to.equal('getPet');
      expect(getPet.deprecated).to.equal(true);
      expect(doc['paths']['/pets'].get.deprecated).to.not.equal(true);
      expect(doc['tags'].map((t: { name: string }) => t.name)).to.include.members(['pets', 'store', 'categories']);
    });

    it('holds the very JSON Schemas that validate requests (one source)', () => {
      expect(doc['components'].schemas.NewPet).to.deep.equal(JSON.parse(JSON.stringify(NewPetSchema)));
      expect(doc['components'].schemas.Pet).to.deep.equal(JSON.parse(JSON.stringify(PetSchema)));
      const limit = doc['paths']['/pets'].get.parameters.find((p: { name: string }) => p.name === 'limit');
      expect(limit.schema).to.include({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    });

    it("every schema the validators compile is in the document as it validates: each body schema as its operation's body, each query schema as exactly its operation's query parameters", () => {
      const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x));
      const bodies = [
        ['post', '/pets', NewPetSchema],
        ['post', '/categories', NewCategorySchema],
        ['post', '/store/orders', NewOrderSchema],
        ['post', '/admin/keys', NewApiKeySchema],
        ['patch', '/admin/keys/{keyId}', ApiKeyPatchSchema],
        ['patch', '/pets/{petId}', PetPatchSchema],
      ] as const;
      for (const [method, path, schema] of bodies) {
        const ref: string = doc['paths'][path][method].requestBody.content['application/json'].schema.$ref;
        expect(doc['components'].schemas[ref.split('/').pop()!], `${method} ${path}`).to.deep.equal(plain(schema));
      }
      const queries = [
        ['/pets', ListPetsQuerySchema],
        ['/categories', ListCategoriesQuerySchema],
        ['/store/orders', ListOrdersQuerySchema],
        ['/admin/keys', ListKeysQuerySchema],
      ] as const;
      for (const [path, schema] of queries) {
        const inQuery = (
          doc['paths'][path].get.parameters as { in: string; name: string; description: string; schema: unknown }[]
        ).filter((p) => p.in === 'query');
        const properties = schema.properties as Record<string, { description?: string }>;
        expect(
          inQuery.map((p) => p.name),
          `GET ${path}`,
        ).to.have.members(Object.keys(properties));
        for (const p of inQuery) {
          const { description, ...rest } = properties[p.name]!;
          expect({ description: p.description, schema: p.schema }, `GET ${path} ${p.name}`).to.deep.equal(
            plain({ description, schema: rest }),
          );
        }
      }
    });
  });

  describe('probes', () => {
    it('GET /healthz is 200 {"status":"ok"} without credential, and is not rate-limited', async () => {
      for (let i = 0; i < 70; i++) {
        const res = await s.request({ path: '/healthz' });
        expect(res.status).to.equal(200);
        expect(res.json()).to.deep.equal({ status: 'ok' });
        expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
      }
      // 70 probes did not use the address's 60 a minute: an anonymous API call is still 401, not 429.
      expectError(await s.request({ path: '/v1/pets' }), 401, 'unauthorized');
    });

    it('GET /readyz is 200 when the store answers, 503 unavailable with Retry-After when it does not, and recovers', async () => {
      expect((await s.request({ path: '/readyz' })).status).to.equal(200);
      let ready = false;
      const probe = await startServer({ isReady: async () => ready });
      try {
        const down = await probe.request({ path: '/readyz' });
        expectError(down, 503, 'unavailable');
        expect(Number(down.header('retry-after'))).to.be.at.least(1);
        expect(down.header('x-request-id')).to.not.equal('');
        ready = true;
        expect((await probe.request({ path: '/readyz' })).status).to.equal(200);
      } finally {
        await probe.close();
      }
    });
  });
});

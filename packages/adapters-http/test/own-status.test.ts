// docs/rules.md §14 in the HTTP adapter: `GET /v1/me` as the OpenAPI document describes it (tag
// `me`, beta, any key, its 429), and the answer the app gives matching that document's schema.
// The sentences of §14 themselves are tested through the composition root, on memory and MongoDB
// (apps/server/test/own-status.test.ts).
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { OwnStatusSchema } from '@petstore/domain';
import { buildOpenApiDocument } from '../src/index.js';
import { KEYS, startServer, type TestServer } from './support/server.js';

const RFC3339_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

/** The `OwnStatus` schema compiled as strictly as the request schemas are, with its two formats checked. */
const validateOwnStatus = (() => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('date-time', RFC3339_UTC);
  return ajv.compile(OwnStatusSchema);
})();

type Operation = {
  operationId: string;
  tags: string[];
  'x-stability': string;
  security?: unknown;
  description: string;
  responses: Record<
    string,
    {
      $ref?: string;
      content?: {
        'application/json': { schema: unknown; examples?: Record<string, { value: unknown }>; example?: unknown };
      };
    }
  >;
};

describe('GET /v1/me in the HTTP adapter (docs/rules.md §14)', () => {
  const doc = buildOpenApiDocument() as {
    tags: { name: string; description: string }[];
    security: unknown;
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
  };

  it('is documented: operation getMe, tag `me` (any key; `admin` is for admin keys only), beta, the global bearer key, its schema and example', () => {
    const op = doc.paths['/me']!['get']!;
    expect(op.operationId).to.equal('getMe');
    expect(op.tags).to.deep.equal(['me']);
    expect(op['x-stability']).to.equal('beta');
    expect(op.security, 'any key: the document’s bearerAuth, not adminKey').to.equal(undefined);
    expect(doc.security).to.deep.equal([{ bearerAuth: [] }]);
    expect(doc.tags.find((t) => t.name === 'me')?.description)
      .to.be.a('string')
      .that.includes('any key');
    expect(doc.components.schemas['OwnStatus']).to.equal(OwnStatusSchema);
    const ok = op.responses['200']!.content!['application/json'];
    expect(ok.schema).to.deep.equal({ $ref: '#/components/schemas/OwnStatus' });
    for (const [name, example] of Object.entries(ok.examples ?? {}))
      expect(validateOwnStatus(example.value), `example ${name}: ${JSON.stringify(validateOwnStatus.errors)}`).to.equal(
        true,
      );
    expect(Object.keys(ok.examples ?? {})).to.have.length.greaterThan(0);
    const tooMany = JSON.stringify(op.responses['429']);
    for (const code of ['rate_limited', 'temporarily_banned', 'Retry-After']) expect(tooMany).to.include(code);
    for (const status of ['401', '408', '431', '500', '503']) expect(op.responses, status).to.have.property(status);
    expect(op.description).to.include('60 a minute');
  });

  describe('the answer', () => {
    let s: TestServer;
    before(async () => {
      s = await startServer();
    });
    after(() => s.close());

    it('matches the document’s OwnStatus schema, for a client key and an admin key, and the schema refuses what §14 rules out', async () => {
      for (const key of [KEYS.free, KEYS.admin, KEYS.huge]) {
        const res = await s.request({ path: '/v1/me', key });
        expect(res.status).to.equal(200);
        const body = res.json();
        expect(validateOwnStatus(body), JSON.stringify(validateOwnStatus.errors)).to.equal(true);
      }
      const good = (await s.request({ path: '/v1/me', key: KEYS.free })).json() as Record<string, unknown>;
      const windows = good['windows'] as Record<string, unknown>[];
      for (const bad of [
        { ...good, extra: 1 },
        { ...good, bannedUntil: 0 },
        { ...good, windows: [windows[1], windows[0]] },
        { ...good, windows: [windows[0]] },
        { ...good, windows: [{ ...windows[0], remaining: -1 }, windows[1]] },
        { ...good, keyId: 'free-key' },
      ]) {
        expect(validateOwnStatus(bad), JSON.stringify(bad).slice(0, 120)).to.equal(false);
      }
    });
  });
});

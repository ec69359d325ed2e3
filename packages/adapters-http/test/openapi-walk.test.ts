// The OpenAPI document as a tool walks it (docs/rules.md §2): links from each created id to the
// operations that take it, an explicit `maximum` on every int64 id (the one the server applies),
// and the plan rules of the key bodies said in JSON Schema (docs/rules.md §9) with the answers'
// messages still the domain's.
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { INT64_MAX, validateKeyPatch, validateKeyRequest } from '@petstore/domain';
import { buildOpenApiDocument, openApiJson } from '../src/index.js';
import { expectError, KEYS, startServer, type TestServer } from './support/server.js';

type Schema = { [key: string]: unknown };
type Parameter = { name: string; in: string; schema: Schema };
type Link = { operationId: string; parameters: Record<string, string> };
type Operation = {
  operationId: string;
  parameters?: (Parameter | { $ref: string })[];
  responses: Record<string, { links?: Record<string, Link>; content?: Record<string, { schema: { $ref?: string } }> }>;
};
type Doc = {
  paths: Record<string, Record<string, Operation | Parameter[]>>;
  components: { schemas: Record<string, Schema> };
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every operation with its path and its own and path-level parameters (no `$ref`s). */
const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) => {
    const shared = ((item['parameters'] as Parameter[] | undefined) ?? []).filter((p) => 'name' in p);
    return Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => {
        const operation = op as Operation;
        const own = (operation.parameters ?? []).filter((p): p is Parameter => 'name' in p);
        return { path, method, operation, parameters: [...shared, ...own] };
      });
  });

/** Every schema object inside `node`, with the JSON pointer-ish path that leads to it. */
const schemasIn = function* (node: unknown, at: string): Generator<[string, Schema]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemasIn(item, `${at}/${i}`);
  } else if (typeof node === 'object' && node !== null) {
    const schema = node as Schema;
    if (typeof schema['type'] === 'string' || 'properties' in schema) yield [at, schema];
    for (const [key, value] of Object.entries(schema)) yield* schemasIn(value, `${at}/${key}`);
  }
};

describe('the OpenAPI document as a tool walks it (docs/rules.md §2)', () => {
  const doc = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Doc;
  const operations = operationsOf(doc);
  const byId = new Map(operations.map((o) => [o.operation.operationId, o]));

  describe('links from a created id to the operations that take it', () => {
    const links = operations.flatMap(({ operation }) =>
      Object.entries(operation.responses).flatMap(([status, response]) =>
        Object.values(response.links ?? {}).map((link) => ({ from: operation.operationId, status, response, link })),
      ),
    );

    it("each create links its answer's id: pets, categories, orders, keys and webhooks", () => {
      const linked = (from: string) => links.filter((l) => l.from === from).map((l) => l.link.operationId);
      expect(linked('createPet')).to.include('getPet');
      expect(linked('createCategory')).to.include.members(['getCategory', 'listPets']);
      expect(linked('placeOrder')).to.include.members(['getOrder', 'approveOrder', 'deliverOrder', 'cancelOrder']);
      expect(linked('createApiKey')).to.include.members(['getApiKey', 'updateApiKey', 'revokeApiKey']);
      expect(linked('createWebhook')).to.include.members([
        'getWebhook',
        'updateWebhook',
        'rotateWebhookSecret',
        'listWebhookDeliveries',
        'deleteWebhook',
      ]);
    });

    it('a create lists the operation that removes what it made last (deletePet after uploadPetPhoto and the rest), so a fuzzer following links withdraws last', () => {
      // As served: the order of the links is the order of the keys in the JSON text.
      const served = JSON.parse(openApiJson(buildOpenApiDocument())) as Doc;
      const servedOperations = operationsOf(served);
      const pathOf = new Map(
        servedOperations.map(({ path, method, operation }) => [operation.operationId, { path, method }]),
      );
      const linkedFrom = (create: string) =>
        Object.keys(
          servedOperations.find((o) => o.operation.operationId === create)!.operation.responses['201']!.links ?? {},
        );
      const pet = linkedFrom('createPet');
      expect(pet.at(-1)).to.equal('deletePet');
      expect(pet.indexOf('uploadPetPhoto')).to.be.below(pet.indexOf('deletePet'));
      for (const create of ['createPet', 'uploadPetPhoto', 'createApiKey', 'createWebhook']) {
        const created = pathOf.get(create)!.path;
        const names = linkedFrom(create);
        // The DELETE of the made resource itself: the create's path and one more segment, its id.
        const removes = names.filter(
          (name) =>
            pathOf.get(name)!.method === 'delete' &&
            new RegExp(`^${created.replace(/[{}]/g, '\\$&')}/\\{\\w+\\}$`).test(pathOf.get(name)!.path),
        );
        expect(removes, `${create}: the operation that removes what it made`).to.have.length(1);
        expect(names.at(-1), `${create}: links in order ${names.join(', ')}`).to.equal(removes[0]);
      }
    });

    it('every link leaves a 201 whose body has an `id`, and names an operation and parameters it has', () => {
      expect(links.length).to.be.greaterThan(0);
      for (const { from, status, response, link } of links) {
        expect(status, `${from}: links leave its 201`).to.equal('201');
        const ref = response.content?.['application/json']?.schema.$ref ?? '';
        const created = doc.components.schemas[ref.split('/').pop()!] as
          { properties?: Record<string, unknown> } | undefined;
        expect(created?.properties, `${from}: the answer's schema`).to.have.property('id');
        const target = byId.get(link.operationId);
        expect(target, `${from} → ${link.operationId}`).to.not.equal(undefined);
        for (const [name, expression] of Object.entries(link.parameters)) {
          expect(expression).to.equal('$response.body#/id');
          expect(
            target!.parameters.map((p) => p.name),
            `${from} → ${link.operationId}: parameter ${name}`,
          ).to.include(name);
        }
      }
    });

    it('every operation with a linked id in its path is linked from the create that makes that id', () => {
      const createOf = new Map(
        links.flatMap(({ from, link }) => Object.keys(link.parameters).map((name) => [name, from] as const)),
      );
      expect([...createOf.keys()]).to.include.members(['petId', 'categoryId', 'orderId', 'keyId']);
      for (const { path, method, operation, parameters } of operations) {
        for (const p of parameters.filter((q) => q.in === 'path' && createOf.has(q.name))) {
          const from = createOf.get(p.name)!;
          const targets = links.filter((l) => l.from === from).map((l) => l.link.operationId);
          expect(
            targets,
            `${method.toUpperCase()} ${path} takes ${p.name}: a link from ${from} to ${operation.operationId}`,
          ).to.include(operation.operationId);
        }
      }
    });
  });

  describe('ids', () => {
    it("every int64 has an explicit maximum: path ids int64's, ids in bodies and answers 2^53 − 1", () => {
      const int64s = [...schemasIn(doc, '#')].filter(([, s]) => s['format'] === 'int64');
      expect(int64s.length).to.be.greaterThan(10);
      for (const [at, schema] of int64s) expect(schema, at).to.have.property('maximum');
      for (const { path, parameters } of operations) {
        for (const p of parameters.filter((q) => q.in === 'path' && q.schema['format'] === 'int64')) {
          expect(p.schema['maximum'], `${path} ${p.name}`).to.equal(Number(INT64_MAX));
        }
      }
      for (const name of ['Pet', 'Category', 'Order']) {
        expect(
          (doc.components.schemas[name]!['properties'] as Record<string, Schema>)['id']!['maximum'],
          `${name}.id`,
        ).to.equal(Number.MAX_SAFE_INTEGER);
      }
      expect((doc.components.schemas['Order']!['properties'] as Record<string, Schema>)['petId']!['maximum']).to.equal(
        Number.MAX_SAFE_INTEGER,
      );
    });

    it("the served text writes int64's maximum exactly (no JavaScript number holds it), and nothing else changes", () => {
      const built = buildOpenApiDocument();
      const text = openApiJson(built);
      expect(text).to.contain(`"maximum":${INT64_MAX}`);
      expect(text).not.to.contain(String(Number(INT64_MAX)));
      expect(text.replaceAll(`"maximum":${INT64_MAX}`, `"maximum":${String(Number(INT64_MAX))}`)).to.equal(
        JSON.stringify(built),
      );
    });

    describe('against a started server', () => {
      let s: TestServer;
      before(async () => {
        s = await startServer();
      });
      after(() => s.close());

      it('a path id at the documented maximum is taken (404: no such resource), one past it is 400', async () => {
        const pathIds = operations
          .filter(({ method }) => method === 'get')
          .flatMap(({ path, parameters }) =>
            parameters
              .filter((p) => p.in === 'path' && p.schema['format'] === 'int64')
              .map((p) => ({ path, name: p.name })),
          );
        expect(pathIds.map((p) => p.name)).to.include.members(['petId', 'categoryId', 'orderId']);
        const beyond = (BigInt(INT64_MAX) + 1n).toString();
        for (const { path, name } of pathIds) {
          // The path's other ids (a photo's pet) take a valid id: only this one is at the bound.
          const at = (id: string) =>
            s.request({ path: `/v1${path.replace(`{${name}}`, id).replace(/\{[A-Za-z]+\}/g, '1')}`, key: KEYS.admin });
          expectError(await at(INT64_MAX), 404, 'not_found');
          expectError(await at(beyond), 400, 'validation_failed');
        }
      });
    });
  });

  describe('the plans that take numbers, in JSON Schema (docs/rules.md §9)', () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
    ajv.addFormat('date-time', { type: 'string', validate: (t: string) => !Number.isNaN(Date.parse(t)) });
    const create = ajv.compile(doc.components.schemas['NewApiKey']!);
    const change = ajv.compile(doc.components.schemas['ApiKeyPatch']!);

    it("the document's key bodies refuse numbers without enterprise, and enterprise without both numbers", () => {
      expect(create({ plan: 'enterprise', perMinute: 5, perDay: 8 })).to.equal(true);
      expect(create({ plan: 'business' })).to.equal(true);
      for (const body of [
        { plan: 'enterprise' },
        { plan: 'enterprise', perMinute: 5 },
        { plan: 'pro', perMinute: 5, perDay: 8 },
        { plan: 'free', perDay: 8 },
      ]) {
        expect(create(body), JSON.stringify(body)).to.equal(false);
      }
      expect(change({ plan: 'pro', perDay: 8 })).to.equal(false);
      expect(change({ perDay: 8 }), 'depends on the stored key: left to the service').to.equal(true);
    });

    describe('against a started server', () => {
      let s: TestServer;
      before(async () => {
        s = await startServer();
      });
      after(() => s.close());

      const send = (method: string, path: string, body: unknown) =>
        s.request({
          method,
          path,
          key: KEYS.admin,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });

      it("a body the schema refuses for its plan is answered 400 with the domain's message, never a JSON Schema one", async () => {
        for (const body of [
          { plan: 'enterprise' },
          { plan: 'enterprise', perDay: 8 },
          { plan: 'pro', perMinute: 5, perDay: 8 },
          { plan: 'free', perDay: 8 },
        ]) {
          expect(create(body)).to.equal(false);
          const domain = validateKeyRequest(body);
          expect(domain.ok).to.equal(false);
          const error = expectError(await send('POST', '/v1/admin/keys', body), 400, 'validation_failed');
          expect(error.message, JSON.stringify(body)).to.equal(domain.ok ? '' : domain.error.message);
        }
        const key = (await send('POST', '/v1/admin/keys', { plan: 'enterprise', perMinute: 5, perDay: 8 })).json() as {
          id: string;
        };
        for (const body of [
          { plan: 'pro', perDay: 8 },
          { plan: 'business', perMinute: 5, perDay: 8 },
        ]) {
          expect(change(body)).to.equal(false);
          const domain = validateKeyPatch(body);
          const error = expectError(await send('PATCH', `/v1/admin/keys/${key.id}`, body), 400, 'validation_failed');
          expect(error.message, JSON.stringify(body)).to.equal(domain.ok ? '' : domain.error.message);
        }
      });
    });
  });

  it('every object schema says additionalProperties itself, each shape of a oneOf too (the key bodies are closed shapes, not if/then/else)', () => {
    const open: string[] = [];
    const visit = (node: unknown, at: string, inComposition: boolean): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${at}/${i}`, inComposition));
      if (typeof node !== 'object' || node === null) return;
      const schema = node as Schema;
      if (
        'properties' in schema &&
        !inComposition &&
        !('additionalProperties' in schema) &&
        typeof schema['properties'] === 'object'
      )
        open.push(at);
      for (const [key, value] of Object.entries(schema)) {
        // Subschemas of allOf narrow the schema around them: that one is closed. A oneOf's shapes are each closed.
        visit(value, `${at}/${key}`, ['allOf', 'not'].includes(key) || (inComposition && key !== 'properties'));
      }
    };
    visit(doc.components.schemas, '#/components/schemas', false);
    expect(open).to.deep.equal([]);
  });
});

// docs/rules.md §12 over HTTP, sentence by sentence: PATCH and DELETE /v1/pets/{petId} (admin keys),
// the revision as ETag, If-Match and 412, withdrawn pets, and the race of a withdrawal, a status
// patch and order placements. The rules themselves: packages/domain (test/pet-maintenance.test.ts
// and the adoption contract of test-support).
import { expect } from 'chai';
import type { Pet, PetStatus } from '@petstore/domain';
import { serialOrderOf, type RaceRequest } from '@petstore/domain/testing';
import { PetRepositoryInMemory } from '@petstore/adapters-memory';
import { buildOpenApiDocument, type HttpMetrics } from '../src/index.js';
import { expectError, KEYS, rateLimitOf, startServer, type RawResponse, type TestServer } from './support/server.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const STRONG_TAG = /^"[\x21\x23-\x7e]+"$/;

interface Options {
  readonly key?: string;
  readonly ifMatch?: string;
}

const patchPet = (s: TestServer, id: string | number, body: unknown, options: Options = {}): Promise<RawResponse> =>
  s.request({
    method: 'PATCH',
    path: `/v1/pets/${id}`,
    key: options.key ?? KEYS.admin,
    headers: { ...JSON_TYPE, ...(options.ifMatch === undefined ? {} : { 'if-match': options.ifMatch }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const deletePet = (s: TestServer, id: string | number, options: Options = {}): Promise<RawResponse> =>
  s.request({
    method: 'DELETE',
    path: `/v1/pets/${id}`,
    key: options.key ?? KEYS.admin,
    headers: options.ifMatch === undefined ? {} : { 'if-match': options.ifMatch },
  });
const getPet = (s: TestServer, id: string | number): Promise<RawResponse> =>
  s.request({ path: `/v1/pets/${id}`, key: KEYS.huge });
const createPet = async (
  s: TestServer,
  body: { name?: string; categoryId?: number; status?: PetStatus } = {},
): Promise<Pet> => {
  const res = await s.postJson(JSON.stringify({ name: 'Rex', categoryId: 1, ...body }));
  expect(res.status).to.equal(201);
  return res.json() as Pet;
};
const placeOrder = (s: TestServer, petId: number, key: string = KEYS.huge): Promise<RawResponse> =>
  s.request({ method: 'POST', path: '/v1/store/orders', key, headers: JSON_TYPE, body: JSON.stringify({ petId }) });
const act = (s: TestServer, orderId: number, action: 'approve' | 'deliver' | 'cancel'): Promise<RawResponse> =>
  s.request({ method: 'POST', path: `/v1/store/orders/${orderId}/${action}`, key: KEYS.admin });
const etagOf = async (s: TestServer, id: number): Promise<string> => {
  const res = await getPet(s, id);
  expect(res.status).to.equal(200);
  return res.header('etag');
};
/** Every pet a walk of `GET /v1/pets` (with `query`) visits. */
const walk = async (s: TestServer, query: string): Promise<number[]> => {
  const ids: number[] = [];
  let path: string | undefined = `/v1/pets?limit=2${query}`;
  while (path !== undefined) {
    const res = await s.request({ path, key: KEYS.huge });
    expect(res.status).to.equal(200);
    const page = res.json() as Pet[];
    ids.push(...page.map((p) => p.id));
    const next = /^<([^>]+)>; rel="next"$/.exec(res.header('link'))?.[1];
    if (next !== undefined) expect(page, 'a page with a next one is full').to.have.length(2);
    path = next;
  }
  return ids;
};

describe('pet maintenance over HTTP (docs/rules.md §12)', () => {
  let s: TestServer;
  const withdrawn: number[] = [];
  const routes: string[] = [];
  const metrics: HttpMetrics = {
    request: (method, route, status) => void routes.push(`${method} ${route} ${status}`),
    rateLimitDecision: () => {},
    storeFailure: () => {},
    orderTransition: () => {},
    storeCircuit: () => {},
  };
  before(async () => {
    s = await startServer({ afterWithdrawal: async (petId) => void withdrawn.push(petId), metrics });
  });
  after(() => s.close());
  // Each test in a minute of its own: the admin key's 1,000 a minute is never the limit here.
  beforeEach(() => s.clock.advance(60_000));

  describe('admin keys only', () => {
    it('a client key gets 403 on PATCH and DELETE whatever the id, checked before any lookup and before the body is read', async () => {
      const counting = new PetRepositoryInMemory();
      const calls: string[] = [];
      const spied = new Proxy(counting, {
        get: (target, name, receiver) => {
          const value: unknown = Reflect.get(target, name, receiver);
          return typeof value === 'function'
            ? (...args: unknown[]) => (
                calls.push(String(name)),
                (value as (...a: unknown[]) => unknown).apply(target, args)
              )
            : value;
        },
      });
      const own = await startServer({ repository: spied });
      try {
        for (const id of ['1', 'abc', '0', '99999999999999999999', '9223372036854775807']) {
          for (const key of [KEYS.huge, KEYS.free]) {
            expectError(await patchPet(own, id, '{"name":', { key }), 403, 'forbidden');
            expectError(await patchPet(own, id, { colour: 'red' }, { key, ifMatch: 'nonsense' }), 403, 'forbidden');
            const refused = await deletePet(own, id, { key, ifMatch: '"1"' });
            expectError(refused, 403, 'forbidden');
            rateLimitOf(refused);
          }
        }
        expect(calls, 'the pet store was never asked').to.deep.equal([]);
      } finally {
        await own.close();
      }
    });
  });

  describe('the revision (ETag)', () => {
    it('GET and PATCH answer with ETag: "<revision>", a strong entity tag; a change moves it, a PATCH that changes nothing keeps it', async () => {
      const pet = await createPet(s, { name: 'Tagged' });
      const first = await getPet(s, pet.id);
      expect(first.header('etag')).to.match(STRONG_TAG);
      const same = await patchPet(s, pet.id, { name: 'Tagged', categoryId: 1, status: 'available' });
      expect(same.status).to.equal(200);
      expect(same.json()).to.deep.equal(pet);
      expect(same.header('etag'), 'nothing changed: the same revision').to.equal(first.header('etag'));
      const renamed = await patchPet(s, pet.id, { name: 'Retagged' });
      expect(renamed.status).to.equal(200);
      expect(renamed.header('etag')).to.match(STRONG_TAG).and.not.equal(first.header('etag'));
      expect((await getPet(s, pet.id)).header('etag'), 'GET agrees').to.equal(renamed.header('etag'));
    });

    it('the status moves of the adoption flow move it too (a placement, a cancellation, a delivery), an approval does not', async () => {
      const pet = await createPet(s, { name: 'Moving' });
      const seen = [await etagOf(s, pet.id)];
      const placed = (await placeOrder(s, pet.id)).json() as { id: number };
      seen.push(await etagOf(s, pet.id));
      expect((await act(s, placed.id, 'approve')).status).to.equal(200);
      expect(await etagOf(s, pet.id), 'approved: the pet did not change').to.equal(seen[1]);
      expect((await act(s, placed.id, 'cancel')).status).to.equal(200);
      seen.push(await etagOf(s, pet.id));
      const again = (await placeOrder(s, pet.id)).json() as { id: number };
      seen.push(await etagOf(s, pet.id));
      await act(s, again.id, 'approve');
      expect((await act(s, again.id, 'deliver')).status).to.equal(200);
      seen.push(await etagOf(s, pet.id));
      expect(new Set(seen).size, `a new revision at each move: ${seen.join(' ')}`).to.equal(seen.length);
    });
  });

  describe('PATCH /v1/pets/{petId}', () => {
    it('changes any of name, categoryId and status, and answers 200 with the Pet after the change', async () => {
      const pet = await createPet(s, { name: 'Mispelt', categoryId: 3 });
      const res = await patchPet(s, pet.id, { name: 'Misspelt', categoryId: 4 });
      expect(res.status).to.equal(200);
      expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
      expect(res.json()).to.deep.equal({ id: pet.id, name: 'Misspelt', categoryId: 4, status: 'available' });
      expect((await getPet(s, pet.id)).json()).to.deep.equal(res.json());
      expect((await patchPet(s, pet.id, { status: 'sold' })).json()).to.deep.equal({
        id: pet.id,
        name: 'Misspelt',
        categoryId: 4,
        status: 'sold',
      });
      rateLimitOf(res);
      expect(res.header('deprecation'), 'only the GET of this path is deprecated').to.equal('');
    });

    it('takes a closed body of any of the three, at least one, each under the rules of docs/rules.md §1: else 400 naming the field (id and unknown properties too)', async () => {
      const pet = await createPet(s, { name: 'Strict' });
      const cases: [unknown, RegExp][] = [
        [{}, /at least one of name, categoryId, status/],
        [{ id: pet.id, name: 'x' }, /id is assigned by the service/],
        [{ name: 'x', colour: 'red' }, /unknown property 'colour'/],
        [{ name: '' }, /name/],
        [{ name: '   ' }, /name/],
        [{ name: 'x'.repeat(201) }, /name/],
        [{ categoryId: '5' }, /categoryId/],
        [{ categoryId: 1.5 }, /categoryId/],
        [{ status: 'Sold' }, /status must be one of available, pending, sold/],
        [{ status: null }, /status/],
        [[{ name: 'x' }], /JSON object/],
      ];
      for (const [body, message] of cases) {
        const refused = expectError(await patchPet(s, pet.id, body), 400, 'validation_failed');
        expect(refused.message, JSON.stringify(body)).to.match(message);
      }
      const long = expectError(await patchPet(s, pet.id, { ['k'.repeat(500)]: 1 }), 400, 'validation_failed');
      expect(long.message, 'quotes at most 64 characters')
        .to.include(`'${'k'.repeat(64)}…'`)
        .and.not.include('k'.repeat(65));
      expectError(await patchPet(s, pet.id, '{"name":'), 400, 'malformed_json');
      expectError(
        await s.request({ method: 'PATCH', path: `/v1/pets/${pet.id}`, key: KEYS.admin }),
        400,
        'validation_failed',
      );
      expectError(
        await s.request({
          method: 'PATCH',
          path: `/v1/pets/${pet.id}`,
          key: KEYS.admin,
          headers: { 'content-type': 'text/plain' },
          body: '{"name":"x"}',
        }),
        415,
        'unsupported_media_type',
      );
      expect((await getPet(s, pet.id)).json(), 'nothing changed').to.deep.equal(pet);
    });

    it('a categoryId must name a category: 400 after the shape rules, and nothing changes', async () => {
      const pet = await createPet(s);
      const refused = expectError(
        await patchPet(s, pet.id, { name: 'Moved', categoryId: 777 }),
        400,
        'validation_failed',
      );
      expect(refused.message).to.equal('categoryId 777 names no category');
      expectError(await patchPet(s, pet.id, { categoryId: 0 }), 400, 'validation_failed');
      expect((await getPet(s, pet.id)).json()).to.deep.equal(pet);
    });

    it('petId follows the rules of getPet: 400 for a non-canonical id, 404 for none', async () => {
      for (const id of ['abc', '0', '-1', '1.5', '007', '9223372036854775808', '%31']) {
        expectError(await patchPet(s, id, { name: 'x' }), 400, 'validation_failed');
        expectError(await deletePet(s, id), 400, 'validation_failed');
      }
      for (const id of ['9223372036854775807', '9007199254740991', '999999']) {
        expectError(await patchPet(s, id, { name: 'x' }), 404, 'not_found');
        expectError(await deletePet(s, id), 404, 'not_found');
      }
    });

    it('name and categoryId change in any status, also while an open order reserves the pet; status only while none does: else 409 saying the pet is reserved, and nothing changes', async () => {
      const pet = await createPet(s, { name: 'Reserved' });
      const order = (await placeOrder(s, pet.id)).json() as { id: number };
      const renamed = await patchPet(s, pet.id, { name: 'Still reserved', categoryId: 2 });
      expect(renamed.json()).to.deep.equal({ id: pet.id, name: 'Still reserved', categoryId: 2, status: 'pending' });
      const tag = renamed.header('etag');
      for (const body of [{ status: 'available' }, { status: 'sold', name: 'Other' }]) {
        const refused = expectError(await patchPet(s, pet.id, body), 409, 'conflict');
        expect(refused.message).to.include(`pet ${pet.id} is reserved`);
      }
      expect(await etagOf(s, pet.id), 'nothing changed').to.equal(tag);
      await act(s, order.id, 'approve');
      expectError(await patchPet(s, pet.id, { status: 'available' }), 409, 'conflict');
      expect((await patchPet(s, pet.id, { status: 'pending' })).status, 'the status it has: no change').to.equal(200);
      expect((await act(s, order.id, 'cancel')).status).to.equal(200);
      expect((await patchPet(s, pet.id, { status: 'sold' })).json()).to.deep.include({ status: 'sold' });
      // Pets created pending or sold hold no order: their status may change.
      const created = await createPet(s, { status: 'pending' });
      expect((await patchPet(s, created.id, { status: 'available' })).json()).to.deep.include({ status: 'available' });
    });

    it('setting a sold pet back to available records a return: it can be ordered and delivered again, and the order of the first adoption stays delivered', async () => {
      const pet = await createPet(s, { name: 'Returned' });
      const adopt = async (): Promise<number> => {
        const order = (await placeOrder(s, pet.id)).json() as { id: number };
        await act(s, order.id, 'approve');
        expect((await act(s, order.id, 'deliver')).status).to.equal(200);
        s.clock.advance(1);
        return order.id;
      };
      const first = await adopt();
      expect((await getPet(s, pet.id)).json()).to.deep.include({ status: 'sold' });
      expectError(await placeOrder(s, pet.id), 409, 'conflict');
      expect((await patchPet(s, pet.id, { status: 'available' })).json()).to.deep.include({ status: 'available' });
      s.clock.advance(1);
      const second = await adopt();
      for (const id of [first, second]) {
        const order = await s.request({ path: `/v1/store/orders/${id}`, key: KEYS.admin });
        expect(order.json()).to.deep.include({ status: 'delivered', petId: pet.id });
      }
      expect((await getPet(s, pet.id)).json()).to.deep.include({ status: 'sold' });
    });
  });

  describe('If-Match (RFC 9110 §13.1.1)', () => {
    it('a list of entity tags or *: a match changes the pet; a mismatch is 412 precondition_failed and nothing changes', async () => {
      const pet = await createPet(s, { name: 'Guarded' });
      const tag = await etagOf(s, pet.id);
      const stale = expectError(
        await patchPet(s, pet.id, { name: 'Lost' }, { ifMatch: '"no-such-revision"' }),
        412,
        'precondition_failed',
      );
      expect(stale.message).to.include(tag);
      expectError(await patchPet(s, pet.id, { name: 'Lost' }, { ifMatch: `W/${tag}` }), 412, 'precondition_failed');
      expectError(await deletePet(s, pet.id, { ifMatch: '"x", "y"' }), 412, 'precondition_failed');
      expect((await getPet(s, pet.id)).json(), 'nothing changed').to.deep.equal(pet);
      expect(await etagOf(s, pet.id)).to.equal(tag);
      const first = await patchPet(s, pet.id, { name: 'First' }, { ifMatch: `"x", ${tag}` });
      expect(first.status).to.equal(200);
      // The second writer read the same revision: its If-Match is stale now.
      expectError(await patchPet(s, pet.id, { name: 'Second' }, { ifMatch: tag }), 412, 'precondition_failed');
      expect((await getPet(s, pet.id)).json()).to.deep.include({ name: 'First' });
      expect((await patchPet(s, pet.id, { name: 'Any' }, { ifMatch: '*' })).status).to.equal(200);
      expect((await deletePet(s, pet.id, { ifMatch: await etagOf(s, pet.id) })).status).to.equal(204);
      expectError(await patchPet(s, pet.id, { name: 'Gone' }, { ifMatch: '*' }), 404, 'not_found');
    });

    it('without If-Match the last write wins', async () => {
      const pet = await createPet(s, { name: 'Raced' });
      const answers = await Promise.all(['A', 'B', 'C', 'D'].map((name) => patchPet(s, pet.id, { name })));
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200]);
      const names = answers.map((a) => (a.json() as Pet).name);
      expect(names).to.have.members(['A', 'B', 'C', 'D']);
      expect(['A', 'B', 'C', 'D']).to.include(((await getPet(s, pet.id)).json() as Pet).name);
    });

    it('a value that is not an If-Match is 400 validation_failed, never a change', async () => {
      const pet = await createPet(s, { name: 'Parsed' });
      for (const ifMatch of ['3', '*, "3"', '"3']) {
        expectError(await patchPet(s, pet.id, { name: 'x' }, { ifMatch }), 400, 'validation_failed');
        expectError(await deletePet(s, pet.id, { ifMatch }), 400, 'validation_failed');
      }
      expect((await getPet(s, pet.id)).json()).to.deep.equal(pet);
    });
  });

  describe('DELETE /v1/pets/{petId}: the pet is withdrawn', () => {
    it('204; then GET is 404, lists and the inventory leave it out, an order for it is 400 as for no pet, PATCH and a second DELETE are 404; its photos go with it; ids are never reused', async () => {
      const before = (await s.request({ path: '/v1/store/inventory', key: KEYS.huge })).json() as Record<
        PetStatus,
        number
      >;
      const pets = [];
      for (let i = 0; i < 5; i++)
        pets.push(await createPet(s, { name: `Shelter ${i}`, categoryId: 42, status: i === 1 ? 'sold' : 'available' }));
      const leaving = pets[1]!;
      const res = await deletePet(s, leaving.id);
      expect(res.status).to.equal(204);
      expect(res.bytes).to.have.length(0);
      rateLimitOf(res);
      expect(withdrawn, 'the photos hook heard of it').to.include(leaving.id);
      expectError(await getPet(s, leaving.id), 404, 'not_found');
      for (const query of ['&categoryId=42', '&categoryId=42&status=sold', '&status=sold', '']) {
        expect(await walk(s, query), query).not.to.include(leaving.id);
      }
      expect(await walk(s, '&categoryId=42')).to.deep.equal(pets.filter((p) => p !== leaving).map((p) => p.id));
      const inventory = (await s.request({ path: '/v1/store/inventory', key: KEYS.huge })).json() as Record<
        PetStatus,
        number
      >;
      expect(inventory).to.deep.equal({ ...before, available: before.available + 4 });
      const order = expectError(await placeOrder(s, leaving.id), 400, 'validation_failed');
      expect(order.message).to.equal(`petId ${leaving.id} names no pet`);
      expectError(await patchPet(s, leaving.id, { name: 'Back' }), 404, 'not_found');
      expectError(await deletePet(s, leaving.id), 404, 'not_found');
      expect(
        withdrawn.filter((id) => id === leaving.id),
        'told once',
      ).to.have.length(1);
      expect((await createPet(s)).id, 'a new id').to.be.greaterThan(pets[4]!.id);
    });

    it('a pet holding an open order → 409; orders already delivered or cancelled for it stay readable after it is withdrawn', async () => {
      const pet = await createPet(s, { name: 'Adopted' });
      const cancelled = (await placeOrder(s, pet.id)).json() as { id: number };
      await act(s, cancelled.id, 'cancel');
      const delivered = (await placeOrder(s, pet.id, KEYS.pro)).json() as { id: number };
      expect(expectError(await deletePet(s, pet.id), 409, 'conflict').message).to.include('reserved');
      await act(s, delivered.id, 'approve');
      expectError(await deletePet(s, pet.id), 409, 'conflict');
      await act(s, delivered.id, 'deliver');
      expect((await deletePet(s, pet.id)).status).to.equal(204);
      expect((await s.request({ path: `/v1/store/orders/${cancelled.id}`, key: KEYS.huge })).json()).to.deep.include({
        status: 'cancelled',
        petId: pet.id,
      });
      expect((await s.request({ path: `/v1/store/orders/${delivered.id}`, key: KEYS.pro })).json()).to.deep.include({
        status: 'delivered',
        petId: pet.id,
      });
      const mine = (await s.request({ path: '/v1/store/orders?status=delivered&limit=100', key: KEYS.pro })).json() as {
        id: number;
      }[];
      expect(mine.map((o) => o.id)).to.include(delivered.id);
    });
  });

  it('races are decided on the pet alone: of a DELETE, a PATCH of status and N orders sent together for one available pet, the outcomes are those of a serial order', async () => {
    const code = (res: RawResponse): string => (res.status < 300 ? 'ok' : (res.json() as { code: string }).code);
    for (let round = 0; round < 12; round++) {
      const pet = await createPet(s, { name: `Race ${round}` });
      const tag = await etagOf(s, pet.id);
      const status: PetStatus = (['sold', 'pending', 'available'] as const)[round % 3]!;
      const ifMatch = (['none', '*', 'initial'] as const)[Math.floor(round / 3) % 3]!;
      const header = ifMatch === 'none' ? undefined : ifMatch === '*' ? '*' : tag;
      // The withdrawal and the patch go out at a different place among the orders each round.
      const requests: RaceRequest[] = Array.from({ length: 6 }, () => ({ kind: 'place' }) as const);
      requests.splice((round * 5) % 7, 0, { kind: 'withdraw', ifMatch });
      requests.splice((round * 3 + 2) % 8, 0, { kind: 'patch', status, ifMatch });
      const answers = await Promise.all(
        requests.map((request, i) =>
          request.kind === 'withdraw'
            ? deletePet(s, pet.id, header === undefined ? {} : { ifMatch: header })
            : request.kind === 'patch'
              ? patchPet(s, pet.id, { status }, header === undefined ? {} : { ifMatch: header })
              : placeOrder(s, pet.id, i % 2 === 0 ? KEYS.huge : KEYS.business),
        ),
      );
      const outcomes = answers.map(code);
      const after = await getPet(s, pet.id);
      const end =
        after.status === 404
          ? ({ withdrawn: true } as const)
          : ({ withdrawn: false, status: (after.json() as Pet).status } as const);
      expect(
        serialOrderOf('available', requests, outcomes, end),
        `round ${round}: ${outcomes.join(' ')} ending ${JSON.stringify(end)}`,
      ).not.to.equal(undefined);
    }
  });

  it('metrics count PATCH and DELETE under the route template, never the raw path', async () => {
    const pet = await createPet(s);
    routes.length = 0;
    await patchPet(s, pet.id, { name: 'Counted' });
    await deletePet(s, pet.id);
    await deletePet(s, pet.id);
    expect(routes).to.deep.equal([
      'PATCH /v1/pets/:petId 200',
      'DELETE /v1/pets/:petId 204',
      'DELETE /v1/pets/:petId 404',
    ]);
  });

  it('the OpenAPI document: PATCH and DELETE of /pets/{petId} under tag pets, beta, admin keys, with If-Match, examples and their 403, 409 and 412; getPet and PATCH answers document ETag', () => {
    const doc = buildOpenApiDocument() as {
      paths: Record<
        string,
        Record<
          string,
          {
            tags: string[];
            'x-stability': string;
            security?: unknown;
            parameters: unknown[];
            responses: Record<string, { headers?: object }>;
          }
        >
      >;
      components: {
        parameters: Record<string, { name: string; in: string }>;
        responses: Record<string, unknown>;
        headers: Record<string, unknown>;
      };
    };
    const item = doc.paths['/pets/{petId}']!;
    for (const method of ['patch', 'delete']) {
      const op = item[method]!;
      expect(op.tags, method).to.deep.equal(['pets']);
      expect(op['x-stability'], method).to.equal('beta');
      expect(op.security, method).to.deep.equal([{ adminKey: [] }]);
      expect(op.parameters, method).to.deep.include({ $ref: '#/components/parameters/IfMatch' });
      expect(op.responses, method).to.include.keys('403', '404', '409', '412');
    }
    expect(doc.components.parameters['IfMatch']).to.include({ name: 'If-Match', in: 'header' });
    expect(doc.components.responses).to.have.property('PreconditionFailed');
    expect(item['get']!.responses['200']!.headers).to.have.property('ETag');
    expect(item['patch']!.responses['200']!.headers).to.have.property('ETag');
  });

  it('a browser may send PATCH and DELETE with If-Match, and read ETag', async () => {
    const cors = await startServer({ corsOrigins: ['https://shelter.example'] });
    try {
      const preflight = await cors.request({
        method: 'OPTIONS',
        path: '/v1/pets/1',
        headers: {
          origin: 'https://shelter.example',
          'access-control-request-method': 'PATCH',
          'access-control-request-headers': 'authorization, content-type, if-match',
        },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.header('access-control-allow-methods').split(',')).to.include.members(['PATCH', 'DELETE']);
      expect(preflight.header('access-control-allow-headers').split(',')).to.include.members([
        'If-Match',
        'If-None-Match',
      ]);
      const pet = (await cors.postJson('{"name":"Rex","categoryId":1}')).json() as Pet;
      const read = await cors.request({
        path: `/v1/pets/${pet.id}`,
        key: KEYS.huge,
        headers: { origin: 'https://shelter.example' },
      });
      expect(read.header('access-control-expose-headers').split(',')).to.include('ETag');
    } finally {
      await cors.close();
    }
  });
});

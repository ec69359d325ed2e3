// docs/rules.md §7 (categories), the categoryId rule of §1 and the categoryId filter of §2, over HTTP.
import { expect } from 'chai';
import { PET_STATUSES, type Category, type Pet, type PetStatus } from '@petstore/domain';
import { PetRepositoryInMemory } from '@petstore/adapters-memory';
import { buildOpenApiDocument } from '../src/index.js';
import { expectError, KEYS, rateLimitOf, startServer, type RawResponse, type TestServer } from './support/server.js';
import { entryOf } from '@petstore/domain/testing';

const nextLink = (res: RawResponse): string | undefined => {
  const link = res.header('link');
  if (link === '') return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, `Link: ${link}`).to.not.equal(null);
  return match![1]!;
};
const jsonArray = <T>(res: RawResponse): T[] => {
  expect(res.status, res.text).to.equal(200);
  expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
  expect(res.json()).to.be.an('array');
  return res.json() as T[];
};
const statusOf = (i: number): PetStatus => PET_STATUSES[i % 3]!;

describe('categories (docs/rules.md §7)', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await startServer({ categories: 0 });
  });
  afterEach(() => s.close());
  const create = (name: unknown) => s.postCategory(JSON.stringify({ name }));
  const created = (res: RawResponse): Category => {
    expect(res.status, res.text).to.equal(201);
    expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
    const category = res.json() as Category;
    expect(Object.keys(category)).to.deep.equal(['id', 'name']);
    expect(res.header('location')).to.equal(`/v1/categories/${category.id}`);
    return category;
  };
  const get = (path: string) => s.request({ path, key: KEYS.huge });

  it('POST /v1/categories answers 201 with the Category and its Location; the name is stored exactly as sent; ids increase', async () => {
    const names = ['Dogs', '  Big cats  ', 'Ünïcødé 🐈', '𝒜'.repeat(100), 'x'.repeat(100), ' . '];
    const ids: number[] = [];
    for (const name of names) {
      const category = created(await create(name));
      expect(category.name).to.equal(name);
      ids.push(category.id);
      expect(await get(`/v1/categories/${category.id}`).then((r) => r.json())).to.deep.equal(category);
    }
    expect(ids[0]).to.be.greaterThan(0);
    for (let i = 1; i < ids.length; i++) expect(ids[i]).to.be.greaterThan(ids[i - 1]!);
    rateLimitOf(await create('Rate limited like any request'));
  });

  it('refuses names of 0 or more than 100 code points, blank names, lone surrogates and non-strings with 400 naming name', async () => {
    for (const name of [
      '',
      ' ',
      '   ',
      '\t\n',
      '\u00a0\u2003\u3000',
      '\ufeff',
      'x'.repeat(101),
      '𝒜'.repeat(101),
      5,
      null,
      true,
      ['a'],
      { a: 1 },
    ]) {
      const body = expectError(await create(name), 400, 'validation_failed');
      expect(body.message, JSON.stringify(name)).to.match(/^name /);
    }
    for (const escaped of ['\\ud800', 'a\\udc00', '\\udbff\\udbff']) {
      expect(expectError(await s.postCategory(`{"name":"${escaped}"}`), 400, 'validation_failed').message).to.include(
        'well-formed',
      );
    }
    expect(created(await s.postCategory('{"name":"\\ud83d\\udc08"}')).name).to.equal('🐈');
    expect((await get('/v1/categories')).json()).to.have.length(1);
  });

  it('NewCategory is closed: a missing name, id, unknown and prototype keys are 400 naming the property; bodies follow §1', async () => {
    expect(expectError(await s.postCategory('{}'), 400, 'validation_failed').message).to.equal('name is required');
    expect(expectError(await s.postCategory('{"name":"a","id":3}'), 400, 'validation_failed').message).to.include(
      'id is assigned by the service',
    );
    for (const key of ['extra', 'Name', '__proto__', 'constructor', 'prototype']) {
      expect(
        expectError(await s.postCategory(`{"name":"a","${key}":{"polluted":1}}`), 400, 'validation_failed').message,
      ).to.include(`'${key}'`);
    }
    const long = expectError(await s.postCategory(`{"name":"a","${'k'.repeat(5_000)}":1}`), 400, 'validation_failed');
    expect(long.message)
      .to.include(`'${'k'.repeat(64)}…'`)
      .and.not.to.include('k'.repeat(65));
    expect(({} as Record<string, unknown>)['polluted']).to.equal(undefined);
    for (const text of ['[]', '"Dogs"', '1', 'null']) expectError(await s.postCategory(text), 400, 'validation_failed');
    for (const text of ['{', '{"name":}', "{'name':'a'}"])
      expectError(await s.postCategory(text), 400, 'malformed_json');
    expectError(await s.request({ method: 'POST', path: '/v1/categories', key: KEYS.huge }), 400, 'validation_failed');
    expectError(
      await s.request({
        method: 'POST',
        path: '/v1/categories',
        key: KEYS.huge,
        headers: { 'content-type': 'text/plain' },
        body: '{"name":"a"}',
      }),
      415,
      'unsupported_media_type',
    );
    expect((await get('/v1/categories')).json()).to.deep.equal([]);
  });

  it('a second category with the same name (case, NFC/NFD) is 409 conflict whose message gives the existing id; nothing is stored', async () => {
    created(await create('Other'));
    const cafe = created(await create('Café'));
    for (const name of ['café', 'CAFÉ', 'Cafe\u0301', 'CAFE\u0301', 'cAfÉ']) {
      const body = expectError(await create(name), 409, 'conflict');
      expect(body.message, name).to.include(`category ${cafe.id} `).and.include(`categoryId ${cafe.id}`);
    }
    created(await create('Cafe'));
    created(await create('Café '));
    expect(jsonArray<Category>(await get('/v1/categories')).map((c) => c.name)).to.deep.equal([
      'Other',
      'Café',
      'Cafe',
      'Café ',
    ]);
  });

  it('of N simultaneous creates with the same name exactly one gets 201, the others 409 naming its id', async () => {
    const spellings = ['Rabbits', 'RABBITS', 'rabbits', 'Rabbits'.normalize('NFD')];
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => create(spellings[i % spellings.length])));
    const winners = answers.filter((r) => r.status === 201);
    expect(winners).to.have.length(1);
    const id = (winners[0]!.json() as Category).id;
    for (const r of answers)
      if (r.status !== 201) expect(expectError(r, 409, 'conflict').message).to.include(`category ${id} `);
    expect(jsonArray<Category>(await get('/v1/categories'))).to.have.length(1);
  });

  it('GET /v1/categories/{categoryId} follows the petId rules: 400 for non-canonical ids, 404 for none', async () => {
    created(await create('Dogs'));
    expect((await get('/v1/categories/1')).json()).to.deep.equal({ id: 1, name: 'Dogs' });
    for (const id of [
      'abc',
      '0',
      '-1',
      '1.5',
      '007',
      '+1',
      '1e3',
      '%31',
      '9223372036854775808',
      '99999999999999999999',
    ]) {
      expect(expectError(await get(`/v1/categories/${id}`), 400, 'validation_failed').message, id).to.match(
        /^categoryId must be/,
      );
    }
    for (const id of ['2', '9007199254740991', '9007199254740993', '9223372036854775807']) {
      expect(expectError(await get(`/v1/categories/${id}`), 404, 'not_found').message).to.equal(
        `no category has id ${id}`,
      );
    }
  });

  it('needs a key and answers 405 with Allow for other methods', async () => {
    expectError(await s.request({ path: '/v1/categories' }), 401, 'unauthorized');
    expectError(
      await s.request({
        method: 'POST',
        path: '/v1/categories',
        headers: { 'content-type': 'application/json' },
        body: '{"name":"a"}',
      }),
      401,
      'unauthorized',
    );
    const put = expectError(
      await s.request({ method: 'PUT', path: '/v1/categories', key: KEYS.huge }),
      405,
      'method_not_allowed',
    );
    expect(put.message).to.include('GET');
    expect(
      (await s.request({ method: 'DELETE', path: '/v1/categories/1', key: KEYS.huge })).header('allow'),
    ).to.include('GET');
    expect((await s.request({ method: 'DELETE', path: '/v1/categories/1', key: KEYS.huge })).status).to.equal(405);
  });

  it('GET /v1/categories pages as GET /v1/pets: plain array, ascending ids, limit rules, Link rel="next", each category once with creates between pages', async () => {
    for (let i = 0; i < 23; i++) created(await create(`kind ${i}`));
    for (const limit of ['0', '101', '-1', '1.5', 'abc', '', '007'])
      expectError(await get(`/v1/categories?limit=${limit}`), 400, 'validation_failed');
    expectError(await get('/v1/categories?limit=2&limit=3'), 400, 'validation_failed');
    expect(jsonArray(await get('/v1/categories?status=nonsense&categoryId=x'))).to.have.length(20);
    for (const limit of [1, 4, 7, 100]) {
      const seen: number[] = [];
      let path: string | undefined = `/v1/categories?limit=${limit}`;
      let added = 0;
      while (path !== undefined) {
        const res = await get(path);
        const items = jsonArray<Category>(res);
        path = nextLink(res);
        if (path !== undefined) {
          expect(items).to.have.length(limit);
          expect(new URL(path, 'http://x').pathname).to.equal('/v1/categories');
        }
        seen.push(...items.map((c) => c.id));
        if (path !== undefined && added < 5) created(await create(`added ${limit}.${added++}`));
      }
      const all = (await s.categoryRepository.list({ afterId: 0, limit: 1_000 })).map((c) => c.id);
      expect(seen).to.deep.equal(all);
    }
    const first = await get('/v1/categories?limit=2');
    const cursor = new URL(nextLink(first)!, 'http://x').searchParams.get('cursor')!;
    expect(jsonArray<Category>(await get(`/v1/categories?limit=2&cursor=${cursor}`)).map((c) => c.id)).to.deep.equal([
      3, 4,
    ]);
    expectError(await get(`/v1/categories?cursor=${cursor.slice(0, -1)}x`), 400, 'validation_failed');
    expectError(await get(`/v1/pets?cursor=${cursor}`), 400, 'validation_failed');
  });
});

describe('GET /v1/pets?categoryId (docs/rules.md §2)', () => {
  let s: TestServer;
  let repository: PetRepositoryInMemory;
  beforeEach(async () => {
    repository = new PetRepositoryInMemory();
    s = await startServer({ repository, categories: 5 });
    for (let i = 0; i < 60; i++)
      repository.createSync(entryOf({ name: `pet ${i}`, categoryId: 1 + (i % 4), status: statusOf(i) }));
  });
  afterEach(() => s.close());
  const get = (path: string) => s.request({ path, key: KEYS.huge });
  const all = async () => (await repository.list({ order: { sort: 'id' }, limit: 100_000 })).pets;

  it('lists the pets of a category, alone or with status, in ascending id order; a valid id naming no category gives []', async () => {
    const byCategory = jsonArray<Pet>(await get('/v1/pets?categoryId=2&limit=100'));
    expect(byCategory.map((p) => p.id)).to.deep.equal((await all()).filter((p) => p.categoryId === 2).map((p) => p.id));
    const both = jsonArray<Pet>(await get('/v1/pets?status=sold&categoryId=3&limit=100'));
    expect(both.map((p) => p.id)).to.deep.equal(
      (await all()).filter((p) => p.categoryId === 3 && p.status === 'sold').map((p) => p.id),
    );
    expect(both.length).to.be.greaterThan(0);
    for (const id of ['5', '6', '9007199254740991'])
      expect(jsonArray(await get(`/v1/pets?categoryId=${id}`))).to.deep.equal([]);
  });

  it('refuses a categoryId that is not a canonical positive decimal up to 2^53 − 1, or is repeated, with 400 validation_failed', async () => {
    for (const id of [
      '0',
      '-1',
      '1.5',
      '007',
      '+1',
      '1e1',
      'abc',
      '',
      '%201',
      '9007199254740992',
      '99999999999999999999',
      '%31%2E5',
    ]) {
      // An empty value is an empty item of a list (docs/rules.md §16): refused as one, naming categoryId too.
      expect(expectError(await get(`/v1/pets?categoryId=${id}`), 400, 'validation_failed').message, id).to.match(
        id === '' ? /^categoryId has an empty item/ : /^categoryId must be/,
      );
    }
    expectError(await get('/v1/pets?categoryId=1&categoryId=2'), 400, 'validation_failed');
    expect(jsonArray(await get('/v1/pets?categoryId=%31'))).to.have.length(15);
  });

  for (const [limit, status, categoryId] of [
    [4, undefined, 2],
    [3, 'pending', 1],
    [1, 'sold', 4],
  ] as const) {
    it(`walking the links (limit ${limit}, status ${status ?? 'none'}, category ${categoryId}) visits each matching pet once, in order, while pets are created`, async () => {
      const matches = (p: Pet) => p.categoryId === categoryId && (status === undefined || p.status === status);
      const before = (await all()).filter(matches).map((p) => p.id);
      const seen: number[] = [];
      let path: string | undefined =
        `/v1/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}&categoryId=${categoryId}`;
      for (let page = 0; path !== undefined; page++) {
        const creates = PET_STATUSES.map((st, k) =>
          s.postJson(JSON.stringify({ name: `during ${page}.${k}`, categoryId: 1 + ((page + k) % 4), status: st })),
        );
        const [res, ...made] = await Promise.all([get(path), ...creates]);
        for (const m of made) expect(m.status).to.equal(201);
        const items = jsonArray<Pet>(res);
        for (const pet of items) expect(matches(pet), JSON.stringify(pet)).to.equal(true);
        path = nextLink(res);
        if (path !== undefined) {
          expect(items).to.have.length(limit);
          const url = new URL(path, 'http://x');
          expect(url.searchParams.get('categoryId')).to.equal(String(categoryId));
          expect(url.searchParams.get('status')).to.equal(status ?? null);
          // The cursor is bound to both filters: moved to another filter, it is refused.
          const cursor = url.searchParams.get('cursor')!;
          expectError(
            await get(
              `/v1/pets?limit=${limit}&categoryId=${categoryId === 1 ? 2 : 1}${status === undefined ? '' : `&status=${status}`}&cursor=${cursor}`,
            ),
            400,
            'validation_failed',
          );
          expectError(await get(`/v1/pets?limit=${limit}&cursor=${cursor}`), 400, 'validation_failed');
          expectError(
            await get(
              `/v1/pets?limit=${limit}&categoryId=${categoryId}&status=${status === 'sold' ? 'available' : 'sold'}&cursor=${cursor}`,
            ),
            400,
            'validation_failed',
          );
        }
        seen.push(...items.map((p) => p.id));
        expect(page).to.be.below(400);
      }
      for (let i = 1; i < seen.length; i++) expect(seen[i]!).to.be.greaterThan(seen[i - 1]!);
      const last = seen[seen.length - 1]!;
      expect(seen).to.deep.equal((await all()).filter((p) => matches(p) && p.id <= last).map((p) => p.id));
      for (const id of before) expect(seen).to.include(id);
    });
  }
});

describe('OpenAPI: categories and stability (docs/rules.md §2, §7)', () => {
  const doc = buildOpenApiDocument() as {
    tags: { name: string; description: string }[];
    paths: Record<
      string,
      Record<
        string,
        {
          operationId: string;
          summary: string;
          description: string;
          tags: string[];
          'x-stability': string;
          responses: Record<string, unknown>;
        }
      >
    >;
  };
  /** Keys of a path item that are operations (a path item also holds `parameters`). */
  const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
  const operations = Object.values(doc.paths).flatMap((item) =>
    Object.entries(item)
      .filter(([key]) => HTTP_METHODS.has(key))
      .map(([, op]) => op),
  );

  it('declares the tags pets, categories, store and admin, and marks every operation stable or beta', () => {
    expect(doc.tags.map((t) => t.name)).to.include.members(['pets', 'categories', 'store', 'admin']);
    for (const op of operations) expect(['stable', 'beta'], op.operationId).to.include(op['x-stability']);
    const stability = Object.fromEntries(operations.map((op) => [op.operationId, op['x-stability']]));
    expect(stability).to.include({
      listPets: 'stable',
      createPet: 'stable',
      getPet: 'stable',
      listCategories: 'beta',
      createCategory: 'beta',
      getCategory: 'beta',
    });
  });

  it('describes the three category operations with summary, description, examples and their error responses', () => {
    const byId = Object.fromEntries(operations.map((op) => [op.operationId, op]));
    for (const id of ['listCategories', 'createCategory', 'getCategory']) {
      const op = byId[id]!;
      expect(op.tags).to.deep.equal(['categories']);
      expect(op.summary).to.be.a('string');
      expect(op.description).to.include('Beta');
      expect(JSON.stringify(op.responses)).to.include('"examples"');
      for (const status of ['400', '401', '429', '500', '503'])
        expect(op.responses, `${id} ${status}`).to.have.property(status);
    }
    expect(byId['createCategory']!.responses).to.have.property('409');
    expect(byId['getCategory']!.responses).to.have.property('404');
    expect(JSON.stringify(doc.paths['/pets']!['get'])).to.include('"categoryId"');
  });
});

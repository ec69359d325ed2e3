// docs/rules.md §16 "Finding pets" and "Photos in the page" over HTTP, on the memory store: the new
// parameters of GET /v1/pets, the Link that carries them, expand=photos, and every refusal.
import { expect } from 'chai';
import {
  compareCodePoints,
  foldText,
  foldWords,
  MAX_PETS_CURSOR_LENGTH,
  nameMatches,
  PET_STATUSES,
  srcsetOf,
  type Pet,
} from '@petstore/domain';
import { entryOf } from '@petstore/domain/testing';
import { PetRepositoryInMemory } from '@petstore/adapters-memory';
import { testImage } from '@petstore/adapters-sharp/testing';
import { expectError, KEYS, startServer, type RawResponse, type TestServer } from './support/server.js';

const NAMES = ['Rex', 'Old Rex', 'Renée', 'rexy', 'Émile', 'Mia', 'RENÉ-Paul', 'Ex', 'Bella Rose', 'Zoë', 'Réglisse'];

const body = (res: RawResponse): Pet[] => {
  expect(res.status, res.text).to.equal(200);
  return res.json() as Pet[];
};
const NEXT = /^<([^>]+)>; rel="next"$/;
const nextOf = (res: RawResponse): string | undefined => {
  const link = res.header('link');
  if (link === '') return undefined;
  const match = NEXT.exec(link);
  expect(match, link).to.not.equal(null);
  return match![1]!;
};

describe('GET /v1/pets: the public catalogue (docs/rules.md §16)', function () {
  this.timeout(60_000);
  let s: TestServer;
  const all: Pet[] = [];
  const get = (path: string): Promise<RawResponse> => s.request({ path, key: KEYS.huge });
  /** Every page from `path` on, following `Link: rel="next"` as given. */
  const walk = async (path: string): Promise<Pet[]> => {
    const seen: Pet[] = [];
    for (let next: string | undefined = path; next !== undefined;) {
      const res = await get(next);
      seen.push(...body(res));
      next = nextOf(res);
    }
    return seen;
  };

  before(async () => {
    const repository = new PetRepositoryInMemory();
    for (let i = 0; i < 66; i++) {
      const draft = { name: NAMES[i % NAMES.length]!, categoryId: 1 + (i % 4), status: PET_STATUSES[i % 3]! };
      all.push(repository.createSync(entryOf(draft)));
    }
    s = await startServer({ repository });
  });
  after(() => s.close());

  const matching = (q: string | undefined, statuses: readonly string[], categoryIds: readonly number[]): Pet[] =>
    all.filter(
      (pet) =>
        statuses.includes(pet.status) &&
        categoryIds.includes(pet.categoryId) &&
        (q === undefined || nameMatches(foldWords(pet.name), { words: foldWords(q) })),
    );

  it('q matches word beginnings of the folded names: re finds Rex, Old Rex and Renée, ex no Rex', async () => {
    for (const q of ['re', 'RE', 'rex+old', 'rene', 'ren%C3%A9e', 'ex', 'zo', 'emile', 'paul%20ren', 'r%C3%A9']) {
      const found = await walk(`/v1/pets?limit=100&q=${q}`);
      const expected = matching(new URLSearchParams(`q=${q}`).get('q')!, PET_STATUSES, [1, 2, 3, 4]);
      expect(
        found.map((p) => p.id),
        q,
      ).to.deep.equal(expected.map((p) => p.id));
    }
    const re = body(await get('/v1/pets?limit=100&q=re')).map((p) => p.name);
    expect(new Set(re)).to.include.members(['Rex', 'Old Rex', 'Renée', 'rexy', 'RENÉ-Paul', 'Réglisse']);
    expect(re).to.not.include('Ex');
  });

  it('status and categoryId take comma-separated lists: a pet matches any of them', async () => {
    const found = body(await get('/v1/pets?limit=100&status=sold,available&categoryId=3,1'));
    expect(found.map((p) => p.id)).to.deep.equal(matching(undefined, ['available', 'sold'], [1, 3]).map((p) => p.id));
    expect(body(await get('/v1/pets?limit=100&status=pending')).map((p) => p.id)).to.deep.equal(
      matching(undefined, ['pending'], [1, 2, 3, 4]).map((p) => p.id),
    );
  });

  const byName = (a: Pet, b: Pet): number => compareCodePoints(foldText(a.name), foldText(b.name)) || a.id - b.id;
  const query = 'q=r&status=available,pending&categoryId=1,2,4';
  const matches = (): Pet[] => matching('r', ['available', 'pending'], [1, 2, 4]);

  for (const [sort, order] of [
    ['id', (a: Pet, b: Pet) => a.id - b.id],
    ['-id', (a: Pet, b: Pet) => b.id - a.id],
    ['name', byName],
  ] as const) {
    it(`sort=${sort}, walked by its links (limit 2), gives every match once in its order`, async () => {
      const found = await walk(`/v1/pets?limit=2&${query}&sort=${sort}`);
      expect(found.map((p) => p.id)).to.deep.equal(
        matches()
          .sort(order)
          .map((p) => p.id),
      );
    });
  }

  it('sort=random with a seed: every match once, the same order on every walk, another for another seed', async () => {
    const first = (await walk(`/v1/pets?limit=3&${query}&sort=random&seed=7`)).map((p) => p.id);
    expect([...first].sort((a, b) => a - b)).to.deep.equal(matches().map((p) => p.id));
    expect((await walk(`/v1/pets?limit=5&${query}&sort=random&seed=7`)).map((p) => p.id)).to.deep.equal(first);
    expect((await walk(`/v1/pets?limit=3&${query}&sort=random&seed=8`)).map((p) => p.id)).to.not.deep.equal(first);
  });

  it('Link: rel="next" carries every parameter in use and the cursor; with any of them changed the cursor is refused', async () => {
    const given = '?limit=2&status=available,pending&categoryId=1,2,4&q=r%C3%A9&sort=random&seed=3&expand=photos';
    const next = nextOf(await get(`/v1/pets${given}`))!;
    const params = new URL(next, 'http://x').searchParams;
    expect(Object.fromEntries([...params].filter(([name]) => name !== 'cursor'))).to.deep.equal({
      limit: '2',
      status: 'available,pending',
      categoryId: '1,2,4',
      q: 'ré',
      sort: 'random',
      seed: '3',
      expand: 'photos',
    });
    expect(params.get('cursor')).to.be.a('string');
    expect(body(await get(next))).to.have.length.above(0);
    for (const [name, other] of [
      ['q', 'rex'],
      ['status', 'available'],
      ['categoryId', '1,2'],
      ['seed', '4'],
    ] as const) {
      const changed = new URLSearchParams(params);
      changed.set(name, other);
      const { message } = expectError(await get(`/v1/pets?${changed.toString()}`), 400, 'validation_failed');
      expect(message, name).to.include('cursor');
    }
    // expand changes no position: the same cursor serves the page without photos.
    const without = new URLSearchParams(params);
    without.delete('expand');
    expect(body(await get(`/v1/pets?${without.toString()}`)).map((p) => p.id)).to.deep.equal(
      body(await get(next)).map((p) => p.id),
    );
  });

  it('a name sort pages past names of 200 four-byte characters: the cursor stays within its bound', async () => {
    const repository = new PetRepositoryInMemory();
    for (let i = 0; i < 3; i++)
      repository.createSync(entryOf({ name: '🐶'.repeat(200), categoryId: 1, status: 'available' }));
    const other = await startServer({ repository });
    try {
      const next = nextOf(await other.request({ path: '/v1/pets?limit=1&sort=name', key: KEYS.huge }))!;
      const cursor = new URL(next, 'http://x').searchParams.get('cursor')!;
      expect(cursor.length).to.be.within(64, MAX_PETS_CURSOR_LENGTH);
      const res = await other.request({ path: next, key: KEYS.huge });
      expect(body(res).map((p) => p.id)).to.deep.equal([2]);
    } finally {
      await other.close();
    }
  });

  describe('expand=photos', () => {
    let petWith: number;
    let petWithout: number;
    let uploaded: { id: number; width: number; height: number; contentType: string }[];
    before(async () => {
      const create = async (name: string): Promise<number> =>
        ((await s.postJson(`{"name":"${name}","categoryId":1}`)).json() as Pet).id;
      petWith = await create('Photogenic Zed');
      petWithout = await create('Zed Shy');
      uploaded = [];
      for (const [format, width, height] of [
        ['png', 500, 300],
        ['jpeg', 200, 400],
      ] as const) {
        const res = await s.request({
          method: 'POST',
          path: `/v1/pets/${petWith}/photos`,
          key: KEYS.admin,
          headers: { 'content-type': `image/${format}` },
          body: await testImage({ format, width, height, content: 'photo' }),
        });
        expect(res.status, res.text).to.equal(201);
        uploaded.push(res.json() as { id: number; width: number; height: number; contentType: string });
      }
    });

    it('each pet of the page carries its photos in ascending id, each { id, contentType, width, height, url, srcset }; [] when none', async () => {
      const page = (await get('/v1/pets?q=zed&expand=photos')).json() as (Pet & { photos: unknown[] })[];
      expect(page.map((p) => p.id)).to.deep.equal([petWith, petWithout]);
      const views = uploaded.map((photo) => {
        const url = `/v1/pets/${petWith}/photos/${photo.id}?sig=test`;
        return {
          id: photo.id,
          contentType: photo.contentType,
          width: photo.width,
          height: photo.height,
          url,
          srcset: srcsetOf(url, photo.width),
        };
      });
      expect(page[0]).to.deep.equal({
        id: petWith,
        name: 'Photogenic Zed',
        categoryId: 1,
        status: 'available',
        photos: views,
      });
      expect(Object.keys(page[0]!)).to.deep.equal(['id', 'name', 'categoryId', 'status', 'photos']);
      expect(Object.keys(page[0]!.photos[0] as object)).to.deep.equal([
        'id',
        'contentType',
        'width',
        'height',
        'url',
        'srcset',
      ]);
      expect(page[1]).to.deep.equal({
        id: petWithout,
        name: 'Zed Shy',
        categoryId: 1,
        status: 'available',
        photos: [],
      });
    });

    it('without expand a pet is exactly as in §1', async () => {
      const page = body(await get('/v1/pets?q=zed'));
      expect(page.map((p) => Object.keys(p))).to.deep.equal([
        ['id', 'name', 'categoryId', 'status'],
        ['id', 'name', 'categoryId', 'status'],
      ]);
    });
  });

  describe('bad input (docs/rules.md §3): a 400 naming the parameter, bounded, never an echo', () => {
    const LONG = 'x'.repeat(5000);
    const ids = (n: number): string => Array.from({ length: n }, (_, i) => i + 1).join(',');
    const refusals: readonly (readonly [string, string])[] = [
      ['status=available,', 'status'],
      ['status=,available', 'status'],
      ['status=available,,sold', 'status'],
      ['status=available,available', 'status'],
      ['status=adopted', 'status'],
      [`status=available,${LONG}`, 'status'],
      ['status=sold&status=pending', 'status'],
      ['categoryId=1,1', 'categoryId'],
      ['categoryId=1,', 'categoryId'],
      [`categoryId=${ids(21)}`, 'categoryId'],
      ['categoryId=0', 'categoryId'],
      ['categoryId=007', 'categoryId'],
      ['categoryId=1,x', 'categoryId'],
      [`categoryId=1,${LONG}`, 'categoryId'],
      ['q=', 'q'],
      ['q=--', 'q'],
      [`q=${'a'.repeat(101)}`, 'q'],
      [`q=${LONG}`, 'q'],
      ['q=rex&q=mia', 'q'],
      ['sort=desc', 'sort'],
      [`sort=${LONG}`, 'sort'],
      ['sort=random', 'seed'],
      ['seed=5', 'seed'],
      ['sort=name&seed=5', 'seed'],
      ['sort=random&seed=-1', 'seed'],
      ['sort=random&seed=01', 'seed'],
      ['sort=random&seed=2147483648', 'seed'],
      [`sort=random&seed=${LONG}`, 'seed'],
      ['expand=photo', 'expand'],
      ['expand=photos,photos', 'expand'],
      ['expand=photos&expand=photos', 'expand'],
      [`expand=${LONG}`, 'expand'],
      [`sort=name&cursor=${'A'.repeat(MAX_PETS_CURSOR_LENGTH + 1)}`, 'cursor'],
    ];
    for (const [query, name] of refusals) {
      it(`${query.slice(0, 60)} → 400 naming ${name}`, async () => {
        const res = await get(`/v1/pets?${query}`);
        const { message } = expectError(res, 400, 'validation_failed');
        expect(message).to.match(new RegExp(`\\b${name}\\b`));
        expect(Buffer.byteLength(res.text)).to.be.at.most(2048);
        expect(res.text).to.not.include('x'.repeat(65));
        expect(res.text).to.not.include('A'.repeat(65));
      });
    }

    it('a refusal quotes the value as sent, not as read (a number past 2^53 is not rounded)', async () => {
      const { message } = expectError(await get('/v1/pets?categoryId=9999999999999999'), 400, 'validation_failed');
      expect(message).to.include("'9999999999999999'");
      const seed = expectError(await get('/v1/pets?sort=random&seed=9999999999999999'), 400, 'validation_failed');
      expect(seed.message).to.include("'9999999999999999'");
    });

    it('the sort refusal lists the four orders', async () => {
      const { message } = expectError(await get('/v1/pets?sort=newest'), 400, 'validation_failed');
      for (const sort of ['id', '-id', 'name', 'random']) expect(message).to.include(sort);
    });

    it('hostile q values are folded and answered 200 or 400 (naming q), never 5xx', async () => {
      const hostile = [
        '%CC%81'.repeat(100),
        `e${'%CC%81'.repeat(99)}`,
        '%CC%81'.repeat(1000),
        '%F0%9F%90%B6'.repeat(100),
        `rex${'%F0%9F%90%B6'.repeat(97)}`,
        '%E2%80%8F'.repeat(100),
        `%E2%80%8Frex%E2%80%8F`,
        '%00',
        'rex%00',
        '%ED%A0%80',
        'r%ED%A0%80e%ED%B0%80x',
        '%ED%A0%80'.repeat(200),
        '%FF%FE',
        '%E2%80%AE%E2%80%AD'.repeat(50),
        'ﷺ'.repeat(100),
        `${'ﷺ'.repeat(34)}`,
      ];
      for (const q of hostile) {
        for (const sort of ['id', 'name']) {
          const res = await get(`/v1/pets?q=${encodeURI(q).replace(/%25/g, '%')}&sort=${sort}`);
          expect([200, 400], `${q.slice(0, 40)}: ${res.text.slice(0, 200)}`).to.include(res.status);
          if (res.status === 400) expect(expectError(res, 400, 'validation_failed').message).to.match(/\bq\b/);
          else expect(res.json()).to.be.an('array');
        }
      }
    });
  });
});

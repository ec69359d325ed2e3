// docs/rules.md §2 GET /v1/pets: the query rules, the order, and the pagination by Link rel="next".
import { expect } from 'chai';
import { PET_STATUSES, type Pet, type PetStatus } from '@petstore/domain';
import { PetRepositoryInMemory } from '@petstore/adapters-memory';
import { expectError, KEYS, startServer, type RawResponse, type TestServer } from './support/server.js';
import { entryOf } from '@petstore/domain/testing';

const NEXT = /^<([^>]+)>; rel="next"$/;
const nextLink = (res: RawResponse): string | undefined => {
  const link = res.header('link');
  if (link === '') return undefined;
  const match = NEXT.exec(link);
  expect(match, `Link: ${link}`).to.not.equal(null);
  return match![1]!;
};
const pets = (res: RawResponse): Pet[] => {
  expect(res.status, res.text).to.equal(200);
  expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
  const body = res.json();
  expect(body).to.be.an('array');
  return body as Pet[];
};
const statusOf = (i: number): PetStatus => PET_STATUSES[i % 3]!;

describe('GET /v1/pets (docs/rules.md §2)', () => {
  describe('query rules', () => {
    let s: TestServer;
    before(async () => {
      const repository = new PetRepositoryInMemory();
      for (let i = 0; i < 45; i++)
        repository.createSync(entryOf({ name: `pet ${i}`, categoryId: 1 + (i % 4), status: statusOf(i) }));
      s = await startServer({ repository });
    });
    after(() => s.close());
    const list = (query: string): Promise<RawResponse> => s.request({ path: `/v1/pets${query}`, key: KEYS.huge });

    it('answers a plain JSON array of Pet in ascending id order, 20 by default', async () => {
      const page = pets(await list(''));
      expect(page).to.have.length(20);
      expect(page.map((p) => p.id)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(page[0]).to.deep.equal({ id: 1, name: 'pet 0', categoryId: 1, status: 'available' });
      expect(pets(await list('?limit=20'))).to.deep.equal(page);
    });

    it('takes limit from 1 to 100', async () => {
      expect(pets(await list('?limit=1'))).to.have.length(1);
      expect(pets(await list('?limit=7'))).to.have.length(7);
      const all = pets(await list('?limit=100'));
      expect(all).to.have.length(45);
      expect(all.map((p) => p.id)).to.deep.equal(Array.from({ length: 45 }, (_, i) => i + 1));
    });

    it('refuses any other limit with 400 validation_failed naming limit', async () => {
      for (const limit of [
        '0',
        '101',
        '-1',
        '1.5',
        'abc',
        '',
        '007',
        '01',
        '+5',
        '1e1',
        '%205',
        '5%20',
        '0x10',
        '1000',
        '99999999999999999999',
        '-0',
        '%EF%BC%95',
      ]) {
        const { message } = expectError(await list(`?limit=${limit}`), 400, 'validation_failed');
        expect(message, limit).to.include('limit');
      }
      expectError(await list('?limit'), 400, 'validation_failed');
    });

    it('refuses a repeated limit or status with 400 validation_failed', async () => {
      expectError(await list('?limit=5&limit=5'), 400, 'validation_failed');
      expectError(await list('?limit=5&limit=6'), 400, 'validation_failed');
      expectError(await list('?status=sold&status=sold'), 400, 'validation_failed');
      expectError(await list('?status=sold&status=pending'), 400, 'validation_failed');
    });

    it('filters by status, exactly one of the three, case-sensitive', async () => {
      for (const status of PET_STATUSES) {
        const page = pets(await list(`?status=${status}&limit=100`));
        expect(page).to.have.length(15);
        for (const pet of page) expect(pet.status).to.equal(status);
        const ids = page.map((p) => p.id);
        expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
      }
      for (const status of ['Available', 'AVAILABLE', 'SOLD', '', 'availabl', 'sold%20', 'adopted', 'null']) {
        const { message } = expectError(await list(`?status=${status}`), 400, 'validation_failed');
        expect(message, status).to.include('status');
      }
    });

    it('ignores unknown query parameters', async () => {
      const plain = pets(await list('?limit=5&status=sold'));
      expect(pets(await list('?limit=5&status=sold&foo=bar&Limit=1000&STATUS=x&page=9&offset=3'))).to.deep.equal(plain);
      expect(pets(await list('?order=desc&orderBy=name&Sort=name&Q=x'))).to.deep.equal(pets(await list('')));
    });
  });

  describe('pagination', () => {
    let s: TestServer;
    let repository: PetRepositoryInMemory;
    beforeEach(async () => {
      repository = new PetRepositoryInMemory();
      s = await startServer({ repository });
    });
    afterEach(() => s.close());
    const get = (path: string): Promise<RawResponse> => s.request({ path, key: KEYS.huge });

    it('gives rel="next" only when more items exist: 21 pets at limit 7 are three full pages, the last without next', async () => {
      for (let i = 0; i < 21; i++) repository.createSync(entryOf({ name: `p${i}`, categoryId: 1, status: 'sold' }));
      const seen: number[] = [];
      let path: string | undefined = '/v1/pets?limit=7';
      let pages = 0;
      while (path !== undefined) {
        const res = await get(path);
        const page = pets(res);
        expect(page).to.have.length(7);
        seen.push(...page.map((p) => p.id));
        path = nextLink(res);
        pages++;
      }
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(Array.from({ length: 21 }, (_, i) => i + 1));
      // 20 pets at the default limit: one page, no next; 21: next.
      expect(nextLink(await get('/v1/pets?limit=21'))).to.equal(undefined);
      expect(nextLink(await get('/v1/pets?limit=20'))).to.be.a('string');
    });

    it('an empty catalogue is one empty page without next', async () => {
      const res = await get('/v1/pets?status=pending');
      expect(pets(res)).to.deep.equal([]);
      expect(nextLink(res)).to.equal(undefined);
    });

    for (const [limit, status] of [
      [7, 'pending'],
      [13, undefined],
      [100, 'sold'],
      [1, 'available'],
    ] as const) {
      it(`walking the links (limit ${limit}, status ${status ?? 'none'}) over 300 pets visits each matching pet exactly once, while others create pets`, async () => {
        for (let i = 0; i < 300; i++)
          repository.createSync(entryOf({ name: `seed ${i}`, categoryId: 1, status: statusOf(i) }));
        const before = (await repository.list({ order: { sort: 'id' }, limit: 10_000 })).pets.filter(
          (p) => status === undefined || p.status === status,
        );
        const seen: Pet[] = [];
        let path: string | undefined = `/v1/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}`;
        let page = 0;
        while (path !== undefined) {
          // Other clients create pets of every status while the walk is under way.
          const creates =
            page < 25
              ? PET_STATUSES.map((st, k) =>
                  s.postJson(JSON.stringify({ name: `during ${page}.${k}`, categoryId: 2, status: st })),
                )
              : [];
          const [res, ...made] = await Promise.all([get(path), ...creates]);
          for (const m of made) expect(m.status).to.equal(201);
          const items = pets(res);
          const next = nextLink(res);
          if (next !== undefined) {
            expect(items, 'a page with rel="next" is full').to.have.length(limit);
            const url = new URL(next, 'http://x');
            expect(url.pathname).to.equal('/v1/pets');
            expect(url.searchParams.get('limit')).to.equal(String(limit));
            expect(url.searchParams.get('status')).to.equal(status ?? null);
            expect(url.searchParams.get('cursor')).to.be.a('string');
          } else {
            expect(items.length).to.be.within(1, limit);
          }
          seen.push(...items);
          path = next;
          page++;
          expect(page, 'the walk ends').to.be.below(400);
        }
        const ids = seen.map((p) => p.id);
        for (let i = 1; i < ids.length; i++) expect(ids[i]!, 'ascending, no pet twice').to.be.greaterThan(ids[i - 1]!);
        for (const pet of seen) if (status !== undefined) expect(pet.status).to.equal(status);
        // Every pet that matched when the walk began was visited...
        const seenIds = new Set(ids);
        for (const pet of before) expect(seenIds.has(pet.id), `pet ${pet.id} visited`).to.equal(true);
        // ...and nothing matching was skipped up to where the walk ended, created during it or not.
        const last = ids[ids.length - 1]!;
        const upToLast = (await repository.list({ order: { sort: 'id' }, limit: 10_000 })).pets.filter(
          (p) => p.id <= last && (status === undefined || p.status === status),
        );
        expect(ids).to.deep.equal(upToLast.map((p) => p.id));
        expect(ids.length).to.be.greaterThan(before.length - 1);
      });
    }

    describe('cursors', () => {
      const cursorOf = (res: RawResponse): string => new URL(nextLink(res)!, 'http://x').searchParams.get('cursor')!;
      beforeEach(() => {
        for (let i = 0; i < 30; i++)
          repository.createSync(entryOf({ name: `p${i}`, categoryId: 1, status: statusOf(i) }));
      });

      it('the next URL, followed as given, returns the next page', async () => {
        const first = await get('/v1/pets?limit=4&status=sold');
        const second = pets(await get(nextLink(first)!));
        expect(second.map((p) => p.id)).to.deep.equal([15, 18, 21, 24]);
      });

      it('a tampered cursor is 400 validation_failed', async () => {
        const cursor = cursorOf(await get('/v1/pets?limit=4'));
        const flip = (c: string, i: number): string => c.slice(0, i) + (c[i] === 'A' ? 'B' : 'A') + c.slice(i + 1);
        const tampered = [
          flip(cursor, 0),
          flip(cursor, Math.floor(cursor.length / 2)),
          flip(cursor, cursor.length - 1),
          cursor.slice(0, -1),
          cursor.slice(1),
          `${cursor}A`,
          `${cursor}AAAA`,
          cursor.toUpperCase(),
          'abc',
          'x'.repeat(97),
          Buffer.from('c1.8.*.0').toString('base64url'),
          '%00',
          '',
        ];
        for (const bad of tampered) {
          if (bad === cursor) continue;
          const { message } = expectError(
            await get(`/v1/pets?limit=4&cursor=${encodeURIComponent(bad)}`),
            400,
            'validation_failed',
          );
          expect(message, bad).to.include('cursor');
        }
        expectError(await get(`/v1/pets?limit=4&cursor=${cursor}&cursor=${cursor}`), 400, 'validation_failed');
      });

      it('a cursor used with another status filter (a foreign cursor) is 400 validation_failed', async () => {
        const pending = cursorOf(await get('/v1/pets?limit=2&status=pending'));
        const unfiltered = cursorOf(await get('/v1/pets?limit=2'));
        for (const path of [
          `/v1/pets?limit=2&status=sold&cursor=${pending}`,
          `/v1/pets?limit=2&status=available&cursor=${pending}`,
          `/v1/pets?limit=2&cursor=${pending}`,
          `/v1/pets?limit=2&status=pending&cursor=${unfiltered}`,
        ]) {
          expectError(await get(path), 400, 'validation_failed');
        }
        // The same cursors with their own filter work, also with another limit.
        expect(pets(await get(`/v1/pets?limit=2&status=pending&cursor=${pending}`)).map((p) => p.id)).to.deep.equal([
          8, 11,
        ]);
        expect(pets(await get(`/v1/pets?limit=3&cursor=${unfiltered}`)).map((p) => p.id)).to.deep.equal([3, 4, 5]);
      });
    });
  });
});

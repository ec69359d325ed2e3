import { expect } from 'chai';
import fc from 'fast-check';
import type { Pet } from '../src/index.js';
import {
  assemblePage,
  byId,
  decodeCursor,
  encodeCursor,
  pageScope,
  PET_STATUSES,
  readPageRequest,
} from '../src/index.js';

const afterIdArb = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
/** Scopes as the lists make them: a list name and some of its filters. */
const scopeArb = fc
  .record({
    list: fc.constantFrom('pets', 'categories', 'orders', 'keys'),
    status: fc.option(fc.constantFrom(...PET_STATUSES, 'placed', 'approved'), { nil: undefined }),
    categoryId: fc.option(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { nil: undefined }),
    owner: fc.option(fc.constantFrom('key_0123456789ab', 'key_ba9876543210', '*'), { nil: undefined }),
  })
  .map(({ list, ...filters }) => pageScope(list, filters));

describe('pagination', () => {
  it('property: a cursor decodes to its position in the listing it was made for', () => {
    fc.assert(
      fc.property(afterIdArb, scopeArb, (afterId, scope) => {
        expect(decodeCursor(encodeCursor(afterId, scope), scope)).to.equal(afterId);
      }),
    );
  });

  it('property: a cursor is refused by every other listing (another list or other filters)', () => {
    fc.assert(
      fc.property(afterIdArb, scopeArb, scopeArb, (afterId, scope, other) => {
        fc.pre(scope !== other);
        expect(decodeCursor(encodeCursor(afterId, scope), other)).to.equal(undefined);
      }),
    );
  });

  it('property: the scope is canonical: the order filters are given in does not matter, absent ones do not count', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('a', 'b', 'status', 'categoryId'), fc.oneof(fc.string(), fc.nat())),
        (filters) => {
          const reversed = Object.fromEntries(Object.entries(filters).reverse());
          expect(pageScope('pets', reversed)).to.equal(pageScope('pets', { ...filters, none: undefined }));
        },
      ),
    );
    expect(pageScope('pets', { status: 'sold' })).to.not.equal(pageScope('pets', { categoryId: 'sold' }));
    expect(pageScope('pets')).to.not.equal(pageScope('categories'));
  });

  it('property: any change to a cursor (a character replaced, removed or added) is rejected', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/.%';
    const editArb = fc.oneof(
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), ch: fc.constantFrom(...alphabet) }),
      fc.record({ kind: fc.constant('remove' as const), at: fc.nat(), ch: fc.constant('') }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), ch: fc.constantFrom(...alphabet) }),
    );
    fc.assert(
      fc.property(afterIdArb, scopeArb, fc.array(editArb, { minLength: 1, maxLength: 3 }), (afterId, scope, edits) => {
        const original = encodeCursor(afterId, scope);
        let cursor = original;
        for (const e of edits) {
          const at = e.at % (cursor.length + 1);
          if (e.kind === 'replace') cursor = cursor.slice(0, at) + e.ch + cursor.slice(at + 1);
          else if (e.kind === 'remove') cursor = cursor.slice(0, at) + cursor.slice(at + 1);
          else cursor = cursor.slice(0, at) + e.ch + cursor.slice(at);
        }
        fc.pre(cursor !== original);
        expect(decodeCursor(cursor, scope)).to.equal(undefined);
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects texts it never issued', () => {
    for (const text of ['', 'abc', '!!!!', 'x'.repeat(200), encodeCursor(5, 'pets') + '=']) {
      expect(decodeCursor(text, 'pets')).to.equal(undefined);
    }
  });

  it('reads a page request: limit 1–100 (default 20), and a cursor of this listing only', () => {
    expect(readPageRequest({}, 'pets')).to.deep.equal({ ok: true, value: { limit: 20, afterId: 0 } });
    for (const limit of [0, 101, -1, 1.5, '5', null]) {
      const r = readPageRequest({ limit }, 'pets');
      expect(!r.ok && r.error.field, String(limit)).to.equal('limit');
    }
    const cursor = encodeCursor(7, 'pets?status=sold');
    expect(readPageRequest({ limit: 5, cursor }, 'pets?status=sold')).to.deep.equal({
      ok: true,
      value: { limit: 5, afterId: 7 },
    });
    for (const [input, scope] of [
      [{ cursor }, 'pets'],
      [{ cursor: 7 }, 'pets?status=sold'],
      [{ cursor: cursor.slice(1) }, 'pets?status=sold'],
    ] as const) {
      const r = readPageRequest(input, scope);
      expect(!r.ok && r.error.field).to.equal('cursor');
    }
  });

  it('assembles a page from limit + 1 rows: the extra row only signals the next page', () => {
    const pets: Pet[] = [1, 2, 3].map((id) => ({ id, name: `p${id}`, categoryId: 1, status: 'available' }));
    expect(assemblePage(pets.slice(0, 2), 2, 'pets', byId)).to.deep.equal({ items: pets.slice(0, 2) });
    const page = assemblePage(pets, 2, 'pets?status=available', byId);
    expect(page.items).to.deep.equal(pets.slice(0, 2));
    expect(decodeCursor(page.nextCursor!, 'pets?status=available')).to.equal(2);
  });
});

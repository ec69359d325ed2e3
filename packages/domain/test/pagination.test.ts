import { expect } from 'chai';
import fc from 'fast-check';
import type { CursorPosition, Pet } from '../src/index.js';
import { assemblePage, decodeCursor, encodeCursor, PET_STATUSES } from '../src/index.js';

const positionArb: fc.Arbitrary<CursorPosition> = fc.record({
  afterId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  status: fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined }),
});

describe('pagination', () => {
  it('property: a cursor decodes to the position and filter it was made from', () => {
    fc.assert(fc.property(positionArb, (p) => {
      expect(decodeCursor(encodeCursor(p))).to.deep.equal(p);
    }));
  });

  it('property: any change to a cursor (a character replaced, removed or added) is rejected', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/.%';
    const editArb = fc.oneof(
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), ch: fc.constantFrom(...alphabet) }),
      fc.record({ kind: fc.constant('remove' as const), at: fc.nat(), ch: fc.constant('') }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), ch: fc.constantFrom(...alphabet) }),
    );
    fc.assert(
      fc.property(positionArb, fc.array(editArb, { minLength: 1, maxLength: 3 }), (p, edits) => {
        const original = encodeCursor(p);
        let cursor = original;
        for (const e of edits) {
          const at = e.at % (cursor.length + 1);
          if (e.kind === 'replace') cursor = cursor.slice(0, at) + e.ch + cursor.slice(at + 1);
          else if (e.kind === 'remove') cursor = cursor.slice(0, at) + cursor.slice(at + 1);
          else cursor = cursor.slice(0, at) + e.ch + cursor.slice(at);
        }
        fc.pre(cursor !== original);
        expect(decodeCursor(cursor)).to.equal(undefined);
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects texts it never issued', () => {
    for (const text of ['', 'abc', '!!!!', 'x'.repeat(200), encodeCursor({ afterId: 5, status: undefined }) + '=']) {
      expect(decodeCursor(text)).to.equal(undefined);
    }
  });

  it('assembles a page from limit + 1 rows: the extra row only signals the next page', () => {
    const pets: Pet[] = [1, 2, 3].map((id) => ({ id, name: `p${id}`, categoryId: 1, status: 'available' }));
    expect(assemblePage(pets.slice(0, 2), 2, undefined)).to.deep.equal({ items: pets.slice(0, 2) });
    const page = assemblePage(pets, 2, 'available');
    expect(page.items).to.deep.equal(pets.slice(0, 2));
    expect(decodeCursor(page.nextCursor!)).to.deep.equal({ afterId: 2, status: 'available' });
  });
});

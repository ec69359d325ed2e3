// Paging the public catalogue (docs/rules.md §2, §16): the scope a `GET /v1/pets` cursor is bound to,
// the position a page's cursor gives the next read, and what a cursor of a `sort=random` list may
// hold. The cursor is bound to q, status, categoryId, sort and seed: a cursor of one listing is
// refused by every other, and taken by its own (however its parameters were written).
import { expect } from 'chai';
import fc from 'fast-check';
import { foldText, pageScope, readCatalogQuery, shuffleStart, type CatalogQueryInput } from '../src/index.js';
import type { CatalogQuery, ListedPets } from '../src/index.js';
import { encodeKeyedCursor } from '../src/pagination/cursor.js';
import { assembleCatalogPage, catalogScope, readCatalogPage } from '../src/pet/catalog-page.js';
import { expectRefusal } from './support/refusals.js';
import { readScope } from './support/page-scope.js';

/** The checked query of `input` (a test premise: every input here is valid). */
const queryOf = (input: CatalogQueryInput): CatalogQuery => {
  const read = readCatalogQuery(input);
  if (!read.ok) throw new Error(`${JSON.stringify(input)}: ${read.error.message}`);
  return read.value;
};

/** What makes two queries one listing (docs/rules.md §16): everything but `expand`. */
const listingOf = ({ expandPhotos: _expand, ...listing }: CatalogQuery): string =>
  JSON.stringify({
    statuses: listing.statuses,
    categoryIds: listing.categoryIds,
    words: listing.q?.words,
    order: listing.order,
  });

/**
 * Query strings of the catalogue over few values, so that two of them often name one listing, and
 * with texts a looser joining would merge: ids 1,23 and 12,3; q "rex old" and "rexold"; "Rex" and "rex".
 */
const inputArb: fc.Arbitrary<CatalogQueryInput> = fc
  .record(
    {
      status: fc.constantFrom('available', 'sold', 'sold,available', 'available,pending,sold'),
      categoryId: fc.constantFrom('1', '3', '1,23', '12,3', '3,1', '123'),
      q: fc.constantFrom('rex', 'Rex', 'rex old', 'rexold', 'old rex', 're'),
      sort: fc.constantFrom('id', '-id', 'name', 'random'),
      seed: fc.constantFrom('0', '1', '7'),
      expand: fc.constant('photos'),
    },
    { requiredKeys: [] },
  )
  .map(({ seed, ...input }) => (input.sort === 'random' ? { ...input, seed: seed ?? '0' } : input));

/** The same listing as `input`, written otherwise: lists reordered, q in other case and spacing, sort=id said or not, expand or not. */
const respelt = (input: CatalogQueryInput): fc.Arbitrary<CatalogQueryInput> =>
  fc
    .record({ reverse: fc.boolean(), upper: fc.boolean(), sayId: fc.boolean(), expand: fc.boolean() })
    .map(({ reverse, upper, sayId, expand }) => {
      const { expand: _expand, sort, ...rest } = input as Record<string, string>;
      const out: Record<string, string> = { ...rest };
      const reorder = (list: string) => (reverse ? list.split(',').reverse().join(',') : list);
      if (rest['status'] !== undefined) out['status'] = reorder(rest['status']);
      if (rest['categoryId'] !== undefined) out['categoryId'] = reorder(rest['categoryId']);
      if (rest['q'] !== undefined) out['q'] = upper ? ` ${rest['q'].toUpperCase()}  ` : rest['q'];
      if (sort !== undefined && sort !== 'id') out['sort'] = sort;
      else if (sayId) out['sort'] = 'id';
      if (expand) out['expand'] = 'photos';
      return out;
    });

/** Two pets as a store lists them (with their shuffle keys), the first one the last of a page of 1. */
const rows: ListedPets = {
  pets: [
    { id: 5, name: 'Rex Old', categoryId: 1, status: 'available' },
    { id: 9, name: 'Rex', categoryId: 1, status: 'available' },
  ],
  shuffleKeys: [77, 4_000_000_000],
};

describe('the scope of a catalogue listing (docs/rules.md §2, §16)', () => {
  it('property: a page’s cursor is taken by its own listing, at the last pet’s position, and refused by every other listing', () => {
    fc.assert(
      fc.property(
        inputArb.chain((issued) => fc.tuple(fc.constant(issued), fc.oneof(inputArb, respelt(issued)))),
        ([issuedFor, readBy]) => {
          const issuer = queryOf(issuedFor);
          const reader = queryOf(readBy);
          const { nextCursor: cursor } = assembleCatalogPage(rows, 1, issuer, catalogScope(issuer));
          expect(cursor).to.be.a('string');
          const read = readCatalogPage({ cursor, limit: 3 }, reader, catalogScope(reader));
          if (listingOf(issuer) !== listingOf(reader)) {
            expectRefusal(read, 'validation_failed', 'cursor');
            return;
          }
          const { order } = issuer;
          const after =
            order.sort === 'id' || order.sort === '-id'
              ? 5
              : order.sort === 'name'
                ? { key: foldText('Rex Old'), id: 5 }
                : { key: 77, id: 5 };
          expect(read).to.deep.equal({
            ok: true,
            value: {
              limit: 3,
              order:
                order.sort === 'random'
                  ? { sort: 'random', start: shuffleStart(order.seed), after }
                  : { ...order, after },
            },
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a cursor in the listings a looser scope would merge with its own', () => {
    const pairs: Array<[CatalogQueryInput, CatalogQueryInput]> = [
      [{}, { sort: '-id' }],
      [{ q: 'rex' }, { q: 'rex', sort: '-id' }],
      [{ categoryId: '1,23' }, { categoryId: '12,3' }],
      [
        { q: 'rex old', sort: 'name' },
        { q: 'rexold', sort: 'name' },
      ],
      [{ status: 'sold,available' }, { status: 'available,sold', sort: 'id', q: 'rex' }],
    ];
    for (const [issuedFor, readBy] of pairs) {
      for (const [a, b] of [
        [issuedFor, readBy],
        [readBy, issuedFor],
      ] as const) {
        const issuer = queryOf(a);
        const reader = queryOf(b);
        const { nextCursor: cursor } = assembleCatalogPage(rows, 1, issuer, catalogScope(issuer));
        expectRefusal(
          readCatalogPage({ cursor }, reader, catalogScope(reader)),
          'validation_failed',
          'cursor',
          `${JSON.stringify(a)} read by ${JSON.stringify(b)}`,
        );
      }
    }
  });

  it('property: a scope names the pets list and exactly its listing: the lists comma-separated, q’s folded words, sort when not id, seed with random', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const query = queryOf(input);
        const filters: Record<string, string> = {};
        if (query.statuses !== undefined) filters['status'] = query.statuses.join(',');
        if (query.categoryIds !== undefined) filters['categoryId'] = query.categoryIds.join(',');
        if (query.q !== undefined) filters['q'] = query.q.words.join(' ');
        if (query.order.sort !== 'id') filters['sort'] = query.order.sort;
        if (query.order.sort === 'random') filters['seed'] = String(query.order.seed);
        expect(readScope(catalogScope(query))).to.deep.equal({ list: 'pets', filters });
      }),
    );
    // A plain list keeps the scope it always had (docs/rules.md §16: nothing changes for it).
    expect(catalogScope(queryOf({ status: 'sold', categoryId: '3' }))).to.equal(
      pageScope('pets', { status: 'sold', categoryId: 3 }),
    );
    expect(catalogScope(queryOf({ q: 'Rex  OLD', sort: 'id' }))).to.equal('pets?q=rex%20old');
  });
});

describe('the cursor of a sort=random list (docs/rules.md §2, §16)', () => {
  /** The listing `sort=random&seed=3` (made in each test, so that a broken scope fails its tests, not the loading of this file). */
  const listing = () => {
    const query = queryOf({ sort: 'random', seed: '3' });
    return { query, scope: catalogScope(query) };
  };
  /** A cursor of `scope` holding `key`, its checksum fitting (a forger can compute it: positions are no secret). */
  const holding = (key: string, scope: string) => encodeKeyedCursor({ key, id: 5 }, scope);

  it('takes the shuffle keys a pet can have, 0 to 2^32 − 1, as the position after which the next page starts', () => {
    const { query, scope } = listing();
    for (const key of [0, 1, 77, 4_294_967_295]) {
      expect(readCatalogPage({ cursor: holding(String(key), scope) }, query, scope)).to.deep.equal({
        ok: true,
        value: { limit: 20, order: { sort: 'random', start: shuffleStart(3), after: { key, id: 5 } } },
      });
    }
  });

  it('refuses a cursor of its listing whose key is no shuffle key the service writes: beyond the circle, or spelt otherwise', () => {
    const { query, scope } = listing();
    for (const key of [
      '4294967296',
      '99999999999',
      '01',
      '00',
      '-0',
      '-1',
      '+1',
      '1e3',
      '0x10',
      '1.0',
      ' 1',
      '1 ',
      '',
      'abc',
      'Rex',
    ]) {
      expectRefusal(readCatalogPage({ cursor: holding(key, scope) }, query, scope), 'validation_failed', 'cursor', key);
    }
  });

  it('a store that lists a pet of a shuffled page without its shuffle key, or with keys that do not line up with its pets, breaks the port: no page (and no unreadable cursor), an error naming the pet', () => {
    const { query, scope } = listing();
    const pets = [
      { id: 5, name: 'Rex', categoryId: 1, status: 'available' },
      { id: 9, name: 'Rex', categoryId: 1, status: 'available' },
    ] as const;
    // No keys, none, one short, one too many: the keys must line up with the pets.
    for (const keyless of [
      { pets },
      { pets, shuffleKeys: [] },
      { pets, shuffleKeys: [8] },
      { pets, shuffleKeys: [8, 9, 10] },
    ]) {
      const keys = keyless.shuffleKeys === undefined ? 'no' : String(keyless.shuffleKeys.length);
      expect(() => assembleCatalogPage(keyless, 1, query, scope)).to.throw(
        Error,
        new RegExp(`pet 5 .*shuffle key \\(${keys} keys for 2 pets\\)`),
      );
      // The last page needs no cursor, so no key.
      expect(assembleCatalogPage(keyless, 2, query, scope).items).to.equal(keyless.pets);
    }
  });
});

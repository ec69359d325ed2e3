// The public catalogue (docs/rules.md §16), the parameters `GET /v1/pets` gains: `status` and `categoryId`
// as comma-separated lists of distinct values (at most 20 ids), `q`, `sort` (id, -id, name,
// random), `seed` (with sort=random only, and required by it) and `expand` (photos). A broken one →
// 400 naming it, quoting at most 64 characters of what was sent (docs/rules.md §3). One value works
// exactly as before.
import { expect } from 'chai';
import fc from 'fast-check';
import { CATALOG_SORTS, MAX_CATEGORY_IDS, PET_STATUSES, readCatalogQuery, SEED_MAX } from '../src/index.js';
import type { CatalogQueryInput } from '../src/index.js';
import { expectRefusal } from './support/refusals.js';

const read = (input: CatalogQueryInput) => {
  const result = readCatalogQuery(input);
  if (!result.ok) throw new Error(`refused: ${result.error.message}`);
  return result.value;
};
/** The refusal of `input`, on `field`, with a message bounded as §3 asks. */
const refusal = (input: CatalogQueryInput, field: string): string => {
  const message = expectRefusal(readCatalogQuery(input), 'validation_failed', field, JSON.stringify(input));
  expect(message.length, 'a bounded message').to.be.below(300);
  expect(message, 'no more than 64 characters of input quoted').to.not.match(/(.)\1{64}/u);
  return message;
};

describe('the list parameters of the public catalogue (docs/rules.md §16)', () => {
  it('takes no parameter as no filter, ascending id, no photos', () => {
    expect(read({})).to.deep.equal({
      statuses: undefined,
      categoryIds: undefined,
      q: undefined,
      order: { sort: 'id' },
      expandPhotos: false,
    });
  });

  it('takes one status or one categoryId exactly as before, as a list of one', () => {
    for (const status of PET_STATUSES) expect(read({ status }).statuses).to.deep.equal([status]);
    expect(read({ categoryId: '7' }).categoryIds).to.deep.equal([7]);
    expect(read({ categoryId: String(Number.MAX_SAFE_INTEGER) }).categoryIds).to.deep.equal([Number.MAX_SAFE_INTEGER]);
    expect(refusal({ status: 'adopted' }, 'status')).to.include('status must be one of available, pending, sold');
    expect(refusal({ categoryId: '0' }, 'categoryId')).to.include('categoryId must be a positive integer');
  });

  it('takes lists of distinct values, in one canonical order (statuses as listed by the rules, ids ascending)', () => {
    expect(read({ status: 'available,pending' }).statuses).to.deep.equal(['available', 'pending']);
    expect(read({ status: 'sold,available' }).statuses).to.deep.equal(['available', 'sold']);
    expect(read({ status: 'sold,pending,available' }).statuses).to.deep.equal(['available', 'pending', 'sold']);
    expect(read({ categoryId: '9,1,4' }).categoryIds).to.deep.equal([1, 4, 9]);
    const twenty = Array.from({ length: MAX_CATEGORY_IDS }, (_, i) => String(100 - i));
    expect(read({ categoryId: twenty.join(',') }).categoryIds).to.have.length(MAX_CATEGORY_IDS);
  });

  it('refuses an empty item, a duplicate, an invalid value, more than 20 ids, or a list given twice, naming the parameter', () => {
    for (const status of ['', ',available', 'available,', 'available,,pending'])
      expect(refusal({ status }, 'status'), JSON.stringify(status)).to.include('empty item');
    for (const categoryId of ['', ',1', '1,', '1,,2'])
      expect(refusal({ categoryId }, 'categoryId'), categoryId).to.include('empty item');
    expect(refusal({ status: 'pending,available,pending' }, 'status')).to.include("'pending' twice");
    expect(refusal({ categoryId: '4,9,4' }, 'categoryId')).to.include("'4' twice");
    for (const status of ['Available', ' available', 'available ', 'available;pending', 'adopted'])
      expect(refusal({ status: `sold,${status}` }, 'status'), status).to.include(`(got '${status}')`);
    for (const id of ['0', '-1', '+1', '01', '1.0', '1e3', '0x1', '9007199254740992', '99999999999999999', '٣', ' 1'])
      expect(refusal({ categoryId: `2,${id}` }, 'categoryId'), id).to.include(`(got '${id}')`);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(',');
    expect(refusal({ categoryId: ids(MAX_CATEGORY_IDS + 1) }, 'categoryId')).to.include('more than 20');
    expect(refusal({ categoryId: ids(100_000) }, 'categoryId')).to.include('more than 20');
    expect(refusal({ status: ['available', 'pending'] }, 'status')).to.include('at most once');
    expect(refusal({ categoryId: ['1', '2'] }, 'categoryId')).to.include('separated by commas');
  });

  it('property: a status list is taken exactly when every item is a status and none repeats', () => {
    const itemArb = fc.constantFrom(...PET_STATUSES, '', 'adopted', 'SOLD');
    fc.assert(
      fc.property(fc.array(itemArb, { minLength: 1, maxLength: 5 }), (items) => {
        const result = readCatalogQuery({ status: items.join(',') });
        const valid = items.every((item) => (PET_STATUSES as readonly string[]).includes(item));
        if (valid && new Set(items).size === items.length) {
          expect(result.ok, items.join(',')).to.equal(true);
          if (result.ok) expect(result.value.statuses).to.deep.equal(PET_STATUSES.filter((s) => items.includes(s)));
        } else expectRefusal(result, 'validation_failed', 'status', items.join(','));
      }),
    );
  });

  it('property: a categoryId list is taken exactly when every item is a canonical id, none repeats, and there are at most 20', () => {
    const itemArb = fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 1, max: 40 }).map(String) },
      { weight: 1, arbitrary: fc.constantFrom('', '0', '007', '1.5', 'x', String(2 ** 53)) },
    );
    fc.assert(
      fc.property(fc.array(itemArb, { minLength: 1, maxLength: 24 }), (items) => {
        const text = items.join(',');
        const result = readCatalogQuery({ categoryId: text });
        const valid = items.every((item) => /^[1-9][0-9]*$/.test(item) && Number(item) <= Number.MAX_SAFE_INTEGER);
        if (valid && new Set(items).size === items.length && items.length <= MAX_CATEGORY_IDS) {
          expect(result.ok, text).to.equal(true);
          if (result.ok) expect(result.value.categoryIds).to.deep.equal(items.map(Number).sort((a, b) => a - b));
        } else expectRefusal(result, 'validation_failed', 'categoryId', text);
      }),
      { numRuns: 300 },
    );
  });

  it('folds q, and refuses one with no word or over 100 characters', () => {
    expect(read({ q: 'Old Renée' }).q).to.deep.equal({ words: ['old', 'renee'] });
    expect(refusal({ q: '--' }, 'q')).to.include('letter or digit');
    expect(refusal({ q: 'x'.repeat(101) }, 'q')).to.include('1 to 100');
    expect(refusal({ q: ['rex', 'bo'] }, 'q')).to.equal('q must be given at most once');
  });

  it('takes the four sorts, a seed with random only and always with it, refusing anything else', () => {
    expect(read({ sort: 'id' }).order).to.deep.equal({ sort: 'id' });
    expect(read({ sort: '-id' }).order).to.deep.equal({ sort: '-id' });
    expect(read({ sort: 'name' }).order).to.deep.equal({ sort: 'name' });
    expect(read({ sort: 'random', seed: '0' }).order).to.deep.equal({ sort: 'random', seed: 0 });
    expect(read({ sort: 'random', seed: String(SEED_MAX) }).order).to.deep.equal({ sort: 'random', seed: SEED_MAX });
    for (const sort of ['', 'ID', 'name,id', '+id', 'shuffle', 'x'.repeat(500)])
      expect(refusal({ sort }, 'sort'), sort).to.include(`one of ${CATALOG_SORTS.join(', ')}`);
    expect(refusal({ sort: 'random' }, 'seed')).to.include('sort=random needs a seed');
    for (const sort of [undefined, 'id', '-id', 'name'])
      expect(refusal({ ...(sort === undefined ? {} : { sort }), seed: '5' }, 'seed')).to.include(
        'only with sort=random',
      );
    for (const seed of ['', '-1', '+1', '01', '1.5', '1e3', String(SEED_MAX + 1), '99999999999', 'x'.repeat(500)])
      expect(refusal({ sort: 'random', seed }, 'seed'), seed).to.include(`0 to ${SEED_MAX}`);
    expect(refusal({ sort: ['name', 'id'] }, 'sort')).to.equal('sort must be given at most once');
    expect(refusal({ sort: 'random', seed: ['1', '2'] }, 'seed')).to.include('at most once');
  });

  it('takes expand=photos and nothing else', () => {
    expect(read({ expand: 'photos' }).expandPhotos).to.equal(true);
    for (const expand of ['', 'Photos', 'photos,photos', 'categories', ' photos'])
      expect(refusal({ expand }, 'expand'), expand).to.include('photos');
    expect(refusal({ expand: ['photos', 'photos'] }, 'expand')).to.include('at most once');
  });

  it('property: a request broken in several places is refused for the first, in the order status, categoryId, q, sort, seed, expand', () => {
    const NAMES = ['status', 'categoryId', 'q', 'sort', 'seed', 'expand'] as const;
    const GOOD = {
      status: 'available,sold',
      categoryId: '3,1',
      q: 'rex',
      sort: 'random',
      seed: '42',
      expand: 'photos',
    };
    const BAD = { status: 'x', categoryId: '1,1', q: '--', sort: 'up', seed: '-3', expand: 'x' };
    fc.assert(
      fc.property(fc.array(fc.constantFrom('good', 'bad', 'absent'), { minLength: 6, maxLength: 6 }), (states) => {
        const input: Record<string, string> = {};
        NAMES.forEach((name, i) => {
          if (states[i] !== 'absent') input[name] = (states[i] === 'good' ? GOOD : BAD)[name];
        });
        const firstBad = NAMES.find((_, i) => states[i] === 'bad');
        const result = readCatalogQuery(input);
        if (firstBad !== undefined) expectRefusal(result, 'validation_failed', firstBad, JSON.stringify(input));
        else {
          // Only sort and seed may still disagree: random without seed, or seed without random.
          const paired = (input['sort'] === 'random') === (input['seed'] !== undefined);
          if (paired) expect(result.ok, JSON.stringify(input)).to.equal(true);
          else expectRefusal(result, 'validation_failed', 'seed', JSON.stringify(input));
        }
      }),
    );
  });

  it('property: whatever is sent, a refusal quotes at most 64 characters of it', () => {
    const valueArb = fc.string({ unit: 'binary', maxLength: 300 });
    fc.assert(
      fc.property(
        fc.constantFrom('status', 'categoryId', 'q', 'sort', 'seed', 'expand'),
        valueArb,
        fc.nat(),
        (name, text, n) => {
          const value = text + 'x'.repeat(n % 200);
          const result = readCatalogQuery({ [name]: value, ...(name === 'seed' ? { sort: 'random' } : {}) });
          if (result.ok) return;
          expect(result.error.message.length, JSON.stringify(value)).to.be.below(64 * 2 + 250);
          expect(result.error.message).to.not.include(Array.from(value).length > 64 ? value : '\u0000never');
        },
      ),
    );
  });
});

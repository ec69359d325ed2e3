import { expect } from 'chai';
import fc from 'fast-check';
import { parseListQuery } from '../src/validation.js';

/** The reference: what Koa's `ctx.query` (URLSearchParams) gives for the three keys. */
const reference = (querystring: string): Record<string, string | string[]> => {
  const params = new URLSearchParams(querystring);
  const out: Record<string, string | string[]> = {};
  for (const key of ['limit', 'status', 'cursor']) {
    const values = params.getAll(key);
    if (values.length === 1) out[key] = values[0]!;
    else if (values.length > 1) out[key] = values;
  }
  return out;
};

describe('list query parsing', () => {
  it('property: reads limit, status and cursor exactly as URLSearchParams does', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        'limit',
        'status',
        'cursor',
        'lim%69t',
        'st%61tus',
        'other',
        '',
        '=',
        '&',
        '+',
        '%',
        '%2',
        '%zz',
        '%20',
        '%26',
        '%3D',
        '%C3%A9',
        '%FF',
        '20',
        'available',
      ),
      fc.string({ unit: fc.constantFrom('a', '1', '=', '&', '+', '%', '2', '0', 'F', ' '), maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const querystring = pieces.join('');
        expect({ ...parseListQuery(querystring) }, JSON.stringify(querystring)).to.deep.equal(reference(querystring));
      }),
      { numRuns: 1000 },
    );
  });
});

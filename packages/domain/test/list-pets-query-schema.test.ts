// docs/rules.md §16: the value lists of GET /v1/pets as the JSON Schema (the one the OpenAPI
// document shows, and the HTTP adapter checks first) states them: `status` is one to three
// statuses joined by commas, `categoryId` one id or a comma list of 2 to 20 positive decimal ids.
import { expect } from 'chai';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ListPetsQuerySchema, PET_STATUSES } from '../src/index.js';

const ajv = new Ajv2020({ strict: false, validateFormats: false });
const accepts = ajv.compile(ListPetsQuerySchema);

const status = fc.constantFrom(...PET_STATUSES);
/** A positive decimal id as the API writes it: no sign, no leading zero, at most 16 digits. */
const canonicalId = fc.bigInt({ min: 1n, max: 9_999_999_999_999_999n }).map(String);

describe('the query schema of GET /v1/pets: value lists (docs/rules.md §16)', () => {
  it('takes one to three statuses joined by commas', () => {
    fc.assert(
      fc.property(fc.array(status, { minLength: 1, maxLength: 3 }), (statuses) => {
        expect(accepts({ status: statuses.join(',') }), statuses.join(',')).to.equal(true);
      }),
    );
  });

  it('refuses a list holding anything but a status, an empty item, or more than three items', () => {
    fc.assert(
      fc.property(
        fc.array(status, { minLength: 0, maxLength: 2 }),
        fc.constantFrom('', 'adopted', 'Available', 'avail', 'available ', 'sold,'),
        fc.nat(),
        (statuses, bad, at) => {
          const items: string[] = [...statuses];
          items.splice(at % (items.length + 1), 0, bad);
          expect(accepts({ status: items.join(',') }), items.join(',')).to.equal(false);
        },
      ),
    );
    expect(accepts({ status: 'available,pending,sold,available' })).to.equal(false);
  });

  it('takes a comma list of 2 to 20 canonical ids as text, and refuses other lists', () => {
    fc.assert(
      fc.property(fc.array(canonicalId, { minLength: 2, maxLength: 20 }), (ids) => {
        expect(accepts({ categoryId: ids.join(',') }), ids.join(',')).to.equal(true);
      }),
    );
    for (const bad of ['1,', ',1', '1,,2', '01,2', '1,-2', '1,2.5', '1, 2', 'a,b', Array(21).fill('1').join(',')])
      expect(accepts({ categoryId: bad }), bad).to.equal(false);
  });
});

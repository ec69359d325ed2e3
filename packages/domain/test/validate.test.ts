import { expect } from 'chai';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { NewPetSchema, validateNewPet } from '../src/index.js';
import { validNameArb } from '../test-support/arbitraries.js';

const ajv = new Ajv2020({ strict: true, allErrors: false });
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
const schemaAccepts = ajv.compile(NewPetSchema);

const rejects = (body: unknown, field: string) => {
  const result = validateNewPet(body);
  expect(result.ok, JSON.stringify(body)).to.equal(false);
  if (!result.ok) {
    expect(result.error.code).to.equal('validation_failed');
    expect(result.error.field).to.equal(field);
    expect(result.error.message).to.be.a('string').and.not.equal('');
  }
  expect(schemaAccepts(body), `schema on ${JSON.stringify(body)}`).to.equal(false);
};

const accepts = (body: unknown) => {
  const result = validateNewPet(body);
  expect(result.ok, JSON.stringify(body)).to.equal(true);
  expect(schemaAccepts(body), `schema on ${JSON.stringify(body)}`).to.equal(true);
  return result.ok ? result.value : undefined;
};

describe('NewPet validation (docs/rules.md §1)', () => {
  it('accepts a minimal body and stores `available` when status is omitted', () => {
    expect(accepts({ name: 'Rex', categoryId: 1 })).to.deep.equal({ name: 'Rex', categoryId: 1, status: 'available' });
  });

  it('keeps the name exactly as sent: no trimming, no normalisation', () => {
    const name = '  Cafe\u0301 🐈‍⬛ ';
    expect(accepts({ name, categoryId: 3, status: 'pending' })?.name).to.equal(name);
  });

  it('counts the name in code points: 200 astral characters pass, 201 do not', () => {
    accepts({ name: '🐕'.repeat(200), categoryId: 1 });
    rejects({ name: '🐕'.repeat(201), categoryId: 1 }, 'name');
    accepts({ name: 'a'.repeat(200), categoryId: 1 });
    rejects({ name: 'a'.repeat(201), categoryId: 1 }, 'name');
  });

  it('rejects an empty, white-space-only, non-string or ill-formed name', () => {
    for (const name of ['', ' ', '\t\n', '\u00a0\u2003', 5, null, true, ['a'], { a: 1 }, 'ok\ud800', '\udc00x']) {
      rejects({ name, categoryId: 1 }, 'name');
    }
  });

  it('takes categoryId as a JSON integer from 1 to 2^53 − 1, and 1.0 as 1', () => {
    accepts({ name: 'a', categoryId: Number.MAX_SAFE_INTEGER });
    expect(accepts(JSON.parse('{"name":"a","categoryId":1.0}'))?.categoryId).to.equal(1);
    for (const categoryId of [0, -1, 1.5, 2 ** 53, '5', true, null, [], {}, Number.NaN, Infinity]) {
      rejects({ name: 'a', categoryId }, 'categoryId');
    }
  });

  it('takes status exactly as one of the three values; null and other cases are rejected', () => {
    for (const status of ['available', 'pending', 'sold'])
      expect(accepts({ name: 'a', categoryId: 1, status })?.status).to.equal(status);
    for (const status of ['Available', 'SOLD', '', null, 1, 'adopted'])
      rejects({ name: 'a', categoryId: 1, status }, 'status');
  });

  it('requires name and categoryId', () => {
    rejects({ categoryId: 1 }, 'name');
    rejects({ name: 'a' }, 'categoryId');
  });

  it('is closed: unknown properties are named, `id` is refused, and prototype keys never reach a prototype', () => {
    rejects({ name: 'a', categoryId: 1, colour: 'red' }, 'colour');
    const withId = validateNewPet({ id: 5, name: 'a', categoryId: 1 });
    expect(!withId.ok && withId.error.message).to.match(/id is assigned by the service/);
    expect(schemaAccepts({ id: 5, name: 'a', categoryId: 1 })).to.equal(false);
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const body = JSON.parse(`{"name":"a","categoryId":1,"${key}":{"polluted":true}}`) as object;
      rejects(body, key);
    }
    expect(({} as Record<string, unknown>)['polluted']).to.equal(undefined);
  });

  it('requires a JSON object', () => {
    for (const body of [null, undefined, [], 'a', 1, true]) {
      const result = validateNewPet(body);
      expect(!result.ok && result.error.field).to.equal('body');
    }
  });

  describe('property: the domain validator accepts exactly what the exported JSON Schema accepts', () => {
    const weird = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(0, -1, 1.5, 2 ** 53, 2 ** 53 - 1, 1e300, '', ' ', '\ud800', 'Available', null, true, 'sold'),
      fc.string({ unit: 'binary', maxLength: 5 }),
    );
    const nameArb = fc.oneof(
      validNameArb,
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom('', ' \t', '\u3000', 'a\ud800', '\udfff', 'x'.repeat(201), '🐕'.repeat(200)),
      fc.string({ unit: fc.constantFrom(' ', '\n', '\u00a0', '\u2028', '\ufeff'), minLength: 1, maxLength: 4 }),
    );
    const baseArb = fc.record(
      {
        name: fc.oneof({ weight: 4, arbitrary: nameArb }, { weight: 1, arbitrary: weird }),
        categoryId: fc.oneof(
          { weight: 4, arbitrary: fc.integer({ min: -2, max: Number.MAX_SAFE_INTEGER }) },
          { weight: 1, arbitrary: weird },
          { weight: 1, arbitrary: fc.double() },
        ),
        status: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom('available', 'pending', 'sold') },
          { weight: 1, arbitrary: weird },
        ),
      },
      { requiredKeys: [] },
    );
    const extraKeyArb = fc.option(
      fc.tuple(
        fc.oneof(
          fc.constantFrom('id', '__proto__', 'constructor', 'prototype', 'Name', 'status '),
          fc.string({ maxLength: 6 }),
        ),
        weird,
      ),
      { nil: undefined, freq: 3 },
    );
    const bodyArb = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.tuple(baseArb, extraKeyArb).map(([base, extra]) => {
          const body: Record<string, unknown> = { ...base };
          if (extra)
            Object.defineProperty(body, extra[0], {
              value: extra[1],
              enumerable: true,
              writable: true,
              configurable: true,
            });
          return body;
        }),
      },
      { weight: 1, arbitrary: weird },
    );

    it('agrees on acceptance for generated near-valid and invalid bodies', () => {
      fc.assert(
        fc.property(bodyArb, (body) => {
          // Round-trip through JSON so the body is exactly what a parser would hand over.
          const parsed: unknown = JSON.parse(JSON.stringify(body) ?? 'null');
          expect(validateNewPet(parsed).ok).to.equal(schemaAccepts(parsed));
        }),
        { numRuns: 1000 },
      );
    });
  });
});

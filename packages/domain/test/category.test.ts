// docs/rules.md §7: the category body rules, held to the JSON Schema that validates requests and
// describes them in the OpenAPI document (one source).
import { expect } from 'chai';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { categoryNameKey, NewCategorySchema, validateNewCategory } from '../src/index.js';
import { categoryNameArb } from '../test-support/arbitraries.js';

const ajv = new Ajv2020({ strict: true, allErrors: false });
const schemaAccepts = ajv.compile(NewCategorySchema);

describe('NewCategory validation (docs/rules.md §7)', () => {
  it('takes a name of 1–100 code points with a character that is not white space, stored as sent; nothing else', () => {
    for (const name of ['Dogs', ' Cats ', 'é', '🐕'.repeat(100), 'x'.repeat(100)]) {
      expect(validateNewCategory({ name }), name).to.deep.equal({ ok: true, value: { name } });
      expect(schemaAccepts({ name }), name).to.equal(true);
    }
    for (const body of [
      {},
      { name: '' },
      { name: ' \t' },
      { name: 'x'.repeat(101) },
      { name: '🐕'.repeat(101) },
      { name: 'a\ud800' },
      { name: 5 },
      { name: null },
      { name: 'Dogs', id: 1 },
      { name: 'Dogs', extra: true },
      [],
      'Dogs',
      null,
    ]) {
      const result = validateNewCategory(body);
      expect(result.ok, JSON.stringify(body)).to.equal(false);
      expect(schemaAccepts(body), `schema on ${JSON.stringify(body)}`).to.equal(false);
    }
  });

  it('calls two names the same when equal after NFC and lower-casing', () => {
    expect(categoryNameKey('Café')).to.equal(categoryNameKey('CAFE\u0301'));
    expect(categoryNameKey('Dogs')).to.not.equal(categoryNameKey('Dog'));
  });

  it('property: the domain validator accepts exactly what the exported JSON Schema accepts', () => {
    const weird = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom('', ' ', '\u3000', 'a\ud800', '\udfff', 'x'.repeat(101), null, 7),
    );
    const nameArb = fc.oneof(
      { weight: 4, arbitrary: categoryNameArb },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
      {
        weight: 1,
        arbitrary: fc.string({
          unit: fc.constantFrom(' ', '\n', '\u00a0', '\u2028', '\ufeff'),
          minLength: 1,
          maxLength: 4,
        }),
      },
      { weight: 1, arbitrary: weird },
    );
    const bodyArb = fc.oneof(
      { weight: 6, arbitrary: fc.record({ name: nameArb }, { requiredKeys: [] }) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(
            fc.record({ name: nameArb }),
            fc.constantFrom('id', 'Name', '__proto__', 'constructor', 'label'),
            weird,
          )
          .map(([body, key, value]) => {
            const out: Record<string, unknown> = { ...body };
            Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
            return out;
          }),
      },
      { weight: 1, arbitrary: weird },
    );
    fc.assert(
      fc.property(bodyArb, (body) => {
        const parsed: unknown = JSON.parse(JSON.stringify(body) ?? 'null');
        expect(validateNewCategory(parsed).ok, JSON.stringify(parsed)).to.equal(schemaAccepts(parsed));
      }),
      { numRuns: 1000 },
    );
  });
});

// docs/rules.md §1 and §7: the rule every name shares (a pet's: 1–200 characters, a category's:
// 1–100), where "characters" are Unicode code points; at least one of them not white space
// (ECMAScript `\s`); well-formed Unicode; stored exactly as sent (not trimmed, not normalised).
// Two category names are the same name when equal after NFC and lower-casing.
import { expect } from 'chai';
import fc from 'fast-check';
import { categoryNameKey, validateNewCategory, validateNewPet } from '../src/index.js';
import { CATEGORY_NAME_MAX_LENGTH, CATEGORY_NAME_MIN_LENGTH } from '../src/category/category.js';
import { NAME_MAX_LENGTH, NAME_MIN_LENGTH } from '../src/pet/pet.js';
import { checkName, codePointLength } from '../src/text/name.js';
import { expectRefusal } from './support/refusals.js';

/** Code points counted independently of the code under test: a surrogate pair is one, everything else one per unit. */
const codePoints = (text: string): number => text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '_').length;
/** A surrogate without its partner (read without the `u` flag, unit by unit). */
const hasLoneSurrogate = (text: string): boolean =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
/** ECMAScript white space and line terminators: what `\s` matches. */
const WHITE_SPACE = [
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  ' ',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];

/** Units around every boundary the rule has: surrogate ranges, white space, control characters, combining marks. */
const unitArb = fc.oneof(
  fc.constantFrom('\ud7ff', '\ud800', '\udbff', '\udc00', '\udfff', '\ue000', '\ud83d', '\udc15'),
  fc.constantFrom(...WHITE_SPACE),
  fc.constantFrom('a', 'Z', 'é', 'e\u0301', '\u0000', '\u0007', '\u001f', '\u007f', '\u0085', '\u200b', '\u180e', '🐕'),
);
const textArb = fc.array(unitArb, { maxLength: 12 }).map((units) => units.join(''));

type Why = 'length' | 'unicode' | 'blank' | undefined;
/** Which rule `name` breaks, as docs/rules.md states them, in the order a refusal names them. */
const expectedFailure = (name: string, min: number, max: number): Why => {
  const length = codePoints(name);
  if (length < min || length > max) return 'length';
  if (hasLoneSurrogate(name)) return 'unicode';
  if (name.split('').every((unit) => WHITE_SPACE.includes(unit))) return 'blank';
  return undefined;
};

/** The refusal says which rule broke: the bounds, well-formed Unicode, or a character that is not white space. */
const expectReason = (message: string, why: Why, min: number, max: number, got: number): void => {
  if (why === 'length') {
    expect(message).to.include(`${min} to ${max}`);
    expect(message, 'it says what it counted').to.include(`got ${got}`);
  }
  if (why === 'unicode') expect(message).to.match(/well-formed|surrogate/);
  if (why === 'blank') expect(message).to.match(/whitespace|white space/);
};

describe('names (docs/rules.md §1, §7)', () => {
  it('property: length counts code points: a surrogate pair is one character, a lone surrogate one too', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(codePointLength(text), JSON.stringify(text)).to.equal(codePoints(text));
      }),
    );
    expect(codePointLength('🐕'.repeat(3) + 'e\u0301')).to.equal(5);
  });

  it('property: a name is accepted exactly when it has min–max code points, a character that is not white space, and no lone surrogate; a refusal names the rule', () => {
    const boundsArb = fc.constantFrom(
      [NAME_MIN_LENGTH, NAME_MAX_LENGTH],
      [CATEGORY_NAME_MIN_LENGTH, CATEGORY_NAME_MAX_LENGTH],
      [1, 3],
      [2, 5],
    );
    fc.assert(
      fc.property(textArb, boundsArb, (name, [min, max]) => {
        const why = expectedFailure(name, min, max);
        const failure = checkName(name, min, max);
        if (why === undefined) {
          expect(failure, JSON.stringify(name)).to.equal(undefined);
          return;
        }
        const message = expectRefusal({ ok: false, error: failure }, 'validation_failed', 'name', JSON.stringify(name));
        expectReason(message, why, min, max, codePoints(name));
      }),
      { numRuns: 300 },
    );
  });

  it('counts the bounds in code points: 200 (pets) and 100 (categories) astral characters fit, one more does not', () => {
    for (const [unit, pet, category] of [
      ['x', 200, 100],
      ['🐕', 200, 100],
      ['e\u0301', 100, 50],
    ] as const) {
      expect(validateNewPet({ name: unit.repeat(pet), categoryId: 1 }).ok, `${unit} × ${pet}`).to.equal(true);
      expect(validateNewCategory({ name: unit.repeat(category) }).ok, `${unit} × ${category}`).to.equal(true);
      const tooLong = expectRefusal(
        validateNewPet({ name: unit.repeat(pet) + 'y', categoryId: 1 }),
        'validation_failed',
        'name',
        unit,
      );
      expect(tooLong).to.include('1 to 200').and.include(`got ${201}`);
      expectRefusal(validateNewCategory({ name: unit.repeat(category) + 'y' }), 'validation_failed', 'name', unit);
    }
  });

  it('refuses a name that is not a string, saying so', () => {
    for (const name of [5, null, true, ['Rex'], { name: 'Rex' }]) {
      const message = expectRefusal(
        { ok: false, error: checkName(name, 1, 200) },
        'validation_failed',
        'name',
        JSON.stringify(name),
      );
      expect(message).to.match(/string/);
      expectRefusal(validateNewCategory({ name }), 'validation_failed', 'name', JSON.stringify(name));
    }
  });

  it('property: a valid name is stored exactly as sent: white space kept at either end, control characters kept, no Unicode normalisation', () => {
    const validArb = fc
      .tuple(textArb, fc.constantFrom('Rex', 'Café', 'CAFE\u0301', 'ﬁsh', '\u0000', 'a\u0007b', '🐈'), textArb)
      .map(([a, b, c]) => a + b + c)
      .filter((name) => expectedFailure(name, CATEGORY_NAME_MIN_LENGTH, CATEGORY_NAME_MAX_LENGTH) === undefined);
    fc.assert(
      fc.property(validArb, (name) => {
        expect(validateNewCategory({ name })).to.deep.equal({ ok: true, value: { name } });
        const pet = validateNewPet({ name, categoryId: 1 });
        expect(pet.ok && pet.value.name).to.equal(name);
      }),
    );
    // Control characters that are not white space are characters like any other; those that are, are not.
    expect(checkName('\u0000', 1, 200)).to.equal(undefined);
    expect(checkName('\u0007', 1, 200)).to.equal(undefined);
    expect(checkName('\t\n\v\f\r', 1, 200)).to.not.equal(undefined);
  });

  it('property: two category names are the same name exactly when equal after NFC and lower-casing', () => {
    const wordArb = fc.constantFrom(
      'Café',
      'café',
      'CAFÉ',
      'Cafe\u0301',
      'CAFE\u0301',
      'Cafe',
      'Ångström',
      'A\u030angstro\u0308m',
      'Dogs',
      'DOGS',
      'dogs',
      'Dog',
    );
    fc.assert(
      fc.property(wordArb, wordArb, (a, b) => {
        expect(categoryNameKey(a) === categoryNameKey(b), `${a} / ${b}`).to.equal(
          a.normalize('NFC').toLowerCase() === b.normalize('NFC').toLowerCase(),
        );
      }),
    );
    expect(categoryNameKey('Cafe\u0301')).to.equal(categoryNameKey('CAFÉ'));
    expect(categoryNameKey('Cafe')).to.not.equal(categoryNameKey('Café'));
  });
});

// The public catalogue (docs/rules.md §16): the fold that name search and `sort=name` compare by. A text is
// decomposed (NFKD), loses its combining marks, is lower-cased and (for search) cut into words at
// every code point that is neither a letter nor a number. Sort keys compare in code-point order, as
// MongoDB compares strings (by their UTF-8 bytes), not in JavaScript's UTF-16 order.
import { expect } from 'chai';
import fc from 'fast-check';
import { compareCodePoints, compareKeyedRows, foldText, foldWords, type KeyedRow } from '../src/index.js';

/** Pieces around every step of the fold: marks, capitals whose lower case differs by context or carries a mark, compatibility forms, numerals, separators, astral characters. */
const PIECES = [
  'a',
  'Z',
  'é',
  'e\u0301',
  'Å',
  '\u0301',
  '\u0308\u0323',
  '\u0334',
  'İ',
  'ı',
  'Σ',
  'σ',
  'ς',
  'ß',
  'ẞ',
  'ﬁ',
  'Ｒ',
  '한',
  '\u1100\u1161',
  'मी',
  'ש',
  'ب',
  '7',
  '²',
  '½',
  'Ⅻ',
  '〇',
  '፲',
  '𝐀',
  '𐐀',
  '🐕',
  ' ',
  '-',
  '.',
  "'",
  '\u00ad',
  '\u200f',
  '\u0000',
  '\ufffd',
  '\ud800',
];
const textArb = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((pieces) => pieces.join('')),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

/** The words of a folded text, cut by hand: one code point at a time, a letter or number extends the word, anything else ends it. */
const wordsByHand = (folded: string): string[] => {
  const words: string[] = [];
  let word = '';
  for (const point of folded) {
    if (/^[\p{L}\p{N}]$/u.test(point)) word += point;
    else if (word !== '') [words[words.length], word] = [word, ''];
  }
  return word === '' ? words : [...words, word];
};

describe('the fold of names and queries (docs/rules.md §16)', () => {
  it('folds names as the rules show: accents and case gone, words cut at every non-letter, non-digit', () => {
    const cases: [string, string[]][] = [
      ['Rex', ['rex']],
      ['Renée', ['renee']],
      ['Rene\u0301e', ['renee']],
      ['Old Rex', ['old', 'rex']],
      ["Mr. O'Malley-Smith", ['mr', 'o', 'malley', 'smith']],
      ['  --Rex--  ', ['rex']],
      ['ＲＥＸ', ['rex']],
      ['ﬁdo', ['fido']],
      ['İpek', ['ipek']],
      ['ΟΔΟΣ ΣΑΣ', ['οδοσ', 'σασ']],
      ['Straße', ['straße']],
      ['Rex2 ½', ['rex2', '1', '2']],
      ['Ⅻ ① x²', ['xii', '1', 'x2']],
      ['二〇 Rex፲', ['二〇', 'rex፲']],
      ['Rex🐕Bo\u0000Al\ufffdMo\u200fLi', ['rex', 'bo', 'al', 'mo', 'li']],
      ['𝐑𝐞𝐱', ['rex']],
      ['--', []],
      ['', []],
    ];
    for (const [name, words] of cases) expect(foldWords(name), JSON.stringify(name)).to.deep.equal(words);
    expect(foldText('Old  Renée-Rex')).to.equal('old  renee-rex');
  });

  it('every code point of Unicode folds to text that folds to itself: decomposed, without marks, lower-cased', () => {
    const broken: string[] = [];
    for (let point = 0; point <= 0x10ffff; point++) {
      const folded = foldText(String.fromCodePoint(point));
      const clean = folded === folded.normalize('NFKD') && folded === folded.toLowerCase() && !/\p{M}/u.test(folded);
      if (!clean || foldText(folded) !== folded) broken.push(point.toString(16));
    }
    expect(broken).to.deep.equal([]);
  });

  it('ASCII text folds as every other text does: each ASCII code point alone, and any ASCII text', () => {
    const general = (text: string): string =>
      text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replaceAll('ς', 'σ');
    for (let point = 0; point < 0x80; point++) {
      const text = String.fromCharCode(point);
      expect(foldText(text), `U+${point.toString(16)}`).to.equal(general(text));
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 60 }), (text) => {
        expect(foldText(text), JSON.stringify(text)).to.equal(general(text));
      }),
    );
  });

  it('property: the fold acts code point by code point (so, with the test above, it is idempotent on every text)', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(foldText(text), JSON.stringify(text)).to.equal(Array.from(text, foldText).join(''));
      }),
    );
  });

  it('property: the fold is idempotent: folding the folded words joined by a space gives the same words', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const words = foldWords(text);
        expect(foldWords(words.join(' ')), JSON.stringify(text)).to.deep.equal(words);
        expect(foldText(foldText(text)), JSON.stringify(text)).to.equal(foldText(text));
      }),
    );
  });

  it('property: every spelling of a text (NFC, NFD, NFKC, NFKD) folds alike', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const words = foldWords(text);
        for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD'] as const)
          expect(foldWords(text.normalize(form)), `${form} of ${JSON.stringify(text)}`).to.deep.equal(words);
      }),
    );
  });

  it('property: the words are the folded text cut at every code point that is neither a letter nor a number, none empty', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(foldWords(text), JSON.stringify(text)).to.deep.equal(wordsByHand(foldText(text)));
      }),
    );
  });
});

describe('code-point order (docs/rules.md §16, sort=name)', () => {
  /** Code points on both sides of every UTF-8 and UTF-16 boundary. */
  const pointArb = fc.oneof(
    fc.constantFrom(0, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfffd, 0xffff, 0x10000, 0x1f415, 0x10ffff),
    fc.integer({ min: 0, max: 0x10ffff }).filter((point) => point < 0xd800 || point > 0xdfff),
  );
  const stringArb = fc
    .array(pointArb, { maxLength: 4 })
    .map((points) => String.fromCodePoint(...points))
    .chain((text) =>
      fc.oneof(
        fc.constant(text),
        fc.string({ unit: 'binary', maxLength: 4 }).map((tail) => text + tail),
      ),
    );
  const sign = (n: number): number => Math.sign(n);

  it('property: compareCodePoints orders strings as their UTF-8 bytes compare (as MongoDB does)', () => {
    fc.assert(
      fc.property(stringArb, stringArb, (a, b) => {
        const bytes = Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
        expect(sign(compareCodePoints(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).to.equal(bytes);
      }),
      { numRuns: 300 },
    );
  });

  it('puts a character beyond U+FFFF after U+E000–U+FFFF, where UTF-16 order puts it before', () => {
    const [dog, last] = ['🐕', '\uffff'];
    expect(dog < last, 'UTF-16 order').to.equal(true);
    expect(compareCodePoints(dog, last)).to.be.greaterThan(0);
    expect(compareCodePoints('\ue000', '\ud7ff')).to.be.greaterThan(0);
    expect(compareCodePoints('rex', 'rexy')).to.be.lessThan(0);
    expect(compareCodePoints('rex', 'rex')).to.equal(0);
  });

  it('property: rows order by key, then by id, for string keys (code points) and number keys alike', () => {
    const expectOrder = <K extends string | number>(rows: readonly KeyedRow<K>[], byKey: (a: K, b: K) => number) => {
      for (const a of rows)
        for (const b of rows) {
          const expected = sign(byKey(a.key, b.key)) || sign(a.id - b.id);
          expect(sign(compareKeyedRows(a, b)), JSON.stringify([a, b])).to.equal(expected);
        }
    };
    const rowsArb = <K extends string | number>(keyArb: fc.Arbitrary<K>) =>
      fc.array(fc.record({ key: keyArb, id: fc.integer({ min: 1, max: 50 }) }), { maxLength: 12 });
    fc.assert(
      fc.property(rowsArb(stringArb), rowsArb(fc.integer({ min: 0, max: 2 ** 32 - 1 })), (texts, numbers) => {
        expectOrder(texts, (a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
        expectOrder(numbers, (a, b) => a - b);
      }),
    );
  });
});

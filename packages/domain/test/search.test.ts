// The public catalogue (docs/rules.md §16), name search: `q` is 1–100 characters (code points) with at least
// one letter or digit, folded like every name; a pet matches when each word of `q` begins some word
// of its name. An index-backed store reads the range of words that begin with the longest word of
// `q`.
import { expect } from 'chai';
import fc from 'fast-check';
import {
  compareCodePoints,
  drivingWord,
  foldWords,
  nameMatches,
  prefixRange,
  QUERY_MAX_LENGTH,
  readNameQuery,
  type NameQuery,
} from '../src/index.js';
import { expectRefusal } from './support/refusals.js';

const points = (text: string): string[] => Array.from(text);
/** Whether `word` begins `nameWord`, code point by code point. */
const begins = (word: string, nameWord: string): boolean => {
  const head = points(nameWord).slice(0, points(word).length);
  return head.length === points(word).length && head.join('') === word;
};
const query = (q: string): NameQuery => {
  const read = readNameQuery(q);
  if (!read.ok) throw new Error(`q ${JSON.stringify(q)} refused: ${read.error.message}`);
  return read.value;
};
const finds = (q: string, name: string): boolean => nameMatches(foldWords(name), query(q));

/** Texts with marks, capitals, numerals, separators, astral characters, bidi controls, NUL, U+FFFD and lone surrogates. */
const pieceArb = fc.constantFrom(
  'Re',
  'x',
  'ée',
  'e\u0301',
  'Ö',
  'İ',
  'Σ',
  '7',
  '²',
  '𐐀',
  '🐕',
  ' ',
  '-',
  '\u0301',
  '\u200f',
  '\u0000',
  '\ufffd',
  '\udc00',
);
const textArb = fc.oneof(
  fc.array(pieceArb, { maxLength: 8 }).map((pieces) => pieces.join('')),
  fc.string({ unit: 'binary', maxLength: 8 }),
);

describe('name search (docs/rules.md §16)', () => {
  it('finds by the beginnings of words, whatever the case and accents', () => {
    expect(finds('re', 'Rex')).to.equal(true);
    expect(finds('re', 'Old Rex')).to.equal(true);
    expect(finds('re', 'Renée')).to.equal(true);
    expect(finds('RENEE', 'Renée')).to.equal(true);
    expect(finds('rex old', 'Old Rex')).to.equal(true);
    expect(finds('old-r', 'Old Rex')).to.equal(true);
    expect(finds('ex', 'Rex')).to.equal(false);
    expect(finds('rex bo', 'Rex')).to.equal(false);
    expect(finds('rexy', 'Rex')).to.equal(false);
    expect(finds('οδοσ', 'ΟΔΟΣ')).to.equal(true);
  });

  it('property: a pet matches exactly when each word of q begins some word of its name (a model, code point by code point)', () => {
    const smallArb = (maxLength: number) =>
      fc
        .array(fc.constantFrom('r', 'e', 'R', 'É', 'e\u0301', '𐐀', '𐐨', ' ', '-'), { maxLength })
        .map((pieces) => pieces.join(''));
    const pairArb = fc.oneof(fc.tuple(textArb, textArb), fc.tuple(smallArb(4), smallArb(10)));
    fc.assert(
      fc.property(pairArb, ([q, name]) => {
        const read = readNameQuery(q);
        fc.pre(read.ok);
        const nameWords = foldWords(name);
        const expected = foldWords(q).every((word) => nameWords.some((nameWord) => begins(word, nameWord)));
        expect(nameMatches(nameWords, read.value), `${JSON.stringify(q)} in ${JSON.stringify(name)}`).to.equal(
          expected,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('property: a name is found by any query made of beginnings of its words, and by itself', () => {
    const caseArb = fc
      .array(textArb, { minLength: 1, maxLength: 4 })
      .map((parts) => parts.join(' '))
      .filter((name) => foldWords(name).length > 0)
      .chain((name) => {
        const words = foldWords(name);
        const prefix = fc.tuple(fc.nat({ max: words.length - 1 }), fc.nat()).map(([w, n]) =>
          points(words[w]!)
            .slice(0, 1 + (n % points(words[w]!).length))
            .join(''),
        );
        return fc.tuple(
          fc.constant(name),
          fc.array(prefix, { minLength: 1, maxLength: 4 }),
          fc.constantFrom(' ', '-', ' \u200f', '🐕'),
        );
      });
    fc.assert(
      fc.property(caseArb, ([name, prefixes, separator]) => {
        const q = prefixes.join(separator);
        fc.pre(points(q).length <= QUERY_MAX_LENGTH);
        expect(finds(q, name), `${JSON.stringify(q)} in ${JSON.stringify(name)}`).to.equal(true);
        expect(finds(q.normalize('NFC'), name), `${JSON.stringify(q)} composed`).to.equal(true);
        if (points(name).length <= QUERY_MAX_LENGTH)
          expect(finds(name, name), `${JSON.stringify(name)} itself`).to.equal(true);
      }),
    );
  });

  it('property: q is taken exactly when it has 1 to 100 code points and a letter or digit, and never throws', () => {
    const qArb = fc.oneof(
      textArb,
      fc.tuple(pieceArb, fc.integer({ min: 95, max: 105 })).map(([piece, n]) => piece.repeat(n)),
      fc.string({ unit: 'binary', minLength: 95, maxLength: 105 }),
    );
    fc.assert(
      fc.property(qArb, (q) => {
        const length = points(q).length;
        const read = readNameQuery(q);
        if (length >= 1 && length <= QUERY_MAX_LENGTH && foldWords(q).length > 0) {
          expect(read.ok, JSON.stringify(q)).to.equal(true);
          if (read.ok) expect(read.value.words).to.deep.equal(foldWords(q));
          return;
        }
        const message = expectRefusal(read, 'validation_failed', 'q', JSON.stringify(q));
        expect(message.length, 'the message quotes nothing of q').to.be.at.most(60);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses q with no word, empty, or over 100 characters, and takes any 100 characters holding a word', () => {
    expect(expectRefusal(readNameQuery('--'), 'validation_failed', 'q')).to.include('letter or digit');
    for (const q of ['\u0301'.repeat(100), '🐕'.repeat(100), '\u200f\u0000\ufffd\ud800', ' '])
      expect(expectRefusal(readNameQuery(q), 'validation_failed', 'q', JSON.stringify(q))).to.include(
        'letter or digit',
      );
    expect(expectRefusal(readNameQuery(''), 'validation_failed', 'q'))
      .to.include('1 to 100')
      .and.include('got 0');
    for (const q of ['x'.repeat(101), '𐐀'.repeat(101), 'x'.repeat(5_000_000)])
      expect(expectRefusal(readNameQuery(q), 'validation_failed', 'q', `${q.length} units`)).to.include(
        'got more than 100',
      );
    expect(query('𐐀'.repeat(100)).words).to.deep.equal(['𐐨'.repeat(100)]);
    expect(query('e\u0301'.repeat(50)).words).to.deep.equal(['e'.repeat(50)]);
    expect(query(`${'\u0301'.repeat(99)}x`).words).to.deep.equal(['x']);
    expect(query('\u0000Rex\u200f\ufffd\ud800Bo').words).to.deep.equal(['rex', 'bo']);
  });
});

describe('the index range of a search (docs/rules.md §16)', () => {
  it('property: the driving word is the longest word of q in code points, the first of the longest on a tie', () => {
    const wordArb = fc
      .array(fc.constantFrom('a', 'b', '𐐨', '한'), { minLength: 1, maxLength: 4 })
      .map((p) => p.join(''));
    fc.assert(
      fc.property(fc.array(wordArb, { minLength: 1, maxLength: 6 }), (words) => {
        const longest = Math.max(...words.map((word) => points(word).length));
        const expected = words.find((word) => points(word).length === longest);
        expect(drivingWord({ words }), JSON.stringify(words)).to.equal(expected);
      }),
    );
    expect(drivingWord({ words: ['𐐨𐐨', 'abc'] }), 'four UTF-16 units are two characters').to.equal('abc');
  });

  /** Code points on both sides of the surrogates, the end of the BMP and the end of Unicode. */
  const pointArb = fc.oneof(
    fc.constantFrom(0x61, 0x62, 0x7f, 0x80, 0xd7fe, 0xd7ff, 0xe000, 0xfffe, 0xffff, 0x10000, 0x10fffe, 0x10ffff),
    fc.integer({ min: 0, max: 0x10ffff }).filter((point) => point < 0xd800 || point > 0xdfff),
  );
  const stringArb = fc.array(pointArb, { maxLength: 4 }).map((p) => String.fromCodePoint(...p));
  const utf8 = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  const hasLoneSurrogate = (text: string): boolean =>
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

  it('property: a string begins with a prefix exactly when it lies in the prefix range, in code-point and UTF-8 order', () => {
    const caseArb = stringArb.chain((prefix) =>
      fc.tuple(
        fc.constant(prefix),
        fc.oneof(
          stringArb.map((tail) => prefix + tail),
          stringArb,
        ),
      ),
    );
    fc.assert(
      fc.property(caseArb, ([prefix, text]) => {
        const { low, high } = prefixRange(prefix);
        expect(low).to.equal(prefix);
        const what = `${JSON.stringify(text)} in range of ${JSON.stringify(prefix)}`;
        if (high !== undefined)
          expect(hasLoneSurrogate(high), `${JSON.stringify(high)} is well-formed`).to.equal(false);
        const inCodePoints =
          compareCodePoints(low, text) <= 0 && (high === undefined || compareCodePoints(text, high) < 0);
        const inBytes = utf8(low, text) <= 0 && (high === undefined || utf8(text, high) < 0);
        expect(inCodePoints, what).to.equal(text.startsWith(prefix));
        expect(inBytes, what).to.equal(text.startsWith(prefix));
      }),
      { numRuns: 500 },
    );
  });

  it('raises the last code point, skips the surrogates, and drops U+10FFFF', () => {
    expect(prefixRange('re')).to.deep.equal({ low: 're', high: 'rf' });
    expect(prefixRange('a\ud7ff').high).to.equal('a\ue000');
    expect(prefixRange('a\uffff').high).to.equal('a\u{10000}');
    expect(prefixRange('a\u{1f415}').high).to.equal('a\u{1f416}');
    expect(prefixRange('a\u{10ffff}\u{10ffff}').high).to.equal('b');
    expect(prefixRange('\u{10ffff}').high).to.equal(undefined);
    expect(prefixRange('').high).to.equal(undefined);
  });
});

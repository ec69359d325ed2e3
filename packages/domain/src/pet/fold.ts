/**
 * The one fold of the public catalogue (docs/rules.md §16): how names and `q` are compared for
 * search, and how names are ordered for `sort=name`. Every store keeps the results beside the pet,
 * computed here and never re-implemented by an adapter.
 */

import { isAscii } from '../text/ascii.js';

const MARKS = /\p{M}/gu;
/** What ends a word: every code point that is neither a letter (`\p{L}`) nor a number (`\p{N}`). */
const SEPARATORS = /[^\p{L}\p{N}]/u;

/**
 * `text` decomposed (NFKD), without combining marks (`\p{M}`), lower-cased: the sort key of a name
 * for `sort=name`, not cut into words. Lower-casing comes after the marks are gone, so a capital
 * whose lower case carries a mark (`İ` → `i̇`) has already lost it; every character of non-zero
 * combining class is a mark, so the steps act code point by code point (a test checks every code
 * point of Unicode). `toLowerCase` writes a capital sigma as `ς` at the end of a word and `σ`
 * elsewhere; both become `σ`, so that the fold of a word's beginning begins the fold of the word.
 * ASCII text (`isAscii`) is only lower-cased: it has nothing the other steps change.
 */
export const foldText = (text: string): string =>
  isAscii(text) ? text.toLowerCase() : text.normalize('NFKD').replace(MARKS, '').toLowerCase().replaceAll('ς', 'σ');

/**
 * The folded words of `text`: `foldText` cut at every character that is not a letter or a digit,
 * empty words dropped. "Digit" is any number (`\p{N}`, not only `\p{Nd}`), so no numeral of any
 * script (`〇`, `፲`) breaks a word; the compatibility numerals (`²`, `①`, `Ⅻ`) are already plain
 * digits or letters after NFKD. Folding the words joined by a space gives the same words.
 */
export const foldWords = (text: string): string[] => wordsOfFolded(foldText(text));

/** The words of a text already folded (`foldText`): for a caller that keeps the folded text too. */
export const wordsOfFolded = (folded: string): string[] => folded.split(SEPARATORS).filter((word) => word !== '');

/** A UTF-16 code unit moved so that unit order is code-point order: surrogates after U+E000–U+FFFF. */
const codePointRank = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);

/**
 * Compares two strings in Unicode code-point order (negative, 0, positive): the order of their
 * UTF-8 bytes, which is how MongoDB compares strings. JavaScript's `<` compares UTF-16 code units,
 * which puts a character beyond U+FFFF (a surrogate pair) before U+E000–U+FFFF.
 */
export const compareCodePoints = (a: string, b: string): number => {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
};

/** A row of an ordered list: the sort's key (a folded name, a shuffle position) and the pet's id. */
export interface KeyedRow<K extends string | number> {
  readonly key: K;
  readonly id: number;
}

/** Orders rows by key (strings in code-point order, numbers ascending), then by id: the order of `sort=name` and `sort=random`. */
export const compareKeyedRows = <K extends string | number>(a: KeyedRow<K>, b: KeyedRow<K>): number => {
  const byKey =
    typeof a.key === 'string' ? compareCodePoints(a.key, b.key as string) : (a.key as number) - (b.key as number);
  return byKey === 0 ? a.id - b.id : byKey;
};

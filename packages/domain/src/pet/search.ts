/**
 * Name search of the public catalogue (docs/rules.md §16): the `q` parameter, the match rule, and
 * what an index-backed store needs to serve it (the word that drives an index range, and the
 * range of every folded word that begins with it).
 */
import { validationFailed, type ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import { foldWords } from './fold.js';

/** Bounds of `q`, in Unicode code points (as every length of the API is counted). */
const QUERY_MIN_LENGTH = 1;
export const QUERY_MAX_LENGTH = 100;

/** A checked `q`: its folded words, in the order written (never empty). */
export interface NameQuery {
  readonly words: readonly string[];
}

/**
 * Checks and folds `q`: 1 to 100 code points holding at least one letter or digit. The length is
 * counted before anything is folded (and the count stops past the bound), so any text, however
 * long or strange (marks, emoji, bidi controls, NUL, U+FFFD, lone surrogates), costs a bounded
 * fold or none, and nothing throws. The refusal quotes nothing `q` holds.
 */
export const readNameQuery = (q: string): Result<NameQuery, ValidationFailed> => {
  let length = 0;
  for (const _ of q) if (++length > QUERY_MAX_LENGTH) break;
  if (length < QUERY_MIN_LENGTH || length > QUERY_MAX_LENGTH) {
    // The count stopped one past the bound: what was sent is either empty or too long.
    const got = length === 0 ? '0' : `more than ${QUERY_MAX_LENGTH}`;
    return fail(
      validationFailed('q', `q must be ${QUERY_MIN_LENGTH} to ${QUERY_MAX_LENGTH} characters long (got ${got})`),
    );
  }
  const words = foldWords(q);
  if (words.length === 0) return fail(validationFailed('q', 'q must hold at least one letter or digit'));
  return ok({ words });
};

/**
 * Whether a name matches a query: every word of the query begins some word of the name (both
 * folded, `foldWords`). `re` finds "Rex" and "Old Rex", `rex old` finds "Old Rex", `ex` no "Rex".
 */
export const nameMatches = (nameWords: readonly string[], query: NameQuery): boolean =>
  query.words.every((word) => nameWords.some((nameWord) => nameWord.startsWith(word)));

/** Length in code points. */
const pointsOf = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

/**
 * The word of a query whose prefix range an index reads: the longest (in code points; the first of
 * the longest on a tie), as it begins the fewest words. The other words are checked on the rows read.
 */
export const drivingWord = (query: NameQuery): string => {
  let best = query.words[0]!;
  let bestLength = pointsOf(best);
  for (const word of query.words) {
    const length = pointsOf(word);
    if (length > bestLength) [best, bestLength] = [word, length];
  }
  return best;
};

/**
 * The strings that begin with `prefix`, as a range of code-point order (`compareCodePoints`, and
 * MongoDB's `$gte`/`$lt` on strings): from `low` (the prefix itself) up to `high`, excluded. `high`
 * is the prefix with its last code point raised by one, skipping the surrogates (U+D7FF is followed
 * by U+E000: a surrogate is no character and has no UTF-8 form), after dropping trailing U+10FFFF,
 * which has no successor; `undefined` (no upper bound) when nothing is left.
 */
export const prefixRange = (prefix: string): { readonly low: string; readonly high: string | undefined } => {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last === 0x10ffff) continue;
    const next = last === 0xd7ff ? 0xe000 : last + 1;
    return { low: prefix, high: points.join('') + String.fromCodePoint(next) };
  }
  return { low: prefix, high: undefined };
};

import { validationFailed, type ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';

/**
 * Entity tags and the conditional headers that name them (RFC 9110 §8.8.3, §13.1), as pure rules:
 * the HTTP adapter only reads the headers and sets `ETag`. A pet's tag is its revision
 * (docs/rules.md §12: `ETag` of `GET` and `PATCH`, named by `If-Match`), a photo's the SHA-256 of
 * its bytes (§13: `ETag` of its `GET`, named by `If-None-Match`).
 */

/** The strong entity tag of a representation identified by `opaque` (a revision, a digest): `"3"`. */
export const entityTag = (opaque: number | string): string => `"${opaque}"`;

/**
 * A parsed `If-Match` (RFC 9110 §13.1.1): `*` (any current revision of an existing pet), or the
 * strong entity tags it lists, quotes included. Weak tags (`W/"3"`) are parsed and left out: the
 * strong comparison `If-Match` uses never matches them.
 */
export type IfMatch = '*' | readonly string[];

const isSpace = (c: string): boolean => c === ' ' || c === '\t';
/** `etagc` = %x21 / %x23-7E / obs-text (%x80-FF): anything visible but the double quote. */
const isEtagChar = (code: number): boolean =>
  code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);

const malformed = (): ValidationFailed =>
  validationFailed(
    'If-Match',
    'If-Match must be * or a comma-separated list of entity tags such as "3" (the ETag of the pet as you read it)',
  );

/**
 * Reads an `If-Match` field value (several field lines arrive joined with `, `): `undefined` when
 * the header was not sent, else `*` or the list of strong tags. Empty list elements are allowed
 * (RFC 9110 §5.6.1); a list with no tag at all matches nothing. Anything else is not an `If-Match`
 * → 400 (the value is not quoted back).
 */
export const parseIfMatch = (value: string | undefined): Result<IfMatch | undefined, ValidationFailed> => {
  if (value === undefined) return ok(undefined);
  const text = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (text === '*') return ok('*');
  const strong: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === ',' || isSpace(text[i]!)) {
      i++;
      continue;
    }
    const weak = text.startsWith('W/', i);
    if (weak) i += 2;
    if (text[i] !== '"') return fail(malformed());
    const start = i;
    i++;
    while (i < text.length && isEtagChar(text.charCodeAt(i))) i++;
    if (text[i] !== '"') return fail(malformed());
    i++;
    if (!weak) strong.push(text.slice(start, i));
    while (i < text.length && isSpace(text[i]!)) i++;
    if (i < text.length && text[i] !== ',') return fail(malformed());
  }
  return ok(strong);
};

/** Whether a request with this `If-Match` may change what is now tagged `entityTag(current)` (no `If-Match`: always; RFC 9110 §13.1.1). */
export const ifMatchAllows = (condition: IfMatch | undefined, current: number | string): boolean =>
  condition === undefined || condition === '*' || condition.includes(entityTag(current));

/** The quoted part of each tag an `If-None-Match` list holds (a weak tag's `W/` before it changes nothing: the comparison is weak). */
const LISTED_TAG = /"[^"]*"/g;

/**
 * Whether a `GET` with this `If-None-Match` field value (RFC 9110 §13.1.2; `undefined` when not
 * sent) is answered with what is now tagged `entityTag(current)`: yes unless the value is `*` or
 * lists that tag, compared weakly (`W/"x"` names `"x"` too); when it does not hold, the answer is
 * 304. A value that is not a well-formed list is read for the tags it holds, never refused.
 */
export const ifNoneMatchHolds = (value: string | undefined, current: number | string): boolean => {
  if (value === undefined) return true;
  if (value.trim() === '*') return false;
  const tag = entityTag(current);
  for (const [listed] of value.matchAll(LISTED_TAG)) if (listed === tag) return false;
  return true;
};

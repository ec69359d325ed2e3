/**
 * The position a page ends at, bound to the listing it was made for. A listing is named by its
 * scope: the list and its filters in one canonical text (`pageScope`), e.g.
 * `pets?categoryId=3&status=sold`. The cursor is opaque to clients: base64url of the position and
 * a checksum over position AND scope, so any change to it, or its use in another list or with other
 * filters, is detected without the scope itself travelling. Positions are not secrets (any caller
 * may list from the start), so a checksum, not a keyed signature, is what tamper-evidence needs.
 */
import { isAscii } from '../text/ascii.js';
import { base64UrlOfText, textOfBase64Url } from '../text/base64url.js';

/** The longest cursor this service issues (a position and a checksum, base64url); the list query schemas take it as their bound. */
export const MAX_CURSOR_LENGTH = 64;
const VERSION = 'c2';

/** cyrb53: a fast, well-mixed 53-bit string hash (public domain), as a checksum. */
const checksum = (text: string): string => {
  let h1 = 0xdeadbeef ^ 0x5eed;
  let h2 = 0x41c6ce57 ^ 0x5eed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
};

const body = (afterId: number): string => `${VERSION}.${afterId}`;
const sumOf = (afterId: number, scope: string): string => checksum(`${body(afterId)}|${scope}`);

/** The cursor of the page that starts after position `afterId` of the listing `scope`. */
export const encodeCursor = (afterId: number, scope: string): string =>
  base64UrlOfText(`${body(afterId)}.${sumOf(afterId, scope)}`);

/**
 * The position a cursor holds, when it was made by this service for this very listing (`scope`);
 * `undefined` when it is malformed, altered, or made for another list or other filters.
 */
export const decodeCursor = (cursor: string, scope: string): number | undefined => {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: no cursor this service issues is longer than 42 characters (position and checksum), so decoding a longer text refuses it too; the bound only spares decoding long input
  if (cursor.length > MAX_CURSOR_LENGTH) return undefined;
  const text = textOfBase64Url(cursor);
  if (text === undefined) return undefined;
  const parts = text.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) return undefined;
  // Exactly three parts (checked above): the version, the position, the checksum.
  const idText = parts[1]!;
  const sum = parts[2];
  if (!/^[1-9][0-9]{0,15}$/.test(idText)) return undefined;
  const afterId = Number(idText);
  if (!Number.isSafeInteger(afterId)) return undefined;
  return sum === sumOf(afterId, scope) ? afterId : undefined;
};

/**
 * The cursors of the orders that are not by id (docs/rules.md §16): the position is the sort's own
 * key and the id, (name, id) or (shuffle key, id). The key travels as text: its UTF-8 bytes, between
 * the id and the checksum (`k1.<id>.<key>.<sum>`, base64url), so a key may hold any character, dots
 * included. A name sort's cursor carries the pet's name, not its folded key (the fold can make a
 * name longer, and the use case folds it again): at most 200 characters of 4 bytes.
 */
const KEYED_VERSION = 'k1';

/** A position of a keyed order: the row's key as text, and its id. */
export interface KeyedPosition {
  readonly key: string;
  readonly id: number;
}

/** The longest cursor `encodeKeyedCursor` issues for keys of at most `maxKeyBytes` UTF-8 bytes. */
export const keyedCursorBound = (maxKeyBytes: number): number => {
  // The version, a 16-digit id, the key, a checksum of at most 11 base-36 digits, three dots.
  const text = KEYED_VERSION.length + 16 + maxKeyBytes + 11 + 3;
  return Math.ceil((text * 4) / 3);
};

/** The UTF-8 bytes of well-formed text, one code unit 0…255 each (ASCII text is its own). */
const utf8Of = (text: string): string =>
  isAscii(text)
    ? text
    : encodeURIComponent(text).replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The text UTF-8 bytes spell; `undefined` when they are not UTF-8 (`decodeURIComponent` refuses overlong forms and surrogates). */
const textOfUtf8 = (bytes: string): string | undefined => {
  try {
    return decodeURIComponent(bytes.replace(/[\s\S]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
  } catch {
    return undefined;
  }
};

const keyedBody = (position: KeyedPosition): string => `${KEYED_VERSION}.${position.id}.${utf8Of(position.key)}`;

/** The cursor of the page that starts after `position` of the keyed listing `scope`. */
export const encodeKeyedCursor = (position: KeyedPosition, scope: string): string => {
  const body = keyedBody(position);
  return base64UrlOfText(`${body}.${checksum(`${body}|${scope}`)}`);
};

/**
 * The position a keyed cursor holds, when this service made it for this very listing (`scope`) and
 * it is at most `maxLength` long; `undefined` when it is malformed, altered, or made for another
 * listing (an id cursor included: its version differs).
 */
export const decodeKeyedCursor = (cursor: string, scope: string, maxLength: number): KeyedPosition | undefined => {
  if (cursor.length > maxLength) return undefined;
  const text = textOfBase64Url(cursor);
  if (text === undefined) return undefined;
  const idStart = text.indexOf('.') + 1;
  const keyStart = text.indexOf('.', idStart) + 1;
  const sumStart = text.lastIndexOf('.') + 1;
  if (idStart === 0 || keyStart === 0 || sumStart <= keyStart || text.slice(0, idStart) !== `${KEYED_VERSION}.`)
    return undefined;
  const idText = text.slice(idStart, keyStart - 1);
  if (!/^[1-9][0-9]{0,15}$/.test(idText)) return undefined;
  const id = Number(idText);
  const key = textOfUtf8(text.slice(keyStart, sumStart - 1));
  if (!Number.isSafeInteger(id) || key === undefined) return undefined;
  const body = text.slice(0, sumStart - 1);
  return text.slice(sumStart) === checksum(`${body}|${scope}`) ? { key, id } : undefined;
};

/**
 * The scope of a listing: the list's name and its filters (absent ones left out), in one canonical
 * text, so that the same listing always has the same scope and two different ones never do.
 */
export const pageScope = (
  list: string,
  filters: Readonly<Record<string, string | number | undefined>> = {},
): string => {
  const parts = Object.keys(filters)
    .filter((key) => filters[key] !== undefined)
    .sort()
    .map((key) => `${key}=${encodeURIComponent(String(filters[key]))}`);
  return parts.length === 0 ? list : `${list}?${parts.join('&')}`;
};

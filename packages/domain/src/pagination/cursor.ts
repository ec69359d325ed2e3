import type { PetStatus } from '../pet/pet.js';
import { isPetStatus } from '../pet/pet.js';

/**
 * The position a page ends at, bound to the filter it was made for. Opaque to clients: a
 * base64url text holding the position, the filter and a checksum, so that any change to it,
 * or its use with another filter, is detected. Positions are not secrets (any caller may list
 * from the start), so a checksum, not a keyed signature, is what tamper-evidence needs here.
 */
export interface CursorPosition {
  /** The id of the last pet of the previous page: the next page starts after it. */
  readonly afterId: number;
  /** The status filter the cursor belongs to; `undefined` means no filter. */
  readonly status: PetStatus | undefined;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAX_CURSOR_LENGTH = 96;
const VERSION = 'c1';

const toBase64Url = (text: string): string => {
  let out = '';
  for (let i = 0; i < text.length; i += 3) {
    const a = text.charCodeAt(i);
    const b = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    const c = i + 2 < text.length ? text.charCodeAt(i + 2) : 0;
    const bits = (a << 16) | (b << 8) | c;
    out += ALPHABET[(bits >> 18) & 63]! + ALPHABET[(bits >> 12) & 63]!;
    if (i + 1 < text.length) out += ALPHABET[(bits >> 6) & 63]!;
    if (i + 2 < text.length) out += ALPHABET[bits & 63]!;
  }
  return out;
};

const fromBase64Url = (encoded: string): string | undefined => {
  if (encoded.length % 4 === 1 || !BASE64URL.test(encoded)) return undefined;
  let out = '';
  for (let i = 0; i < encoded.length; i += 4) {
    const chunk = encoded.slice(i, i + 4);
    let bits = 0;
    for (let j = 0; j < 4; j++) bits = (bits << 6) | (j < chunk.length ? ALPHABET.indexOf(chunk[j]!) : 0);
    out += String.fromCharCode((bits >> 16) & 255);
    if (chunk.length > 2) out += String.fromCharCode((bits >> 8) & 255);
    if (chunk.length > 3) out += String.fromCharCode(bits & 255);
  }
  // Only the canonical spelling is accepted: unused low bits must be zero.
  return toBase64Url(out) === encoded ? out : undefined;
};

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

const body = (position: CursorPosition): string => `${VERSION}.${position.afterId}.${position.status ?? '*'}`;

export const encodeCursor = (position: CursorPosition): string => {
  const text = body(position);
  return toBase64Url(`${text}.${checksum(text)}`);
};

/** Decodes a cursor; `undefined` when it is malformed, altered, or not one this service made. */
export const decodeCursor = (cursor: string): CursorPosition | undefined => {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) return undefined;
  const text = fromBase64Url(cursor);
  if (text === undefined) return undefined;
  const parts = text.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) return undefined;
  const [, idText = '', statusText = '', sum] = parts;
  if (!/^[1-9][0-9]{0,15}$/.test(idText)) return undefined;
  const afterId = Number(idText);
  if (!Number.isSafeInteger(afterId)) return undefined;
  if (statusText !== '*' && !isPetStatus(statusText)) return undefined;
  const position: CursorPosition = { afterId, status: statusText === '*' ? undefined : statusText };
  return sum === checksum(body(position)) ? position : undefined;
};

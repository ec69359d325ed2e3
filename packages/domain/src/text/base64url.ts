/**
 * base64url (RFC 4648 §5) without padding: the domain's one encoder, for the API keys it issues
 * (bytes) and the page cursors (ASCII text), and its one decoder, a strict one (for cursors). The
 * domain imports no Node module (`Buffer`), so it spells the alphabet out. Standard base64 with
 * padding (RFC 4648 §4), for webhook secrets, is the same encoder with the two last characters of
 * the alphabet swapped.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const STANDARD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** base64url of `length` octets; `octet(i)` is the i-th (0…255), and 0 past the end. */
const encode = (length: number, octet: (i: number) => number, alphabet = ALPHABET): string => {
  let out = '';
  for (let i = 0; i < length; i += 3) {
    const bits = (octet(i) << 16) | (octet(i + 1) << 8) | octet(i + 2);
    out += alphabet[(bits >> 18) & 63]! + alphabet[(bits >> 12) & 63]!;
    // A last group of one octet is two characters, of two octets three.
    if (length - i > 1) out += alphabet[(bits >> 6) & 63]!;
    if (length - i > 2) out += alphabet[bits & 63]!;
  }
  return out;
};

/** base64url of bytes, without padding. */
export const base64UrlOfBytes = (bytes: Uint8Array): string => encode(bytes.length, (i) => bytes[i] ?? 0);

/** Standard base64 of bytes, padded with `=` to a multiple of four characters. */
export const base64OfBytes = (bytes: Uint8Array): string => {
  const out = encode(bytes.length, (i) => bytes[i] ?? 0, STANDARD_ALPHABET);
  return out + '='.repeat((4 - (out.length % 4)) % 4);
};

/** base64url of a text of code units 0…255 (a cursor's ASCII), one octet each, without padding. */
export const base64UrlOfText = (text: string): string => encode(text.length, (i) => text.charCodeAt(i) || 0);

/**
 * The text (code units 0…255) `encoded` spells, when it is the canonical base64url of it: no
 * padding, no character outside the alphabet, the unused low bits zero; `undefined` otherwise. The
 * re-encoding at the end is the one check: a character outside the alphabet, a length of 4n + 1 or
 * a non-zero low bit all make it differ from `encoded`.
 */
export const textOfBase64Url = (encoded: string): string | undefined => {
  let out = '';
  for (let i = 0; i < encoded.length; i += 4) {
    const chunk = encoded.slice(i, i + 4);
    let bits = 0;
    for (let j = 0; j < 4; j++) bits = (bits << 6) | (j < chunk.length ? ALPHABET.indexOf(chunk[j]!) : 0);
    out += String.fromCharCode((bits >> 16) & 255);
    if (chunk.length > 2) out += String.fromCharCode((bits >> 8) & 255);
    if (chunk.length > 3) out += String.fromCharCode(bits & 255);
  }
  return base64UrlOfText(out) === encoded ? out : undefined;
};

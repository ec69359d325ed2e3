import type { Random } from '../ports/random.port.js';

/** Every key the service issues starts with this, so that secret scanners can recognise one. */
const API_KEY_PREFIX = 'pet_';
/** Bytes of key material: 256 bits. */
const API_KEY_BYTES = 32;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** base64url (RFC 4648 §5) of bytes, without padding. */
const base64Url = (bytes: Uint8Array): string => {
  let out = '';
  // Stryker disable next-line EqualityOperator: i steps by 3 and the only length ever encoded is 32 (generateApiKey checks it), so i never equals bytes.length
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1] ?? 0;
    const c = bytes[i + 2] ?? 0;
    const bits = (a << 16) | (b << 8) | c;
    out += ALPHABET[(bits >> 18) & 63]! + ALPHABET[(bits >> 12) & 63]!;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: of 32 bytes the last group (i = 30) still has a second byte, so this holds for every group of the only length ever encoded
    if (i + 1 < bytes.length) out += ALPHABET[(bits >> 6) & 63]!;
    if (i + 2 < bytes.length) out += ALPHABET[bits & 63]!;
  }
  return out;
};

/** The shape of an issued key: `pet_` and 43 base64url characters (32 bytes). */
export const ISSUED_KEY_PATTERN = /^pet_[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** A new key: `pet_` + base64url of 32 bytes from `random` (43 characters). */
export const generateApiKey = (random: Random): string => {
  const bytes = random.bytes(API_KEY_BYTES);
  if (bytes.length !== API_KEY_BYTES) throw new Error(`the random source gave ${bytes.length} bytes instead of ${API_KEY_BYTES}`);
  return `${API_KEY_PREFIX}${base64Url(bytes)}`;
};

import type { Random } from '../ports/random.port.js';
import { base64UrlOfBytes } from '../text/base64url.js';

/** Every key the service issues starts with this, so that secret scanners can recognise one. */
const API_KEY_PREFIX = 'pet_';
/** Bytes of key material: 256 bits. */
const API_KEY_BYTES = 32;

/** The shape of an issued key: `pet_` and 43 base64url characters (32 bytes). */
export const ISSUED_KEY_PATTERN = /^pet_[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** A new key: `pet_` + base64url of 32 bytes from `random` (43 characters). */
export const generateApiKey = (random: Random): string => {
  const bytes = random.bytes(API_KEY_BYTES);
  if (bytes.length !== API_KEY_BYTES)
    throw new Error(`the random source gave ${bytes.length} bytes instead of ${API_KEY_BYTES}`);
  return `${API_KEY_PREFIX}${base64UrlOfBytes(bytes)}`;
};

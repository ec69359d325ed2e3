import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Digests } from '../src/index.js';

/** The digests for tests and contract suites: `node:crypto`'s SHA-256 and HMAC, the bytes hashed at once. */
export const nodeDigests: Digests = {
  sha256Hex: (text) => createHash('sha256').update(text, 'utf8').digest('hex'),
  sha256HexOfBytes: async (bytes) => createHash('sha256').update(bytes).digest('hex'),
  hmacSha256: (key, message) => createHmac('sha256', key).update(message, 'utf8').digest(),
  equal: (a, b) => {
    const [x, y] = [Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')];
    return x.length === y.length && timingSafeEqual(x, y);
  },
};

import { createHash, timingSafeEqual } from 'node:crypto';
import type { Digests } from '../src/index.js';

/** The digests for tests and contract suites: `node:crypto`'s SHA-256, the bytes hashed at once. */
export const nodeDigests: Digests = {
  sha256Hex: (text) => createHash('sha256').update(text, 'utf8').digest('hex'),
  sha256HexOfBytes: async (bytes) => createHash('sha256').update(bytes).digest('hex'),
  equal: (a, b) => {
    const [x, y] = [Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')];
    return x.length === y.length && timingSafeEqual(x, y);
  },
};

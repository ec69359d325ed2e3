// The SHA-256 a request's body is hashed with for its fingerprint (docs/rules.md §10), natively, in
// slices with the event loop's turns between them.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { sha256HexInSlices } from '../src/digest.js';

/** `length` bytes of a simple sequence from `seed` (fast to make at any size). */
const bytesOf = (length: number, seed: number): Uint8Array => {
  const bytes = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 255;
  }
  return bytes;
};

describe('sha256HexInSlices (docs/rules.md §10, §13)', () => {
  it("is SHA-256 in lowercase hex, hashed in slices: node:crypto's answer, whatever the size around the slices' bounds", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: 0, max: 600_000 }),
          fc.constantFrom(0, 1, 262_143, 262_144, 262_145, 524_288, 524_289),
        ),
        fc.integer(),
        async (length, seed) => {
          const bytes = bytesOf(length, seed);
          expect(await sha256HexInSlices(bytes)).to.equal(createHash('sha256').update(bytes).digest('hex'));
        },
      ),
      { numRuns: 40 },
    );
  });
});

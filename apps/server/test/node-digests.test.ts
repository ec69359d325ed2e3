// The domain's Digests port on node:crypto: the SHA-256 of keys, fingerprints, creation tokens and
// photo files (docs/rules.md §4, §10, §13), and the comparison of a key's hash with the one stored.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { NodeDigests } from '../src/node-digests.js';

const digests = new NodeDigests();
const nodeSha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

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

describe('NodeDigests (the Digests port on node:crypto)', () => {
  it('hmacSha256: RFC 4231 test case 2, the 32 bytes of the MAC under the UTF-8 key', () => {
    const mac = digests.hmacSha256('Jefe', 'what do ya want for nothing?');
    expect(Buffer.from(mac).toString('hex')).to.equal(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('sha256Hex: FIPS 180-4 test vectors, lowercase hex', () => {
    expect(digests.sha256Hex('')).to.equal('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(digests.sha256Hex('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it("property: sha256Hex is the SHA-256 of the text's UTF-8 bytes, a lone surrogate encoded as U+FFFD", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        expect(digests.sha256Hex(text)).to.equal(nodeSha256(new TextEncoder().encode(text)));
      }),
      { numRuns: 300 },
    );
    expect(digests.sha256Hex('a\uD800z')).to.equal(digests.sha256Hex('a\uFFFDz'));
  });

  it('property: sha256HexOfBytes is the SHA-256 of the bytes, whatever the size around its slices (256 KiB)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: 0, max: 600_000 }),
          fc.constantFrom(0, 1, 262_143, 262_144, 262_145, 524_288, 524_289),
        ),
        fc.integer(),
        async (length, seed) => {
          const bytes = bytesOf(length, seed);
          expect(await digests.sha256HexOfBytes(bytes)).to.equal(nodeSha256(bytes));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("sha256HexOfBytes gives the event loop a turn after every slice of 256 KiB while it hashes megabytes (a photo's files)", async () => {
    const bytes = bytesOf(10 * 1024 * 1024, 7);
    let hashing = true;
    let turns = 0;
    const count = (): void => {
      if (!hashing) return;
      turns++;
      setImmediate(count);
    };
    setImmediate(count);
    const digest = await digests.sha256HexOfBytes(bytes);
    hashing = false;
    expect(digest).to.equal(nodeSha256(bytes));
    // 40 slices: a turn between each two (hashed at once, the loop would have had none).
    expect(turns).to.be.at.least(39);
  });

  it('property: equal is string equality, for strings of any length and content', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 70 }),
        fc.string({ unit: 'grapheme', maxLength: 70 }),
        (a, b) => {
          expect(digests.equal(a, b)).to.equal(a === b);
          expect(digests.equal(a, a)).to.equal(true);
        },
      ),
    );
    const hash = digests.sha256Hex('k');
    expect(digests.equal(hash, hash)).to.equal(true);
    expect(digests.equal(hash, `${hash.slice(0, 63)}0`)).to.equal(hash.endsWith('0'));
    expect(digests.equal(hash, hash.slice(0, 63))).to.equal(false);
  });
});

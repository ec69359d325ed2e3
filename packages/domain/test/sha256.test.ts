import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { constantTimeEqual, sha256Hex, sha256HexOfBytes } from '../src/index.js';

/**
 * The domain's own SHA-256 (docs/rules.md §4: keys are kept and compared only as their SHA-256) is
 * FIPS 180-4 SHA-256: the published test vectors, every length around the padding boundaries, lengths
 * whose bit count fills the length field's upper bytes, and UTF-8 at every boundary of its encoding.
 */
const nodeSha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

describe('sha256Hex: FIPS 180-4 SHA-256 (docs/rules.md §4)', () => {
  it('gives the FIPS 180-4 / NIST test vectors', () => {
    expect(sha256Hex('')).to.equal('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // 448 bits: the padding's 0x80 and length no longer fit the first block.
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).to.equal(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(
      sha256Hex(
        'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
      ),
    ).to.equal('cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1');
    // One million 'a': a bit length (8,000,000) that fills the length field's third byte.
    expect(sha256Hex('a'.repeat(1_000_000))).to.equal(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
  });

  it('equals node:crypto at every message length from 0 to 200 bytes (the padding boundaries 55/56, 63/64, 119/120, 127/128, 183/184)', () => {
    for (let length = 0; length <= 200; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 31 + length * 7 + 1) & 255);
      expect(sha256HexOfBytes(bytes), `${length} bytes`).to.equal(nodeSha256(bytes));
      expect(sha256HexOfBytes(Array.from(bytes)), `${length} bytes as an array`).to.equal(nodeSha256(bytes));
    }
  });

  it('equals node:crypto for messages whose bit length fills the length field beyond its two lowest bytes (8 KiB, 2 MiB)', () => {
    for (const length of [8_191, 8_192, 2 ** 21]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 13 + (i >>> 8)) & 255);
      expect(sha256HexOfBytes(bytes), `${length} bytes`).to.equal(nodeSha256(bytes));
    }
  });

  it('hashes the UTF-8 bytes of text, at every boundary of the encoding; a lone surrogate counts as U+FFFD (as TextEncoder and node:crypto)', () => {
    const codePoints = [
      0x00, 0x41, 0x7f, 0x80, 0x81, 0x7ff, 0x800, 0x801, 0xd7ff, 0xe000, 0xfffd, 0xffff, 0x10000, 0x10001, 0x10ffff,
    ];
    for (const cp of codePoints) {
      const text = `a${String.fromCodePoint(cp)}z`;
      expect(sha256Hex(text), `U+${cp.toString(16)}`).to.equal(nodeSha256(Buffer.from(text, 'utf8')));
      expect(sha256Hex(text)).to.equal(sha256HexOfBytes(new TextEncoder().encode(text)));
    }
    const replacement = sha256Hex('a\uFFFDz');
    for (const lone of [0xd800, 0xd801, 0xdbff, 0xdc00, 0xdffe, 0xdfff]) {
      const text = `a${String.fromCharCode(lone)}z`;
      expect(sha256Hex(text), `lone U+${lone.toString(16)}`).to.equal(replacement);
      expect(sha256Hex(text)).to.equal(nodeSha256(text));
    }
    // A well-formed pair is one code point (4 bytes), never two replacements.
    expect(sha256Hex('\uD83D\uDE00')).to.equal(nodeSha256(Buffer.from([0xf0, 0x9f, 0x98, 0x80])));
  });
});

describe('constantTimeEqual', () => {
  it('is string equality, whichever string is longer or where they differ', () => {
    for (const [a, b] of [
      ['', ''],
      ['a', ''],
      ['', 'a'],
      ['ab', 'abc'],
      ['abc', 'ab'],
      ['abc', 'abd'],
      ['xbc', 'abc'],
      ['abc', 'abc'],
    ] as const) {
      expect(constantTimeEqual(a, b), `${a} vs ${b}`).to.equal(a === b);
    }
  });
});

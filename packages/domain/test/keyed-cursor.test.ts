// The cursors of the keyed orders (docs/rules.md §2, §16): `k1.<id>.<key>.<checksum>`, base64url.
// The pager issues one spelling per position and listing; any other text is refused, also one whose
// checksum fits it (the checksum is no secret: anyone can compute it, so the fields are checked on
// their own). A key may be any text, and the bound the list queries take is the longest cursor issued.
import { expect } from 'chai';
import fc from 'fast-check';
import { MAX_PETS_CURSOR_LENGTH, pageScope } from '../src/index.js';
import { decodeKeyedCursor, encodeKeyedCursor, keyedCursorBound } from '../src/pagination/cursor.js';
import { cursorChecksum, forgeCursor } from './support/forged-cursor.js';

/** The UTF-8 bytes of `text`, one character 0…255 each. */
const bytesOf = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

const decode = (cursor: string, scope: string) => decodeKeyedCursor(cursor, scope, MAX_PETS_CURSOR_LENGTH);

describe('the keyed cursors (docs/rules.md §2, §16): k1.<id>.<key>.<checksum>', () => {
  const scope = pageScope('pets', { sort: 'name' });

  it('forges as the service writes, ASCII keys and others (the premise of the tests below)', () => {
    for (const key of ['Zoë.x', 'Rex Old.x', '', '\u0000\u007f', '\u0080', '𝒜'])
      expect(forgeCursor(`k1.7.${bytesOf(key)}`, scope), JSON.stringify(key)).to.equal(
        encodeKeyedCursor({ key, id: 7 }, scope),
      );
  });

  it('property: any text is a key, control characters (U+0000…U+001F), dots and every plane included, and decodes as it was', () => {
    const charArb = fc.oneof(
      fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)),
      fc.constantFrom('.', '%', '\u007f', '\u0080', '\u00ff', '\u0100', '\u07ff', '\u0800', '\uffff', '\u{10000}'),
      fc
        .integer({ min: 0, max: 0x10ffff })
        .filter((code) => code < 0xd800 || code > 0xdfff)
        .map((code) => String.fromCodePoint(code)),
    );
    fc.assert(
      fc.property(
        fc.array(charArb, { maxLength: 40 }).map((chars) => chars.join('')),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        (key, id) => {
          expect(decode(encodeKeyedCursor({ key, id }, scope), scope)).to.deep.equal({ key, id });
        },
      ),
    );
    for (const key of ['\0', '\t', '\n', '\u000f', 'a\u0001b', '\u0010'])
      expect(decode(encodeKeyedCursor({ key, id: 3 }, scope), scope), JSON.stringify(key)).to.deep.equal({
        key,
        id: 3,
      });
  });

  it('refuses another version under a fitting checksum: only k1 is a keyed cursor', () => {
    for (const version of ['k2', 'K1', 'k0', 'c2', 'k', 'k1k1', ' k1', 'k1 ', ''])
      expect(decode(forgeCursor(`${version}.7.ab`, scope), scope), version).to.equal(undefined);
    expect(decode(forgeCursor('k1.7.ab', scope), scope), 'k1 itself').to.deep.equal({ key: 'ab', id: 7 });
  });

  it('property: refuses an id written otherwise than canonically (zeros, sign, exponent, spaces, hex), or 0, under a fitting checksum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 15 }), fc.string({ maxLength: 8 }), (id, key) => {
        const n = String(id);
        for (const idText of [
          `0${n}`,
          `00${n}`,
          `+${n}`,
          `-${n}`,
          `${n}e0`,
          ` ${n}`,
          `${n} `,
          `0x${id.toString(16)}`,
          '0',
          '',
        ])
          expect(decode(forgeCursor(`k1.${idText}.${bytesOf(key)}`, scope), scope), idText).to.equal(undefined);
        expect(decode(forgeCursor(`k1.${n}.${bytesOf(key)}`, scope), scope), 'canonical').to.deep.equal({ key, id });
      }),
    );
  });

  it('refuses a text with fields missing, even when the field after its last dot is the checksum of what precedes it', () => {
    for (const body of ['k1.7', 'k1', 'k1.', '7', 'ab', ''])
      expect(decode(forgeCursor(body, scope), scope), body).to.equal(undefined);
    // In this listing the checksum of `k1` is all digits: a looser split would read `k1.<checksum>` as
    // an id and a key.
    const digitScope = pageScope('pets', { q: 'w1r', sort: 'name' });
    expect(cursorChecksum(`k1|${digitScope}`), 'the premise').to.match(/^[1-9][0-9]{0,15}.$/);
    expect(decode(forgeCursor('k1', digitScope), digitScope)).to.equal(undefined);
  });

  it('property: the bound is the longest cursor issued for keys of at most that many bytes: every one fits, and one reaches it', () => {
    fc.assert(
      fc.property(fc.nat({ max: 1000 }), fc.constantFrom('x', 'é', '€', '🐕'), (maxKeyBytes, char) => {
        const bound = keyedCursorBound(maxKeyBytes);
        const width = Buffer.byteLength(char);
        // The longest key of such characters, padded with one-byte ones to exactly maxKeyBytes.
        const key = char.repeat(Math.floor(maxKeyBytes / width)) + 'x'.repeat(maxKeyBytes % width);
        expect(Buffer.byteLength(key)).to.equal(maxKeyBytes);
        const lengths = Array.from(
          { length: 32 },
          (_, i) => encodeKeyedCursor({ key, id: Number.MAX_SAFE_INTEGER - i }, scope).length,
        );
        expect(Math.max(...lengths)).to.equal(bound);
        expect(encodeKeyedCursor({ key: [...key].slice(0, -1).join(''), id: 1 }, scope).length).to.be.at.most(bound);
      }),
      { numRuns: 30 },
    );
    expect(MAX_PETS_CURSOR_LENGTH, 'a name of 200 characters of 4 bytes').to.equal(keyedCursorBound(800));
  });
});

// Which text the fold and the cursors take as ASCII (docs/rules.md §16): exactly the text of code
// points below U+0080, of any length. Taking other text as ASCII would skip its normalization.
import { expect } from 'chai';
import fc from 'fast-check';
import { isAscii } from '../src/text/ascii.js';

describe('isAscii: the text the fold and the cursors take as it is', () => {
  it('holds for text of code points below U+0080 only, of any length (none too), and for no other', () => {
    for (const text of ['', 'Rex', 'Old Rex the 2nd.', '\u0000\n\u007f', 'a'.repeat(300)])
      expect(isAscii(text), JSON.stringify(text)).to.equal(true);
    for (const text of ['Zoë', '\u0080', 'Rex\u0080', '\u00a0Rex', 'a'.repeat(300) + 'é', '𝒜', '\ud800'])
      expect(isAscii(text), JSON.stringify(text)).to.equal(false);
  });

  it('property: text is ASCII exactly when every code unit is below 0x80', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary-ascii' }), fc.string({ unit: 'binary' })), (text) => {
        expect(isAscii(text), JSON.stringify(text)).to.equal([...text].every((c) => c.charCodeAt(0) < 0x80));
      }),
    );
  });
});

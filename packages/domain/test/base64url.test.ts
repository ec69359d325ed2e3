import { expect } from 'chai';
import fc from 'fast-check';
import { Buffer } from 'node:buffer';
import { base64UrlOfBytes, base64UrlOfText, textOfBase64Url } from '../src/text/base64url.js';

// The domain's own base64url (RFC 4648 §5, no padding): what it issues API keys (docs/rules.md §4, §9)
// and page cursors (§2) in. Node's encoder, which the domain may not import, is the oracle here.
const latin1 = fc.string({
  unit: fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code)),
  maxLength: 40,
});

describe('base64url (RFC 4648 §5, unpadded): the encoding of API keys and cursors', () => {
  it('property: any bytes encode as Node encodes them, every length (each remainder mod 3)', () =>
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        expect(base64UrlOfBytes(bytes)).to.equal(Buffer.from(bytes).toString('base64url'));
      }),
    ));

  it('property: a text of code units 0…255 encodes as its latin1 bytes, and decodes back to itself', () =>
    fc.assert(
      fc.property(latin1, (text) => {
        const encoded = base64UrlOfText(text);
        expect(encoded).to.equal(Buffer.from(text, 'latin1').toString('base64url'));
        expect(textOfBase64Url(encoded)).to.equal(text);
      }),
    ));

  it('property: only the canonical spelling decodes: padding, the standard alphabet, other characters, a length of 4n + 1 or non-zero unused bits are refused', () =>
    fc.assert(
      fc.property(latin1, fc.nat(), fc.constantFrom('=', '==', '+', '/', ' ', '.', 'é', '\n'), (text, at, odd) => {
        const encoded = base64UrlOfText(text);
        const position = encoded.length === 0 ? 0 : at % (encoded.length + 1);
        expect(
          textOfBase64Url(encoded.slice(0, position) + odd + encoded.slice(position)),
          `${odd} at ${position}`,
        ).to.equal(undefined);
        if (encoded.length % 4 === 0) expect(textOfBase64Url(`${encoded}A`), 'a length of 4n + 1').to.equal(undefined);
        // The last character carries unused low bits when the text's length is not a multiple of 3.
        if (text.length % 3 !== 0) {
          const last = encoded[encoded.length - 1]!;
          const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
          const raised = alphabet[alphabet.indexOf(last) + 1]!;
          expect(textOfBase64Url(encoded.slice(0, -1) + raised), 'a non-zero unused bit').to.equal(undefined);
        }
      }),
    ));

  it('examples: the RFC 4648 §10 test vectors, unpadded, and the two characters that differ from base64', () => {
    const vectors: Array<[string, string]> = [
      ['', ''],
      ['f', 'Zg'],
      ['fo', 'Zm8'],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg'],
      ['fooba', 'Zm9vYmE'],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [text, encoded] of vectors) {
      expect(base64UrlOfText(text), text).to.equal(encoded);
      expect(base64UrlOfBytes(new TextEncoder().encode(text)), text).to.equal(encoded);
      expect(textOfBase64Url(encoded), encoded).to.equal(text);
    }
    expect(base64UrlOfBytes(Uint8Array.of(0xfb, 0xff))).to.equal('-_8');
    expect(textOfBase64Url('-_8')).to.equal('\u00fb\u00ff');
  });
});

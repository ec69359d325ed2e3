// Signed photo URLs (docs/rules.md §16): the signing secret the service makes (256 bits from the
// random source, base64url), and who a keyless request by a signed URL is for the rate limiter.
import { expect } from 'chai';
import fc from 'fast-check';
import { anonymousSubject, signedPhotoSubject, type Random } from '../src/index.js';
import { generatePhotoUrlSecret } from '../src/photo/signature.js';
import { SeededRandom } from '../test-support/index.js';

/** docs/rules.md §16: the signing secret is 256 bits. */
const SECRET_BYTES = 32;

describe('the photo URL signing secret (docs/rules.md §16)', () => {
  it('is 256 bits from the random source, in unpadded base64url (43 characters)', () => {
    const asked: number[] = [];
    const random: Random = { bytes: (n) => (asked.push(n), new SeededRandom().bytes(n)) };
    const secret = generatePhotoUrlSecret(random);
    expect(asked).to.deep.equal([SECRET_BYTES]);
    expect(secret).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).to.have.length(SECRET_BYTES);
  });

  it('property: a random source that gives any other number of bytes makes no secret, never a weaker one', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 100 }).filter((n) => n !== SECRET_BYTES),
        (given) => {
          const random: Random = { bytes: () => new Uint8Array(given).fill(7) };
          expect(() => generatePhotoUrlSecret(random), 'the message says what it gave and what it needs').to.throw(
            Error,
            new RegExp(`\\b${given} bytes\\b.*\\b${SECRET_BYTES}\\b`),
          );
        },
      ),
    );
  });
});

describe('who a keyless request by a signed photo URL is (docs/rules.md §16)', () => {
  const addressArb = fc.oneof(fc.ipV4(), fc.ipV6());

  it("property: its client address, on the business plan's numbers, apart from the address's other keyless requests", () => {
    fc.assert(
      fc.property(addressArb, addressArb, (address, other) => {
        const subject = signedPhotoSubject(address);
        expect(subject.plan).to.equal('business');
        expect(subject.quota).to.deep.equal({ perMinute: 1_000, perDay: 100_000 });
        expect(subject.caller, 'no key holder').to.equal(undefined);
        expect(signedPhotoSubject(address).id, 'counted per address').to.equal(subject.id);
        expect(signedPhotoSubject(other).id === subject.id, 'and per address only').to.equal(other === address);
        expect(subject.id, "apart from an address's requests without a signature").not.to.equal(
          anonymousSubject(other).id,
        );
      }),
    );
  });
});

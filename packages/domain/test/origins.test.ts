// The public catalogue (docs/rules.md §16), publishable keys: they begin `pk_` (a secret key `pet_`), and
// carry 1–20 distinct origins, each `https://host[:port]`, or `http://localhost[:port]` /
// `http://127.0.0.1[:port]`, without user name, path, query or fragment (400 saying why). A request
// with one must carry an `Origin` (or, lacking one, a `Referer`) whose origin is one of the key's.
// Node's WHATWG `URL` (not available to the domain) is the oracle of what an origin is and how a
// browser spells it.
import { expect } from 'chai';
import fc from 'fast-check';
import type { Random } from '../src/index.js';
import {
  generatePublishableKey,
  ISSUED_KEY_PATTERN,
  ORIGINS_MAX,
  originAllowed,
  PUBLISHABLE_KEY_PATTERN,
  readKeyOrigins,
} from '../src/index.js';
import { SeededRandom } from '../test-support/index.js';
import { expectRefusal } from './support/refusals.js';

/** Random case, as a person may type a scheme or a host. */
const anyCase = (text: string): fc.Arbitrary<string> =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => Array.from(text, (c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
const labelArb = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
const domainArb = fc
  .tuple(fc.array(labelArb, { maxLength: 3 }), fc.stringMatching(/^[a-z](?:[a-z0-9-]{0,6}[a-z0-9])?$/))
  .map(([labels, top]) => [...labels, top].join('.'))
  // A label starting xn-- must be valid Punycode for URL; a browser never sends an invalid one.
  .filter((domain) => !/(?:^|\.)xn--/.test(domain));
const ipv4Arb = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }).map((p) => p.join('.'));
const portArb = fc.oneof(
  fc.constant(''),
  fc.constantFrom(':443', ':80', ':8443', ':1', ':65535', ':0080', ':00443'),
  fc.integer({ min: 1, max: 65535 }).map((port) => `:${port}`),
);
/** Origins the rules take, spelled in any of the ways they may be written. */
const validOriginArb = fc
  .oneof(
    fc.tuple(anyCase('https'), fc.oneof(domainArb, ipv4Arb, fc.constantFrom('localhost', '127.0.0.1'))),
    fc.tuple(anyCase('http'), fc.constantFrom('localhost', '127.0.0.1', 'LocalHost')),
  )
  .chain(([scheme, host]) =>
    fc
      .tuple(anyCase(host), portArb, fc.constantFrom('', '/'))
      .map(([spelled, port, slash]) => `${scheme}://${spelled}${port}${slash}`),
  );
/** What a browser's `Origin` header says for the page at `url`. */
const browserOrigin = (url: string): string => new URL(url).origin;

describe('publishable keys (docs/rules.md §16)', () => {
  it('property: a publishable key is pk_ and the base64url of 32 random bytes, never shaped like a secret key', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const key = generatePublishableKey({ bytes: () => bytes });
        expect(key).to.match(PUBLISHABLE_KEY_PATTERN);
        expect(key).to.not.match(ISSUED_KEY_PATTERN);
        expect(key.slice(0, 3)).to.equal('pk_');
        expect(Buffer.from(key.slice(3), 'base64url')).to.deep.equal(Buffer.from(bytes));
      }),
    );
    expect(generatePublishableKey(new SeededRandom('a'))).to.not.equal(generatePublishableKey(new SeededRandom('b')));
    const short: Random = { bytes: () => new Uint8Array(31) };
    expect(() => generatePublishableKey(short)).to.throw(/31 bytes/);
    const key = generatePublishableKey(new SeededRandom());
    for (const other of ['pet_' + key.slice(3), `x${key}`, `${key}x`, key.slice(0, -1)])
      expect(other, 'the whole key, nothing around it').to.not.match(PUBLISHABLE_KEY_PATTERN);
  });

  it('property: every origin the rules allow is taken, normalised exactly as a browser spells it in Origin', () => {
    fc.assert(
      fc.property(validOriginArb, (origin) => {
        const result = readKeyOrigins([origin]);
        expect(result.ok, origin).to.equal(true);
        if (result.ok) expect(result.value, origin).to.deep.equal([browserOrigin(origin)]);
      }),
      { numRuns: 300 },
    );
    const longest = ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.');
    for (const host of [longest, 'www.3com', 'shelter.0xfg', 'x'])
      expect(readKeyOrigins([`https://${host}`]), host).to.deep.equal({ ok: true, value: [`https://${host}`] });
    expect(readKeyOrigins([`https://${longest}e`]).ok, '254 characters').to.equal(false);
    expect(
      readKeyOrigins(['HTTPS://Shelter.Example:443/', 'http://LOCALHOST:80', 'https://127.0.0.1:08443']),
    ).to.deep.equal({ ok: true, value: ['https://shelter.example', 'http://localhost', 'https://127.0.0.1:8443'] });
  });

  it('property: whatever text is taken is an origin alone, as WHATWG URL reads it (no user, path, query or fragment)', () => {
    const noiseArb = fc.constantFrom(
      '/',
      '/a',
      '?',
      '#',
      '@',
      'u@',
      ':',
      '::',
      ' ',
      '%41',
      '\\',
      '[',
      ']',
      '_',
      'é',
      '\t',
      '-',
      '.',
      '0x',
      '..',
    );
    const mutatedArb = fc
      .tuple(validOriginArb, noiseArb, fc.nat())
      .map(
        ([origin, noise, at]) =>
          origin.slice(0, at % (origin.length + 1)) + noise + origin.slice(at % (origin.length + 1)),
      );
    fc.assert(
      fc.property(fc.oneof(mutatedArb, fc.string({ maxLength: 40 })), (text) => {
        const result = readKeyOrigins([text]);
        if (!result.ok) {
          const message = expectRefusal(result, 'validation_failed', 'origins', JSON.stringify(text));
          expect(message, 'it says which entry').to.include('origins[0]');
          return;
        }
        const url = new URL(text);
        expect([url.username, url.password, url.pathname, url.search, url.hash], text).to.deep.equal([
          '',
          '',
          '/',
          '',
          '',
        ]);
        expect(result.value, text).to.deep.equal([url.origin]);
        expect(url.protocol === 'https:' || ['localhost', '127.0.0.1'].includes(url.hostname), text).to.equal(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses what the rules exclude, saying why and which entry', () => {
    const refused: [string, RegExp][] = [
      ['https://shelter.example/pets', /no path, query or fragment/],
      ['https://shelter.example?x=1', /no path, query or fragment/],
      ['https://shelter.example#top', /no path, query or fragment/],
      ['https://shelter.example//', /no path/],
      ['https://user:pw@shelter.example', /user name or password/],
      ['http://shelter.example', /only for localhost and 127.0.0.1/],
      ['http://127.0.0.2:8080', /only for localhost and 127.0.0.1/],
      ['ftp://shelter.example', /https:\/\//],
      ['shelter.example', /scheme:\/\/host/],
      ['https:shelter.example', /scheme:\/\/host/],
      ['https://[::1]:8443', /IPv6/],
      ['https://tierheim-münchen.de', /xn--/],
      ['https://shelter.example:0', /port/],
      ['https://shelter.example:65536', /port/],
      ['https://shelter.example:', /port/],
      ['https://shelter.example:8a', /port/],
      ['https://', /domain name/],
      ['https://shelter..example', /domain name/],
      ['https://shelter.example.', /domain name/],
      ['https://-shelter.example', /domain name/],
      ['https://shel_ter.example', /domain name/],
      ['https://shelter example', /domain name/],
      ['https://' + 'a'.repeat(64) + '.example', /domain name/],
      ['https://' + 'abcdefghi.'.repeat(25) + 'example', /domain name/],
      ['https://1.2.3', /IPv4/],
      ['https://256.1.1.1', /IPv4/],
      ['https://01.2.3.4', /IPv4/],
      ['https://shelter.0x1f', /IPv4/],
      ['https://shelter.42', /IPv4/],
    ];
    for (const [origin, why] of refused) {
      const message = expectRefusal(
        readKeyOrigins(['https://ok.example', origin]),
        'validation_failed',
        'origins',
        origin,
      );
      expect(message, origin).to.match(why).and.include('origins[1]');
    }
    const long = 'https://' + 'x'.repeat(10_000);
    expect(expectRefusal(readKeyOrigins([long]), 'validation_failed', 'origins').length).to.be.below(300);
  });

  it('takes 1 to 20 distinct strings, distinct once normalised', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `https://shelter${i}.example`);
    expect(readKeyOrigins(many(ORIGINS_MAX)).ok).to.equal(true);
    for (const value of [[], many(ORIGINS_MAX + 1), 'https://shelter.example', undefined, null, { 0: 'x' }])
      expect(expectRefusal(readKeyOrigins(value), 'validation_failed', 'origins')).to.include('1 to 20');
    expect(expectRefusal(readKeyOrigins(['https://a.example', 5]), 'validation_failed', 'origins')).to.include(
      'origins[1] must be a string',
    );
    const repeated = expectRefusal(
      readKeyOrigins(['https://a.example', 'https://b.example', 'HTTPS://A.example:443/']),
      'validation_failed',
      'origins',
    );
    expect(repeated).to.include('origins[2] repeats origins[0]');
  });
});

describe('where a publishable key may be used from (docs/rules.md §16)', () => {
  const key = ['https://shelter.example', 'http://localhost:3000'];

  it('allows a request whose Origin, or lacking one, whose Referer’s origin, is one of the key’s', () => {
    expect(originAllowed(key, { origin: 'https://shelter.example' })).to.equal(true);
    expect(originAllowed(key, { origin: 'http://localhost:3000' })).to.equal(true);
    expect(originAllowed(key, { referer: 'https://shelter.example/pets?q=rex#top' })).to.equal(true);
    expect(originAllowed(key, { referer: 'https://shelter.example' })).to.equal(true);
    expect(originAllowed(key, { origin: undefined, referer: 'http://localhost:3000/' })).to.equal(true);
  });

  it('refuses any other origin, an opaque one, a missing one, and ignores the Referer when an Origin is sent', () => {
    for (const origin of [
      'https://evil.example',
      'https://shelter.example.evil.example',
      'https://shelter.example:8443',
      'http://shelter.example',
      'http://localhost',
      'http://localhost:3001',
      'null',
      '',
      'https://shelter.example https://evil.example',
      'https://shelter.example/pets',
      'https://shelter.example?x',
    ])
      expect(originAllowed(key, { origin }), origin).to.equal(false);
    expect(originAllowed(key, {})).to.equal(false);
    expect(originAllowed(key, { origin: 'null', referer: 'https://shelter.example/' })).to.equal(false);
    expect(originAllowed(key, { origin: 'https://evil.example', referer: 'https://shelter.example/' })).to.equal(false);
    for (const referer of [
      'https://evil.example/https://shelter.example',
      'https://shelter.example.evil/',
      '/pets',
      'x',
    ])
      expect(originAllowed(key, { referer }), referer).to.equal(false);
  });

  it('property: a request is allowed exactly when the origin a browser derives from its Origin or Referer is one of the key’s', () => {
    const pathArb = fc.constantFrom('', '/', '/pets', '/a/b?x=1', '?q=re', '#x', '/p#/q?r');
    fc.assert(
      fc.property(
        fc.uniqueArray(validOriginArb, { minLength: 1, maxLength: 4 }),
        validOriginArb,
        fc.nat(),
        fc.boolean(),
        pathArb,
        (listed, sent, pick, byReferer, path) => {
          const origins = readKeyOrigins(listed);
          fc.pre(origins.ok);
          if (!origins.ok) return;
          const candidates = [...listed, sent];
          const candidate = candidates[pick % candidates.length]!;
          const url = candidate.replace(/\/$/, '') + path;
          const request = byReferer ? { referer: url } : { origin: browserOrigin(url) };
          const expected = origins.value.includes(browserOrigin(url));
          expect(
            originAllowed(origins.value, request),
            `${JSON.stringify(request)} for ${origins.value.join(' ')}`,
          ).to.equal(expected);
        },
      ),
    );
  });
});

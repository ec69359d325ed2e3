// The public catalogue (docs/rules.md §16): what the domain hands a store with each pet (its folded
// words, name key and shuffle key, computed here and never by a store), how a photo's srcset is
// written, and the cursors of the orders that are not by id.
import { expect } from 'chai';
import fc from 'fast-check';
import {
  drawShuffleKey,
  encodeCursor,
  foldText,
  foldWords,
  MAX_PETS_CURSOR_LENGTH,
  nameKeysOf,
  pageScope,
  petEdit,
  petEntry,
  PHOTO_WIDTHS,
  srcsetOf,
} from '../src/index.js';
import { decodeKeyedCursor, encodeKeyedCursor } from '../src/pagination/cursor.js';
import { SeededRandom } from '../test-support/index.js';
import { validNameArb } from '../test-support/arbitraries.js';
import { forgeCursor } from './support/forged-cursor.js';

describe('the search keys of a pet (docs/rules.md §16)', () => {
  it("property: a name's keys are its folded words, each once in the order they first come, and its whole fold", () => {
    fc.assert(
      fc.property(validNameArb, (name) => {
        const { words, nameKey } = nameKeysOf(name);
        expect(nameKey).to.equal(foldText(name));
        expect(words).to.deep.equal([...new Set(foldWords(name))]);
      }),
    );
    expect(nameKeysOf('Rex rex REX the Réx')).to.deep.equal({ words: ['rex', 'the'], nameKey: 'rex rex rex the rex' });
  });

  it('property: a new pet stores its draft, its name keys and a shuffle key drawn from the Random port, once', () => {
    fc.assert(
      fc.property(validNameArb, fc.string(), (name, seed) => {
        const draft = { name, categoryId: 3, status: 'pending' } as const;
        const entry = petEntry(draft, new SeededRandom(seed));
        expect(entry).to.deep.equal({
          ...draft,
          ...nameKeysOf(name),
          shuffleKey: drawShuffleKey(new SeededRandom(seed)),
        });
      }),
    );
  });

  it('a PATCH hands the store the keys of a new name, and no keys when the name does not change', () => {
    expect(petEdit({ name: 'Old Rex', status: 'sold' })).to.deep.equal({
      name: 'Old Rex',
      status: 'sold',
      nameKeys: { words: ['old', 'rex'], nameKey: 'old rex' },
    });
    const recategorised = petEdit({ categoryId: 4, status: 'available' });
    expect(recategorised).to.deep.equal({ categoryId: 4, status: 'available' });
    expect(Object.keys(recategorised), 'no name and no keys, not even undefined ones').to.deep.equal([
      'categoryId',
      'status',
    ]);
  });
});

describe("a photo's srcset (docs/rules.md §16)", () => {
  it('lists the narrower widths below the photo’s own, each its URL with width=, then the URL itself with its width', () => {
    const url = '/v1/pets/1/photos/2?sig=abc';
    expect(srcsetOf(url, 1200)).to.equal(
      `${url}&width=160 160w, ${url}&width=320 320w, ${url}&width=640 640w, ${url} 1200w`,
    );
    expect(srcsetOf(url, 640), 'only the widths smaller than its own').to.equal(
      `${url}&width=160 160w, ${url}&width=320 320w, ${url} 640w`,
    );
    expect(srcsetOf(url, 160)).to.equal(`${url} 160w`);
    expect(srcsetOf(url, 100)).to.equal(`${url} 100w`);
    expect(srcsetOf('https://shelter.example/v1/pets/1/photos/2', 400), 'a URL without a query').to.equal(
      'https://shelter.example/v1/pets/1/photos/2?width=160 160w, https://shelter.example/v1/pets/1/photos/2?width=320 320w, https://shelter.example/v1/pets/1/photos/2 400w',
    );
  });

  it('property: every candidate but the last is a narrower width of §13, ascending; the last is the photo’s own', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4096 }), (width) => {
        const candidates = srcsetOf('/p?sig=s', width)
          .split(', ')
          .map((candidate) => candidate.split(' '));
        const widths = candidates.map(([, descriptor]) => Number(descriptor!.slice(0, -1)));
        expect(widths[widths.length - 1]).to.equal(width);
        expect(widths.slice(0, -1)).to.deep.equal(PHOTO_WIDTHS.filter((w) => w < width));
        for (const [url, descriptor] of candidates.slice(0, -1))
          expect(url).to.equal(`/p?sig=s&width=${descriptor!.slice(0, -1)}`);
      }),
    );
  });
});

describe('the cursors of the keyed orders (docs/rules.md §2, §16): (name, id) and (shuffle key, id)', () => {
  const scope = pageScope('pets', { sort: 'name' });
  /** Any text a key may be: names of up to 200 characters of any plane, dots included; shuffle keys. */
  const keyArb = fc.oneof(
    validNameArb,
    fc.string({ unit: 'grapheme', maxLength: 100 }),
    fc.constantFrom('a.b', '.', '..', 'k1.5.x', '\u{10ffff}'.repeat(200), '\u{1f415}'.repeat(200)),
    fc.nat({ max: 2 ** 32 - 1 }).map(String),
  );
  const idArb = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });

  it('property: a cursor decodes to the position it was made for, canonical base64url within the bound of the pet list', () => {
    fc.assert(
      fc.property(keyArb, idArb, (key, id) => {
        const cursor = encodeKeyedCursor({ key, id }, scope);
        expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
        expect(cursor.length).to.be.at.most(MAX_PETS_CURSOR_LENGTH);
        expect(decodeKeyedCursor(cursor, scope, MAX_PETS_CURSOR_LENGTH)).to.deep.equal({ key, id });
      }),
    );
  });

  it('property: refused in another listing, altered by one character, cut, past the bound, or spelt as an id cursor', () => {
    fc.assert(
      fc.property(keyArb, idArb, fc.nat(), (key, id, at) => {
        const cursor = encodeKeyedCursor({ key, id }, scope);
        expect(
          decodeKeyedCursor(cursor, pageScope('pets', { sort: 'random', seed: 1 }), MAX_PETS_CURSOR_LENGTH),
        ).to.equal(undefined);
        const i = at % cursor.length;
        const altered = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
        expect(decodeKeyedCursor(altered, scope, MAX_PETS_CURSOR_LENGTH), 'altered').to.equal(undefined);
        expect(decodeKeyedCursor(cursor.slice(0, -1), scope, MAX_PETS_CURSOR_LENGTH), 'cut').to.equal(undefined);
        expect(decodeKeyedCursor(cursor, scope, cursor.length - 1), 'past the bound').to.equal(undefined);
        expect(decodeKeyedCursor(encodeCursor(id, scope), scope, MAX_PETS_CURSOR_LENGTH), 'an id cursor').to.equal(
          undefined,
        );
      }),
    );
  });

  it('refuses a key whose bytes are not UTF-8, even under a fitting checksum', () => {
    // A forger can compute the checksum too (support/forged-cursor.ts), so the key's bytes must be checked on their own.
    const spell = (body: string): string => forgeCursor(body, scope);
    expect(spell('k1.7.ab'), 'the checksum as the service writes it').to.equal(
      encodeKeyedCursor({ key: 'ab', id: 7 }, scope),
    );
    expect(decodeKeyedCursor(spell('k1.7.\xc3\xa9'), scope, MAX_PETS_CURSOR_LENGTH)).to.deep.equal({ key: 'é', id: 7 });
    // An overlong '/', a surrogate, a lone continuation byte, a byte UTF-8 never has, a cut sequence.
    for (const bytes of ['\xc0\xaf', '\xed\xa0\x80', '\x80', '\xff', '\xe2\x82'])
      expect(decodeKeyedCursor(spell(`k1.7.${bytes}`), scope, MAX_PETS_CURSOR_LENGTH), JSON.stringify(bytes)).to.equal(
        undefined,
      );
  });
});

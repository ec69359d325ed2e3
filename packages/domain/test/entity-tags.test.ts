import { expect } from 'chai';
import fc from 'fast-check';
import { entityTag, ifNoneMatchHolds } from '../src/index.js';

describe('entity tags and If-None-Match (RFC 9110 §8.8.3, §13.1.2; docs/rules.md §13)', () => {
  const digest = 'a'.repeat(64);

  it('a strong tag quotes what identifies the representation: a revision, a digest', () => {
    expect(entityTag(7)).to.equal('"7"');
    expect(entityTag(digest)).to.equal(`"${digest}"`);
    expect(entityTag('')).to.equal('""');
  });

  it('holds (send it) when the header is absent, or lists other tags only', () => {
    expect(ifNoneMatchHolds(undefined, digest)).to.equal(true);
    for (const value of [
      '',
      '"b"',
      `"${digest}x"`,
      `"x${digest}"`,
      `W/"b", "c"`,
      digest,
      `"${digest.slice(1)}"`,
      '**',
      '*, "b"',
      '"',
      `'${digest}'`,
    ]) {
      expect(ifNoneMatchHolds(value, digest), value).to.equal(true);
    }
  });

  it('does not hold (304) for * (spaces around it allowed) or the tag itself, strong or weak, anywhere in the list', () => {
    for (const value of [
      '*',
      ' * ',
      '\t*\t',
      `"${digest}"`,
      `W/"${digest}"`,
      `"b", "${digest}"`,
      `W/"b",W/"${digest}" , "c"`,
      ` "${digest}" `,
      `junk "${digest}" junk`,
      `W/ "${digest}"`,
    ]) {
      expect(ifNoneMatchHolds(value, digest), value).to.equal(false);
    }
    expect(ifNoneMatchHolds('"7"', 7), 'a revision').to.equal(false);
    expect(ifNoneMatchHolds('""', ''), 'the empty tag').to.equal(false);
    expect(ifNoneMatchHolds('"ab"', 'b'), 'the whole quoted part, not a piece of it').to.equal(true);
  });

  it('property: for a list of tags, holds exactly when none of them (weak or strong) is the current one', () => {
    const opaque = fc.stringMatching(/^[0-9a-f]{0,6}$/);
    const listed = fc.record({ opaque, weak: fc.boolean() });
    fc.assert(
      fc.property(
        fc.array(listed, { maxLength: 5 }),
        fc.constantFrom(',', ', ', ' ,\t'),
        opaque,
        (tags, separator, current) => {
          const value = tags.map((t) => `${t.weak ? 'W/' : ''}${entityTag(t.opaque)}`).join(separator);
          expect(ifNoneMatchHolds(value, current), value).to.equal(!tags.some((t) => t.opaque === current));
        },
      ),
      { numRuns: 500 },
    );
  });
});

import fc from 'fast-check';
import type { PetDraft } from '../src/index.js';
import { MAX_CATEGORY_ID, PET_STATUSES } from '../src/index.js';

/** Names that obey the rules: 1–200 code points, one of them not white space, no lone surrogate. */
export const validNameArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }).filter((c) => /\S/u.test(c)),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
  )
  .map(([a, b, c]) => a + b + c)
  .filter((name) => [...name].length <= 200);

export const petDraftArb: fc.Arbitrary<PetDraft> = fc.record({
  name: validNameArb,
  categoryId: fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: MAX_CATEGORY_ID })),
  status: fc.constantFrom(...PET_STATUSES),
});

/**
 * Category names built to hit the same-name rule (NFC, then lower case): a few base words with
 * accents, ligatures, dotted capitals and sharp s, each written in another case or normalization
 * form (NFC, NFD, NFKD), sometimes with a suffix, so that equal and nearly equal names meet often.
 */
export const categoryNameArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(
      'Cats',
      'café',
      'Ångström',
      'straße',
      'İzmir',
      'ǅemal',
      'Ωmega',
      'Dogs',
      'reptiles',
      'e\u0301lan',
      '🐈 club',
    ),
    fc.constantFrom<(s: string) => string>(
      (s) => s,
      (s) => s.toUpperCase(),
      (s) => s.toLowerCase(),
      (s) => s.normalize('NFD'),
      (s) => s.normalize('NFC'),
      (s) => s.normalize('NFKD').toUpperCase(),
      (s) => s.charAt(0).toLowerCase() + s.slice(1).toUpperCase(),
    ),
    fc.constantFrom('', '', '', ' 2', 's', ' '),
  )
  .map(([base, form, suffix]) => form(base) + suffix);

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

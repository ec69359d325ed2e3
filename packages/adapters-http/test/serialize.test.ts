import { expect } from 'chai';
import fc from 'fast-check';
import type { Pet, PetStatus } from '@petstore/domain';
import { serializePet, serializePets } from '../src/serialize.js';

const petArb: fc.Arbitrary<Pet> = fc
  .record({
    id: fc.oneof(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(Number.NaN, Infinity, 1.5, -0)),
    name: fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.constantFrom('"', '\\', '\u0000', '\ud800', 'Rex', '\u2028', '🐈'),
    ),
    categoryId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    status: fc.oneof(
      fc.constantFrom<PetStatus>('available', 'pending', 'sold'),
      fc.string({ unit: 'binary', maxLength: 4 }) as fc.Arbitrary<PetStatus>,
    ),
  })
  // Frozen pets (what the memory store hands out) have their text made once and kept: both kinds.
  .chain((pet) => fc.constantFrom(pet, Object.freeze({ ...pet })));

describe('pet serializer', () => {
  it('property: writes exactly what JSON.stringify writes, for one pet and for a page', () => {
    fc.assert(
      fc.property(fc.array(petArb, { maxLength: 20 }), (pets) => {
        expect(serializePets(pets)).to.equal(JSON.stringify(pets));
        for (const pet of pets) expect(serializePet(pet)).to.equal(JSON.stringify(pet));
        // Again: a text kept from the first time is still the pet's.
        expect(serializePets(pets)).to.equal(JSON.stringify(pets));
      }),
      { numRuns: 500 },
    );
  });
});

import { expect } from 'chai';
import fc from 'fast-check';
import type { Event, Pet, PetStatus, PhotoView } from '@petstore/domain';
import { serializePet, serializePets, serializePetsWithPhotos } from '../src/serialize.js';
import { serializeEvents } from '../src/events.js';

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

describe('expanded page serializer (docs/rules.md §16)', () => {
  const photoArb: fc.Arbitrary<PhotoView> = fc
    .record({
      id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      contentType: fc.constantFrom('image/jpeg', 'image/png', 'image/webp'),
      width: fc.integer({ min: 1, max: 4096 }),
      height: fc.integer({ min: 1, max: 4096 }),
      url: fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.constant('/v1/pets/1/photos/2?sig=a"b\\')),
      srcset: fc.string({ unit: 'binary', maxLength: 30 }),
    })
    // Frozen views (what the photo URLs hand out) have their text made once and kept: both kinds.
    .chain((photo) => fc.constantFrom(photo, Object.freeze({ ...photo })));

  it('property: each pet as JSON.stringify writes its four fields, then photos (each its six fields; [] when none)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(petArb, fc.option(fc.array(photoArb, { maxLength: 3 }), { nil: undefined })), {
          maxLength: 10,
          selector: ([pet]) => pet.id,
        }),
        (rows) => {
          const pets = rows.map(([pet]) => pet);
          const photos = new Map(
            rows.flatMap(([pet, views]) => (views === undefined ? [] : [[pet.id, views] as const])),
          );
          const expected = rows.map(([pet, views]) => ({
            id: pet.id,
            name: pet.name,
            categoryId: pet.categoryId,
            status: pet.status,
            photos: views ?? [],
          }));
          const json = JSON.stringify(expected);
          expect(serializePetsWithPhotos(pets, photos).toString('utf8')).to.equal(json);
          // Again: bytes kept from the first time are still the pet's and the view's.
          expect(serializePetsWithPhotos(pets, photos).equals(Buffer.from(json))).to.equal(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('event page serializer', () => {
  const eventArb: fc.Arbitrary<Event> = fc
    .record({
      id: fc.string({ minLength: 1, maxLength: 8 }).map((s) => `evt_${s}`),
      sequence: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      occurredAt: fc.constantFrom('2027-01-01T00:00:00.000Z', '2027-12-31T23:59:59.999Z'),
      data: petArb,
    })
    .map(({ id, sequence, occurredAt, data }): Event => ({ id, sequence, type: 'pet.created', occurredAt, data }))
    // Frozen events (what the memory store hands out) have their bytes made once and kept: both kinds.
    .chain((event) => fc.constantFrom(event, Object.freeze({ ...event })));

  it('property: the UTF-8 bytes of JSON.stringify of the page, its fields in the order of the schema, again the same', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 20 }), (events) => {
        const expected = JSON.stringify(
          events.map(({ id, sequence, type, occurredAt, data }) => ({ id, sequence, type, occurredAt, data })),
        );
        expect(serializeEvents(events).toString('utf8')).to.equal(expected);
        expect(serializeEvents(events).equals(Buffer.from(expected))).to.equal(true);
      }),
      { numRuns: 300 },
    );
  });

  it('an event not frozen is written as it is at each call (a networked store makes one per read)', () => {
    const event = {
      id: 'evt_1',
      sequence: 1,
      type: 'pet.withdrawn' as const,
      occurredAt: '2027-01-01T00:00:00.000Z',
      data: { id: 3 },
    };
    expect(serializeEvents([event]).toString()).to.include('"sequence":1,');
    event.sequence = 2;
    expect(serializeEvents([event]).toString()).to.include('"sequence":2,');
  });
});

// What a client reads in the refusals of the pet catalogue (docs/rules.md §1, §2, §3): each
// `Error` body says what is wrong and names the field or value, never more than 64 characters of
// input; and an id beyond any pet is answered without a lookup.
import { expect } from 'chai';
import {
  GET_PET_DEPRECATION,
  PetCatalog,
  validateNewPet,
  validatePetPatch,
  type PetRecord,
  type PetRepository,
} from '../src/index.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { SeededRandom, testPhotoLinks } from '../test-support/index.js';
import { expectRefusal } from './support/refusals.js';
import { PhotoStoreModel } from './support/photo-store-model.js';

const REX: PetRecord = {
  id: 2,
  name: 'Rex',
  categoryId: 1,
  status: 'available',
  revision: 0,
  orderId: null,
  statusPatchedAt: null,
};

/** A pet store with one pet (id 2) that records the ids it is asked for; nothing else is used here. */
const onePet = () => {
  const asked: number[] = [];
  const unused = (): never => {
    throw new Error('not used by these tests');
  };
  const store: PetRepository = {
    findById: async (id: number) => {
      asked.push(id);
      return id === REX.id ? REX : undefined;
    },
    create: unused,
    findByCreationToken: unused,
    list: unused,
    findHold: unused,
    swapHold: unused,
    countByStatus: unused,
    update: unused,
    withdraw: unused,
  };
  return { asked, store };
};
const NO_CATEGORIES = { findById: async () => undefined };
const catalogOf = (store: PetRepository, clock: ManualClock): PetCatalog =>
  new PetCatalog(store, NO_CATEGORIES, clock, new SeededRandom(), {
    store: new PhotoStoreModel(),
    links: testPhotoLinks,
  });

describe('the refusals of a pet body say what is wrong (docs/rules.md §1, §3)', () => {
  it('a body that is not an object says that it must be one (for PATCH: with which fields)', () => {
    for (const body of [null, [], 'a', 1]) {
      expect(expectRefusal(validateNewPet(body), 'validation_failed', 'body')).to.equal(
        'the body must be a JSON object',
      );
      expect(expectRefusal(validatePetPatch(body), 'validation_failed', 'body')).to.equal(
        'the body must be a JSON object with any of name, categoryId, status',
      );
    }
  });

  it('an id in a new pet is refused saying the service assigns it', () => {
    expect(expectRefusal(validateNewPet({ id: 1, name: 'a', categoryId: 1 }), 'validation_failed', 'id')).to.equal(
      'id is assigned by the service; leave it out',
    );
  });

  it('a status outside the three names the three, in a new pet, a PATCH and a list filter', async () => {
    const want = 'status must be one of available, pending, sold';
    expect(
      expectRefusal(validateNewPet({ name: 'a', categoryId: 1, status: 'adopted' }), 'validation_failed', 'status'),
    ).to.equal(want);
    expect(expectRefusal(validatePetPatch({ status: 'adopted' }), 'validation_failed', 'status')).to.equal(want);
    const catalog = catalogOf(onePet().store, new ManualClock(Date.UTC(2027, 0, 1)));
    // A list filter may name several statuses (docs/rules.md §16), and its refusal says so.
    expect(expectRefusal(await catalog.listPets({ status: 'adopted' }), 'validation_failed', 'status')).to.equal(
      `${want}, or several of them separated by commas (got 'adopted')`,
    );
  });
});

describe('PetCatalog.getPet: what it answers a client (docs/rules.md §2, §3)', () => {
  it('no such pet: 404 naming the id as given; an id beyond any pet is not looked up', async () => {
    const { asked, store } = onePet();
    const catalog = catalogOf(store, new ManualClock(Date.UTC(2027, 0, 1)));
    expect(await catalog.getPet('2')).to.deep.equal({ ok: true, value: REX });
    expect(expectRefusal(await catalog.getPet('3'), 'not_found')).to.equal('no pet has id 3');
    expect(asked).to.deep.equal([2, 3]);
    for (const id of ['9007199254740992', '9223372036854775807'])
      expect(expectRefusal(await catalog.getPet(id), 'not_found')).to.equal(`no pet has id ${id}`);
    expect(asked, 'beyond 2^53 − 1: no lookup').to.deep.equal([2, 3]);
  });

  it('from its sunset on: 410 naming the operation to use instead', async () => {
    const catalog = catalogOf(onePet().store, new ManualClock(GET_PET_DEPRECATION.sunsetAt));
    expect(expectRefusal(await catalog.getPet('2'), 'gone')).to.equal(
      'this operation was removed; use GET /v1/pets instead',
    );
  });
});

// docs/rules.md §12 in the domain: the PATCH body, If-Match (RFC 9110 §13.1.1), the rules of what
// may change when, and the use case's order of checks. The same rules over real stores and orders
// are in the adoption contract (test-support), over HTTP in adapters-http/test/pets-maintenance.test.ts.
import { expect } from 'chai';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  deliveryBindsStatus,
  entityTag,
  ifMatchAllows,
  parseIfMatch,
  PetMaintenance,
  PetPatchSchema,
  StoreUnavailableError,
  validatePetPatch,
  type Caller,
  type Pet,
  type ListedPets,
  type PetChanges,
  type PetEdit,
  type PetRecord,
  type PetRepository,
} from '../src/index.js';
import { validNameArb } from '../test-support/arbitraries.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { MAX_ROUNDS } from '../src/use-cases/order-repair.js';
import { changesOf, isNoChange, patchConflict, withdrawalConflict } from '../src/pet/maintenance.js';
import { expectRefusal } from './support/refusals.js';

const ajv = new Ajv2020({ strict: true, allErrors: false });
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
const schemaAccepts = ajv.compile(PetPatchSchema);

const ADMIN: Caller = { keyId: 'key_ad00000000ad', role: 'admin' };
const CLIENT: Caller = { keyId: 'key_cccccccccccc', role: 'client' };

const rejects = (body: unknown, field: string): string => {
  const result = validatePetPatch(body);
  expect(result.ok, JSON.stringify(body)).to.equal(false);
  expect(schemaAccepts(body), `schema on ${JSON.stringify(body)}`).to.equal(false);
  if (result.ok) return '';
  expect(result.error).to.deep.include({ code: 'validation_failed', field });
  return result.error.message;
};
const accepts = (body: unknown): PetChanges | undefined => {
  const result = validatePetPatch(body);
  expect(result.ok, JSON.stringify(body)).to.equal(true);
  expect(schemaAccepts(body), `schema on ${JSON.stringify(body)}`).to.equal(true);
  return result.ok ? result.value : undefined;
};

describe('PATCH body (docs/rules.md §12): a closed object of any of name, categoryId, status, at least one', () => {
  it('takes any one field, or several, each under its rule of docs/rules.md §1', () => {
    expect(accepts({ name: 'Rex' })).to.deep.equal({ name: 'Rex' });
    expect(accepts({ categoryId: 9007199254740991 })).to.deep.equal({ categoryId: 9007199254740991 });
    expect(accepts({ status: 'sold' })).to.deep.equal({ status: 'sold' });
    expect(accepts({ name: ' Mia 🐈 ', categoryId: 2, status: 'available' })).to.deep.equal({
      name: ' Mia 🐈 ',
      categoryId: 2,
      status: 'available',
    });
    expect(accepts(JSON.parse('{"categoryId":1.0}'))).to.deep.equal({ categoryId: 1 });
  });

  it('refuses each field that breaks its rule, naming it', () => {
    for (const name of ['', ' ', 5, null, 'x'.repeat(201), 'a\ud800']) rejects({ name }, 'name');
    for (const categoryId of [0, -1, 1.5, 2 ** 53, '5', true, null]) rejects({ categoryId }, 'categoryId');
    for (const status of ['Available', null, '', 'withdrawn', 1]) rejects({ status }, 'status');
  });

  it('needs at least one field, and a JSON object', () => {
    expect(rejects({}, 'body')).to.match(/at least one of name, categoryId, status/);
    for (const body of [null, [], 'a', 1, true]) rejects(body, 'body');
  });

  it('refuses id (assigned by the service) and any unknown property, naming it (quoted at most 64 characters)', () => {
    expect(rejects({ id: 3, name: 'a' }, 'id')).to.match(/id is assigned by the service/);
    expect(rejects({ name: 'a', colour: 'red' }, 'colour')).to.include("'colour'");
    const long = 'k'.repeat(300);
    expect(rejects({ [long]: 1 }, long).length).to.be.below(200);
    for (const key of ['__proto__', 'constructor', 'prototype'])
      rejects(JSON.parse(`{"name":"a","${key}":{"polluted":true}}`) as object, key);
    expect(({} as Record<string, unknown>)['polluted']).to.equal(undefined);
  });

  it('property: the domain validator accepts exactly what PetPatchSchema (the OpenAPI request schema) accepts', () => {
    const weird = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(0, -1, 1.5, 2 ** 53, '', ' ', '\ud800', 'Available', null, 'sold', 'withdrawn'),
    );
    const bodyArb = fc.oneof(
      {
        weight: 8,
        arbitrary: fc
          .tuple(
            fc.record(
              {
                name: fc.oneof(validNameArb, weird),
                categoryId: fc.oneof(fc.integer({ min: -2, max: Number.MAX_SAFE_INTEGER }), weird),
                status: fc.oneof(fc.constantFrom('available', 'pending', 'sold'), weird),
              },
              { requiredKeys: [] },
            ),
            fc.option(
              fc.tuple(fc.oneof(fc.constantFrom('id', '__proto__', 'Name'), fc.string({ maxLength: 6 })), weird),
              { nil: undefined, freq: 3 },
            ),
          )
          .map(([base, extra]) => {
            const body: Record<string, unknown> = { ...base };
            if (extra)
              Object.defineProperty(body, extra[0], {
                value: extra[1],
                enumerable: true,
                writable: true,
                configurable: true,
              });
            return body;
          }),
      },
      { weight: 1, arbitrary: weird },
    );
    fc.assert(
      fc.property(bodyArb, (body) => {
        const parsed: unknown = JSON.parse(JSON.stringify(body) ?? 'null');
        expect(validatePetPatch(parsed).ok).to.equal(schemaAccepts(parsed));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('If-Match (RFC 9110 §13.1.1) against a pet revision', () => {
  const allows = (header: string | undefined, revision: number): boolean => {
    const parsed = parseIfMatch(header);
    if (!parsed.ok) throw new Error(parsed.error.message);
    return ifMatchAllows(parsed.value, revision);
  };

  it('the revision as a strong entity tag', () => {
    expect(entityTag(7)).to.equal('"7"');
  });

  it('absent: always allows (the last write wins); `*`: any current revision', () => {
    expect(allows(undefined, 3)).to.equal(true);
    expect(allows('*', 3)).to.equal(true);
    expect(allows(' * ', 0)).to.equal(true);
  });

  it('a list of strong tags allows the revisions it names, and only those', () => {
    expect(allows('"3"', 3)).to.equal(true);
    expect(allows('"3"', 4)).to.equal(false);
    expect(allows('"1", "3" ,"5"', 3)).to.equal(true);
    expect(allows('"1","5"', 3)).to.equal(false);
    // Several field lines arrive joined with ", "; empty list elements are allowed.
    expect(allows('"2", , "3",', 3)).to.equal(true);
    // A comma is a character of an opaque tag: `"3,4"` is one tag, naming neither 3 nor 4.
    expect(allows('"3,4"', 3)).to.equal(false);
    // No tag at all matches nothing.
    expect(allows('', 3)).to.equal(false);
    expect(allows(' , ', 3)).to.equal(false);
  });

  it('weak tags never match (the strong comparison of If-Match)', () => {
    expect(allows('W/"3"', 3)).to.equal(false);
    expect(allows('W/"3", "4"', 4)).to.equal(true);
    expect(allows('W/"3", "4"', 3)).to.equal(false);
  });

  it('anything that is not an If-Match is refused, without quoting it (one message for all)', () => {
    const messages = new Set<string>();
    for (const header of [
      '3',
      '"3',
      '3"',
      '"3" "4"',
      '*, "3"',
      '"3", *',
      'w/"3"',
      'W/3',
      '"a"b',
      '"\x7f"',
      '"\x01"',
      'W/ "3"',
    ]) {
      const parsed = parseIfMatch(header);
      expect(parsed.ok, JSON.stringify(header)).to.equal(false);
      if (!parsed.ok) {
        expect(parsed.error.field).to.equal('If-Match');
        messages.add(parsed.error.message);
      }
    }
    expect(messages.size).to.equal(1);
  });

  it('property: a formatted list of tags allows exactly the revisions of its strong tags', () => {
    const tagArb = fc.record({ weak: fc.boolean(), revision: fc.nat(50) });
    fc.assert(
      fc.property(
        fc.array(tagArb, { maxLength: 5 }),
        fc.nat(50),
        fc.constantFrom(',', ', ', ' ,', ' , '),
        (tags, revision, separator) => {
          const header = tags.map((t) => `${t.weak ? 'W/' : ''}${entityTag(t.revision)}`).join(separator);
          expect(allows(header, revision)).to.equal(tags.some((t) => !t.weak && t.revision === revision));
        },
      ),
    );
  });
});

describe('returned adoptions: which deliveries bind the status (docs/rules.md §8 with §12)', () => {
  it('every delivery binds a pet whose status no PATCH set; only later ones bind a pet whose status a PATCH set', () => {
    expect(deliveryBindsStatus({ statusPatchedAt: null }, '2027-01-01T00:00:00.000Z')).to.equal(true);
    expect(deliveryBindsStatus({ statusPatchedAt: '2027-01-01T00:00:01.000Z' }, '2027-01-01T00:00:00.999Z')).to.equal(
      false,
    );
    expect(deliveryBindsStatus({ statusPatchedAt: '2027-01-01T00:00:01.000Z' }, '2027-01-01T00:00:01.000Z')).to.equal(
      false,
    );
    expect(deliveryBindsStatus({ statusPatchedAt: '2027-01-01T00:00:01.000Z' }, '2027-01-01T00:00:01.001Z')).to.equal(
      true,
    );
  });
});

/** A pet store that fails the test if it is touched at all: proves that a refusal came before any lookup. */
const untouchable = (): PetRepository => {
  const touched = (): never => {
    throw new Error('the store was touched');
  };
  return {
    create: touched,
    findByCreationToken: touched,
    findById: touched,
    list: touched,
    findHold: touched,
    swapHold: touched,
    countByStatus: touched,
    update: touched,
    withdraw: touched,
  };
};
const noOrders = {
  create: () => Promise.reject(new Error('no orders')),
  findByCreationToken: async () => undefined,
  findById: async () => undefined,
  updateState: async () => false,
  list: async () => [],
};
const THREE_CATEGORIES = { findById: async (id: number) => (id >= 1 && id <= 3 ? { id, name: `c${id}` } : undefined) };

/**
 * A deliberately small pet store for the use case's order of checks: one pet per id in a Map; the
 * store ports have their own contract suite (with the real adapters and orders).
 */
class OnePetStore implements PetRepository {
  readonly pets = new Map<number, PetRecord>();
  /** When set, the next conditional write loses (another request changed the pet first): the revision moves. */
  interfere: ((pet: PetRecord) => PetRecord) | undefined;
  updates = 0;
  async findByCreationToken(): Promise<Pet | undefined> {
    return undefined;
  }
  async create(): Promise<Pet> {
    throw new Error('not used');
  }
  async findById(id: number): Promise<PetRecord | undefined> {
    return this.pets.get(id);
  }
  async list(): Promise<ListedPets> {
    throw new Error('not used');
  }
  async findHold(id: number) {
    const pet = this.pets.get(id);
    return pet && { status: pet.status, orderId: pet.orderId };
  }
  async swapHold(): Promise<boolean> {
    return false;
  }
  async countByStatus() {
    return { available: 0, pending: 0, sold: 0 };
  }
  private lose(id: number): boolean {
    const pet = this.pets.get(id);
    if (this.interfere === undefined || pet === undefined) return false;
    this.pets.set(id, { ...this.interfere(pet), revision: pet.revision + 1 });
    this.interfere = undefined;
    return true;
  }
  /** The edits `update` was given, in order. */
  readonly edits: PetEdit[] = [];
  async update(id: number, revision: number, edit: PetEdit, at: string): Promise<PetRecord | undefined> {
    this.updates++;
    this.edits.push(edit);
    const { nameKeys: _nameKeys, ...changes } = edit;
    if (this.lose(id)) return undefined;
    const pet = this.pets.get(id);
    if (pet === undefined || pet.revision !== revision || (changes.status !== undefined && pet.orderId !== null))
      return undefined;
    const next = {
      ...pet,
      ...changes,
      revision: revision + 1,
      ...(changes.status === undefined ? {} : { statusPatchedAt: at }),
    };
    this.pets.set(id, next);
    return next;
  }
  async withdraw(id: number, revision: number): Promise<boolean> {
    if (this.lose(id)) return false;
    const pet = this.pets.get(id);
    if (pet === undefined || pet.revision !== revision || pet.orderId !== null) return false;
    return this.pets.delete(id);
  }
}

describe('PetMaintenance (docs/rules.md §12): the use case', () => {
  const clock = new ManualClock(Date.UTC(2027, 0, 1));
  const setup = (pet: Partial<PetRecord> = {}, afterWithdrawal?: (petId: number) => Promise<void>) => {
    const store = new OnePetStore();
    store.pets.set(5, {
      id: 5,
      name: 'Rex',
      categoryId: 1,
      status: 'available',
      revision: 3,
      orderId: null,
      statusPatchedAt: null,
      ...pet,
    });
    return { store, maintenance: new PetMaintenance(store, noOrders, THREE_CATEGORIES, clock, afterWithdrawal) };
  };
  const codeOf = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error!.code);

  it('a rename hands the store the new name with its search keys (docs/rules.md §16), in the one update; other changes carry none', async () => {
    const { store, maintenance } = setup();
    expect(codeOf(await maintenance.patch(ADMIN, '5', { name: 'Réx  the Old', status: 'sold' }))).to.equal('ok');
    expect(codeOf(await maintenance.patch(ADMIN, '5', { categoryId: 2 }))).to.equal('ok');
    expect(codeOf(await maintenance.patch(ADMIN, '5', { name: 'Réx  the Old' })), 'the same name: no change').to.equal(
      'ok',
    );
    expect(store.edits).to.deep.equal([
      {
        name: 'Réx  the Old',
        status: 'sold',
        nameKeys: { words: ['rex', 'the', 'old'], nameKey: 'rex  the old' },
      },
      { categoryId: 2 },
    ]);
  });

  it('a client key gets 403 on both operations, whatever the id, body or If-Match, before anything is looked up', async () => {
    const maintenance = new PetMaintenance(
      untouchable(),
      noOrders,
      { findById: () => Promise.reject(new Error('looked up')) },
      clock,
    );
    for (const id of ['5', 'abc', '0', '99999999999999999999', 7]) {
      for (const body of [{ name: 'x' }, { categoryId: 99 }, {}, 'junk']) {
        expect(await maintenance.patch(CLIENT, id, body, 'not an etag')).to.deep.include({
          ok: false,
          error: { code: 'forbidden', message: 'only an admin key may correct or withdraw a pet' },
        });
      }
      expect(codeOf(await maintenance.withdraw(CLIENT, id, '"1"'))).to.equal('forbidden');
    }
    expect(maintenance.authorize(CLIENT).ok).to.equal(false);
    expect(maintenance.authorize(undefined).ok).to.equal(false);
    expect(maintenance.authorize(ADMIN).ok).to.equal(true);
  });

  it('then 400 for a bad id, If-Match or body, and for a categoryId naming no category (after the shape rules), before the pet is looked up', async () => {
    const maintenance = new PetMaintenance(untouchable(), noOrders, THREE_CATEGORIES, clock);
    for (const id of ['abc', '0', '007', '-1'])
      expect(await maintenance.patch(ADMIN, id, { name: 'x' })).to.deep.nested.include({ 'error.field': 'petId' });
    expect(await maintenance.patch(ADMIN, '5', { name: 'x' }, 'nope')).to.deep.nested.include({
      'error.field': 'If-Match',
    });
    expect(await maintenance.withdraw(ADMIN, '5', 'nope')).to.deep.nested.include({ 'error.field': 'If-Match' });
    expect(await maintenance.patch(ADMIN, '5', { id: 5 })).to.deep.nested.include({ 'error.field': 'id' });
    expect(await maintenance.patch(ADMIN, '5', { categoryId: 0 })).to.deep.nested.include({
      'error.message': 'categoryId must be an integer from 1 to 9007199254740991',
    });
    expect(await maintenance.patch(ADMIN, '5', { categoryId: 7 })).to.deep.equal({
      ok: false,
      error: { code: 'validation_failed', field: 'categoryId', message: 'categoryId 7 names no category' },
    });
    // A valid int64 beyond what any pet can have: 404 without a lookup.
    expect(codeOf(await maintenance.patch(ADMIN, '9223372036854775807', { name: 'x' }))).to.equal('not_found');
    expect(codeOf(await maintenance.withdraw(ADMIN, '9223372036854775807'))).to.equal('not_found');
  });

  it('404 for no such pet, whatever If-Match says (a precondition is not evaluated then)', async () => {
    const { maintenance } = setup();
    for (const ifMatch of [undefined, '*', '"3"', '"99"']) {
      expect(codeOf(await maintenance.patch(ADMIN, '6', { name: 'x' }, ifMatch))).to.equal('not_found');
      expect(codeOf(await maintenance.withdraw(ADMIN, '6', ifMatch))).to.equal('not_found');
    }
  });

  it('412 when If-Match names another revision (nothing changes); `*` and the current tag let the change through', async () => {
    const { maintenance, store } = setup();
    for (const ifMatch of ['"2"', 'W/"3"', '"4", "5"', '']) {
      const refused = await maintenance.patch(ADMIN, 5, { name: 'Max' }, ifMatch);
      expect(codeOf(refused)).to.equal('precondition_failed');
      expect(!refused.ok && refused.error.message).to.include('"3"');
      expect(codeOf(await maintenance.withdraw(ADMIN, 5, ifMatch))).to.equal('precondition_failed');
    }
    expect(store.pets.get(5)).to.deep.include({ name: 'Rex', revision: 3 });
    const renamed = await maintenance.patch(ADMIN, 5, { name: 'Max' }, '"1", "3"');
    expect(renamed).to.deep.nested.include({ 'value.name': 'Max', 'value.revision': 4 });
    expect(codeOf(await maintenance.patch(ADMIN, 5, { name: 'Rex' }, '"3"')), 'the tag it had').to.equal(
      'precondition_failed',
    );
    expect(codeOf(await maintenance.patch(ADMIN, 5, { name: 'Rex' }, '*'))).to.equal('ok');
    expect(codeOf(await maintenance.withdraw(ADMIN, 5, '*'))).to.equal('ok');
  });

  it('a PATCH that changes nothing answers the pet and keeps its revision, without a write (also on a reserved pet)', async () => {
    const { maintenance, store } = setup({ status: 'pending', orderId: 12 });
    const same = await maintenance.patch(ADMIN, 5, { name: 'Rex', categoryId: 1, status: 'pending' }, '"3"');
    expect(same).to.deep.equal({ ok: true, value: store.pets.get(5) });
    expect(store.updates).to.equal(0);
  });

  it('name and categoryId change in any status, also while reserved; status only while no open order holds the pet (409 saying it is reserved)', async () => {
    const { maintenance, store } = setup({ status: 'pending', orderId: 12 });
    expect(await maintenance.patch(ADMIN, 5, { name: 'Held', categoryId: 2 })).to.deep.nested.include({
      'value.name': 'Held',
      'value.categoryId': 2,
      'value.status': 'pending',
    });
    for (const body of [{ status: 'available' }, { status: 'sold', name: 'Other' }]) {
      const refused = await maintenance.patch(ADMIN, 5, body);
      expect(codeOf(refused)).to.equal('conflict');
      expect(!refused.ok && refused.error.message).to.match(/pet 5 is reserved by order 12/);
    }
    expect(store.pets.get(5)).to.deep.include({ name: 'Held', status: 'pending' });
    const withdrawal = await maintenance.withdraw(ADMIN, 5);
    expect(codeOf(withdrawal)).to.equal('conflict');
    expect(!withdrawal.ok && withdrawal.error.message).to.include('reserved');
  });

  it('a status change records when (a sold pet set back to available is a returned adoption)', async () => {
    clock.set(Date.UTC(2027, 0, 2, 10));
    const { maintenance } = setup({ status: 'sold' });
    expect(await maintenance.patch(ADMIN, 5, { status: 'available' })).to.deep.nested.include({
      'value.status': 'available',
      'value.statusPatchedAt': '2027-01-02T10:00:00.000Z',
    });
    clock.advance(1);
    expect(await maintenance.patch(ADMIN, 5, { name: 'Back' })).to.deep.nested.include({
      'value.statusPatchedAt': '2027-01-02T10:00:00.000Z',
    });
  });

  it('a lost round reads the pet again: without If-Match the last write wins; with it, the tag is now stale → 412', async () => {
    const { maintenance, store } = setup();
    store.interfere = (pet) => ({ ...pet, name: 'Someone else' });
    expect(await maintenance.patch(ADMIN, 5, { categoryId: 3 })).to.deep.nested.include({
      'value.name': 'Someone else',
      'value.categoryId': 3,
      'value.revision': 5,
    });
    store.interfere = (pet) => ({ ...pet, name: 'Again' });
    expect(codeOf(await maintenance.patch(ADMIN, 5, { categoryId: 2 }, '"5"'))).to.equal('precondition_failed');
    store.interfere = (pet) => ({ ...pet, status: 'pending', orderId: 40 });
    expect(codeOf(await maintenance.withdraw(ADMIN, 5)), 'an order placed meanwhile').to.equal('conflict');
  });

  it('a withdrawal tells afterWithdrawal (the photos) once, after the pet is gone, and never on a refusal; its failure reaches the caller', async () => {
    const told: Array<[number, boolean]> = [];
    const { maintenance, store } = setup({}, async (petId) => void told.push([petId, store.pets.has(petId)]));
    expect(codeOf(await maintenance.withdraw(ADMIN, 5, '"2"'))).to.equal('precondition_failed');
    expect(told).to.deep.equal([]);
    expect(await maintenance.withdraw(ADMIN, 5)).to.deep.equal({ ok: true, value: undefined });
    expect(told).to.deep.equal([[5, false]]);
    expect(codeOf(await maintenance.withdraw(ADMIN, 5)), 'a second DELETE').to.equal('not_found');
    expect(codeOf(await maintenance.patch(ADMIN, 5, { name: 'x' })), 'a PATCH after it').to.equal('not_found');
    expect(told).to.have.length(1);
    const failing = setup({}, () => Promise.reject(new Error('photo store down')));
    const error = await failing.maintenance.withdraw(ADMIN, 5).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Error).with.property('message', 'photo store down');
    expect(failing.store.pets.has(5), 'the pet stays withdrawn').to.equal(false);
  });
});

describe('If-Match, read character by character (RFC 9110 §8.8.3, §13.1.1; docs/rules.md §12)', () => {
  const parsed = (header: string) => {
    const result = parseIfMatch(header);
    if (!result.ok) throw new Error(`refused ${JSON.stringify(header)}`);
    return result.value;
  };

  it('answers * or exactly the strong tags it lists, quotes included, weak ones left out', () => {
    expect(parsed('"3"')).to.deep.equal(['"3"']);
    expect(parsed('"1", W/"2" ,"3"')).to.deep.equal(['"1"', '"3"']);
    expect(parsed('W/"3"')).to.deep.equal([]);
    for (const none of ['', ' , ', ',,', '\t']) expect(parsed(none), JSON.stringify(none)).to.deep.equal([]);
  });

  it('spaces and tabs around the value and around list elements are no part of it', () => {
    for (const star of ['*', '  *', '*  ', '\t \t*\t ', ' \t*'])
      expect(parsed(star), JSON.stringify(star)).to.equal('*');
    for (const header of ['  "3"  ', '\t\t"3"', '"3"\t\t'])
      expect(parsed(header), JSON.stringify(header)).to.deep.equal(['"3"']);
    expect(parsed('"1"\t,\t"3"')).to.deep.equal(['"1"', '"3"']);
    expect(parsed('"1" \t, \t"3"\t')).to.deep.equal(['"1"', '"3"']);
    expect(parseIfMatch('" 3"').ok, 'a space inside a tag').to.equal(false);
  });

  it('property: a one-character tag is read exactly when its character is an etagc (%x21, %x23-7E, %x80-FF)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x1ff }), (code) => {
        const c = String.fromCharCode(code);
        const etagc = code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
        const result = parseIfMatch(`"a${c}"`);
        expect(result.ok, `U+${code.toString(16)}`).to.equal(etagc);
        if (result.ok) expect(result.value).to.deep.equal([`"a${c}"`]);
      }),
    );
    for (const c of ['!', '#', '~', '\x80', '\xff']) expect(parsed(`"${c}"`), c).to.deep.equal([`"${c}"`]);
    for (const c of [' ', '\x7f', '\u0100', '\x20'])
      expect(parseIfMatch(`"${c}"`).ok, JSON.stringify(c)).to.equal(false);
  });

  it('a malformed If-Match is a 400 about If-Match that says what it must be, without quoting the value', () => {
    const message = expectRefusal(parseIfMatch('"3" junk-value'), 'validation_failed', 'If-Match');
    expect(message).to.equal(
      'If-Match must be * or a comma-separated list of entity tags such as "3" (the ETag of the pet as you read it)',
    );
    expect(message).not.to.include('junk-value');
  });
});

describe('what a PATCH really changes, and why a reserved pet refuses (docs/rules.md §12)', () => {
  const PET: PetRecord = {
    id: 5,
    name: 'Rex',
    categoryId: 1,
    status: 'available',
    revision: 3,
    orderId: null,
    statusPatchedAt: null,
  };

  it('property: the changes are exactly the fields sent with another value than the pet has (no other key at all)', () => {
    const nameArb = fc.option(fc.constantFrom('Rex', 'Max'), { nil: undefined });
    const categoryArb = fc.option(fc.constantFrom(1, 2), { nil: undefined });
    const statusArb = fc.option(fc.constantFrom('available', 'pending', 'sold') as fc.Arbitrary<Pet['status']>, {
      nil: undefined,
    });
    fc.assert(
      fc.property(nameArb, categoryArb, statusArb, (name, categoryId, status) => {
        const patch: PetChanges = {
          ...(name === undefined ? {} : { name }),
          ...(categoryId === undefined ? {} : { categoryId }),
          ...(status === undefined ? {} : { status }),
        };
        const want: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(patch)) if (value !== PET[key as keyof Pet]) want[key] = value;
        const changes = changesOf(PET, patch);
        expect(changes).to.deep.equal(want);
        expect(isNoChange(changes)).to.equal(Object.keys(want).length === 0);
      }),
    );
  });

  it('the 409 of a reserved pet names the pet and its order, and says what can happen once that order is done', () => {
    const held = { ...PET, status: 'pending' as const, orderId: 12 };
    expect(patchConflict(held, { status: 'sold' })).to.deep.equal({
      code: 'conflict',
      message:
        'pet 5 is reserved by order 12 (placed or approved); its status can change only once that order is delivered or cancelled',
    });
    expect(patchConflict(held, { name: 'Held', categoryId: 2 })).to.equal(undefined);
    expect(patchConflict(PET, { status: 'sold' })).to.equal(undefined);
    expect(withdrawalConflict(held)).to.deep.equal({
      code: 'conflict',
      message:
        'pet 5 is reserved by order 12 (placed or approved); it can be withdrawn only once that order is delivered or cancelled',
    });
    expect(withdrawalConflict(PET)).to.equal(undefined);
  });
});

describe('PetMaintenance (docs/rules.md §12): ids, lost rounds, and the orders it reads', () => {
  const clock = new ManualClock(Date.UTC(2027, 0, 1));
  const pet = (over: Partial<PetRecord> = {}): PetRecord => ({
    id: 5,
    name: 'Rex',
    categoryId: 1,
    status: 'available',
    revision: 3,
    orderId: null,
    statusPatchedAt: null,
    ...over,
  });

  it('a 404 names the id as given; a malformed id is a 400 about petId on both operations, before any lookup', async () => {
    const store = new OnePetStore();
    const maintenance = new PetMaintenance(store, noOrders, THREE_CATEGORIES, clock);
    expect(expectRefusal(await maintenance.patch(ADMIN, '6', { name: 'x' }), 'not_found')).to.equal('no pet has id 6');
    expect(expectRefusal(await maintenance.withdraw(ADMIN, '6'), 'not_found')).to.equal('no pet has id 6');
    expect(expectRefusal(await maintenance.withdraw(ADMIN, '9223372036854775807'), 'not_found')).to.equal(
      'no pet has id 9223372036854775807',
    );
    const untouched = new PetMaintenance(untouchable(), noOrders, THREE_CATEGORIES, clock);
    for (const id of ['abc', '0', '007', '-1'])
      expectRefusal(await untouched.withdraw(ADMIN, id), 'validation_failed', 'petId', id);
  });

  it(`a pet that changes under every round is given up after ${MAX_ROUNDS} rounds with an outage (503, retry) naming it; nothing changed`, async () => {
    for (const operation of ['patch', 'withdraw'] as const) {
      const store = new OnePetStore();
      store.pets.set(5, pet());
      let writes = 0;
      store.update = async () => {
        writes++;
        return undefined;
      };
      store.withdraw = async () => {
        writes++;
        return false;
      };
      const maintenance = new PetMaintenance(store, noOrders, THREE_CATEGORIES, clock);
      const error = await (
        operation === 'patch' ? maintenance.patch(ADMIN, 5, { name: 'Max' }) : maintenance.withdraw(ADMIN, 5)
      ).catch((e: unknown) => e);
      expect(error, operation).to.be.instanceOf(StoreUnavailableError);
      expect((error as Error).message).to.equal('pet 5 kept changing under this request; retry');
      expect(writes, `${operation}: one conditional write a round`).to.equal(MAX_ROUNDS);
      expect(store.pets.get(5)).to.deep.equal(pet());
    }
  });

  it('a pet no order holds is changed and withdrawn without reading any order (an order store down does not stop it)', async () => {
    const store = new OnePetStore();
    store.pets.set(5, pet());
    const ordersDown = { ...noOrders, findById: () => Promise.reject(new StoreUnavailableError('orders down')) };
    const maintenance = new PetMaintenance(store, ordersDown, THREE_CATEGORIES, clock);
    expect(await maintenance.patch(ADMIN, 5, { status: 'sold' })).to.deep.nested.include({ 'value.status': 'sold' });
    expect(await maintenance.withdraw(ADMIN, 5)).to.deep.equal({ ok: true, value: undefined });
  });
});

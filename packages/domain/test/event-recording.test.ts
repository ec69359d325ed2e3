// docs/rules.md §15 in the use cases: what each decisive write is asked to record. The adapters'
// side (recording in the same write, the relay, the feed) is held by eventStoreContract.
import { expect } from 'chai';
import type { ApiKeyStore, Caller, NewEvent, PetRecord } from '../src/index.js';
import { KeyAdmin, PetMaintenance } from '../src/index.js';
import {
  entryOf,
  ManualClock,
  SeededRandom,
  forwardingKeys,
  forwardingPets,
  nodeDigests,
} from '../test-support/index.js';
import { ApiKeyStoreModel } from './support/api-key-store-model.js';
import { OrderStoreModel, PetStoreModel } from './support/flow-stores.js';

const ADMIN: Caller = { keyId: 'key_ad00000000ad', role: 'admin' };
const T0 = Date.UTC(2027, 0, 1);
const AT = new Date(T0).toISOString();

describe('the events the use cases ask their writes to record (docs/rules.md §15)', () => {
  it('a key PATCH to what the key already is writes nothing (no key.updated); any real change writes, recording the key after it', async () => {
    const store = new ApiKeyStoreModel();
    const recorded: NewEvent[] = [];
    const keys: ApiKeyStore = {
      ...forwardingKeys(store),
      update: async (keyId, changes, record) => {
        const after = await store.update(keyId, changes);
        if (after !== undefined && record !== undefined) recorded.push(...record(after));
        return after;
      },
    };
    const admin = new KeyAdmin(keys, new SeededRandom('recording'), new ManualClock(T0), T0, nodeDigests);
    const pro = await admin.create(ADMIN, { plan: 'pro', label: 'site' });
    const custom = await admin.create(ADMIN, { plan: 'enterprise', perMinute: 5, perDay: 50 });
    if (!pro.ok || !custom.ok) throw new Error('setup');
    const writes = (): number => store.calls;
    for (const [id, body] of [
      [pro.value.id, { plan: 'pro' }],
      [pro.value.id, { label: 'site' }],
      [pro.value.id, { plan: 'pro', label: 'site' }],
      [custom.value.id, { perMinute: 5 }],
      [custom.value.id, { plan: 'enterprise', perMinute: 5, perDay: 50 }],
    ] as const) {
      const before = writes();
      const patched = await admin.patch(ADMIN, id, body);
      expect(patched.ok, JSON.stringify(body)).to.equal(true);
      expect(writes() - before, `${JSON.stringify(body)}: one read, no write`).to.equal(1);
    }
    expect(recorded).to.deep.equal([]);
    for (const [id, body] of [
      [pro.value.id, { plan: 'free' }],
      [pro.value.id, { label: 'shelter' }],
      [custom.value.id, { perMinute: 6 }],
      [custom.value.id, { perDay: 60 }],
    ] as const) {
      const before = writes();
      const patched = await admin.patch(ADMIN, id, body);
      if (!patched.ok) throw new Error(patched.error.message);
      expect(writes() - before, `${JSON.stringify(body)}: read, then written`).to.equal(2);
      expect(recorded.pop(), JSON.stringify(body)).to.deep.equal({
        type: 'key.updated',
        occurredAt: AT,
        data: patched.value,
      });
    }
  });

  it('a PATCH of a pet records pet.updated with the pet after it, following its new category only when the category changed', async () => {
    const pets = new PetStoreModel();
    const { id } = await pets.create(entryOf({ name: 'Rex', categoryId: 1, status: 'available' }));
    const recorded: NewEvent[] = [];
    const store = {
      ...forwardingPets(pets),
      update: async (
        petId: number,
        revision: number,
        changes: object,
        at: string,
        record?: (pet: PetRecord) => readonly NewEvent[],
      ) => {
        const after = await pets.update(petId, revision, changes, at);
        if (after !== undefined && record !== undefined) recorded.push(...record(after));
        return after;
      },
    };
    const maintenance = new PetMaintenance(
      store,
      new OrderStoreModel(),
      { findById: async (c: number) => ({ id: c, name: `C${c}` }) },
      new ManualClock(T0),
    );
    expect((await maintenance.patch(ADMIN, id, { name: 'Max' })).ok).to.equal(true);
    expect((await maintenance.patch(ADMIN, id, { categoryId: 2, status: 'sold' })).ok).to.equal(true);
    expect((await maintenance.patch(ADMIN, id, { categoryId: 2, name: 'Max' })).ok, 'changes nothing').to.equal(true);
    expect(recorded).to.deep.equal([
      { type: 'pet.updated', occurredAt: AT, data: { id, name: 'Max', categoryId: 1, status: 'available' } },
      {
        type: 'pet.updated',
        occurredAt: AT,
        data: { id, name: 'Max', categoryId: 2, status: 'sold' },
        follows: [{ kind: 'category', id: 2 }],
      },
    ]);
  });
});

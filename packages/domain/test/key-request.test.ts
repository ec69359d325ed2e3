import { expect } from 'chai';
import type { Caller, KeyChanges } from '../src/index.js';
import { decodeCursor, KeyAdmin, pageScope, PLAN_QUOTAS, validateKeyPatch, validateKeyRequest } from '../src/index.js';
import { validateKeyId } from '../src/auth/key-request.js';
import { ManualClock, SeededRandom, nodeDigests } from '../test-support/index.js';
import { expectRefusal } from './support/refusals.js';
import { ApiKeyStoreModel } from './support/api-key-store-model.js';

/** The key admin bodies (docs/rules.md §9) and what their refusals tell a client (§3). */
describe('key creation bodies (docs/rules.md §9)', () => {
  it('a body that is no JSON object is refused as a whole, saying what to send', () => {
    for (const body of [null, [], 'plan', 3]) {
      expect(expectRefusal(validateKeyRequest(body), 'validation_failed', 'body', String(body))).to.match(
        /JSON object.*plan/,
      );
    }
  });

  it('an unknown property is named, with the properties allowed', () => {
    const message = expectRefusal(validateKeyRequest({ plan: 'free', colour: 'red' }), 'validation_failed', 'colour');
    expect(message).to.include('plan, label, perMinute, perDay');
  });

  it('plan is required, and one of the four plans (all named)', () => {
    expect(expectRefusal(validateKeyRequest({ label: 'x' }), 'validation_failed', 'plan')).to.match(/required/);
    for (const plan of ['gold', 'Free', 3, null]) {
      expect(expectRefusal(validateKeyRequest({ plan }), 'validation_failed', 'plan', String(plan))).to.include(
        'free, pro, business, enterprise',
      );
    }
  });

  it('perMinute and perDay come together: one alone names the other', () => {
    for (const plan of ['free', 'enterprise']) {
      expect(expectRefusal(validateKeyRequest({ plan, perMinute: 5 }), 'validation_failed', 'perDay', plan)).to.include(
        'perMinute',
      );
      expect(expectRefusal(validateKeyRequest({ plan, perDay: 5 }), 'validation_failed', 'perMinute', plan)).to.include(
        'perDay',
      );
    }
  });

  it('a quota number out of range names its field and the range', () => {
    for (const field of ['perMinute', 'perDay']) {
      const body = { plan: 'enterprise', perMinute: 5, perDay: 50, [field]: 0 };
      expect(expectRefusal(validateKeyRequest(body), 'validation_failed', field)).to.include(
        'from 1 to 9007199254740991',
      );
    }
  });

  it('label: a string of 1 to 100 code points, well-formed', () => {
    expect(expectRefusal(validateKeyRequest({ plan: 'free', label: 7 }), 'validation_failed', 'label')).to.match(
      /string/,
    );
    expect(expectRefusal(validateKeyRequest({ plan: 'free', label: '' }), 'validation_failed', 'label')).to.match(
      /1 to 100 characters.*got 0/,
    );
    expect(
      expectRefusal(validateKeyRequest({ plan: 'free', label: 'x'.repeat(101) }), 'validation_failed', 'label'),
    ).to.match(/got 101/);
    expect(
      expectRefusal(validateKeyRequest({ plan: 'free', label: 'a\uD800' }), 'validation_failed', 'label'),
    ).to.match(/lone surrogate/);
  });

  it('answers exactly the grant and the role (client unless sent), with a label only when one was sent, origins only for a publishable key', () => {
    const plain = validateKeyRequest({ plan: 'pro' });
    expect(plain).to.deep.equal({ ok: true, value: { role: 'client', plan: 'pro', quota: PLAN_QUOTAS.pro } });
    expect(plain.ok && Object.hasOwn(plain.value, 'label')).to.equal(false);
    expect(validateKeyRequest({ plan: 'pro', label: 'ci' })).to.deep.equal({
      ok: true,
      value: { role: 'client', plan: 'pro', quota: PLAN_QUOTAS.pro, label: 'ci' },
    });
    expect(validateKeyRequest({ plan: 'pro', role: 'publishable', origins: ['https://A.example/'] })).to.deep.equal({
      ok: true,
      value: { role: 'publishable', plan: 'pro', quota: PLAN_QUOTAS.pro, origins: ['https://a.example'] },
    });
  });
});

describe('key change bodies (docs/rules.md §9), each checked on its own before the key is read', () => {
  it('a body that is no JSON object is refused as a whole, naming what it may hold', () => {
    for (const body of [null, [], 'label', 3]) {
      expect(expectRefusal(validateKeyPatch(body), 'validation_failed', 'body', String(body))).to.include(
        'plan, perMinute, perDay, label',
      );
    }
  });

  it('an empty change is refused, naming every field it may hold', () => {
    expect(expectRefusal(validateKeyPatch({}), 'validation_failed', 'body')).to.include(
      'plan, perMinute, perDay, label',
    );
  });

  it('refuses a bad plan, a bad label, and numbers out of order', () => {
    expectRefusal(validateKeyPatch({ plan: 'gold' }), 'validation_failed', 'plan');
    expectRefusal(validateKeyPatch({ label: '' }), 'validation_failed', 'label');
    expectRefusal(validateKeyPatch({ label: 5, plan: 'pro' }), 'validation_failed', 'label');
    expect(expectRefusal(validateKeyPatch({ perMinute: 10, perDay: 9 }), 'validation_failed', 'perMinute')).to.match(
      /perMinute 10, perDay 9/,
    );
    expect(validateKeyPatch({ perMinute: 10, perDay: 10 })).to.deep.equal({
      ok: true,
      value: { quota: { perMinute: 10, perDay: 10 } },
    });
  });

  it('numbers with a fixed plan are refused on the body itself', () => {
    expect(expectRefusal(validateKeyPatch({ plan: 'free', perMinute: 5 }), 'validation_failed', 'perMinute')).to.match(
      /enterprise/,
    );
    expect(expectRefusal(validateKeyPatch({ plan: 'pro', perDay: 5 }), 'validation_failed', 'perDay')).to.match(
      /enterprise/,
    );
    expect(validateKeyPatch({ plan: 'enterprise', perDay: 5 })).to.deep.equal({
      ok: true,
      value: { plan: 'enterprise', quota: { perDay: 5 } },
    });
  });

  it('answers exactly the fields sent (no field present as undefined)', () => {
    expect(validateKeyPatch({ label: 'x' })).to.deep.equal({ ok: true, value: { label: 'x' } });
    expect(validateKeyPatch({ plan: 'pro' })).to.deep.equal({ ok: true, value: { plan: 'pro' } });
  });

  it('a malformed key id is refused without quoting it (it may be a key pasted by mistake)', () => {
    const message = expectRefusal(validateKeyId('pet_secretsecret'), 'validation_failed', 'keyId');
    expect(message).to.include('key_').and.not.to.include('secret');
  });
});

describe('KeyAdmin: what reaches the store, and what a client is told (docs/rules.md §9)', () => {
  const ADMIN: Caller = { keyId: 'key_000000000000', role: 'admin' };
  const T0 = Date.UTC(2027, 0, 1, 12);

  /** Records every change asked of `update`. */
  class RecordingStore extends ApiKeyStoreModel {
    readonly changes: KeyChanges[] = [];
    readonly inserted: object[] = [];
    override async insert(key: Parameters<ApiKeyStoreModel['insert']>[0]) {
      this.inserted.push(key);
      return super.insert(key);
    }
    override async update(keyId: string, changes: KeyChanges) {
      this.changes.push(changes);
      return super.update(keyId, changes);
    }
  }
  const setup = () => {
    const store = new RecordingStore();
    return {
      store,
      admin: new KeyAdmin(store, new SeededRandom('key-request-test'), new ManualClock(T0), T0, nodeDigests),
    };
  };

  it('asks the store for exactly the change made: a label alone carries no grant, a plan alone no label', async () => {
    const { store, admin } = setup();
    const made = await admin.create(ADMIN, { plan: 'free', label: 'one' });
    if (!made.ok) throw new Error('create');
    await admin.patch(ADMIN, made.value.id, { label: 'two' });
    await admin.patch(ADMIN, made.value.id, { plan: 'pro' });
    expect(store.changes).to.deep.equal([{ label: 'two' }, { grant: { plan: 'pro', quota: PLAN_QUOTAS.pro } }]);
    expect(Object.hasOwn(store.changes[1]!, 'label')).to.equal(false);
    const unlabelled = await admin.create(ADMIN, { plan: 'free' });
    expect(unlabelled.ok).to.equal(true);
    expect(Object.hasOwn(store.inserted[1]!, 'label'), 'no label sent: none stored').to.equal(false);
  });

  it('a label change does not undo a grant changed meanwhile by another admin', async () => {
    const { store, admin } = setup();
    const made = await admin.create(ADMIN, { plan: 'free' });
    if (!made.ok) throw new Error('create');
    const read = store.findById.bind(store);
    store.findById = async (keyId: string) => {
      const before = await read(keyId);
      await store.update(keyId, { grant: { plan: 'business', quota: PLAN_QUOTAS.business } }); // another admin, between our read and our write
      return before;
    };
    const changed = await admin.patch(ADMIN, made.value.id, { label: 'mine' });
    expect(changed.ok && changed.value).to.deep.include({ plan: 'business', label: 'mine' });
  });

  it('a key revoked between its read and its change is not_found, naming it', async () => {
    const { store, admin } = setup();
    const made = await admin.create(ADMIN, { plan: 'free' });
    if (!made.ok) throw new Error('create');
    store.update = async () => undefined;
    const result = await admin.patch(ADMIN, made.value.id, { label: 'late' });
    expect(expectRefusal(result, 'not_found')).to.include(made.value.id);
    expect(expectRefusal(await admin.get(ADMIN, 'key_abcdefabcdef'), 'not_found')).to.include('key_abcdefabcdef');
  });

  it('a client key is told the operation needs an admin key', async () => {
    const { admin } = setup();
    expect(expectRefusal(await admin.list({ keyId: 'key_111111111111', role: 'client' }), 'forbidden')).to.include(
      'admin key',
    );
  });

  it('the last page has no nextCursor; a page before it has one bound to the key list', async () => {
    const { admin } = setup();
    for (let i = 0; i < 3; i++) await admin.create(ADMIN, { plan: 'free' });
    const first = await admin.list(ADMIN, { limit: 2 });
    if (!first.ok || first.value.nextCursor === undefined) throw new Error('a first page with a next one');
    expect(decodeCursor(first.value.nextCursor, pageScope('keys'))).to.be.a('number');
    const last = await admin.list(ADMIN, { limit: 2, cursor: first.value.nextCursor });
    expect(last.ok && Object.hasOwn(last.value, 'nextCursor')).to.equal(false);
  });

  it('gives up after 4 tries when the store says every fresh key id is taken', async () => {
    const { store, admin } = setup();
    let tries = 0;
    store.insert = async () => {
      tries++;
      return 'taken';
    };
    let thrown: unknown;
    await admin.create(ADMIN, { plan: 'free' }).catch((e: unknown) => (thrown = e));
    expect(String(thrown)).to.match(/after 4 attempts/);
    expect(tries).to.equal(4);
  });
});

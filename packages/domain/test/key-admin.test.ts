import { expect } from 'chai';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Caller, StoredApiKey } from '../src/index.js';
import {
  ApiKeyLookupCache,
  ApiKeyPatchSchema,
  apiKeyRecord,
  CreatedApiKeySchema,
  generateApiKey,
  ISSUED_KEY_PATTERN,
  KEY_CACHE_MAX_AGE_MS,
  KeyAdmin,
  NewApiKeySchema,
  PLAN_QUOTAS,
  publicKeyId,
  QUOTA_MAX,
} from '../src/index.js';
import { ManualClock, SeededRandom, nodeDigests } from '../test-support/index.js';
import { ApiKeyStoreModel } from './support/api-key-store-model.js';

const ADMIN: Caller = { keyId: 'key_000000000000', role: 'admin' };
const CLIENT: Caller = { keyId: 'key_111111111111', role: 'client' };
const PUBLISHABLE: Caller = { keyId: 'key_222222222222', role: 'publishable', origins: ['https://a.example'] };
const T0 = Date.UTC(2027, 0, 1, 12);

const ajv = new Ajv2020({ strict: true, allErrors: false });
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
ajv.addFormat('date-time', { type: 'string', validate: (s: string) => !Number.isNaN(Date.parse(s)) });
const createAccepts = ajv.compile(NewApiKeySchema);
const patchAccepts = ajv.compile(ApiKeyPatchSchema);
const createdShape = ajv.compile(CreatedApiKeySchema);

const setup = (startedAt = T0 - 60_000) => {
  const store = new ApiKeyStoreModel();
  const clock = new ManualClock(T0);
  const admin = new KeyAdmin(store, new SeededRandom('key-admin-test'), clock, startedAt, nodeDigests);
  return { store, clock, admin };
};

describe('issued keys: format', () => {
  it('property: pet_ + base64url of the 32 bytes the Random port gives (43 characters, 256 bits)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const key = generateApiKey({ bytes: () => bytes });
        expect(key).to.equal(`pet_${Buffer.from(bytes).toString('base64url')}`);
        expect(key).to.match(ISSUED_KEY_PATTERN);
        expect(key).to.have.length(47);
      }),
    );
  });

  it('asks the port for exactly 32 bytes and refuses a source that gives fewer', () => {
    const asked: number[] = [];
    generateApiKey({ bytes: (n) => (asked.push(n), new Uint8Array(n)) });
    expect(asked).to.deep.equal([32]);
    expect(() => generateApiKey({ bytes: () => new Uint8Array(16) })).to.throw(/16 bytes/);
  });
});

describe('KeyAdmin: the rules of docs/rules.md §9', () => {
  it('creates a key: the answer holds the key once, its public id, plan, quota, label, source api and createdAt (RFC 3339 UTC ms)', async () => {
    const { admin, store } = setup();
    const made = await admin.create(ADMIN, { plan: 'pro', label: 'CI runner ✓' });
    if (!made.ok) throw new Error(made.error.message);
    expect(createdShape(made.value), JSON.stringify(createdShape.errors)).to.equal(true);
    const { key, ...view } = made.value;
    expect(view).to.deep.equal({
      id: publicKeyId(nodeDigests.sha256Hex(key)),
      role: 'client',
      plan: 'pro',
      quota: PLAN_QUOTAS.pro,
      label: 'CI runner ✓',
      source: 'api',
      createdAt: '2027-01-01T12:00:00.000Z',
    });
    // The store holds the hash only.
    expect(JSON.stringify([...store.rows()])).not.to.contain(key);
    const got = await admin.get(ADMIN, view.id);
    expect(got).to.deep.equal({ ok: true, value: view });
  });

  it('enterprise keys carry both numbers, 1 ≤ perMinute ≤ perDay ≤ 2^53 − 1; other plans none', async () => {
    const { admin } = setup();
    const good = await admin.create(ADMIN, { plan: 'enterprise', perMinute: 5, perDay: QUOTA_MAX });
    expect(good.ok && good.value.quota).to.deep.equal({ perMinute: 5, perDay: QUOTA_MAX });
    const equal = await admin.create(ADMIN, { plan: 'enterprise', perMinute: 7, perDay: 7 });
    expect(equal.ok).to.equal(true);
    const refused: Array<[unknown, string]> = [
      [{ plan: 'enterprise' }, 'perMinute'],
      [{ plan: 'enterprise', perMinute: 5 }, 'perDay'],
      [{ plan: 'enterprise', perDay: 5 }, 'perMinute'],
      [{ plan: 'enterprise', perMinute: 6, perDay: 5 }, 'perMinute'],
      [{ plan: 'enterprise', perMinute: 0, perDay: 5 }, 'perMinute'],
      [{ plan: 'enterprise', perMinute: 1, perDay: QUOTA_MAX + 1 }, 'perDay'],
      [{ plan: 'enterprise', perMinute: 1.5, perDay: 5 }, 'perMinute'],
      [{ plan: 'enterprise', perMinute: '1', perDay: 5 }, 'perMinute'],
      [{ plan: 'pro', perMinute: 1, perDay: 5 }, 'perMinute'],
      [{ plan: 'gold' }, 'plan'],
      [{ plan: 'Pro' }, 'plan'],
      [{ plan: null }, 'plan'],
      [{}, 'plan'],
      [{ label: 'x' }, 'plan'],
      [{ plan: 'free', label: '' }, 'label'],
      [{ plan: 'free', label: 'x'.repeat(101) }, 'label'],
      [{ plan: 'free', label: '\ud800' }, 'label'],
      [{ plan: 'free', label: 5 }, 'label'],
      [{ plan: 'free', role: 'admin' }, 'role'],
      [{ plan: 'free', key: 'pet_mine' }, 'key'],
      [JSON.parse('{"plan":"free","__proto__":{"x":1}}'), '__proto__'],
      [[], 'body'],
      ['free', 'body'],
      [null, 'body'],
    ];
    for (const [body, field] of refused) {
      const r = await admin.create(ADMIN, body);
      expect(!r.ok && r.error, JSON.stringify(body)).to.deep.include({ code: 'validation_failed', field });
    }
    expect((await admin.create(ADMIN, { plan: 'free', label: '🐕'.repeat(100) })).ok, '100 code points').to.equal(true);
  });

  it('property: NewApiKeySchema and the domain agree on every body (the schema says numbers exactly with enterprise, as a oneOf of closed shapes; it cannot say perMinute ≤ perDay)', async () => {
    const { admin } = setup();
    const value = fc.oneof(
      fc.integer({ min: -2, max: 10 }),
      fc.constant(QUOTA_MAX + 1),
      fc.constant(1.5),
      fc.string(),
      fc.constant(null),
    );
    const body = fc.record(
      {
        plan: fc.oneof(fc.constantFrom('free', 'pro', 'business', 'enterprise'), fc.string()),
        label: fc.oneof(fc.string({ maxLength: 102 }), fc.constant('\udc00'), fc.integer()),
        perMinute: value,
        perDay: value,
        extra: fc.string(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const domain = await admin.create(ADMIN, b);
        const m = b.perMinute,
          d = b.perDay;
        const ordered = !(typeof m === 'number' && typeof d === 'number' && m > d);
        expect(domain.ok, JSON.stringify(b)).to.equal(createAccepts(b) && ordered);
      }),
    );
  });

  it('the key schemas say in JSON Schema which plans take numbers: enterprise needs both, a fixed plan none (a oneOf of closed shapes told apart by plan)', () => {
    expect(createAccepts({ plan: 'enterprise', perMinute: 5, perDay: 8 })).to.equal(true);
    expect(createAccepts({ plan: 'enterprise' }), 'enterprise without numbers').to.equal(false);
    expect(createAccepts({ plan: 'enterprise', perDay: 8 }), 'enterprise with one number').to.equal(false);
    expect(createAccepts({ plan: 'pro' })).to.equal(true);
    expect(createAccepts({ plan: 'pro', perMinute: 5, perDay: 8 }), 'numbers with a fixed plan').to.equal(false);
    expect(createAccepts({ plan: 'free', perDay: 8 }), 'a number with a fixed plan').to.equal(false);
    expect(patchAccepts({ plan: 'business', perDay: 8 }), 'a change to a fixed plan with a number').to.equal(false);
    expect(patchAccepts({ plan: 'business' })).to.equal(true);
    // What the stored key is, a schema cannot see: these depend on it, and the domain decides.
    expect(patchAccepts({ perDay: 8 })).to.equal(true);
    expect(patchAccepts({ plan: 'enterprise', perDay: 8 })).to.equal(true);
  });

  it('property: ApiKeyPatchSchema and the domain agree on the shape of a change, and the key ends up as docs/rules.md §9 says', async () => {
    const value = fc.oneof(fc.integer({ min: -1, max: 10 }), fc.constant(1.5), fc.string());
    const body = fc.record(
      {
        plan: fc.oneof(fc.constantFrom('free', 'pro', 'business', 'enterprise'), fc.string()),
        label: fc.oneof(fc.string({ maxLength: 102 }), fc.integer()),
        perMinute: value,
        perDay: value,
        extra: fc.string(),
      },
      { requiredKeys: [] },
    );
    // The key the change meets: on a fixed plan, or enterprise with its own numbers (5 a minute, 8 a day).
    const start = fc.constantFrom<Record<string, unknown>>(
      { plan: 'free' },
      { plan: 'business' },
      { plan: 'enterprise', perMinute: 5, perDay: 8 },
    );
    type Key = { plan: string; quota: { perMinute: number; perDay: number } };
    /**
     * The rule, stated on what was SENT (a number not sent is not a number sent): numbers only on a
     * key that is or becomes enterprise; a key moving to enterprise from a fixed plan sends both; a
     * key that is and stays enterprise may send either (the other is its current one); the result
     * is ordered, perMinute ≤ perDay. A plan-only move from enterprise to a fixed plan is allowed.
     */
    const expected = (from: Key, b: Record<string, unknown>): Key | undefined => {
      if (!patchAccepts(b)) return undefined;
      const sentMinute = b['perMinute'] as number | undefined;
      const sentDay = b['perDay'] as number | undefined;
      const plan = (b['plan'] as string | undefined) ?? from.plan;
      if (plan !== 'enterprise') {
        if (sentMinute !== undefined || sentDay !== undefined) return undefined;
        return { plan, quota: PLAN_QUOTAS[plan as 'free' | 'pro' | 'business'] };
      }
      if (from.plan !== 'enterprise' && (sentMinute === undefined || sentDay === undefined)) return undefined;
      const quota = { perMinute: sentMinute ?? from.quota.perMinute, perDay: sentDay ?? from.quota.perDay };
      return quota.perMinute <= quota.perDay ? { plan, quota } : undefined;
    };
    await fc.assert(
      fc.asyncProperty(start, body, async (s, b) => {
        const { admin } = setup();
        const made = await admin.create(ADMIN, s);
        if (!made.ok) throw new Error('create');
        const from: Key = { plan: made.value.plan, quota: made.value.quota };
        const changed = await admin.patch(ADMIN, made.value.id, b);
        const want = expected(from, b);
        const what = `${JSON.stringify(s)} ← ${JSON.stringify(b)}`;
        expect(changed.ok, what).to.equal(want !== undefined);
        const now = await admin.get(ADMIN, made.value.id);
        if (!now.ok) throw new Error('get');
        // Accepted: the plan and numbers the rule gives; refused: nothing changed.
        expect({ plan: now.value.plan, quota: now.value.quota }, what).to.deep.equal(want ?? from);
        if (changed.ok) expect(changed.value, what).to.deep.equal(now.value);
      }),
      {
        examples: [
          // FC_SEED=-474553119 found it: an enterprise key moved to a fixed plan with the plan alone.
          [{ plan: 'enterprise', perMinute: 5, perDay: 8 }, { plan: 'free' }],
          [{ plan: 'free' }, { plan: 'enterprise', perMinute: 3 }],
          [{ plan: 'enterprise', perMinute: 5, perDay: 8 }, { perMinute: 9 }],
          [{ plan: 'free' }, { perDay: 9 }],
        ],
      },
    );
  });

  it('changes plan, numbers and label; a change to enterprise needs the numbers, an enterprise key keeps its own', async () => {
    const { admin } = setup();
    const made = await admin.create(ADMIN, { plan: 'free' });
    if (!made.ok) throw new Error('create');
    const id = made.value.id;
    const toPro = await admin.patch(ADMIN, id, { plan: 'pro' });
    expect(toPro.ok && toPro.value).to.deep.include({ plan: 'pro', quota: PLAN_QUOTAS.pro });
    const noNumbers = await admin.patch(ADMIN, id, { plan: 'enterprise' });
    expect(!noNumbers.ok && noNumbers.error.code).to.equal('validation_failed');
    const numbersOnPro = await admin.patch(ADMIN, id, { perMinute: 1, perDay: 2 });
    expect(!numbersOnPro.ok && numbersOnPro.error).to.deep.include({ code: 'validation_failed', field: 'perMinute' });
    const toEnterprise = await admin.patch(ADMIN, id, { plan: 'enterprise', perMinute: 2, perDay: 3 });
    expect(toEnterprise.ok && toEnterprise.value.quota).to.deep.equal({ perMinute: 2, perDay: 3 });
    const numbers = await admin.patch(ADMIN, id, { perMinute: 4, perDay: 5 });
    expect(numbers.ok && numbers.value).to.deep.include({ plan: 'enterprise', quota: { perMinute: 4, perDay: 5 } });
    const keeps = await admin.patch(ADMIN, id, { plan: 'enterprise', label: 'big' });
    expect(keeps.ok && keeps.value).to.deep.include({
      plan: 'enterprise',
      quota: { perMinute: 4, perDay: 5 },
      label: 'big',
    });
    const down = await admin.patch(ADMIN, id, { plan: 'business' });
    expect(down.ok && down.value).to.deep.include({ plan: 'business', quota: PLAN_QUOTAS.business, label: 'big' });
    const empty = await admin.patch(ADMIN, id, {});
    expect(!empty.ok && empty.error).to.deep.include({ code: 'validation_failed', field: 'body' });
    const unknown = await admin.patch(ADMIN, id, { role: 'admin' });
    expect(!unknown.ok && unknown.error).to.deep.include({ code: 'validation_failed', field: 'role' });
  });

  it('PATCH takes perMinute or perDay alone on an enterprise key (the other is kept); the result stays 1 ≤ perMinute ≤ perDay ≤ 2^53 − 1', async () => {
    const { admin } = setup();
    const made = await admin.create(ADMIN, { plan: 'enterprise', perMinute: 10, perDay: 100, label: 'big' });
    if (!made.ok) throw new Error('create');
    const id = made.value.id;
    const day = await admin.patch(ADMIN, id, { perDay: 500 });
    expect(day.ok && day.value).to.deep.include({
      plan: 'enterprise',
      quota: { perMinute: 10, perDay: 500 },
      label: 'big',
    });
    const minute = await admin.patch(ADMIN, id, { perMinute: 500 });
    expect(minute.ok && minute.value.quota, 'perMinute = perDay is allowed').to.deep.equal({
      perMinute: 500,
      perDay: 500,
    });
    const withPlan = await admin.patch(ADMIN, id, { plan: 'enterprise', perDay: QUOTA_MAX });
    expect(withPlan.ok && withPlan.value.quota).to.deep.equal({ perMinute: 500, perDay: QUOTA_MAX });
    const withLabel = await admin.patch(ADMIN, id, { perMinute: 7, label: 'smaller' });
    expect(withLabel.ok && withLabel.value).to.deep.include({
      quota: { perMinute: 7, perDay: QUOTA_MAX },
      label: 'smaller',
    });
    await admin.patch(ADMIN, id, { perDay: 100 });
    // Refused, nothing changed: the result out of order, or a number out of range.
    const refused: Array<[unknown, string, RegExp]> = [
      [{ perMinute: 101 }, 'perMinute', /perMinute must not be greater than perDay.*perMinute 101, perDay 100/],
      [{ perDay: 6 }, 'perMinute', /perMinute 7, perDay 6/],
      [{ plan: 'enterprise', perDay: 1 }, 'perMinute', /not be greater/],
      [{ perDay: 0 }, 'perDay', /integer from 1/],
      [{ perMinute: QUOTA_MAX + 1 }, 'perMinute', /integer from 1/],
      [{ perMinute: 1.5 }, 'perMinute', /integer/],
      [{ perDay: '200' }, 'perDay', /integer/],
    ];
    for (const [body, field, message] of refused) {
      const r = await admin.patch(ADMIN, id, body);
      expect(!r.ok && r.error, JSON.stringify(body)).to.deep.include({ code: 'validation_failed', field });
      expect(!r.ok && r.error.message, JSON.stringify(body)).to.match(message);
    }
    expect((await admin.get(ADMIN, id)).ok && (await admin.get(ADMIN, id))).to.deep.nested.include({
      'value.quota': { perMinute: 7, perDay: 100 },
    });
  });

  it('PATCH: a number on a key that stays on a fixed plan → 400; moving to enterprise from a fixed plan needs both numbers (the stricter reading)', async () => {
    const { admin } = setup();
    const made = await admin.create(ADMIN, { plan: 'pro' });
    if (!made.ok) throw new Error('create');
    const id = made.value.id;
    const refused: Array<[unknown, string, RegExp]> = [
      [{ perDay: 20_000 }, 'perDay', /only for enterprise keys; the pro plan/],
      [{ perMinute: 10 }, 'perMinute', /only for enterprise keys; the pro plan/],
      [{ plan: 'business', perDay: 20_000 }, 'perDay', /the business plan/],
      [{ plan: 'enterprise', perMinute: 10 }, 'perDay', /needs perMinute and perDay/],
      [{ plan: 'enterprise', perDay: 20_000 }, 'perMinute', /needs perMinute and perDay/],
      [{ plan: 'enterprise' }, 'perMinute', /needs perMinute and perDay/],
    ];
    for (const [body, field, message] of refused) {
      const r = await admin.patch(ADMIN, id, body);
      expect(!r.ok && r.error, JSON.stringify(body)).to.deep.include({ code: 'validation_failed', field });
      expect(!r.ok && r.error.message, JSON.stringify(body)).to.match(message);
    }
    const moved = await admin.patch(ADMIN, id, { plan: 'enterprise', perMinute: 10, perDay: 20_000 });
    expect(moved.ok && moved.value).to.deep.include({ plan: 'enterprise', quota: { perMinute: 10, perDay: 20_000 } });
    // Back to a fixed plan and on again: the old enterprise numbers are not remembered.
    await admin.patch(ADMIN, id, { plan: 'free' });
    const again = await admin.patch(ADMIN, id, { plan: 'enterprise', perDay: 20_000 });
    expect(!again.ok && again.error).to.deep.include({ code: 'validation_failed', field: 'perMinute' });
  });

  it('settings keys are listed first (created at the process start) and are read-only: conflict on change and revoke', async () => {
    const startedAt = Date.UTC(2026, 11, 31, 23, 59, 59, 123);
    const { admin, store } = setup(startedAt);
    const issued = await admin.create(ADMIN, { plan: 'pro' });
    if (!issued.ok) throw new Error('create');
    await store.save(apiKeyRecord(nodeDigests, 'settings-admin', 'business', undefined, 'admin') as never);
    const page = await admin.list(ADMIN);
    if (!page.ok) throw new Error('list');
    expect(page.value.items.map((k) => k.source)).to.deep.equal(['settings', 'api']);
    const settings = page.value.items[0]!;
    expect(settings).to.deep.equal({
      id: publicKeyId(nodeDigests.sha256Hex('settings-admin')),
      role: 'admin',
      plan: 'business',
      quota: PLAN_QUOTAS.business,
      source: 'settings',
      createdAt: '2026-12-31T23:59:59.123Z',
    });
    for (const r of [await admin.patch(ADMIN, settings.id, { label: 'x' }), await admin.revoke(ADMIN, settings.id)]) {
      expect(!r.ok && r.error.code).to.equal('conflict');
      // The rule, not a setting: the domain cannot know how the service that embeds it is configured.
      expect(!r.ok && r.error.message).to.equal(
        `key ${settings.id} is managed by the server's configuration, not through this API; change it there`,
      );
      expect(!r.ok && r.error.message).not.to.match(/PETSTORE_/);
    }
    expect(await store.findById(settings.id)).to.not.equal(undefined);
  });

  it('unknown and malformed key ids: not_found and validation_failed (the id quoted at most 64 characters)', async () => {
    const { admin } = setup();
    for (const op of [
      (id: string) => admin.get(ADMIN, id),
      (id: string) => admin.patch(ADMIN, id, { label: 'x' }),
      (id: string) => admin.revoke(ADMIN, id),
    ]) {
      const none = await op('key_abcdefabcdef');
      expect(!none.ok && none.error.code).to.equal('not_found');
      for (const bad of ['key_ABCDEFABCDEF', 'key_abc', 'pet_x', '', `key_${'a'.repeat(500)}`]) {
        const r = await op(bad);
        expect(!r.ok && r.error, bad).to.deep.include({ code: 'validation_failed', field: 'keyId' });
        expect(!r.ok && r.error.message.length).to.be.below(200);
      }
    }
  });

  it('every operation answers forbidden to a client key (or no caller), before it reads the store or the body', async () => {
    const { admin, store } = setup();
    const made = await admin.create(ADMIN, { plan: 'free' });
    if (!made.ok) throw new Error('create');
    const reads = store.calls;
    for (const caller of [CLIENT, PUBLISHABLE, undefined]) {
      const answers = [
        await admin.create(caller, { nonsense: true }),
        await admin.list(caller, { limit: 0 }),
        await admin.get(caller, 'not an id'),
        await admin.patch(caller, made.value.id, {}),
        await admin.revoke(caller, made.value.id),
      ];
      for (const a of answers) expect(!a.ok && a.error.code).to.equal('forbidden');
      expect(admin.authorize(caller).ok).to.equal(false);
    }
    expect(store.calls).to.equal(reads);
    expect(admin.authorize(ADMIN)).to.deep.equal({ ok: true, value: ADMIN });
  });

  it('lists in pages with the one pager: a cursor bound to the key list, refused elsewhere', async () => {
    const { admin } = setup();
    for (let i = 0; i < 5; i++) await admin.create(ADMIN, { plan: 'free', label: `k${i}` });
    const first = await admin.list(ADMIN, { limit: 2 });
    if (!first.ok) throw new Error('list');
    expect(first.value.items.map((k) => k.label)).to.deep.equal(['k0', 'k1']);
    const second = await admin.list(ADMIN, { limit: 3, cursor: first.value.nextCursor });
    expect(second.ok && second.value.items.map((k) => k.label)).to.deep.equal(['k2', 'k3', 'k4']);
    expect(second.ok && second.value.nextCursor).to.equal(undefined);
    const foreign = await admin.list(ADMIN, { cursor: 'Yz' });
    expect(!foreign.ok && foreign.error).to.deep.include({ code: 'validation_failed', field: 'cursor' });
    const badLimit = await admin.list(ADMIN, { limit: 101 });
    expect(!badLimit.ok && badLimit.error).to.deep.include({ code: 'validation_failed', field: 'limit' });
  });

  it('revoked keys are gone from get, change, revoke and the list', async () => {
    const { admin } = setup();
    const made = await admin.create(ADMIN, { plan: 'free' });
    if (!made.ok) throw new Error('create');
    expect(await admin.revoke(ADMIN, made.value.id)).to.deep.equal({ ok: true, value: undefined });
    for (const r of [
      await admin.get(ADMIN, made.value.id),
      await admin.patch(ADMIN, made.value.id, { plan: 'pro' }),
      await admin.revoke(ADMIN, made.value.id),
    ]) {
      expect(!r.ok && r.error.code).to.equal('not_found');
    }
    const page = await admin.list(ADMIN);
    expect(page.ok && page.value.items).to.deep.equal([]);
  });

  it('tries another key when the store says its public id is taken', async () => {
    const { admin, store } = setup();
    let refusals = 1;
    const insert = store.insert.bind(store);
    store.insert = async (key) => (refusals-- > 0 ? 'taken' : insert(key));
    const made = await admin.create(ADMIN, { plan: 'free' });
    expect(made.ok).to.equal(true);
    store.insert = async () => 'taken';
    let thrown: unknown;
    await admin.create(ADMIN, { plan: 'free' }).catch((e: unknown) => (thrown = e));
    expect(String(thrown)).to.match(/no unused key id/);
  });
});

describe('ApiKeyLookupCache', () => {
  const stored = (key: string): StoredApiKey => ({
    ...(apiKeyRecord(nodeDigests, key, 'pro') as never as StoredApiKey),
    source: 'settings',
    position: 1,
  });

  /** A store whose lookups count and can be held open. */
  class SlowStore extends ApiKeyStoreModel {
    lookups = 0;
    gate: Promise<void> | undefined;
    override async findByHash(keyHash: string) {
      this.lookups++;
      const answer = await super.findByHash(keyHash);
      await this.gate;
      return answer;
    }
  }

  it(`answers from memory for less than ${KEY_CACHE_MAX_AGE_MS} ms by the clock port, then asks the store again`, async () => {
    const inner = new SlowStore();
    const clock = new ManualClock(T0);
    const cache = new ApiKeyLookupCache(inner, clock);
    await inner.save(stored('a'));
    const hash = nodeDigests.sha256Hex('a');
    expect(await cache.findByHash(hash)).to.not.equal(undefined);
    clock.advance(KEY_CACHE_MAX_AGE_MS - 1);
    await cache.findByHash(hash);
    expect(inner.lookups).to.equal(1);
    // Changed behind the cache's back (another process): seen once the entry is too old.
    await inner.revokeBehindTheBack(hash);
    expect(await cache.findByHash(hash), 'still within the bound').to.not.equal(undefined);
    clock.advance(1);
    expect(await cache.findByHash(hash), 'past the bound').to.equal(undefined);
    expect(inner.lookups).to.equal(2);
    expect(KEY_CACHE_MAX_AGE_MS).to.be.at.most(1000);
  });

  it('a cached lookup is answered without asking the store again', async () => {
    const inner = new SlowStore();
    const cache = new ApiKeyLookupCache(inner, new ManualClock(T0));
    await inner.save(stored('a'));
    const hash = nodeDigests.sha256Hex('a');
    const first = await cache.findByHash(hash);
    expect(first).to.not.equal(undefined);
    expect(await cache.findByHash(hash)).to.deep.equal(first);
    expect(inner.lookups).to.equal(1);
  });

  it('a write through the cache takes effect at once, also over a lookup that was under way during it', async () => {
    const inner = new SlowStore();
    const clock = new ManualClock(T0);
    const cache = new ApiKeyLookupCache(inner, clock);
    const admin = new KeyAdmin(cache, new SeededRandom(), clock, T0, nodeDigests);
    const made = await admin.create(ADMIN, { plan: 'free' });
    if (!made.ok) throw new Error('create');
    const hash = nodeDigests.sha256Hex(made.value.key);
    expect((await cache.findByHash(hash))?.plan).to.equal('free');
    await admin.patch(ADMIN, made.value.id, { plan: 'pro' });
    expect((await cache.findByHash(hash))?.plan, 'the change, at once').to.equal('pro');

    // A lookup reads the key, the key is revoked before the lookup returns: that answer is not kept.
    let open!: () => void;
    inner.gate = new Promise<void>((resolve) => (open = resolve));
    const racing = cache.findByHash(hash);
    await new Promise((r) => setImmediate(r));
    inner.gate = undefined;
    await admin.revoke(ADMIN, made.value.id);
    open();
    expect((await racing)?.plan, 'the racing lookup read before the revocation').to.equal('pro');
    expect(await cache.findByHash(hash), 'but it was not kept').to.equal(undefined);
  });

  it('remembers unknown keys too, and starts again empty when full (a flood of guesses cannot grow it)', async () => {
    const inner = new SlowStore();
    const cache = new ApiKeyLookupCache(inner, new ManualClock(T0), 500, 3);
    for (const h of ['1', '2', '1', '2']) await cache.findByHash(h);
    expect(inner.lookups).to.equal(2);
    for (const h of ['3', '4', '1']) await cache.findByHash(h);
    expect(inner.lookups, 'the fourth entry emptied the cache').to.equal(5);
  });
});

import { expect } from 'chai';
import fc from 'fast-check';
import type {
  ApiKey,
  ApiKeyRecord,
  ApiKeyStore,
  Caller,
  NewApiKey,
  PlanName,
  Quota,
  StoredApiKey,
} from '../src/index.js';
import {
  API_KEY_POSITION_BASE,
  ApiKeyLookupCache,
  apiKeyRecord,
  Authenticator,
  ISSUED_KEY_PATTERN,
  KeyAdmin,
  PLAN_QUOTAS,
  publicKeyId,
  settingsKeyPosition,
} from '../src/index.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { ManualClock } from './manual-clock.js';
import { SeededRandom } from './seeded-random.js';
import { afterArb, afterFrom, expectExactPage, expectListAnswer, MAX_WALK_PAGES } from './exact-page.js';
import { nodeDigests } from './node-digests.js';

const T0 = Date.UTC(2027, 0, 1, 9);

const record = (key: string, plan: 'free' | 'pro' | 'business', role: 'client' | 'admin' = 'client'): ApiKeyRecord => {
  const r = apiKeyRecord(nodeDigests, key, plan, undefined, role);
  if (typeof r === 'string') throw new Error(r);
  return r;
};

const newKey = (key: string, extra: Partial<NewApiKey> = {}): NewApiKey => ({
  keyHash: nodeDigests.sha256Hex(key),
  role: 'client',
  plan: 'pro',
  quota: PLAN_QUOTAS.pro,
  createdAt: T0,
  ...extra,
});

const ADMIN: Caller = { keyId: 'key_000000000000', role: 'admin' };
const CLIENT: Caller = { keyId: 'key_111111111111', role: 'client' };

/**
 * The store with every `list` answer checked exactly against a shadow of what it holds, kept from
 * the answers of its own writes (a saved settings key sits at `settingsKeyPosition`, an inserted or
 * updated key is what the store answered, a revoked key is gone).
 */
const checkedKeyLists = (inner: ApiKeyStore): ApiKeyStore & { readonly held: () => readonly StoredApiKey[] } => {
  const shadow = new Map<string, StoredApiKey>();
  return {
    held: () => [...shadow.values()],
    findByHash: (keyHash) => inner.findByHash(keyHash),
    findById: (keyId) => inner.findById(keyId),
    listPublishableOrigins: () => inner.listPublishableOrigins(),
    save: async (r) => {
      await inner.save(r);
      shadow.set(r.keyHash, {
        keyHash: r.keyHash,
        role: r.role,
        plan: r.plan,
        quota: r.quota,
        source: 'settings',
        position: settingsKeyPosition(r.keyHash),
      });
    },
    retainSettingsKeys: async (keyHashes) => {
      await inner.retainSettingsKeys(keyHashes);
      for (const [hash, key] of shadow) if (key.source === 'settings' && !keyHashes.includes(hash)) shadow.delete(hash);
    },
    insert: async (key) => {
      const stored = await inner.insert(key);
      if (stored !== 'taken') shadow.set(stored.keyHash, stored);
      return stored;
    },
    update: async (keyId, changes) => {
      const updated = await inner.update(keyId, changes);
      if (updated !== undefined) shadow.set(updated.keyHash, updated);
      return updated;
    },
    revoke: async (keyId) => {
      const revoked = await inner.revoke(keyId);
      if (revoked) for (const hash of shadow.keys()) if (publicKeyId(hash) === keyId) shadow.delete(hash);
      return revoked;
    },
    list: async (afterPosition, limit) => {
      const rows = await inner.list(afterPosition, limit);
      expectListAnswer(
        'ApiKeyStore.list',
        rows,
        [...shadow.values()],
        { afterId: afterPosition, limit },
        (k) => k.position,
      );
      return rows;
    },
  };
};

/** The `ApiKeyStore` contract: every adapter runs this same suite. */
export const apiKeyStoreContract = (
  name: string,
  make: MakeFixture<ApiKeyStore>,
  options: ContractOptions = {},
): void => {
  const numRuns = options.numRuns;
  describe(`ApiKeyStore contract: ${name}`, function () {
    it('finds a saved key by the SHA-256 of the key (and by its public id), nothing by the raw key', () =>
      withFixture(make, async (store) => {
        await store.save(record('key-one', 'pro'));
        const expected = {
          keyHash: nodeDigests.sha256Hex('key-one'),
          role: 'client',
          plan: 'pro',
          quota: PLAN_QUOTAS.pro,
          source: 'settings',
          position: settingsKeyPosition(nodeDigests.sha256Hex('key-one')),
        };
        expect(await store.findByHash(nodeDigests.sha256Hex('key-one'))).to.deep.equal(expected);
        expect(await store.findById(publicKeyId(nodeDigests.sha256Hex('key-one')))).to.deep.equal(expected);
        expect(await store.findByHash('key-one')).to.equal(undefined);
        expect(await store.findByHash(nodeDigests.sha256Hex('key-two'))).to.equal(undefined);
        expect(await store.findById(publicKeyId(nodeDigests.sha256Hex('key-two')))).to.equal(undefined);
      }));

    it('keeps enterprise quotas and admin roles, and replaces a key saved again (idempotent seeding)', () =>
      withFixture(make, async (store) => {
        const enterprise = apiKeyRecord(nodeDigests, 'big', 'enterprise', { perMinute: 5000, perDay: 2_000_000 });
        if (typeof enterprise === 'string') throw new Error(enterprise);
        await store.save(enterprise);
        await store.save(enterprise);
        expect(await store.findByHash(enterprise.keyHash)).to.deep.include({ ...enterprise, source: 'settings' });
        await store.save(record('k', 'free'));
        await store.save(record('k', 'pro'));
        expect((await store.findByHash(nodeDigests.sha256Hex('k')))?.plan).to.equal('pro');
        await store.save(record('boss', 'business', 'admin'));
        expect(await store.findByHash(nodeDigests.sha256Hex('boss'))).to.deep.include({
          role: 'admin',
          plan: 'business',
          quota: PLAN_QUOTAS.business,
        });
        expect(await store.list(0, 10)).to.have.length(3);
      }));

    it('retainSettingsKeys removes the other settings keys and leaves keys of the API alone', () =>
      withFixture(make, async (store) => {
        for (const k of ['s1', 's2', 's3']) await store.save(record(k, 'free'));
        const issued = await store.insert(newKey('issued'));
        expect(issued).to.not.equal('taken');
        await store.retainSettingsKeys([nodeDigests.sha256Hex('s2')]);
        expect(await store.findByHash(nodeDigests.sha256Hex('s1'))).to.equal(undefined);
        expect(await store.findByHash(nodeDigests.sha256Hex('s3'))).to.equal(undefined);
        expect((await store.findByHash(nodeDigests.sha256Hex('s2')))?.source).to.equal('settings');
        expect((await store.findByHash(nodeDigests.sha256Hex('issued')))?.source).to.equal('api');
      }));

    it('inserts keys of the API above every settings key, in creation order, with what they were given', () =>
      withFixture(make, async (store) => {
        const a = await store.insert(newKey('a', { label: 'the first', createdAt: T0 + 5 }));
        await store.save(record('settings-late', 'free'));
        const b = await store.insert(newKey('b', { plan: 'enterprise', quota: { perMinute: 7, perDay: 9 } }));
        expect(a).to.deep.equal({
          keyHash: nodeDigests.sha256Hex('a'),
          role: 'client',
          plan: 'pro',
          quota: PLAN_QUOTAS.pro,
          createdAt: T0 + 5,
          label: 'the first',
          source: 'api',
          position: (a as { position: number }).position,
        });
        if (a === 'taken' || b === 'taken') throw new Error('taken');
        expect(a.position).to.be.at.least(API_KEY_POSITION_BASE);
        expect(b.position).to.be.greaterThan(a.position);
        expect(await store.findByHash(nodeDigests.sha256Hex('b'))).to.deep.equal(b);
        expect(await store.findById(publicKeyId(nodeDigests.sha256Hex('a')))).to.deep.equal(a);
        const listed = await store.list(0, 10);
        expect(listed.map((r) => r.keyHash)).to.deep.equal([
          nodeDigests.sha256Hex('settings-late'),
          nodeDigests.sha256Hex('a'),
          nodeDigests.sha256Hex('b'),
        ]);
        expect((await store.list(a.position, 10)).map((r) => r.keyHash)).to.deep.equal([nodeDigests.sha256Hex('b')]);
        expect((await store.list(0, 1)).map((r) => r.keyHash)).to.deep.equal([nodeDigests.sha256Hex('settings-late')]);
      }));

    it('refuses a second key with the same hash or the same public id: taken', () =>
      withFixture(make, async (store) => {
        expect(await store.insert(newKey('same'))).to.not.equal('taken');
        expect(await store.insert(newKey('same', { plan: 'free', quota: PLAN_QUOTAS.free }))).to.equal('taken');
        // Another hash with the same first 12 hex digits: the same public id.
        const twin = `${nodeDigests.sha256Hex('same').slice(0, 12)}${'0'.repeat(52)}`;
        expect(await store.insert({ ...newKey('x'), keyHash: twin })).to.equal('taken');
        await store.save(record('settings', 'free'));
        expect(await store.insert(newKey('settings'))).to.equal('taken');
        expect(await store.list(0, 10)).to.have.length(2);
      }));

    it('updates the plan with its quota and the label of a key of the API, never a settings key', () =>
      withFixture(make, async (store) => {
        const made = await store.insert(newKey('up', { label: 'before' }));
        if (made === 'taken') throw new Error('taken');
        const id = publicKeyId(made.keyHash);
        const upgraded = await store.update(id, {
          grant: { plan: 'enterprise', quota: { perMinute: 11, perDay: 12 } },
        });
        expect(upgraded).to.deep.equal({ ...made, plan: 'enterprise', quota: { perMinute: 11, perDay: 12 } });
        expect(await store.findByHash(made.keyHash)).to.deep.equal(upgraded);
        const relabelled = await store.update(id, { label: 'after' });
        expect(relabelled).to.deep.equal({ ...upgraded, label: 'after' });
        const down = await store.update(id, { grant: { plan: 'free', quota: PLAN_QUOTAS.free }, label: 'down' });
        expect(down).to.deep.include({ plan: 'free', quota: PLAN_QUOTAS.free, label: 'down', position: made.position });
        expect(await store.update('key_000000000000', { label: 'x' })).to.equal(undefined);
        await store.save(record('fixed', 'pro'));
        expect(await store.update(publicKeyId(nodeDigests.sha256Hex('fixed')), { label: 'x' })).to.equal(undefined);
        expect((await store.findByHash(nodeDigests.sha256Hex('fixed')))?.label).to.equal(undefined);
      }));

    it('keeps a publishable key with its origins, changes them, and answers the origins of live publishable keys only (docs/rules.md §16)', () =>
      withFixture(make, async (store) => {
        expect(await store.listPublishableOrigins()).to.deep.equal([]);
        const shop = await store.insert(
          newKey('pk-shop', { role: 'publishable', origins: ['https://shop.example', 'http://localhost:3000'] }),
        );
        const site = await store.insert(newKey('pk-site', { role: 'publishable', origins: ['https://shop.example'] }));
        await store.insert(newKey('secret'));
        if (shop === 'taken' || site === 'taken') throw new Error('taken');
        expect(shop).to.deep.include({
          role: 'publishable',
          origins: ['https://shop.example', 'http://localhost:3000'],
        });
        expect(await store.findByHash(shop.keyHash)).to.deep.equal(shop);
        expect((await store.list(0, 10)).find((k) => k.keyHash === shop.keyHash)).to.deep.equal(shop);
        const sorted = async () => [...(await store.listPublishableOrigins())].sort();
        expect(await sorted()).to.deep.equal(['http://localhost:3000', 'https://shop.example']);
        const moved = await store.update(publicKeyId(shop.keyHash), { origins: ['https://new.example'] });
        expect(moved).to.deep.equal({ ...shop, origins: ['https://new.example'] });
        expect(await store.findById(publicKeyId(shop.keyHash))).to.deep.equal(moved);
        expect(await sorted()).to.deep.equal(['https://new.example', 'https://shop.example']);
        expect(await store.revoke(publicKeyId(site.keyHash))).to.equal(true);
        expect(await sorted()).to.deep.equal(['https://new.example']);
        expect(await store.revoke(publicKeyId(shop.keyHash))).to.equal(true);
        expect(await store.listPublishableOrigins()).to.deep.equal([]);
      }));

    it('revokes a key of the API for good: found by nothing, listed nowhere, its hash and position never given again', () =>
      withFixture(make, async (store) => {
        const gone = await store.insert(newKey('gone'));
        const stays = await store.insert(newKey('stays'));
        if (gone === 'taken' || stays === 'taken') throw new Error('taken');
        const id = publicKeyId(gone.keyHash);
        expect(await store.revoke(id)).to.equal(true);
        expect(await store.findByHash(gone.keyHash)).to.equal(undefined);
        expect(await store.findById(id)).to.equal(undefined);
        expect((await store.list(0, 10)).map((r) => r.keyHash)).to.deep.equal([stays.keyHash]);
        expect(await store.revoke(id)).to.equal(false);
        expect(await store.update(id, { label: 'x' })).to.equal(undefined);
        expect(await store.insert(newKey('gone'))).to.equal('taken');
        // Revoke the newest key: the next one still gets a position above it.
        expect(await store.revoke(publicKeyId(stays.keyHash))).to.equal(true);
        const next = await store.insert(newKey('next'));
        if (next === 'taken') throw new Error('taken');
        expect(next.position).to.be.greaterThan(stays.position);
        await store.save(record('fixed', 'pro'));
        expect(await store.revoke(publicKeyId(nodeDigests.sha256Hex('fixed')))).to.equal(false);
        expect(await store.findByHash(nodeDigests.sha256Hex('fixed'))).to.not.equal(undefined);
      }));

    it('gives keys inserted at once distinct positions, all listed once, in position order', () =>
      withFixture(make, async (store) => {
        const made = await Promise.all(Array.from({ length: 12 }, (_, i) => store.insert(newKey(`burst-${i}`))));
        const positions = made.map((m) => (m === 'taken' ? Number.NaN : m.position));
        expect(new Set(positions).size).to.equal(12);
        const first = await store.list(0, 5);
        const rest = await store.list(first[4]!.position, 100);
        expect([...first, ...rest].map((r) => r.position)).to.deep.equal([...positions].sort((a, b) => a - b));
      }));

    it('property: every list answers exactly the first min(limit, remaining) keys after a position, in ascending position (settings keys first, then keys of the API in creation order, none revoked)', () =>
      fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 5 }),
          fc.array(fc.boolean(), { maxLength: 25, size: 'medium' }),
          fc.array(fc.tuple(afterArb, fc.integer({ min: 1, max: 12 })), { minLength: 1, maxLength: 10 }),
          (settings, issued, queries) =>
            withFixture(make, async (inner) => {
              const store = checkedKeyLists(inner);
              for (const key of settings) await store.save(record(`settings ${key}`, 'free'));
              // Keys of the API, each revoked at once or kept (true: kept).
              for (const [i, kept] of issued.entries()) {
                const made = await store.insert(newKey(`issued ${i}`, { createdAt: T0 + i }));
                if (made === 'taken') throw new Error('taken');
                if (!kept) expect(await store.revoke(publicKeyId(made.keyHash))).to.equal(true);
              }
              const positions = store
                .held()
                .map((k) => k.position)
                .sort((a, b) => a - b);
              // Checked against the shadow by the store itself.
              for (const [after, limit] of queries) await store.list(afterFrom(after, positions), limit);
            }),
        ),
        numRuns === undefined ? {} : { numRuns },
      ));

    it('property (model-based): issue, change, revoke and authenticate keys through the use cases; a revoked key is never accepted again, the next admission uses the changed numbers, no listing shows a secret; each page, and each list the use case asks the store for, is exact', () =>
      fc.assert(
        // 'medium': sequences up to maxCommands long (the default size stops at about 10 commands).
        fc.asyncProperty(fc.commands(keyCommands, { maxCommands: 25, size: 'medium' }), async (commands) =>
          withFixture(make, async (inner) => {
            const clock = new ManualClock(T0);
            // The lookup cache in front, on a clock that never moves: only its invalidation on writes keeps it right.
            const store = new ApiKeyLookupCache(checkedKeyLists(inner), clock);
            await store.save(record('settings-admin-key', 'business', 'admin'));
            const real: Real = {
              admin: new KeyAdmin(store, new SeededRandom(), clock, T0, nodeDigests),
              auth: new Authenticator(store, nodeDigests),
              clock,
            };
            await fc.asyncModelRun(
              () => ({ model: { keys: [], hashesSeen: new Set([nodeDigests.sha256Hex('settings-admin-key')]) }, real }),
              commands,
            );
          }),
        ),
        numRuns === undefined ? {} : { numRuns },
      ));
  });
};

/** What the model knows of one issued key. */
interface ModelKey {
  readonly key: string;
  readonly id: string;
  plan: PlanName;
  quota: Quota;
  label?: string;
  revoked: boolean;
}
interface Model {
  readonly keys: ModelKey[];
  /** Every full hash that exists, to check no answer shows one. */
  readonly hashesSeen: Set<string>;
}
interface Real {
  readonly admin: KeyAdmin;
  readonly auth: Authenticator;
  readonly clock: ManualClock;
}
type KeyCommand = fc.AsyncCommand<Model, Real>;

const planArb: fc.Arbitrary<{ plan: PlanName; perMinute?: number; perDay?: number }> = fc.oneof(
  fc.constantFrom('free', 'pro', 'business').map((plan) => ({ plan: plan as PlanName })),
  fc
    .tuple(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 1000 }))
    .map(([perMinute, extra]) => ({ plan: 'enterprise' as const, perMinute, perDay: perMinute + extra })),
);
const labelArb = fc.option(
  fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !/[\uD800-\uDFFF]/.test(s)),
  { nil: undefined },
);

const expectNoSecret = (model: Model, answer: unknown): void => {
  const text = JSON.stringify(answer);
  for (const k of model.keys) expect(text).not.to.contain(k.key);
  for (const h of model.hashesSeen) expect(text).not.to.contain(h);
};

const viewOf = (k: ModelKey): Omit<ApiKey, 'createdAt'> => ({
  id: k.id,
  role: 'client',
  plan: k.plan,
  quota: k.quota,
  ...(k.label === undefined ? {} : { label: k.label }),
  source: 'api',
});

class CreateKey implements KeyCommand {
  constructor(
    readonly spec: { plan: PlanName; perMinute?: number; perDay?: number },
    readonly label: string | undefined,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const body = { ...this.spec, ...(this.label === undefined ? {} : { label: this.label }) };
    const made = await real.admin.create(ADMIN, body);
    if (!made.ok) throw new Error(`create refused: ${made.error.message}`);
    const { key, createdAt, ...view } = made.value;
    expect(key).to.match(ISSUED_KEY_PATTERN);
    expect(createdAt).to.equal(new Date(real.clock.now()).toISOString());
    const quota =
      this.spec.plan === 'enterprise'
        ? { perMinute: this.spec.perMinute!, perDay: this.spec.perDay! }
        : PLAN_QUOTAS[this.spec.plan as 'free'];
    const entry: ModelKey = {
      key,
      id: publicKeyId(nodeDigests.sha256Hex(key)),
      plan: this.spec.plan,
      quota,
      revoked: false,
      ...(this.label === undefined ? {} : { label: this.label }),
    };
    expect(view).to.deep.equal(viewOf(entry));
    model.hashesSeen.add(nodeDigests.sha256Hex(key));
    expectNoSecret(model, made.value);
    model.keys.push(entry);
    real.clock.advance(1);
  }
  toString = () => `create(${JSON.stringify(this.spec)}, ${JSON.stringify(this.label)})`;
}

class PatchKey implements KeyCommand {
  constructor(
    readonly index: number,
    readonly spec: { plan: PlanName; perMinute?: number; perDay?: number } | undefined,
    readonly label: string | undefined,
  ) {}
  check = (model: Readonly<Model>) => model.keys.length > 0 && (this.spec !== undefined || this.label !== undefined);
  async run(model: Model, real: Real): Promise<void> {
    const k = model.keys[this.index % model.keys.length]!;
    const body = { ...(this.spec ?? {}), ...(this.label === undefined ? {} : { label: this.label }) };
    const changed = await real.admin.patch(ADMIN, k.id, body);
    if (k.revoked) {
      expect(!changed.ok && changed.error.code).to.equal('not_found');
      return;
    }
    if (!changed.ok) throw new Error(`patch refused: ${changed.error.message}`);
    if (this.spec !== undefined) {
      k.plan = this.spec.plan;
      k.quota =
        this.spec.plan === 'enterprise'
          ? { perMinute: this.spec.perMinute!, perDay: this.spec.perDay! }
          : PLAN_QUOTAS[this.spec.plan as 'free'];
    }
    if (this.label !== undefined) k.label = this.label;
    const { createdAt: _, ...view } = changed.value;
    expect(view).to.deep.equal(viewOf(k));
    expectNoSecret(model, changed.value);
  }
  toString = () => `patch(#${this.index}, ${JSON.stringify(this.spec)}, ${JSON.stringify(this.label)})`;
}

/**
 * A change of one number alone (docs/rules.md §9, "any of"): on an enterprise key the other number
 * is kept, and the result must be ordered; on a key of a fixed plan it is refused. Either way a
 * refused change leaves the key as it was.
 */
class PatchOneNumber implements KeyCommand {
  constructor(
    readonly index: number,
    readonly field: 'perMinute' | 'perDay',
    readonly value: number,
  ) {}
  check = (model: Readonly<Model>) => model.keys.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    const k = model.keys[this.index % model.keys.length]!;
    const changed = await real.admin.patch(ADMIN, k.id, { [this.field]: this.value });
    if (k.revoked) {
      expect(!changed.ok && changed.error.code).to.equal('not_found');
      return;
    }
    const quota = { ...k.quota, [this.field]: this.value };
    if (k.plan !== 'enterprise' || quota.perMinute > quota.perDay) {
      expect(!changed.ok && changed.error.code, `${k.plan} ${JSON.stringify(k.quota)}`).to.equal('validation_failed');
      return;
    }
    if (!changed.ok) throw new Error(`patch refused: ${changed.error.message}`);
    k.quota = quota;
    const { createdAt: _, ...view } = changed.value;
    expect(view).to.deep.equal(viewOf(k));
  }
  toString = () => `patchOne(#${this.index}, ${this.field} ${this.value})`;
}

class RevokeKey implements KeyCommand {
  constructor(readonly index: number) {}
  check = (model: Readonly<Model>) => model.keys.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    const k = model.keys[this.index % model.keys.length]!;
    const revoked = await real.admin.revoke(ADMIN, k.id);
    expect(revoked.ok ? 'ok' : revoked.error.code).to.equal(k.revoked ? 'not_found' : 'ok');
    k.revoked = true;
  }
  toString = () => `revoke(#${this.index})`;
}

class Authenticate implements KeyCommand {
  constructor(readonly index: number) {}
  check = (model: Readonly<Model>) => model.keys.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    const k = model.keys[this.index % model.keys.length]!;
    const result = await real.auth.authenticate(`Bearer ${k.key}`);
    if (k.revoked) {
      expect(result.ok, 'a revoked key is never accepted again').to.equal(false);
      return;
    }
    if (!result.ok) throw new Error('a live key was refused');
    expect({ plan: result.value.plan, quota: result.value.quota }, 'the numbers the next admission uses').to.deep.equal(
      { plan: k.plan, quota: k.quota },
    );
    expect(result.value.caller).to.deep.equal({ keyId: k.id, role: 'client' });
  }
  toString = () => `authenticate(#${this.index})`;
}

class ListKeys implements KeyCommand {
  constructor(readonly limit: number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    // Each page exactly: the settings key first, then the live keys of the API in creation order.
    const settings: Omit<ApiKey, 'createdAt'> = {
      id: publicKeyId(nodeDigests.sha256Hex('settings-admin-key')),
      role: 'admin',
      plan: 'business',
      quota: PLAN_QUOTAS.business,
      source: 'settings',
    };
    const all = [settings, ...model.keys.filter((k) => !k.revoked).map(viewOf)];
    const place = (view: Omit<ApiKey, 'createdAt'>) => all.findIndex((k) => k.id === view.id);
    let owed: readonly Omit<ApiKey, 'createdAt'>[] = all;
    let cursor: string | undefined;
    for (let pages = 0; ; pages++) {
      expect(pages, 'a walk ends').to.be.below(MAX_WALK_PAGES);
      const page = await real.admin.list(
        ADMIN,
        cursor === undefined ? { limit: this.limit } : { limit: this.limit, cursor },
      );
      if (!page.ok) throw new Error(page.error.message);
      expectNoSecret(model, page.value);
      for (const item of page.value.items) expect(Object.keys(item)).not.to.include.members(['key', 'keyHash']);
      const views = page.value.items.map(({ createdAt: _createdAt, ...view }) => view);
      owed = expectExactPage(`page ${pages}`, { ...page.value, items: views }, owed, this.limit, place);
      cursor = page.value.nextCursor;
      if (cursor === undefined) break;
    }
  }
  toString = () => `list(limit ${this.limit})`;
}

class AsClient implements KeyCommand {
  constructor(readonly index: number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const id = model.keys[this.index % Math.max(1, model.keys.length)]?.id ?? 'key_abcdefabcdef';
    const answers = [
      await real.admin.create(CLIENT, { plan: 'pro' }),
      await real.admin.list(CLIENT),
      await real.admin.get(CLIENT, id),
      await real.admin.patch(CLIENT, id, { plan: 'business' }),
      await real.admin.revoke(CLIENT, id),
    ];
    for (const a of answers) expect(!a.ok && a.error.code, 'a client key on an admin operation').to.equal('forbidden');
  }
  toString = () => `asClient(#${this.index})`;
}

const keyCommands = [
  fc.tuple(planArb, labelArb).map(([spec, label]) => new CreateKey(spec, label)),
  fc
    .tuple(fc.nat(), fc.option(planArb, { nil: undefined }), labelArb)
    .map(([i, spec, label]) => new PatchKey(i, spec, label)),
  fc
    .tuple(fc.nat(), fc.constantFrom('perMinute' as const, 'perDay' as const), fc.integer({ min: 1, max: 2000 }))
    .map(([i, field, value]) => new PatchOneNumber(i, field, value)),
  fc.nat().map((i) => new RevokeKey(i)),
  fc.nat().map((i) => new Authenticate(i)),
  fc.nat().map((i) => new Authenticate(i)),
  fc.integer({ min: 1, max: 4 }).map((limit) => new ListKeys(limit)),
  fc.nat().map((i) => new AsClient(i)),
];

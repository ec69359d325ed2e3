import { expect } from 'chai';
import type {
  ApiKeyRecord,
  Digests,
  KeyLookup,
  Category,
  CategoryListQuery,
  CategoryNameTaken,
  CategoryRepository,
  NewCategory,
  ListedPets,
  Pet,
  PetEntry,
  PetHold,
  PetRecord,
  PetListQuery,
  PetRepository,
  PetStatus,
  Result,
} from '../src/index.js';
import {
  apiKeyRecord,
  Authenticator,
  CategoryCatalog,
  fail,
  ok,
  decodeCursor,
  encodeCursor,
  pageScope,
  GET_PET_DEPRECATION,
  LIMIT_DEFAULT,
  PetCatalog,
} from '../src/index.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { entryOf, nodeDigests, SeededRandom, testPhotoLinks } from '../test-support/index.js';
import { listModelPet, modelList, type ListModelPet } from '../test-support/pet-list.model.js';
import { PhotoStoreModel } from './support/photo-store-model.js';

/** A deliberately simple repository for use-case tests: the adapters have their own contract suite. */
class ArrayRepository implements PetRepository {
  readonly pets: ListModelPet[] = [];
  lastQuery: PetListQuery | undefined;
  readonly tokens = new Map<string, Pet>();
  async create(entry: PetEntry, token?: string): Promise<Pet> {
    const earlier = token === undefined ? undefined : this.tokens.get(token);
    if (earlier !== undefined) return earlier;
    const row = listModelPet(this.pets.length + 1, entry);
    this.pets.push(row);
    if (token !== undefined) this.tokens.set(token, row.pet);
    return row.pet;
  }
  async findByCreationToken(token: string): Promise<Pet | undefined> {
    return this.tokens.get(token);
  }
  async findById(id: number): Promise<PetRecord | undefined> {
    const row = this.pets.find((p) => p.pet.id === id);
    if (row === undefined) return undefined;
    return { ...row.pet, revision: 0, orderId: null, statusPatchedAt: null };
  }
  async list(q: PetListQuery): Promise<ListedPets> {
    this.lastQuery = q;
    return modelList(this.pets, q);
  }
  async findHold(id: number): Promise<PetHold | undefined> {
    const pet = await this.findById(id);
    return pet && { status: pet.status, orderId: null };
  }
  async swapHold(): Promise<boolean> {
    return false;
  }
  async update(): Promise<PetRecord | undefined> {
    return undefined;
  }
  async withdraw(): Promise<boolean> {
    return false;
  }
  async countByStatus(): Promise<Record<PetStatus, number>> {
    return { available: 0, pending: 0, sold: 0 };
  }
}

/** Categories 1…3 exist. */
const THREE_CATEGORIES = { findById: async (id: number) => (id >= 1 && id <= 3 ? { id, name: `c${id}` } : undefined) };

describe('PetCatalog use cases', () => {
  const setup = async (n = 0) => {
    const repo = new ArrayRepository();
    const clock = new ManualClock(Date.UTC(2027, 0, 1));
    const catalog = new PetCatalog(repo, THREE_CATEGORIES, clock, new SeededRandom(), {
      store: new PhotoStoreModel(),
      links: testPhotoLinks,
    });
    for (let i = 0; i < n; i++)
      await repo.create(entryOf({ name: `p${i}`, categoryId: 1, status: i % 2 ? 'sold' : 'available' }));
    return { repo, clock, catalog };
  };

  it('createPet validates, resolves the default status and stores', async () => {
    const { catalog, repo } = await setup();
    const created = await catalog.createPet({ name: 'Rex', categoryId: 2 });
    expect(created).to.deep.equal({ ok: true, value: { id: 1, name: 'Rex', categoryId: 2, status: 'available' } });
    const refused = await catalog.createPet({ name: 'Rex' });
    expect(refused.ok).to.equal(false);
    expect(repo.pets).to.have.length(1);
  });

  it('listPets defaults to 20 items and asks the store for one more than the page', async () => {
    const { catalog, repo } = await setup(30);
    const page = await catalog.listPets();
    expect(LIMIT_DEFAULT).to.equal(20);
    expect(page.ok && page.value.items).to.have.length(20);
    expect(repo.lastQuery).to.deep.equal({ order: { sort: 'id' }, limit: 21 });
    expect(page.ok && decodeCursor(page.value.nextCursor!, 'pets')).to.equal(20);
  });

  it('listPets rejects limits outside 1–100, unknown statuses and foreign or altered cursors', async () => {
    const { catalog } = await setup(3);
    for (const limit of [0, 101, -1, 1.5, '5', null]) {
      const r = await catalog.listPets({ limit });
      expect(!r.ok && r.error.field, String(limit)).to.equal('limit');
    }
    expect((await catalog.listPets({ limit: 1 })).ok).to.equal(true);
    expect((await catalog.listPets({ limit: 100 })).ok).to.equal(true);
    const bad = await catalog.listPets({ status: 'Available' });
    expect(!bad.ok && bad.error.field).to.equal('status');
    const soldCursor = encodeCursor(1, pageScope('pets', { status: 'sold' }));
    const foreign = await catalog.listPets({ cursor: soldCursor });
    expect(!foreign.ok && foreign.error.field).to.equal('cursor');
    expect((await catalog.listPets({ status: 'sold', cursor: soldCursor })).ok).to.equal(true);
    const altered = await catalog.listPets({ cursor: soldCursor.slice(1) });
    expect(!altered.ok && altered.error.field).to.equal('cursor');
  });

  it('getPet parses the path id strictly and tells not_found from validation_failed', async () => {
    const { catalog } = await setup(2);
    expect(await catalog.getPet('2')).to.deep.equal({
      ok: true,
      value: { id: 2, name: 'p1', categoryId: 1, status: 'sold', revision: 0, orderId: null, statusPatchedAt: null },
    });
    for (const id of [
      'abc',
      '0',
      '-1',
      '1.5',
      '007',
      '',
      ' 1',
      '1 ',
      '+1',
      '1e3',
      '0x1',
      '9223372036854775808',
      '99999999999999999999',
    ]) {
      const r = await catalog.getPet(id);
      expect(!r.ok && r.error.code, JSON.stringify(id)).to.equal('validation_failed');
    }
    for (const id of ['3', '9007199254740991', '9007199254740993', '9223372036854775807']) {
      const r = await catalog.getPet(id);
      expect(!r.ok && r.error.code, id).to.equal('not_found');
    }
  });

  it('createPet checks that categoryId names a category, after the shape rules, and stores nothing otherwise', async () => {
    const { catalog, repo } = await setup();
    const missing = await catalog.createPet({ name: 'Rex', categoryId: 7 });
    expect(missing).to.deep.equal({
      ok: false,
      error: { code: 'validation_failed', field: 'categoryId', message: 'categoryId 7 names no category' },
    });
    const huge = await catalog.createPet({ name: 'Rex', categoryId: Number.MAX_SAFE_INTEGER });
    expect(!huge.ok && huge.error.message).to.equal(`categoryId ${Number.MAX_SAFE_INTEGER} names no category`);
    // Shape first: a malformed id or name is refused for its shape, never looked up.
    const shape = await catalog.createPet({ name: 'Rex', categoryId: 0 });
    expect(!shape.ok && shape.error.message).to.match(/^categoryId must be an integer/);
    const blank = await catalog.createPet({ name: ' ', categoryId: 7 });
    expect(!blank.ok && blank.error.field).to.equal('name');
    expect(repo.pets).to.have.length(0);
    expect((await catalog.createPet({ name: 'Rex', categoryId: 3 })).ok).to.equal(true);
  });

  it('listPets filters by categoryId (a canonical positive decimal up to 2^53 − 1), alone or with status, with the cursor bound to both', async () => {
    const { catalog, repo } = await setup();
    for (let i = 0; i < 12; i++)
      await repo.create(entryOf({ name: `p${i}`, categoryId: 1 + (i % 3), status: i % 2 ? 'sold' : 'available' }));
    const ids = async (input: Record<string, unknown>) => {
      const r = await catalog.listPets(input);
      if (!r.ok) throw new Error(r.error.message);
      return r.value.items.map((p) => p.id);
    };
    expect(await ids({ categoryId: '2' })).to.deep.equal([2, 5, 8, 11]);
    expect(await ids({ categoryId: 2 })).to.deep.equal([2, 5, 8, 11]);
    expect(await ids({ categoryId: '2', status: 'sold' })).to.deep.equal([2, 8]);
    expect(await ids({ categoryId: '9007199254740991' })).to.deep.equal([]);
    expect(repo.lastQuery).to.deep.equal({ categoryIds: [Number.MAX_SAFE_INTEGER], order: { sort: 'id' }, limit: 21 });
    for (const categoryId of [
      '0',
      '-1',
      '1.5',
      '007',
      '',
      ' 1',
      '+1',
      '1e3',
      'abc',
      '9007199254740992',
      '99999999999999999999',
      0,
      1.5,
      -2,
      true,
      null,
    ]) {
      const r = await catalog.listPets({ categoryId });
      expect(!r.ok && r.error.field, JSON.stringify(categoryId)).to.equal('categoryId');
    }
    const first = await catalog.listPets({ categoryId: '2', status: 'available', limit: 1 });
    const cursor = first.ok ? first.value.nextCursor! : '';
    expect(await ids({ categoryId: '2', status: 'available', limit: 1, cursor })).to.deep.equal([11]);
    for (const other of [
      {},
      { categoryId: '2' },
      { status: 'available' },
      { categoryId: '3', status: 'available' },
      { categoryId: '2', status: 'sold' },
    ]) {
      const r = await catalog.listPets({ ...other, cursor });
      expect(!r.ok && r.error.field, JSON.stringify(other)).to.equal('cursor');
    }
  });

  it('createPet under an Idempotency-Key writes its creation token with the pet; petCreatedUnder finds that pet only for a resumed claim (a first claim looks nothing up) (docs/rules.md §10)', async () => {
    const { repo, catalog } = await setup();
    const created = await catalog.createPet({ name: 'Rex', categoryId: 2 }, { token: 'tok-1', resumed: false });
    if (!created.ok) throw new Error(created.error.message);
    expect(repo.tokens.get('tok-1')).to.equal(created.value);
    expect(await catalog.petCreatedUnder({ token: 'tok-1', resumed: false }), 'a first claim: no look-up').to.equal(
      undefined,
    );
    expect(await catalog.petCreatedUnder({ token: 'tok-1', resumed: true })).to.equal(created.value);
    expect(await catalog.petCreatedUnder({ token: 'tok-2', resumed: true })).to.equal(undefined);
    expect(await catalog.createPet({ name: 'Rex', categoryId: 2 })).to.deep.include({ ok: true });
    expect(repo.tokens.size, 'a create without a key carries no token').to.equal(1);
  });

  it('getPet answers gone from the sunset instant on, by the injected clock', async () => {
    const { catalog, clock } = await setup(1);
    clock.set(GET_PET_DEPRECATION.sunsetAt - 1);
    expect((await catalog.getPet('1')).ok).to.equal(true);
    clock.set(GET_PET_DEPRECATION.sunsetAt);
    const r = await catalog.getPet('1');
    expect(!r.ok && r.error.code).to.equal('gone');
  });
});

describe('CategoryCatalog use cases', () => {
  class MapCategories implements CategoryRepository {
    readonly rows = new Map<number, Category>();
    readonly tokens = new Map<string, Category>();
    async findByCreationToken(token: string) {
      return this.tokens.get(token);
    }
    async create(c: NewCategory, token?: string): Promise<Result<Category, CategoryNameTaken>> {
      const earlier = token === undefined ? undefined : this.tokens.get(token);
      if (earlier !== undefined) return ok(earlier);
      const taken = [...this.rows.values()].find(
        (r) => r.name.normalize('NFC').toLowerCase() === c.name.normalize('NFC').toLowerCase(),
      );
      if (taken) return fail({ existingId: taken.id });
      const row = { id: this.rows.size + 1, name: c.name };
      this.rows.set(row.id, row);
      if (token !== undefined) this.tokens.set(token, row);
      return ok(row);
    }
    async findById(id: number) {
      return this.rows.get(id);
    }
    async findByName(name: string) {
      return [...this.rows.values()].find((r) => r.name === name);
    }
    async list(q: CategoryListQuery) {
      return [...this.rows.values()].filter((r) => r.id > q.afterId).slice(0, q.limit);
    }
  }

  it('createCategory validates the closed body and the name rule, stores the name as sent, and answers conflict naming the id', async () => {
    const categories = new CategoryCatalog(new MapCategories());
    expect(await categories.createCategory({ name: ' Big Cats ' })).to.deep.equal({
      ok: true,
      value: { id: 1, name: ' Big Cats ' },
    });
    const taken = await categories.createCategory({ name: ' BIG CATS ' });
    expect(!taken.ok && taken.error.code).to.equal('conflict');
    expect(!taken.ok && taken.error.message).to.match(/^category 1 already has this name/);
    for (const body of [
      null,
      [],
      'x',
      {},
      { name: '' },
      { name: ' \t' },
      { name: 'x'.repeat(101) },
      { name: '\ud800' },
      { name: 5 },
      { name: 'a', id: 3 },
      { name: 'a', extra: 1 },
    ]) {
      const r = await categories.createCategory(body);
      expect(!r.ok && r.error.code, JSON.stringify(body)).to.equal('validation_failed');
    }
    expect((await categories.createCategory({ name: '𝒜'.repeat(100) })).ok, '100 code points').to.equal(true);
    const long = await categories.createCategory({ ['k'.repeat(500)]: 1, name: 'a' });
    expect(!long.ok && [...long.error.message].length).to.be.below(120);
  });

  it('createCategory under an Idempotency-Key writes its creation token with the category; categoryCreatedUnder finds it only for a resumed claim (docs/rules.md §10)', async () => {
    const repo = new MapCategories();
    const categories = new CategoryCatalog(repo);
    const created = await categories.createCategory({ name: 'Birds' }, { token: 'tok-1', resumed: false });
    if (!created.ok) throw new Error(created.error.message);
    expect(repo.tokens.get('tok-1')).to.equal(created.value);
    expect(
      await categories.categoryCreatedUnder({ token: 'tok-1', resumed: false }),
      'a first claim: no look-up',
    ).to.equal(undefined);
    expect(await categories.categoryCreatedUnder({ token: 'tok-1', resumed: true })).to.equal(created.value);
    expect(await categories.categoryCreatedUnder({ token: 'tok-2', resumed: true })).to.equal(undefined);
    expect(await categories.createCategory({ name: 'Fish' })).to.deep.include({ ok: true });
    expect(repo.tokens.size, 'a create without a key carries no token').to.equal(1);
  });

  it('getCategory follows the petId rules; listCategories pages with its own cursor', async () => {
    const repo = new MapCategories();
    const categories = new CategoryCatalog(repo);
    for (let i = 0; i < 5; i++) await categories.createCategory({ name: `c${i}` });
    expect(await categories.getCategory('2')).to.deep.equal({ ok: true, value: { id: 2, name: 'c1' } });
    for (const id of ['abc', '0', '-1', '1.5', '007', '9223372036854775808']) {
      const r = await categories.getCategory(id);
      expect(!r.ok && r.error.code, id).to.equal('validation_failed');
    }
    for (const id of ['6', '9223372036854775807']) {
      const r = await categories.getCategory(id);
      expect(!r.ok && r.error.code, id).to.equal('not_found');
    }
    const page = await categories.listCategories({ limit: 2 });
    expect(page.ok && page.value.items.map((c) => c.id)).to.deep.equal([1, 2]);
    const next = await categories.listCategories({ limit: 2, cursor: page.ok ? page.value.nextCursor : '' });
    expect(next.ok && next.value.items.map((c) => c.id)).to.deep.equal([3, 4]);
    const petCursor = encodeCursor(2, pageScope('pets'));
    const foreign = await categories.listCategories({ cursor: petCursor });
    expect(!foreign.ok && foreign.error.field).to.equal('cursor');
  });
});

describe('Authenticator', () => {
  class Keys implements KeyLookup {
    readonly seen: string[] = [];
    constructor(private readonly records: ApiKeyRecord[]) {}
    async findByHash(h: string) {
      this.seen.push(h);
      return this.records.find((r) => r.keyHash === h);
    }
  }
  const record = apiKeyRecord(nodeDigests, 'S3cret-Key_1', 'pro') as ApiKeyRecord;

  it('accepts the bearer scheme in any case, and looks the key up by its SHA-256 only', async () => {
    const keys = new Keys([record]);
    const auth = new Authenticator(keys, nodeDigests);
    for (const header of ['Bearer S3cret-Key_1', 'bearer S3cret-Key_1', 'BEARER   S3cret-Key_1 ']) {
      const r = await auth.authenticate(header);
      expect(r.ok && r.value, header).to.deep.include({ plan: 'pro', id: `k:${record.keyHash}` });
    }
    expect(keys.seen.every((h) => /^[0-9a-f]{64}$/.test(h))).to.equal(true);
  });

  it('tells a missing credential from an invalid one; the key is case-sensitive', async () => {
    const auth = new Authenticator(new Keys([record]), nodeDigests);
    for (const header of [undefined, '', 'Basic abc', 'Bearerx S3cret-Key_1', 'Token S3cret-Key_1']) {
      const r = await auth.authenticate(header);
      expect(!r.ok && r.error.reason, String(header)).to.equal('missing');
    }
    for (const header of ['Bearer s3cret-key_1', 'Bearer S3cret-Key_2', 'Bearer', 'Bearer a b', 'Bearer ä']) {
      const r = await auth.authenticate(header);
      expect(!r.ok && r.error.reason, header).to.equal('invalid');
    }
  });
});

describe('Authenticator and its Digests port', () => {
  it('hashes the key with the port, and accepts the record found only when the port says it carries that hash', async () => {
    const record = apiKeyRecord(nodeDigests, 'K-1', 'free') as ApiKeyRecord;
    const keys: KeyLookup = { findByHash: async (h) => (h === record.keyHash ? record : undefined) };
    const hashed: string[] = [];
    const compared: string[][] = [];
    const digests: Digests = {
      ...nodeDigests,
      sha256Hex: (text) => (hashed.push(text), nodeDigests.sha256Hex(text)),
      equal: (a, b) => (compared.push([a, b]), nodeDigests.equal(a, b)),
    };
    expect((await new Authenticator(keys, digests).authenticate('Bearer K-1')).ok).to.equal(true);
    expect(hashed).to.deep.equal(['K-1']);
    expect(compared).to.deep.equal([[record.keyHash, record.keyHash]]);
    const refused = await new Authenticator(keys, { ...digests, equal: () => false }).authenticate('Bearer K-1');
    expect(!refused.ok && refused.error.reason).to.equal('invalid');
  });
});

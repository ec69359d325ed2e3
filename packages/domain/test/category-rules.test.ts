// docs/rules.md §7 (categories), with the id rules they share with pets (§1, §2): the NewCategory
// body, the `categoryId` path segment (the `petId` rules), the `categoryId` filter of a pet list,
// and the use cases of CategoryCatalog (same name → conflict naming the holder, 404, paging).
import { expect } from 'chai';
import fc from 'fast-check';
import type {
  Category,
  CategoryListQuery,
  CategoryNameTaken,
  CategoryRepository,
  NewCategory,
  Result,
} from '../src/index.js';
import {
  CategoryCatalog,
  categoryNameKey,
  encodeCursor,
  fail,
  INT64_MAX,
  ok,
  pageScope,
  parsePetId,
  validateNewCategory,
} from '../src/index.js';
import { parseCategoryId, readCategoryFilter } from '../src/category/validate.js';
import { expectRefusal } from './support/refusals.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const INT64 = BigInt(INT64_MAX);

/** Decimal texts around every boundary of the id rules, canonical or not. */
const idTextArb = fc.oneof(
  fc.bigInt({ min: 1n, max: INT64 + 10n }).map(String),
  fc.bigInt({ min: MAX_SAFE - 5n, max: MAX_SAFE + 5n }).map(String),
  fc.bigInt({ min: INT64 - 5n, max: INT64 + 5n }).map(String),
  fc.integer({ min: 1, max: 999 }).map(String),
  fc
    .tuple(fc.constantFrom('0', '-', '+', ' ', '00', '0x'), fc.integer({ min: 0, max: 99 }))
    .map(([prefix, n]) => prefix + n),
  fc
    .tuple(fc.integer({ min: 1, max: 99 }), fc.constantFrom('.0', '.5', 'e0', 'e3', ' ', 'n', '_0'))
    .map(([n, suffix]) => n + suffix),
  fc.constantFrom('', '0', '1', 'abc', '99999999999999999999', '١٢', '１'),
);
const isCanonical = (text: string): boolean => /^[1-9][0-9]*$/.test(text);

describe('category ids (docs/rules.md §7: the petId rules of §2)', () => {
  it('property: a path id is a canonical decimal from 1 to int64 max; beyond 2^53 − 1 it is valid but names nothing (null)', () => {
    fc.assert(
      fc.property(idTextArb, (text) => {
        const valid = isCanonical(text) && BigInt(text) <= INT64;
        for (const [parse, field] of [
          [parseCategoryId, 'categoryId'],
          [(raw: string) => parsePetId(raw), 'petId'],
        ] as const) {
          const result = parse(text);
          if (!valid) {
            const message = expectRefusal(result, 'validation_failed', field, text);
            expect(message, 'it gives the range').to.include(INT64_MAX);
            continue;
          }
          expect(result, text).to.deep.equal({ ok: true, value: BigInt(text) <= MAX_SAFE ? Number(text) : null });
        }
      }),
      { numRuns: 300 },
    );
  });

  it('property: the categoryId filter of a list is a positive safe integer, as a number or as its canonical decimal text', () => {
    const valueArb = fc.oneof(
      idTextArb,
      fc.oneof(
        fc.integer(),
        fc.double(),
        fc.constantFrom(0, -1, 1.5, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, NaN, Infinity),
      ),
      fc.constantFrom(null, true, false, [3], { id: 3 }, undefined),
    );
    fc.assert(
      fc.property(valueArb, (value) => {
        const expected =
          typeof value === 'number'
            ? Number.isSafeInteger(value) && value >= 1
            : typeof value === 'string' && isCanonical(value) && BigInt(value) <= MAX_SAFE;
        const result = readCategoryFilter(value);
        if (expected) {
          expect(result, String(value)).to.deep.equal({ ok: true, value: Number(value) });
          return;
        }
        const message = expectRefusal(result, 'validation_failed', 'categoryId', String(value));
        expect(message, 'it gives the range').to.include(String(Number.MAX_SAFE_INTEGER));
      }),
      { numRuns: 300 },
    );
  });
});

describe('NewCategory bodies (docs/rules.md §7)', () => {
  it('refuses what is not a JSON object as the body', () => {
    for (const body of [null, [], [{ name: 'Dogs' }], 'Dogs', 'name', 5, true, undefined]) {
      const message = expectRefusal(validateNewCategory(body), 'validation_failed', 'body', JSON.stringify(body));
      expect(message).to.match(/object/);
    }
  });

  it('is a closed object: id has its own refusal (the service assigns it), any other property is named', () => {
    for (const body of [{ id: 1, name: 'Dogs' }, { name: 'Dogs', id: 1 }, { id: 1 }]) {
      const message = expectRefusal(validateNewCategory(body), 'validation_failed', 'id', JSON.stringify(body));
      expect(message, 'says the service assigns it').to.match(/assign/);
    }
    for (const key of ['label', 'Name', 'constructor', 'prototype', '__proto__', '']) {
      const body = JSON.parse(`{"name":"Dogs",${JSON.stringify(key)}:1}`) as unknown;
      const result = validateNewCategory(body);
      if (key === '') {
        expect(!result.ok && result.error.field).to.equal('');
        continue;
      }
      const message = expectRefusal(result, 'validation_failed', key, key);
      expect(message, 'it names what is allowed').to.include('name');
    }
  });

  it('requires name, saying so', () => {
    const message = expectRefusal(validateNewCategory({}), 'validation_failed', 'name', '{}');
    expect(message).to.match(/required/);
  });
});

/** A category store over a Map, unique by the same-name key (the adapters have their own contract suite). */
class MapCategories implements CategoryRepository {
  readonly rows = new Map<number, Category>();
  readonly looked: unknown[] = [];
  async create(c: NewCategory): Promise<Result<Category, CategoryNameTaken>> {
    const taken = [...this.rows.values()].find((r) => categoryNameKey(r.name) === categoryNameKey(c.name));
    if (taken) return fail({ existingId: taken.id });
    const row = { id: this.rows.size + 1, name: c.name };
    this.rows.set(row.id, row);
    return ok(row);
  }
  async findByCreationToken(): Promise<Category | undefined> {
    return undefined;
  }
  async findById(id: number): Promise<Category | undefined> {
    this.looked.push(id);
    // The port's contract: ids are safe integers; anything else is a defect of the caller.
    if (!Number.isSafeInteger(id)) throw new TypeError(`findById(${String(id)}): not an id`);
    return this.rows.get(id);
  }
  async findByName(name: string): Promise<Category | undefined> {
    return [...this.rows.values()].find((r) => r.name === name);
  }
  async list(q: CategoryListQuery): Promise<readonly Category[]> {
    return [...this.rows.values()].filter((r) => r.id > q.afterId).slice(0, q.limit);
  }
}

describe('CategoryCatalog (docs/rules.md §7)', () => {
  it('a taken name (same after NFC and lower-casing) is a conflict whose message gives the id that holds it', async () => {
    const catalog = new CategoryCatalog(new MapCategories());
    await catalog.createCategory({ name: 'Birds' });
    const cafe = await catalog.createCategory({ name: 'Café' });
    expect(cafe.ok && cafe.value.id).to.equal(2);
    for (const name of ['CAFE\u0301', 'café', 'CAFÉ']) {
      const message = expectRefusal(await catalog.createCategory({ name }), 'conflict', undefined, name);
      expect(message).to.include('categoryId 2');
    }
  });

  it('an id that names no category is not found, and its message names the id; one beyond 2^53 − 1 is not looked up', async () => {
    const repo = new MapCategories();
    const catalog = new CategoryCatalog(repo);
    await catalog.createCategory({ name: 'Birds' });
    for (const id of ['2', '9007199254740991', '9007199254740992', INT64_MAX]) {
      const message = expectRefusal(await catalog.getCategory(id), 'not_found', undefined, id);
      expect(message).to.include(id);
    }
    expect(repo.looked).to.deep.equal([2, Number.MAX_SAFE_INTEGER]);
    expect(await catalog.getCategory(1)).to.deep.equal({ ok: true, value: { id: 1, name: 'Birds' } });
    expectRefusal(await catalog.getCategory('01'), 'validation_failed', 'categoryId');
  });

  it('pages the categories: a cursor it issued (also by an earlier run of the service) continues after its position; one of another list is refused', async () => {
    const catalog = new CategoryCatalog(new MapCategories());
    for (const name of ['a', 'b', 'c', 'd', 'e']) await catalog.createCategory({ name });
    const first = await catalog.listCategories({ limit: 2 });
    if (!first.ok) throw new Error(first.error.message);
    expect(first.value.items.map((c) => c.id)).to.deep.equal([1, 2]);
    // The cursor of the categories after id 2, as the service issues it (docs/rules.md §2).
    expect(first.value.nextCursor).to.equal('YzIuMi4yNThhYjF3Z3N1ag');
    const next = await catalog.listCategories({ limit: 3, cursor: 'YzIuMi4yNThhYjF3Z3N1ag' });
    expect(next).to.deep.equal({ ok: true, value: { items: [3, 4, 5].map((id) => ({ id, name: 'abcde'[id - 1] })) } });
    for (const cursor of [
      encodeCursor(2, pageScope('pets')),
      encodeCursor(2, pageScope('keys')),
      encodeCursor(2, pageScope('categories', { status: 'sold' })),
    ]) {
      expectRefusal(await catalog.listCategories({ cursor }), 'validation_failed', 'cursor', cursor);
    }
    for (const limit of [0, 101, 2.5, '2']) {
      const message = expectRefusal(
        await catalog.listCategories({ limit }),
        'validation_failed',
        'limit',
        String(limit),
      );
      expect(message, 'it gives the range').to.include('1 to 100');
    }
  });
});

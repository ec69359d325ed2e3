// The memory store's ordered index of (key, pet id) rows for the public catalogue (docs/rules.md §16):
// folded words (name search by prefix range), folded names (sort=name) and shuffle keys
// (sort=random). Proved against a plain sorted array under random inserts, removals, reads after a
// cursor's position and counts of a range, with small chunks (so that chunks split, empty and go)
// and with the real size.
import { expect } from 'chai';
import fc from 'fast-check';
import { compareKeyedRows, prefixRange, type KeyedRow } from '@petstore/domain';
import { rowsBefore, SortedIndex, type KeyRange } from '../src/sorted-index.js';

/** The model: every row, kept sorted by the model's own order (strings by their UTF-8 bytes, as MongoDB). */
type Model<K extends string | number> = KeyedRow<K>[];
const compareKey = <K extends string | number>(a: K, b: K): number =>
  typeof a === 'string'
    ? Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b as string, 'utf8'))
    : (a as number) - (b as number);
const compareRow = <K extends string | number>(a: KeyedRow<K>, b: KeyedRow<K>): number =>
  compareKey(a.key, b.key) || a.id - b.id;
const inRange = <K extends string | number>(row: KeyedRow<K>, { low, high }: KeyRange<K>): boolean =>
  (low === undefined || compareKey(row.key, low) >= 0) && (high === undefined || compareKey(row.key, high) < 0);
const at = <K extends string | number>(model: Model<K>, key: K, id: number): number =>
  model.findIndex((row) => compareRow(row, { key, id }) === 0);

class InsertCommand<K extends string | number> implements fc.Command<Model<K>, SortedIndex<K>> {
  constructor(
    readonly key: K,
    readonly id: number,
  ) {}
  check = (): boolean => true;
  run(model: Model<K>, index: SortedIndex<K>): void {
    const isNew = at(model, this.key, this.id) < 0;
    expect(index.insert(this.key, this.id), `${this} is new`).to.equal(isNew);
    if (isNew) {
      model.push({ key: this.key, id: this.id });
      model.sort(compareRow);
    }
    expect(index.size).to.equal(model.length);
  }
  toString = (): string => `insert(${JSON.stringify(this.key)}, ${this.id})`;
}

class RemoveCommand<K extends string | number> implements fc.Command<Model<K>, SortedIndex<K>> {
  constructor(
    readonly key: K,
    readonly id: number,
  ) {}
  check = (): boolean => true;
  run(model: Model<K>, index: SortedIndex<K>): void {
    const found = at(model, this.key, this.id);
    expect(index.remove(this.key, this.id), `${this} was there`).to.equal(found >= 0);
    if (found >= 0) model.splice(found, 1);
    expect(index.size).to.equal(model.length);
  }
  toString = (): string => `remove(${JSON.stringify(this.key)}, ${this.id})`;
}

class ReadCommand<K extends string | number> implements fc.Command<Model<K>, SortedIndex<K>> {
  constructor(
    readonly range: KeyRange<K>,
    readonly limit: number,
    /** The position a cursor carries: a row of the model (by its place) or any (key, id). */
    readonly after: KeyedRow<K> | number | undefined,
  ) {}
  check = (): boolean => true;
  run(model: Model<K>, index: SortedIndex<K>): void {
    const after = typeof this.after === 'number' ? model[this.after % Math.max(1, model.length)] : this.after;
    const expected = model
      .filter((row) => inRange(row, this.range) && (after === undefined || compareRow(row, after) > 0))
      .slice(0, this.limit);
    const rows = index.read(this.range, this.limit, after);
    expect(
      rows.map((r) => [r.key, r.id]),
      `${this} after ${JSON.stringify(after)}`,
    ).to.deep.equal(expected.map((r) => [r.key, r.id]));
    // A walk gives the same rows, one at a time, and then no more.
    const walk = index.walk(this.range, after);
    const walked: KeyedRow<K>[] = [];
    for (let row = walk.next(); row !== undefined; row = walk.next()) walked.push(row);
    expect(walk.next(), `${this}: a walk that ended stays ended`).to.equal(undefined);
    expect(
      walked.slice(0, this.limit).map((r) => [r.key, r.id]),
      `walk: ${this} after ${JSON.stringify(after)}`,
    ).to.deep.equal(expected.map((r) => [r.key, r.id]));
    expect(walked.length, `walk: ${this}, every row of the range after the position`).to.equal(
      model.filter((row) => inRange(row, this.range) && (after === undefined || compareRow(row, after) > 0)).length,
    );
  }
  toString = (): string => `read(${JSON.stringify(this.range)}, ${this.limit}, ${JSON.stringify(this.after)})`;
}

class CountCommand<K extends string | number> implements fc.Command<Model<K>, SortedIndex<K>> {
  constructor(readonly range: KeyRange<K>) {}
  check = (): boolean => true;
  run(model: Model<K>, index: SortedIndex<K>): void {
    expect(index.count(this.range), String(this)).to.equal(model.filter((row) => inRange(row, this.range)).length);
  }
  toString = (): string => `count(${JSON.stringify(this.range)})`;
}

/** The commands over keys from `keyArb`, and ids few enough that inserts and removals meet. */
const commandsArb = <K extends string | number>(keyArb: fc.Arbitrary<K>, rangeArb: fc.Arbitrary<KeyRange<K>>) => {
  const idArb = fc.integer({ min: 1, max: 6 });
  return fc.commands(
    [
      fc.tuple(keyArb, idArb).map(([key, id]) => new InsertCommand(key, id)),
      fc.tuple(keyArb, idArb).map(([key, id]) => new InsertCommand(key, id)),
      fc.tuple(keyArb, idArb).map(([key, id]) => new RemoveCommand(key, id)),
      fc
        .tuple(
          rangeArb,
          fc.integer({ min: 0, max: 12 }),
          fc.option(fc.oneof(fc.nat(), fc.record({ key: keyArb, id: idArb })), { nil: undefined }),
        )
        .map(([range, limit, after]) => new ReadCommand<K>(range, limit, after)),
      rangeArb.map((range) => new CountCommand(range)),
    ],
    { maxCommands: 200 },
  );
};

/** Strings around code-point order's traps: a prefix and its extensions, U+E000–U+FFFF against characters beyond U+FFFF. */
const stringKeyArb = fc
  .array(fc.constantFrom('a', 'b', 'é', '\ue000', '\uffff', '\u{10000}', '\u{1f415}', '\u{10ffff}'), { maxLength: 3 })
  .map((parts) => parts.join(''));
const stringRangeArb: fc.Arbitrary<KeyRange<string>> = fc.oneof(
  stringKeyArb.map((prefix) => prefixRange(prefix)),
  fc.record({ low: stringKeyArb, high: stringKeyArb }, { requiredKeys: [] }),
);
const numberKeyArb = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constantFrom(2 ** 31, 2 ** 32 - 1));
const numberRangeArb: fc.Arbitrary<KeyRange<number>> = fc.record(
  { low: numberKeyArb, high: numberKeyArb },
  { requiredKeys: [] },
);

describe('SortedIndex, the memory store’s (key, id) index (docs/rules.md §16)', () => {
  for (const chunkSize of [2, 5]) {
    it(`property: with chunks of ${chunkSize}, string keys in code-point order agree with a sorted array model`, () => {
      fc.assert(
        fc.property(commandsArb(stringKeyArb, stringRangeArb), (commands) => {
          fc.modelRun(() => ({ model: [] as Model<string>, real: new SortedIndex<string>(chunkSize) }), commands);
        }),
      );
    });

    it(`property: with chunks of ${chunkSize}, number keys (shuffle keys) agree with a sorted array model`, () => {
      fc.assert(
        fc.property(commandsArb(numberKeyArb, numberRangeArb), (commands) => {
          fc.modelRun(() => ({ model: [] as Model<number>, real: new SortedIndex<number>(chunkSize) }), commands);
        }),
      );
    });
  }

  it('agrees with a sorted array model over 20,000 inserts and removals at its real chunk size, reads and counts included', () => {
    const index = new SortedIndex<number>();
    const model: Model<number> = [];
    // mulberry32: a small seeded generator whose low bits are as random as its high ones.
    let state = 12345;
    const random = (m: number): number => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % m;
    };
    /** The model's place for `row`: the first row not below it (a binary search, to keep the model quick). */
    const place = (row: KeyedRow<number>): number => {
      let [lo, hi] = [0, model.length];
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compareRow(model[mid]!, row) < 0) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    for (let step = 0; step < 20_000; step++) {
      const row = { key: random(3_000), id: 1 + random(3) };
      const i = place(row);
      const found = i < model.length && compareRow(model[i]!, row) === 0;
      // A present row is removed one time in three, so the index grows to thousands of rows (several chunks).
      if (found && random(3) === 0) {
        expect(index.remove(row.key, row.id)).to.equal(true);
        model.splice(i, 1);
      } else if (!found) {
        expect(index.insert(row.key, row.id)).to.equal(true);
        model.splice(i, 0, row);
      } else expect(index.insert(row.key, row.id)).to.equal(false);
    }
    expect(model.length).to.be.greaterThan(3 * 1024);
    expect(index.size).to.equal(model.length);
    expect(index.read({}, Infinity)).to.deep.equal(model);
    const after = model[1500]!;
    expect(index.read({ low: 100, high: 2000 }, 40, after)).to.deep.equal(
      model.filter((r) => r.key >= 100 && r.key < 2000 && compareRow(r, after) > 0).slice(0, 40),
    );
    expect(index.count({ low: 100, high: 2000 })).to.equal(model.filter((r) => r.key >= 100 && r.key < 2000).length);
    expect(index.count({ low: 2999 })).to.equal(model.filter((r) => r.key >= 2999).length);
  });

  it('reads the words that begin with a prefix, as name search does, in code-point order', () => {
    const index = new SortedIndex<string>();
    const rows: [string, number][] = [
      ['rex', 1],
      ['re', 2],
      ['rf', 3],
      ['r\uffff', 4],
      ['r\u{1f415}', 5],
      ['old', 1],
      ['renee', 6],
      ['rex', 7],
    ];
    for (const [key, id] of rows) index.insert(key, id);
    const words = (prefix: string) => index.read(prefixRange(prefix), 100).map((r) => `${r.key}#${r.id}`);
    expect(words('re')).to.deep.equal(['re#2', 'renee#6', 'rex#1', 'rex#7']);
    expect(words('r')).to.deep.equal(
      ['r\uffff#4', 'r\u{1f415}#5', 're#2', 'renee#6', 'rex#1', 'rex#7', 'rf#3'].sort((a, b) =>
        Buffer.compare(Buffer.from(a), Buffer.from(b)),
      ),
    );
    expect(index.count(prefixRange('rex'))).to.equal(2);
    expect(index.read(prefixRange('re'), 2, { key: 'renee', id: 6 }).map((r) => r.id)).to.deep.equal([1, 7]);
  });

  it('property: rowsBefore(pivot) holds for exactly the rows compareKeyedRows puts before the pivot, fractional and infinite pivot ids included', () => {
    // Plain keys take JavaScript's own comparison, keys with a unit at or above U+D800 the code-point one.
    const keyArb = fc.oneof(stringKeyArb, fc.string({ unit: 'binary', maxLength: 4 }), fc.string({ maxLength: 4 }));
    const idArb = fc.integer({ min: 1, max: 4 });
    const pivotIdArb = fc.oneof(
      idArb,
      idArb.map((id) => id + 0.5),
      fc.constant(-Infinity),
    );
    fc.assert(
      fc.property(keyArb, pivotIdArb, keyArb, idArb, (pivotKey, pivotId, key, id) => {
        const pivot = { key: pivotKey, id: pivotId };
        const row = { key, id };
        expect(rowsBefore(pivot)(row), `${JSON.stringify(row)} before ${JSON.stringify(pivot)}`).to.equal(
          compareKeyedRows(row, pivot) < 0,
        );
      }),
    );
    fc.assert(
      fc.property(numberKeyArb, pivotIdArb, numberKeyArb, idArb, (pivotKey, pivotId, key, id) => {
        expect(rowsBefore({ key: pivotKey, id: pivotId })({ key, id })).to.equal(
          compareKeyedRows({ key, id }, { key: pivotKey, id: pivotId }) < 0,
        );
      }),
    );
  });
});

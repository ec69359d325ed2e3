import { compareKeyedRows, type KeyedRow } from '@petstore/domain';
import type { RowWalk } from './row-walk.js';

/**
 * Most rows one chunk holds, unless told otherwise; a chunk that grows past it is split in two.
 * Small, because an insert or removal moves rows within one chunk (`splice`), whose cost in V8 grows
 * steeply past about 128 rows of objects (0.23 µs an insert and removal at 128, 0.72 µs at 256,
 * 2.8 µs at 1,000, measured here); the binary search over more chunks costs the same steps in all.
 */
const CHUNK = 128;

/** Keys from `low` (included; absent: from the first) to `high` (excluded; absent: to the last). */
export interface KeyRange<K extends string | number> {
  readonly low?: K;
  readonly high?: K | undefined;
}

/** Code units at or above U+D800: the only ones where UTF-16 order and code-point order part. */
const WIDE_UNIT = /[\uD800-\uFFFF]/;

/**
 * `(row) => compareKeyedRows(row, pivot) < 0`, made once for the many rows one search compares with
 * one pivot. When the pivot's key is a number, or a string with no code unit at or above U+D800,
 * JavaScript's own `<` (native, without a loop in JavaScript) answers the same: two strings first
 * differ where the pivot's unit is below U+D800, and there code-unit and code-point order agree.
 * The pivot's id may be fractional or infinite: (key, id + 0.5) stands after the row (key, id),
 * (key, -Infinity) before every row of `key`.
 */
export const rowsBefore = <K extends string | number>(pivot: KeyedRow<K>): ((row: KeyedRow<K>) => boolean) => {
  const { key, id } = pivot;
  if (typeof key === 'string' && WIDE_UNIT.test(key)) return (row) => compareKeyedRows(row, pivot) < 0;
  return (row) => row.key < key || (row.key === key && row.id < id);
};

/** The rows before every row of `key`. */
const keysBefore = <K extends string | number>(key: K): ((row: KeyedRow<K>) => boolean) =>
  rowsBefore({ key, id: -Infinity });

/** Whether two rows are the same row (the same key and id). */
const isRow = <K extends string | number>(a: KeyedRow<K>, b: KeyedRow<K>): boolean => a.key === b.key && a.id === b.id;

/**
 * Rows of (key, pet id) in ascending (key, id) order, strings in code-point order (as MongoDB
 * orders them): a folded word per row for name search, a folded name for `sort=name`, a shuffle key
 * for `sort=random` (docs/rules.md §16). Kept in chunks of at most `chunkSize` rows, like
 * `OrderedIndex`: finding a place is two binary searches, O(log n); inserting or removing moves at
 * most one chunk's rows; reading `limit` rows costs O(log n + limit); counting a range adds a
 * pass over the lengths of the chunks it spans, never over the rows.
 */
export class SortedIndex<K extends string | number> {
  private chunks: KeyedRow<K>[][] = [];
  private rows = 0;

  constructor(private readonly chunkSize = CHUNK) {}

  get size(): number {
    return this.rows;
  }

  /** Adds the row (key, id); false when it is there already. */
  insert(key: K, id: number): boolean {
    const row: KeyedRow<K> = { key, id };
    if (this.chunks.length === 0) {
      // In arrays of one row: most indexes of one word (`WordOrders`) stay that small.
      this.chunks = [[row]];
      this.rows = 1;
      return true;
    }
    let [c, i] = this.seek(rowsBefore(row));
    // Past every row: at the end of the last chunk.
    if (c === this.chunks.length) [c, i] = [c - 1, this.chunks[c - 1]!.length];
    const chunk = this.chunks[c]!;
    if (i < chunk.length && isRow(chunk[i]!, row)) return false;
    chunk.splice(i, 0, row);
    if (chunk.length > this.chunkSize) this.chunks.splice(c + 1, 0, chunk.splice(chunk.length >> 1));
    this.rows++;
    return true;
  }

  /** Removes the row (key, id); false when there is none. */
  remove(key: K, id: number): boolean {
    const row: KeyedRow<K> = { key, id };
    const [c, i] = this.seek(rowsBefore(row));
    const chunk = this.chunks[c];
    if (chunk === undefined || !isRow(chunk[i]!, row)) return false;
    chunk.splice(i, 1);
    if (chunk.length === 0) this.chunks.splice(c, 1);
    this.rows--;
    return true;
  }

  /** At most `limit` rows of `range`, ascending, after the row `after` (a cursor's position) when given. */
  read(range: KeyRange<K>, limit: number, after?: KeyedRow<K>): KeyedRow<K>[] {
    const belowHigh = range.high === undefined ? undefined : keysBefore(range.high);
    let [c, i] = this.seekStart(range, after);
    const out: KeyedRow<K>[] = [];
    for (; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c]!;
      // A chunk whose last row is in the range is read without a comparison per row.
      const whole = belowHigh === undefined || belowHigh(chunk[chunk.length - 1]!);
      for (; i < chunk.length; i++) {
        const row = chunk[i]!;
        if (out.length === limit || (!whole && !belowHigh!(row))) return out;
        out.push(row);
      }
    }
    return out;
  }

  /**
   * The rows of `range`, ascending, after the row `after` when given, one at a time: `read` without a
   * limit, for a reader that stops when it has what it needs (the index must not change during the walk).
   */
  walk(range: KeyRange<K>, after?: KeyedRow<K>): RowWalk<KeyedRow<K>> {
    const belowHigh = range.high === undefined ? undefined : keysBefore(range.high);
    let [c, i] = this.seekStart(range, after);
    // As in `read`: only the rows of a chunk that ends past the range are compared.
    const wholeChunk = (): boolean => {
      const chunk = this.chunks[c];
      return chunk === undefined || belowHigh === undefined || belowHigh(chunk[chunk.length - 1]!);
    };
    let whole = wholeChunk();
    return {
      next: () => {
        const chunk = this.chunks[c];
        if (chunk === undefined) return undefined;
        const row = chunk[i]!;
        if (!whole && !belowHigh!(row)) {
          c = this.chunks.length;
          return undefined;
        }
        if (++i === chunk.length) {
          [c, i] = [c + 1, 0];
          whole = wholeChunk();
        }
        return row;
      },
    };
  }

  /**
   * How many rows `range` holds (none when `high` is not above `low`): two binary searches, then the
   * lengths of the chunks between them, never the rows nor the chunks outside the range.
   */
  count(range: KeyRange<K>): number {
    const { low, high } = range;
    const [c0, i0] = low === undefined ? [0, 0] : this.seek(keysBefore(low));
    const [c1, i1] = high === undefined ? [this.chunks.length, 0] : this.seek(keysBefore(high));
    if (c1 < c0 || (c1 === c0 && i1 <= i0)) return 0;
    let rows = i1 - i0;
    for (let c = c0; c < c1; c++) rows += this.chunks[c]!.length;
    return rows;
  }

  /** Chunk and place of the first row of `range` after `after` (past the end when none is). */
  private seekStart({ low }: KeyRange<K>, after: KeyedRow<K> | undefined): [number, number] {
    const belowLow = low === undefined ? undefined : keysBefore(low);
    const upToAfter = after === undefined ? undefined : rowsBefore({ key: after.key, id: after.id + 0.5 });
    if (upToAfter === undefined) return belowLow === undefined ? [0, 0] : this.seek(belowLow);
    return this.seek(belowLow === undefined ? upToAfter : (row) => belowLow(row) || upToAfter(row));
  }

  /**
   * Chunk and place of the first row for which `before` is false (past the end when none is):
   * `before` must hold for a first stretch of rows and for none after it.
   */
  private seek(before: (row: KeyedRow<K>) => boolean): [number, number] {
    let low = 0;
    let high = this.chunks.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const chunk = this.chunks[mid]!;
      if (before(chunk[chunk.length - 1]!)) low = mid + 1;
      else high = mid;
    }
    const chunk = this.chunks[low];
    if (chunk === undefined) return [low, 0];
    let lo = 0;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(chunk[mid]!)) lo = mid + 1;
      else hi = mid;
    }
    return [low, lo];
  }
}

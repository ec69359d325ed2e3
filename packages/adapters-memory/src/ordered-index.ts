import type { RowWalk } from './row-walk.js';

/** Most rows one chunk holds; a chunk that grows past it is split in two. */
const CHUNK = 1024;

/**
 * Rows kept in ascending id order, in chunks of at most `CHUNK` rows: reading the rows after an
 * id is a binary search over the chunks and one inside a chunk plus the rows themselves,
 * O(log n + limit); inserting or removing a row in the middle moves at most one chunk's rows
 * (never the whole index); appending a row with a greater id than all (every create) is a push.
 */
export class OrderedIndex<T extends { readonly id: number }> {
  private readonly chunks: T[][] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds a row whose id is greater than every id in the index. */
  append(row: T): void {
    const last = this.chunks[this.chunks.length - 1];
    if (last !== undefined && last.length < CHUNK) last.push(row);
    else this.chunks.push([row]);
    this.count++;
  }

  /** Adds a row at its place by id (its id must not be in the index yet). */
  insert(row: T): void {
    const last = this.chunks[this.chunks.length - 1];
    if (last === undefined || last[last.length - 1]!.id < row.id) return this.append(row);
    const [c, i] = this.locate(row.id - 1);
    const chunk = this.chunks[c]!;
    chunk.splice(i, 0, row);
    if (chunk.length > CHUNK) this.chunks.splice(c + 1, 0, chunk.splice(chunk.length >> 1));
    this.count++;
  }

  /** Removes the row with this id; false when there is none. */
  remove(id: number): boolean {
    const [c, i] = this.locate(id - 1);
    const chunk = this.chunks[c];
    if (chunk === undefined || chunk[i]?.id !== id) return false;
    chunk.splice(i, 1);
    if (chunk.length === 0) this.chunks.splice(c, 1);
    this.count--;
    return true;
  }

  /** Puts `row` in the place of the row with the same id; false when there is none. */
  replace(row: T): boolean {
    const [c, i] = this.locate(row.id - 1);
    const chunk = this.chunks[c];
    if (chunk === undefined || chunk[i]?.id !== row.id) return false;
    chunk[i] = row;
    return true;
  }

  get(id: number): T | undefined {
    const [c, i] = this.locate(id - 1);
    const row = this.chunks[c]?.[i];
    return row !== undefined && row.id === id ? row : undefined;
  }

  /** At most `limit` rows with `id > afterId`, ascending. */
  after(afterId: number, limit: number): T[] {
    const out: T[] = [];
    let [c, i] = this.locate(afterId);
    for (; c < this.chunks.length && out.length < limit; c++, i = 0) {
      const chunk = this.chunks[c]!;
      const take = Math.min(chunk.length - i, limit - out.length);
      for (let k = 0; k < take; k++) out.push(chunk[i + k]!);
    }
    return out;
  }

  /** The rows with `id > afterId`, ascending, one at a time (the index must not change during the walk). */
  walk(afterId: number): RowWalk<T> {
    let [c, i] = this.locate(afterId);
    return {
      next: () => {
        const chunk = this.chunks[c];
        if (chunk === undefined) return undefined;
        const row = chunk[i]!;
        if (++i === chunk.length) [c, i] = [c + 1, 0];
        return row;
      },
    };
  }

  /** The rows with `id < beforeId` (every row when absent), descending, one at a time: `-id` (docs/rules.md §16). */
  walkBack(beforeId?: number): RowWalk<T> {
    // The place of the first row with `id >= beforeId`; the walk starts one before it.
    let [c, i] = beforeId === undefined ? [this.chunks.length, 0] : this.locate(beforeId - 1);
    return {
      next: () => {
        if (i === 0) {
          if (c === 0) return undefined;
          c--;
          i = this.chunks[c]!.length;
        }
        return this.chunks[c]![--i];
      },
    };
  }

  /** Chunk and position of the first row with `id > afterId` (past the end when none). */
  private locate(afterId: number): [number, number] {
    let low = 0;
    let high = this.chunks.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const chunk = this.chunks[mid]!;
      if (chunk[chunk.length - 1]!.id <= afterId) low = mid + 1;
      else high = mid;
    }
    const chunk = this.chunks[low];
    if (chunk === undefined) return [low, 0];
    let lo = 0;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (chunk[mid]!.id <= afterId) lo = mid + 1;
      else hi = mid;
    }
    return [low, lo];
  }
}

import type { KeyedRow, PetOrder } from '@petstore/domain';
import { SortedIndex, type KeyRange } from './sorted-index.js';

/**
 * A word's rows in a list's order (docs/rules.md §16, `q` with `sort`): for each folded word of
 * each listed pet's name, one row of (word, id) — ascending id within a word — one of
 * (word ⊕ name key, id) and one of (word ⊕ shuffle key, id). `⊕` joins with U+0000, which no
 * folded word holds (words are letters and digits), so all rows of a word sit together, ordered
 * by the sort's own key and then id, and a name search reads the pets of one word already in the
 * list's order: the words of a prefix range, merged, give its matches in order without a sort.
 */
export class WordOrders {
  /** (folded word, id): also the index of word prefixes, and the id order within a word. */
  readonly words = new SortedIndex<string>();
  private readonly names = new SortedIndex<string>();
  private readonly shuffles = new SortedIndex<string>();
  /**
   * The vocabulary: one row (word, 0) per distinct word of the listed pets, and how many rows of
   * `words` each has. A prefix's words and their rows are one binary search in it, where the rows
   * of `words` (three or so per pet) would take one per word and two for the count.
   */
  private readonly vocabulary = new SortedIndex<string>();
  private readonly petsWith = new Map<string, number>();

  add(words: readonly string[], nameKey: string, shuffleKey: number, id: number): void {
    const shuffle = hex(shuffleKey);
    for (const word of words) {
      // A word twice in one name (the domain gives each once; a defence) is one row.
      if (!this.words.insert(word, id)) continue;
      const pets = this.petsWith.get(word) ?? 0;
      if (pets === 0) this.vocabulary.insert(word, 0);
      this.petsWith.set(word, pets + 1);
      this.names.insert(`${word}\u0000${nameKey}`, id);
      this.shuffles.insert(`${word}\u0000${shuffle}`, id);
    }
  }

  remove(words: readonly string[], nameKey: string, shuffleKey: number, id: number): void {
    const shuffle = hex(shuffleKey);
    for (const word of words) {
      if (!this.words.remove(word, id)) continue;
      const pets = this.petsWith.get(word)!;
      if (pets === 1) {
        this.vocabulary.remove(word, 0);
        this.petsWith.delete(word);
      } else this.petsWith.set(word, pets - 1);
      this.names.remove(`${word}\u0000${nameKey}`, id);
      this.shuffles.remove(`${word}\u0000${shuffle}`, id);
    }
  }

  /**
   * The distinct words of `range`, ascending, and how many rows of `words` they hold (a pet with two
   * of them counts twice), or `undefined` when there are more than `max` words.
   */
  wordsOf(
    range: { readonly low: string; readonly high: string | undefined },
    max: number,
  ): { readonly words: string[]; readonly rows: number } | undefined {
    const found = this.vocabulary.read(range, max + 1);
    if (found.length > max) return undefined;
    const words = found.map((row) => row.key);
    let rows = 0;
    for (const word of words) rows += this.petsWith.get(word)!;
    return { words, rows };
  }

  /**
   * Where the ids of the pets that have `word` are, in `order` (`id`, `name` or `random`) from its
   * position on: the parts of an index to read one after the other (a shuffle's circle: from its
   * start to the top, then from the bottom); `-id` is not kept (`undefined`).
   */
  partsOf(word: string, order: PetOrder): readonly WordPart[] | undefined {
    const group = { low: `${word}\u0000`, high: `${word}\u0001` };
    switch (order.sort) {
      case 'id': {
        const range = { low: word, high: `${word}\u0000` };
        return [
          { index: this.words, range, after: order.after === undefined ? undefined : { key: word, id: order.after } },
        ];
      }
      case '-id':
        return undefined;
      case 'name': {
        const { after } = order;
        const position = after === undefined ? undefined : { key: `${word}\u0000${after.key}`, id: after.id };
        return [{ index: this.names, range: group, after: position }];
      }
      case 'random': {
        // The circle from `start`: [start, 2^32) then [0, start), a position continuing in its own part.
        const start = `${word}\u0000${hex(order.start)}`;
        const top = { low: start, high: group.high };
        const bottom = { index: this.shuffles, range: { low: group.low, high: start }, after: undefined };
        const { after } = order;
        if (after === undefined) return [{ index: this.shuffles, range: top, after: undefined }, bottom];
        const position = { key: `${word}\u0000${hex(after.key)}`, id: after.id };
        return after.key >= order.start
          ? [{ index: this.shuffles, range: top, after: position }, bottom]
          : [{ ...bottom, after: position }];
      }
    }
  }
}

/** Rows of `index` in `range`, after the row `after` when given: a part of a word's rows in a list's order. */
export interface WordPart {
  readonly index: SortedIndex<string>;
  readonly range: KeyRange<string>;
  readonly after: KeyedRow<string> | undefined;
}

/** A shuffle key (0 ≤ key < 2^32) as 8 hex digits: their code-point order is the keys' order. */
const hex = (key: number): string => key.toString(16).padStart(8, '0');

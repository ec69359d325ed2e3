import type { PetOrder } from '@petstore/domain';
import { shuffleParts, type IndexPart } from './index-parts.js';
import { SortedIndex } from './sorted-index.js';

/** One word's pets in the name and the shuffle orders. */
interface WordRows {
  /** (name key, id) of each listed pet whose name has the word. */
  readonly names: SortedIndex<string>;
  /** (shuffle key, id) of the same pets. */
  readonly shuffles: SortedIndex<number>;
}

/**
 * A word's rows in a list's order (docs/rules.md §16, `q` with `sort`): for each folded word of
 * each listed pet's name, one row of (word, id) — ascending id within a word — and, in the word's
 * own indexes, one of (name key, id) and one of (shuffle key, id). So a name search reads the pets
 * of one word already in the list's order: the words of a prefix range, merged, give its matches in
 * order without a sort.
 */
export class WordOrders {
  /** (folded word, id): also the index of word prefixes, and the id order within a word. */
  readonly words = new SortedIndex<string>();
  /**
   * The vocabulary: one row (word, 0) per distinct word of the listed pets. A prefix's words are one
   * binary search in it, where the rows of `words` (three or so per pet) would take one per word.
   */
  private readonly vocabulary = new SortedIndex<string>();
  /** The rows of each word of the vocabulary; as many in each index as pets have the word. */
  private readonly byWord = new Map<string, WordRows>();

  add(words: readonly string[], nameKey: string, shuffleKey: number, id: number): void {
    for (const word of words) {
      // A word twice in one name (the domain gives each once; a defence) is one row.
      if (!this.words.insert(word, id)) continue;
      let rows = this.byWord.get(word);
      if (rows === undefined) {
        rows = { names: new SortedIndex(), shuffles: new SortedIndex() };
        this.byWord.set(word, rows);
        this.vocabulary.insert(word, 0);
      }
      rows.names.insert(nameKey, id);
      rows.shuffles.insert(shuffleKey, id);
    }
  }

  remove(words: readonly string[], nameKey: string, shuffleKey: number, id: number): void {
    for (const word of words) {
      if (!this.words.remove(word, id)) continue;
      const rows = this.byWord.get(word)!;
      rows.names.remove(nameKey, id);
      rows.shuffles.remove(shuffleKey, id);
      if (rows.names.size === 0) {
        this.byWord.delete(word);
        this.vocabulary.remove(word, 0);
      }
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
    for (const word of words) rows += this.byWord.get(word)!.names.size;
    return { words, rows };
  }

  /**
   * Where the ids of the pets that have `word` are, in `order` (`id`, `name` or `random`) from its
   * position on: the parts of an index to read one after the other (a shuffle's circle: from its
   * start to the top, then from the bottom); none for a word no listed pet has; `-id` is not kept
   * (`undefined`).
   */
  partsOf(word: string, order: PetOrder): readonly IndexPart<string | number>[] | undefined {
    const rows = this.byWord.get(word);
    switch (order.sort) {
      case 'id': {
        // The rows whose key is `word`: U+0000 is the least code point, so `word` + U+0000 comes right after.
        const range = { low: word, high: `${word}\u0000` };
        const after = order.after === undefined ? undefined : { key: word, id: order.after };
        return [{ index: this.words, range, after }];
      }
      case '-id':
        return undefined;
      case 'name':
        return rows === undefined ? [] : [{ index: rows.names, range: {}, after: order.after }];
      case 'random':
        return rows === undefined ? [] : shuffleParts(rows.shuffles, order.start, order.after);
    }
  }
}

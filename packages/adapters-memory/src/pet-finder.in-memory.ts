import {
  compareCodePoints,
  compareKeyedRows,
  compareShuffled,
  drivingWord,
  nameMatches,
  PET_STATUSES,
  prefixRange,
  shufflePosition,
  type KeyedRow,
  type ListedPets,
  type NameQuery,
  type Pet,
  type PetListQuery,
  type PetNameKeys,
  type PetOrder,
  type PetSearchKeys,
  type PetStatus,
} from '@petstore/domain';
import type { OrderedIndex } from './ordered-index.js';
import { SortedIndex, type KeyRange } from './sorted-index.js';
import { mergeWalks, type RowWalk } from './row-walk.js';
import { shuffleParts, walkParts } from './index-parts.js';
import { WordOrders } from './word-orders.js';

/** A listed pet as the finder knows it: the repository's object, and its search keys. */
interface Entry {
  readonly pet: Pet;
  readonly keys: PetSearchKeys;
}

/**
 * The id indexes that hold the pets of a filter (statuses and categories, each any of; absent: any):
 * every row of each matches both, no pet is in two of them. The repository's own indexes.
 */
export type IdSources = (
  statuses: readonly PetStatus[] | undefined,
  categoryIds: readonly number[] | undefined,
) => readonly OrderedIndex<Pet>[];

/**
 * Where a list walks: how many rows its indexes hold in all, and the order's rows from the position
 * on, made when asked (a word walk or a gather never reads them, and each index seeks its position).
 */
interface Walk {
  readonly size: number;
  rows(): RowWalk<Entry>;
}

/** Most words of a prefix range merged by a word walk; a range of more is served by the other plans. */
const MAX_MERGED_WORDS = 32;

const perStatus = <T>(make: () => T): ReadonlyMap<PetStatus, T> => new Map(PET_STATUSES.map((s) => [s, make()]));
const sizeOf = (indexes: readonly { readonly size: number }[]): number => indexes.reduce((n, ix) => n + ix.size, 0);

/**
 * The lists of the public catalogue (docs/rules.md §16) that the repository's id indexes do not
 * answer alone: name search, lists of statuses and categories, `-id`, `name` and `random`. Besides
 * the id indexes it keeps, per listed pet, three rows per word of its name (`WordOrders`: the word
 * with the id, with the name key, with the shuffle key), one of (name key, id) and one of (shuffle
 * key, id) in the indexes of its status: a create adds 2 rows and 3 per word, and counts each word in
 * `WordOrders`' vocabulary of distinct words (a row there for a word no other pet has). A list picks its
 * driving structure as a small planner does, and never reads every pet:
 *
 * - **word walk** (with `q`, in every order but `-id`): the words of the prefix range of `q`'s
 *   longest word (one binary search in the vocabulary, at most 32 words), each word's rows already in the
 *   list's order, merged, each pet checked against the other filters, until `limit` match. No sort;
 *   reads about `limit / f` rows, f the share of the range's pets that pass the other filters (never
 *   more than the range's c rows). Taken unless the categories asked hold fewer pets than that.
 * - **walk**: the order's indexes (id: the id indexes of the statuses and categories asked; name,
 *   random: those of the statuses asked), merged, from the cursor's position on, each row checked
 *   against what they do not guarantee (words; for name and random, the category), until `limit`
 *   match. Reads about `limit / f` rows, f the share of rows that match.
 * - **gather**: the candidates of the most selective filter, counted beforehand — the prefix range
 *   of `q`'s longest word (the vocabulary's counts of its words; for more than 32 words, two binary
 *   searches of the word rows), or, for name and random, the pets of the categories
 *   asked (their id indexes' sizes) — each checked, those after the position sorted by the order, the
 *   first `limit` taken. Reads the c candidates, sorts those that match: O(c log c).
 *
 * Without any filter to check the walk is exact (k indexes merged: O(k log n + limit·k)). Otherwise
 * (no word walk) it gathers when c ≤ limit / f, f estimated from the counts as if the filters were independent;
 * else it walks, and, the estimate being only one, gives up after c rows and gathers. So a list
 * costs at most about min(c, limit / f) + c log c rows: never n, and little more than a plain page
 * when the filters are broad (the walk) or narrow (the gather). docs/design.md, "Finding pets without a scan".
 */
export class PetFinder {
  private readonly entries = new Map<number, Entry>();
  /** Per distinct word of each listed pet's name: (word, id), and its rows in the name and shuffle orders. */
  private readonly wordOrders = new WordOrders();
  /** Per status: (name key, id) and (shuffle key, id) of each listed pet with that status. */
  private readonly names = perStatus(() => new SortedIndex<string>());
  private readonly shuffles = perStatus(() => new SortedIndex<number>());

  constructor(private readonly idSources: IdSources) {}

  /** A new listed pet. */
  add(pet: Pet, keys: PetSearchKeys): void {
    this.entries.set(pet.id, { pet, keys });
    this.wordOrders.add(keys.words, keys.nameKey, keys.shuffleKey, pet.id);
    this.names.get(pet.status)!.insert(keys.nameKey, pet.id);
    this.shuffles.get(pet.status)!.insert(keys.shuffleKey, pet.id);
  }

  /** A pet that changed (status, category or name; `nameKeys` given when its name did): its rows follow. */
  change(next: Pet, nameKeys?: PetNameKeys): void {
    const { keys } = this.entries.get(next.id)!;
    this.remove(next.id);
    this.add(
      next,
      nameKeys === undefined
        ? keys
        : { words: [...nameKeys.words], nameKey: nameKeys.nameKey, shuffleKey: keys.shuffleKey },
    );
  }

  /** A pet that is listed no more (withdrawn). */
  remove(id: number): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    const { pet, keys } = entry;
    this.wordOrders.remove(keys.words, keys.nameKey, keys.shuffleKey, id);
    this.names.get(pet.status)!.remove(keys.nameKey, id);
    this.shuffles.get(pet.status)!.remove(keys.shuffleKey, id);
    this.entries.delete(id);
  }

  list(query: PetListQuery): ListedPets {
    const entries = this.find(query);
    const pets = entries.map((entry) => entry.pet);
    // A shuffle's cursor holds its last pet's key: the keys go beside the pets.
    return query.order.sort === 'random'
      ? { pets, shuffleKeys: entries.map((entry) => entry.keys.shuffleKey) }
      : { pets };
  }

  /** The entries of the first `limit` pets that match `query`, in its order. */
  private find(query: PetListQuery): Entry[] {
    const { order, limit, categoryIds } = query;
    // Every status is no filter.
    const statuses = query.statuses?.length === PET_STATUSES.length ? undefined : query.statuses;
    const q: NameQuery | undefined = query.words === undefined ? undefined : { words: query.words };
    const categories = categoryIds === undefined ? undefined : new Set(categoryIds);
    const inCategory = (entry: Entry): boolean => categories === undefined || categories.has(entry.pet.categoryId);
    const named = (entry: Entry): boolean => q === undefined || nameMatches(entry.keys.words, q);
    // The walk's indexes hold only pets of the statuses asked, and in the id orders of the categories asked too.
    const byId = order.sort === 'id' || order.sort === '-id';
    const walk = this.walkOf(order, statuses, categoryIds);
    const walkMatches = byId ? named : (entry: Entry): boolean => inCategory(entry) && named(entry);

    // The candidates a gather would read: the driving word's range, or (name, random) the categories' pets.
    const driving = q === undefined ? undefined : drivingWord(q);
    const wordRange = driving === undefined ? undefined : prefixRange(driving);
    // A row of that range has a word that begins with the driving word: only q's other words are checked on it.
    const others: NameQuery | undefined =
      q === undefined || q.words.length === 1 ? undefined : { words: q.words.filter((word) => word !== driving) };
    const namedInRange = (entry: Entry): boolean => others === undefined || nameMatches(entry.keys.words, others);
    // The range's words, when few enough for a word walk, and its rows (counted in the index when more).
    const prefixWords = wordRange === undefined ? undefined : this.wordOrders.wordsOf(wordRange, MAX_MERGED_WORDS);
    const wordRows = wordRange === undefined ? Infinity : (prefixWords?.rows ?? this.wordOrders.words.count(wordRange));
    const categorySources = byId || categoryIds === undefined ? undefined : this.idSources(statuses, categoryIds);
    const categoryRows = categorySources === undefined ? Infinity : sizeOf(categorySources);
    if (walk.size === 0 || wordRows === 0 || categoryRows === 0) return [];
    const gatherRows = Math.min(wordRows, categoryRows);

    // With q, the words of its driving word's range in the list's order, merged: no sort, and about
    // limit / f rows read, f the share of the range's pets that pass the other filters.
    if (prefixWords !== undefined && order.sort !== '-id') {
      const rest = (byId || categoryRows === Infinity ? walk.size : categoryRows) / this.entries.size;
      const expected = Math.min(wordRows, limit / rest);
      if (expected <= categoryRows)
        return this.wordWalk(prefixWords.words, order, limit, expected, (entry) => {
          const { status } = entry.pet;
          return (statuses === undefined || statuses.includes(status)) && inCategory(entry) && namedInRange(entry);
        });
    }

    if (gatherRows === Infinity) {
      // Nothing to check: the walk is exact.
      const rows = walk.rows();
      const out: Entry[] = [];
      for (let entry = rows.next(); entry !== undefined && out.length < limit; entry = rows.next()) out.push(entry);
      return out;
    }
    const gather = (): Entry[] =>
      this.gather(
        order,
        limit,
        wordRows <= categoryRows
          ? this.wordCandidates(wordRange!, statuses, (entry) => inCategory(entry) && namedInRange(entry))
          : this.petsOf(categorySources!, named),
      );
    // The share of the walk's rows that match, as if the filters were independent.
    const share =
      (wordRows === Infinity ? 1 : Math.min(1, wordRows / this.entries.size)) *
      (categoryRows === Infinity ? 1 : Math.min(1, categoryRows / walk.size));
    if (gatherRows <= limit / share) return gather();
    // Walk, and past as many rows as gathering reads, gather after all: the estimate was wrong.
    const rows = walk.rows();
    const out: Entry[] = [];
    let read = 0;
    for (let entry = rows.next(); entry !== undefined; entry = rows.next()) {
      if (walkMatches(entry) && out.push(entry) === limit) return out;
      if (++read === gatherRows) return gather();
    }
    return out;
  }

  /**
   * The first `limit` pets that match, read from the rows of `words` in the order's own order. One
   * word's rows are read in batches, the first of about the `expected` rows the page needs, each next
   * twice the last: a few seeks, and a loop over arrays. Several words' rows are merged: a pet with
   * two of the words comes twice in a row, and is taken once.
   */
  private wordWalk(
    words: readonly string[],
    order: PetOrder,
    limit: number,
    expected: number,
    matches: (entry: Entry) => boolean,
  ): Entry[] {
    const out: Entry[] = [];
    if (words.length === 1) {
      // A few more than expected: the estimate takes the filters as independent.
      let size = Math.ceil(expected * 1.25) + 8;
      for (const { index, range, after } of this.wordOrders.partsOf(words[0]!, order)!)
        for (let position = after; ; size *= 2) {
          const rows = index.read(range, size, position);
          for (const row of rows) {
            const entry = this.entries.get(row.id)!;
            if (matches(entry) && out.push(entry) === limit) return out;
          }
          if (rows.length < size) break;
          position = rows[size - 1];
        }
      return out;
    }
    const walks = words.map((word) => {
      const rows = walkParts(this.wordOrders.partsOf(word, order)!);
      return {
        next: (): Entry | undefined => {
          const row = rows.next();
          return row === undefined ? undefined : this.entries.get(row.id)!;
        },
      };
    });
    const merged = mergeWalks(walks, comparatorOf(order));
    let last: Entry | undefined;
    for (let entry = merged.next(); entry !== undefined; entry = merged.next()) {
      if (entry === last) continue;
      last = entry;
      if (matches(entry) && out.push(entry) === limit) break;
    }
    return out;
  }

  /** The order's rows from its position on, from the indexes of the statuses (and, for id orders, categories) asked. */
  private walkOf(
    order: PetOrder,
    statuses: readonly PetStatus[] | undefined,
    categoryIds: readonly number[] | undefined,
  ): Walk {
    const entryOf = (id: number): Entry => this.entries.get(id)!;
    const mapped = <T>(rows: RowWalk<T>, idOf: (row: T) => number): RowWalk<Entry> => ({
      next: () => {
        const row = rows.next();
        return row === undefined ? undefined : entryOf(idOf(row));
      },
    });
    const ofStatuses = <T>(indexes: ReadonlyMap<PetStatus, T>): T[] =>
      (statuses ?? PET_STATUSES).map((status) => indexes.get(status)!);
    switch (order.sort) {
      case 'id':
      case '-id': {
        const sources = this.idSources(statuses, categoryIds);
        const compare = order.sort === 'id' ? (a: Pet, b: Pet) => a.id - b.id : (a: Pet, b: Pet) => b.id - a.id;
        const walks = (): RowWalk<Pet>[] =>
          sources.map((index) => (order.sort === 'id' ? index.walk(order.after ?? 0) : index.walkBack(order.after)));
        return { size: sizeOf(sources), rows: () => mapped(mergeWalks(walks(), compare), (pet) => pet.id) };
      }
      case 'name': {
        const sources = ofStatuses(this.names);
        const walks = (): RowWalk<KeyedRow<string>>[] => sources.map((index) => index.walk({}, order.after));
        return { size: sizeOf(sources), rows: () => mapped(mergeWalks(walks(), compareKeyedRows), (row) => row.id) };
      }
      case 'random': {
        const sources = ofStatuses(this.shuffles);
        const walks = (): RowWalk<KeyedRow<number>>[] =>
          sources.map((index) => walkParts(shuffleParts(index, order.start, order.after)));
        return {
          size: sizeOf(sources),
          rows: () => mapped(mergeWalks(walks(), compareShuffled(order.start)), (row) => row.id),
        };
      }
    }
  }

  /** The pets of the driving word's range, each once, that have a status asked and match the rest. */
  private wordCandidates(
    range: KeyRange<string>,
    statuses: readonly PetStatus[] | undefined,
    matches: (entry: Entry) => boolean,
  ): Entry[] {
    const seen = new Set<number>();
    const out: Entry[] = [];
    const rows = this.wordOrders.words.walk(range);
    for (let row = rows.next(); row !== undefined; row = rows.next()) {
      // A pet with two words in the range has two rows.
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      const entry = this.entries.get(row.id)!;
      if ((statuses === undefined || statuses.includes(entry.pet.status)) && matches(entry)) out.push(entry);
    }
    return out;
  }

  /** The pets of these id indexes that match the rest. */
  private petsOf(sources: readonly OrderedIndex<Pet>[], matches: (entry: Entry) => boolean): Entry[] {
    const out: Entry[] = [];
    for (const source of sources) {
      const rows = source.walk(0);
      for (let pet = rows.next(); pet !== undefined; pet = rows.next()) {
        const entry = this.entries.get(pet.id)!;
        if (matches(entry)) out.push(entry);
      }
    }
    return out;
  }

  /** The first `limit` of `candidates` (every one a match) after the order's position, in its order. */
  private gather(order: PetOrder, limit: number, candidates: Entry[]): Entry[] {
    const isAfter = afterPosition(order);
    const after = isAfter === undefined ? candidates : candidates.filter(isAfter);
    return after.sort(comparatorOf(order)).slice(0, limit);
  }
}

/** Whether an entry comes after the order's position (`undefined`: no position, every entry does). */
const afterPosition = (order: PetOrder): ((entry: Entry) => boolean) | undefined => {
  if (order.after === undefined) return undefined;
  switch (order.sort) {
    case 'id': {
      const { after } = order;
      return (entry) => entry.pet.id > after;
    }
    case '-id': {
      const { after } = order;
      return (entry) => entry.pet.id < after;
    }
    case 'name': {
      const { after } = order;
      return (entry) => compareKeyedRows({ key: entry.keys.nameKey, id: entry.pet.id }, after) > 0;
    }
    case 'random': {
      const { after } = order;
      const compare = compareShuffled(order.start);
      return (entry) => compare({ key: entry.keys.shuffleKey, id: entry.pet.id }, after) > 0;
    }
  }
};

/** The order of `order` over entries. */
const comparatorOf = (order: PetOrder): ((a: Entry, b: Entry) => number) => {
  switch (order.sort) {
    case 'id':
      return (a, b) => a.pet.id - b.pet.id;
    case '-id':
      return (a, b) => b.pet.id - a.pet.id;
    case 'name':
      return (a, b) => compareCodePoints(a.keys.nameKey, b.keys.nameKey) || a.pet.id - b.pet.id;
    case 'random': {
      const { start } = order;
      return (a, b) =>
        shufflePosition(a.keys.shuffleKey, start) - shufflePosition(b.keys.shuffleKey, start) || a.pet.id - b.pet.id;
    }
  }
};

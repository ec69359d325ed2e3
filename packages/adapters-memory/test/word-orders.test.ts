// The memory store's word orders (docs/rules.md §16): the vocabulary that gives a prefix's words and
// the size of its range, and the parts that give a word's pets in a list's order, proved against the
// pets' words and keys themselves under adds and removals, names that repeat a word included.
import { expect } from 'chai';
import fc from 'fast-check';
import { compareKeyedRows, compareShuffled, prefixRange, type PetOrder } from '@petstore/domain';
import { walkParts } from '../src/index-parts.js';
import { WordOrders } from '../src/word-orders.js';

/** Few words, so that words share prefixes, pets share words and a name repeats one; beyond U+FFFF too. */
const wordArb = fc.constantFrom('a', 'ab', 'aé', 'b', 'ba', 'é', '𝒜', '𝒜a', '\uffeea');
const prefixArb = fc.constantFrom('a', 'ab', 'b', 'é', '𝒜', '\uffee', 'z');
const stepArb = fc.record({ id: fc.integer({ min: 1, max: 6 }), words: fc.array(wordArb, { maxLength: 4 }) });
/** A pet's name key and shuffle key: few, so that pets share them and the id decides. */
const nameKeyArb = fc.constantFrom('a', 'b b', 'é', '𝒜');
const shuffleKeyArb = fc.constantFrom(0, 5, 9, 2 ** 32 - 1);
const afterArb = <T>(key: fc.Arbitrary<T>) => fc.record({ key, id: fc.integer({ min: 0, max: 7 }) });
/** An order the word orders keep, with or without a position (`after` absent, not undefined). */
const orderArb: fc.Arbitrary<PetOrder> = fc.oneof(
  fc.record({ sort: fc.constant('id' as const), after: fc.integer({ min: 0, max: 7 }) }, { requiredKeys: ['sort'] }),
  fc.record({ sort: fc.constant('name' as const), after: afterArb(nameKeyArb) }, { requiredKeys: ['sort'] }),
  fc.record(
    { sort: fc.constant('random' as const), start: shuffleKeyArb, after: afterArb(shuffleKeyArb) },
    { requiredKeys: ['sort', 'start'] },
  ),
);

describe('WordOrders, the memory store’s rows of each word (docs/rules.md §16)', () => {
  it('property: wordsOf gives the distinct words of a prefix range, ascending, and one row per pet that has each, or nothing past the bound', () =>
    fc.assert(
      fc.property(
        fc.array(stepArb, { maxLength: 40 }),
        prefixArb,
        fc.integer({ min: 0, max: 6 }),
        (steps, prefix, max) => {
          const orders = new WordOrders();
          const listed = new Map<number, readonly string[]>();
          // Each step lists the pet with these words, or, when it is listed, removes it.
          for (const { id, words } of steps) {
            const was = listed.get(id);
            if (was === undefined) {
              orders.add(words, words.join(' '), id, id);
              listed.set(id, words);
            } else {
              orders.remove(was, was.join(' '), id, id);
              listed.delete(id);
            }
          }
          const range = prefixRange(prefix);
          const inRange = (word: string): boolean => word.startsWith(prefix);
          const perPet = [...listed.values()].map((words) => [...new Set(words.filter(inRange))]);
          const words = [...new Set(perPet.flat())].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
          const rows = perPet.reduce((n, pet) => n + pet.length, 0);
          expect(orders.words.count(range), 'the rows of the range').to.equal(rows);
          expect(orders.wordsOf(range, max), `wordsOf(${JSON.stringify(prefix)}, ${max})`).to.deep.equal(
            words.length > max ? undefined : { words, rows },
          );
        },
      ),
    ));

  it('a name that repeats a word has one row of it: listed, withdrawn and another pet listed, the word counts that pet once', () => {
    const orders = new WordOrders();
    orders.add(['rex', 'rex', 'old'], 'rex rex old', 7, 1);
    expect(orders.wordsOf(prefixRange('re'), 5)).to.deep.equal({ words: ['rex'], rows: 1 });
    orders.remove(['rex', 'rex', 'old'], 'rex rex old', 7, 1);
    expect(orders.wordsOf(prefixRange('re'), 5)).to.deep.equal({ words: [], rows: 0 });
    orders.add(['rex'], 'rex', 9, 2);
    orders.add(['rex', 'rex'], 'rex rex', 8, 3);
    orders.remove(['rex', 'rex'], 'rex rex', 8, 3);
    expect(orders.wordsOf(prefixRange('re'), 5)).to.deep.equal({ words: ['rex'], rows: 1 });
  });

  it('property: the parts of a word, read one after the other, give the pets that have it after the position, in the order asked', () =>
    fc.assert(
      fc.property(
        fc.array(fc.record({ step: stepArb, nameKey: nameKeyArb, shuffleKey: shuffleKeyArb }), { maxLength: 30 }),
        wordArb,
        orderArb,
        (steps, word, order) => {
          const orders = new WordOrders();
          const listed = new Map<number, { words: readonly string[]; nameKey: string; shuffleKey: number }>();
          for (const { step, nameKey, shuffleKey } of steps) {
            const was = listed.get(step.id);
            if (was === undefined) {
              orders.add(step.words, nameKey, shuffleKey, step.id);
              listed.set(step.id, { words: step.words, nameKey, shuffleKey });
            } else {
              orders.remove(was.words, was.nameKey, was.shuffleKey, step.id);
              listed.delete(step.id);
            }
          }
          const pets = [...listed].filter(([, pet]) => pet.words.includes(word));
          let expected: number[];
          switch (order.sort) {
            case 'id':
            case '-id':
              expected = pets.map(([id]) => id).filter((id) => order.after === undefined || id > order.after);
              expected.sort((a, b) => a - b);
              break;
            case 'name': {
              const named = pets.map(([id, pet]) => ({ key: pet.nameKey, id }));
              expected = named
                .filter((row) => order.after === undefined || compareKeyedRows(row, order.after) > 0)
                .sort(compareKeyedRows)
                .map((row) => row.id);
              break;
            }
            case 'random': {
              const compare = compareShuffled(order.start);
              expected = pets
                .map(([id, pet]) => ({ key: pet.shuffleKey, id }))
                .filter((row) => order.after === undefined || compare(row, order.after) > 0)
                .sort(compare)
                .map((row) => row.id);
              break;
            }
          }
          const read = walkParts(orders.partsOf(word, order)!);
          const ids: number[] = [];
          for (let row = read.next(); row !== undefined; row = read.next()) ids.push(row.id);
          expect(ids, `${JSON.stringify(order)} of ${JSON.stringify(word)}`).to.deep.equal(expected);
        },
      ),
    ));

  it('keeps no order of -id (the planner reads the id indexes back instead)', () => {
    const orders = new WordOrders();
    orders.add(['rex'], 'rex', 7, 1);
    expect(orders.partsOf('rex', { sort: '-id' })).to.equal(undefined);
  });
});

// The memory store's word orders (docs/rules.md §16): the vocabulary that gives a prefix's words and
// the size of its range, proved against the pets' words themselves under adds and removals, names
// that repeat a word included.
import { expect } from 'chai';
import fc from 'fast-check';
import { prefixRange } from '@petstore/domain';
import { WordOrders } from '../src/word-orders.js';

/** Few words, so that words share prefixes, pets share words and a name repeats one; beyond U+FFFF too. */
const wordArb = fc.constantFrom('a', 'ab', 'aé', 'b', 'ba', 'é', '𝒜', '𝒜a', '\uffeea');
const prefixArb = fc.constantFrom('a', 'ab', 'b', 'é', '𝒜', '\uffee', 'z');
const stepArb = fc.record({ id: fc.integer({ min: 1, max: 6 }), words: fc.array(wordArb, { maxLength: 4 }) });

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
});

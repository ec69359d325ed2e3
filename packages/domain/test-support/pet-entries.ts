import type { PetDraft, PetEntry } from '../src/index.js';
import { nameKeysOf, petEntry } from '../src/index.js';
import { SeededRandom } from './seeded-random.js';

/** The shuffle keys of the entries made without one: drawn as the use case draws them, from a seeded source. */
const keys = new SeededRandom('pet-entries');

/**
 * What `PetCatalog.createPet` hands a store for `draft` (`petEntry`): its name keys, and the shuffle
 * key given, or one drawn from a seeded source. For tests that write pets to a store directly.
 */
export const entryOf = (draft: PetDraft, shuffleKey?: number): PetEntry =>
  shuffleKey === undefined ? petEntry(draft, keys) : { ...draft, ...nameKeysOf(draft.name), shuffleKey };

/**
 * What a store keeps beside each pet so that the public catalogue (docs/rules.md §16) is served from
 * indexes: the folded words of its name (search), its folded name (`sort=name`) and its shuffle key
 * (`sort=random`). Computed here, from the domain's fold and the `Random` port, and handed to the
 * store with the pet: no store folds a name or draws a key by itself.
 */
import type { Random } from '../ports/random.port.js';
import { foldText, wordsOfFolded } from './fold.js';
import type { PetChanges, PetDraft } from './pet.js';
import { drawShuffleKey } from './shuffle.js';

/** What the name search and the name order compare: computed from the name alone. */
export interface PetNameKeys {
  /** The name's folded words (`foldWords`), each once, in the order they first appear; never empty for a valid name with a letter or digit. */
  readonly words: readonly string[];
  /** The whole name folded (`foldText`), not cut into words: the key of `sort=name`. */
  readonly nameKey: string;
}

/** The name keys, and the pet's place on the shuffle circle. */
export interface PetSearchKeys extends PetNameKeys {
  /** An integer from 0 to 2^32 − 1 (`drawShuffleKey`), drawn once when the pet is created and never changed: the key of `sort=random`. */
  readonly shuffleKey: number;
}

/** A validated creation with its search keys: what `PetRepository.create` stores. */
export interface PetEntry extends PetDraft, PetSearchKeys {}

/**
 * The changes of a `PATCH` as `PetRepository.update` writes them: a new name comes with its keys,
 * so that the search and the name order follow the rename in the same write.
 */
export type PetEdit =
  | (PetChanges & { readonly name?: undefined; readonly nameKeys?: undefined })
  | (PetChanges & { readonly name: string; readonly nameKeys: PetNameKeys });

/** The name keys of `name`. */
export const nameKeysOf = (name: string): PetNameKeys => {
  // Folded once: the name key, and cut into its words.
  const nameKey = foldText(name);
  return { words: [...new Set(wordsOfFolded(nameKey))], nameKey };
};

/**
 * The entry a create stores: the draft, its name keys, and a shuffle key drawn from `random`. Its
 * fields are named, not spread: every entry then has one shape, which a store reads at one cost.
 */
export const petEntry = ({ name, categoryId, status }: PetDraft, random: Random): PetEntry => {
  const { words, nameKey } = nameKeysOf(name);
  return { name, categoryId, status, words, nameKey, shuffleKey: drawShuffleKey(random) };
};

/** The edit an update writes: `changes`, and the keys of the new name when the name changes. */
export const petEdit = (changes: PetChanges): PetEdit => {
  const { name, ...rest } = changes;
  return name === undefined ? rest : { ...rest, name, nameKeys: nameKeysOf(name) };
};

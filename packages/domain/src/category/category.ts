/** A category of animals (docs/rules.md §7): pets refer to one by `categoryId`. Never deleted in v1. */
export interface Category {
  readonly id: number;
  readonly name: string;
}

/** What a caller sends to create a category, once validated: the name, stored exactly as sent. */
export interface NewCategory {
  readonly name: string;
}

export const CATEGORY_NAME_MIN_LENGTH = 1;
export const CATEGORY_NAME_MAX_LENGTH = 100;

/**
 * The key under which a category name is unique: two names are the same name when their keys are
 * equal (`normalize('NFC').toLowerCase()`), so `Cats`, `CATS` and `cats` are one name, and so are
 * `Café` written with a precomposed `é` and with `e` + a combining accent. Stores keep this key
 * beside the name as sent and make it unique.
 */
export const categoryNameKey = (name: string): string => name.normalize('NFC').toLowerCase();

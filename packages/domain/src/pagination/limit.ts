/** Page size bounds of every list (docs/rules.md §2): the one place these numbers live. */
export const LIMIT_MIN = 1;
export const LIMIT_MAX = 100;
export const LIMIT_DEFAULT = 20;

export const isValidLimit = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= LIMIT_MIN && value <= LIMIT_MAX;

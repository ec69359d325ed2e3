import { fail, ok, type Result } from '../result.js';
import { quoteInput, validationFailed, type ValidationFailed } from '../errors.js';
import { checkName } from '../text/name.js';
import { parseIdSegment } from '../text/id.js';
import { CATEGORY_NAME_MAX_LENGTH, CATEGORY_NAME_MIN_LENGTH, type NewCategory } from './category.js';

/**
 * Checks a request body against the `NewCategory` rules of docs/rules.md §7: a closed object with
 * one `name` of 1–100 code points, not blank, well-formed Unicode. Accepts exactly what
 * `NewCategorySchema` accepts; the result is a fresh object holding only `name`.
 */
export const validateNewCategory = (body: unknown): Result<NewCategory, ValidationFailed> => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail(validationFailed('body', 'the body must be a JSON object'));
  }
  for (const key of Object.keys(body)) {
    if (key === 'name') continue;
    if (key === 'id') return fail(validationFailed('id', 'id is assigned by the service; leave it out'));
    return fail(validationFailed(key, `unknown property '${quoteInput(key)}' (allowed: name)`));
  }
  const record = body as Record<string, unknown>;
  if (!Object.hasOwn(record, 'name')) return fail(validationFailed('name', 'name is required'));
  const nameError = checkName(record['name'], CATEGORY_NAME_MIN_LENGTH, CATEGORY_NAME_MAX_LENGTH);
  if (nameError) return fail(nameError);
  return ok({ name: record['name'] as string });
};

/**
 * Parses a `categoryId` path segment by the `petId` rules: a canonical positive decimal integer
 * within int64; `null` for a valid int64 beyond 2^53 − 1 (no category can have it).
 */
export const parseCategoryId = (raw: string): Result<number | null, ValidationFailed> =>
  parseIdSegment(raw, 'categoryId');

const CANONICAL_SAFE = /^[1-9][0-9]{0,15}$/;

/**
 * Reads the `categoryId` filter of a list: a number that is a positive safe integer, or its
 * canonical decimal text (no sign, leading zero or fraction), at most 2^53 − 1.
 */
export const readCategoryFilter = (value: unknown): Result<number, ValidationFailed> => {
  const id = typeof value === 'string' && CANONICAL_SAFE.test(value) ? Number(value) : value;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 1) return ok(id);
  return fail(
    validationFailed(
      'categoryId',
      `categoryId must be a positive integer from 1 to ${Number.MAX_SAFE_INTEGER}, written without sign, leading zeros or fraction`,
    ),
  );
};

import { fail, ok, type Result } from '../result.js';
import { quoteInput, validationFailed, type ValidationFailed } from '../errors.js';
import {
  DEFAULT_PET_STATUS,
  isPetStatus,
  MAX_CATEGORY_ID,
  NAME_MAX_LENGTH,
  NAME_MIN_LENGTH,
  PET_STATUSES,
  type PetDraft,
} from './pet.js';

/**
 * `name` rule as one regular expression (with the `u` flag): no lone surrogate anywhere, and at
 * least one character that is not white space. The JSON Schema carries the same source.
 */
export const NAME_PATTERN = '^[^\\uD800-\\uDFFF]*[^\\s\\uD800-\\uDFFF][^\\uD800-\\uDFFF]*$';
const NAME_REGEXP = new RegExp(NAME_PATTERN, 'u');
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

const ALLOWED_KEYS = new Set(['name', 'categoryId', 'status']);

/** Length in Unicode code points, as JSON Schema counts `minLength`/`maxLength`. */
const codePointLength = (text: string): number => {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
};

const checkName = (name: unknown): ValidationFailed | undefined => {
  if (typeof name !== 'string') return validationFailed('name', 'name must be a string');
  const length = codePointLength(name);
  if (length < NAME_MIN_LENGTH || length > NAME_MAX_LENGTH) {
    return validationFailed('name', `name must be ${NAME_MIN_LENGTH} to ${NAME_MAX_LENGTH} characters long (got ${length})`);
  }
  if (NAME_REGEXP.test(name)) return undefined;
  if (LONE_SURROGATE.test(name)) {
    return validationFailed('name', 'name must be well-formed Unicode (it contains a lone surrogate)');
  }
  return validationFailed('name', 'name must contain at least one non-whitespace character');
};

/** `categoryId` and ids in general: a JSON integer from 1 to 2^53 − 1. */
const isCategoryId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_CATEGORY_ID;

/**
 * Checks a request body against the `NewPet` rules of CONTRACT.md §1 and resolves the default
 * status. Accepts exactly what `NewPetSchema` accepts (a property test holds them together).
 * The result is a fresh object holding only the three known fields, so nothing the caller sent
 * (such as an own `__proto__` key) is carried along.
 */
export const validateNewPet = (body: unknown): Result<PetDraft, ValidationFailed> => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail(validationFailed('body', 'the body must be a JSON object'));
  }
  for (const key of Object.keys(body)) {
    if (ALLOWED_KEYS.has(key)) continue;
    if (key === 'id') return fail(validationFailed('id', 'id is assigned by the service; leave it out'));
    return fail(validationFailed(key, `unknown property '${quoteInput(key)}' (allowed: name, categoryId, status)`));
  }
  const record = body as Record<string, unknown>;
  if (!Object.hasOwn(record, 'name')) return fail(validationFailed('name', 'name is required'));
  if (!Object.hasOwn(record, 'categoryId')) return fail(validationFailed('categoryId', 'categoryId is required'));
  const nameError = checkName(record['name']);
  if (nameError) return fail(nameError);
  const categoryId = record['categoryId'];
  if (!isCategoryId(categoryId)) {
    return fail(validationFailed('categoryId', `categoryId must be an integer from 1 to ${MAX_CATEGORY_ID}`));
  }
  let status = DEFAULT_PET_STATUS;
  if (Object.hasOwn(record, 'status')) {
    const given = record['status'];
    if (!isPetStatus(given)) {
      return fail(validationFailed('status', `status must be one of ${PET_STATUSES.join(', ')}`));
    }
    status = given;
  }
  return ok({ name: record['name'] as string, categoryId, status });
};

/** Largest id a path may name: int64's maximum, as text (ids beyond 2^53 − 1 are never assigned). */
const INT64_MAX = '9223372036854775807';
const CANONICAL_POSITIVE = /^[1-9][0-9]{0,18}$/;

/**
 * Parses a `petId` path segment: a canonical positive decimal integer within int64.
 * Returns the id as a number, or `null` for a valid int64 that no pet can have (beyond 2^53 − 1).
 */
export const parsePetId = (raw: string): Result<number | null, ValidationFailed> => {
  if (!CANONICAL_POSITIVE.test(raw) || (raw.length === INT64_MAX.length && raw > INT64_MAX)) {
    return fail(validationFailed('petId', 'petId must be a positive integer from 1 to 9223372036854775807, written without sign, leading zeros or fraction'));
  }
  const id = Number(raw);
  return ok(Number.isSafeInteger(id) ? id : null);
};

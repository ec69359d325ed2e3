import { validationFailed, type ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';

/** Largest id a path may name: int64's maximum, as text (ids beyond 2^53 − 1 are never assigned). */
export const INT64_MAX = '9223372036854775807';
const CANONICAL_POSITIVE = /^[1-9][0-9]{0,18}$/;

/**
 * Parses an id path segment (`petId`, `categoryId`, …): a canonical positive decimal integer within
 * int64. Returns the id as a number, or `null` for a valid int64 that no resource can have (beyond 2^53 − 1).
 */
export const parseIdSegment = (raw: string, field: string): Result<number | null, ValidationFailed> => {
  if (!CANONICAL_POSITIVE.test(raw) || (raw.length === INT64_MAX.length && raw > INT64_MAX)) {
    return fail(
      validationFailed(
        field,
        `${field} must be a positive integer from 1 to ${INT64_MAX}, written without sign, leading zeros or fraction`,
      ),
    );
  }
  const id = Number(raw);
  return ok(Number.isSafeInteger(id) ? id : null);
};

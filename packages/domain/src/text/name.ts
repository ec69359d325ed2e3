import { validationFailed, type ValidationFailed } from '../errors.js';

/**
 * The rule every name of the API shares (a pet's, a category's): a JSON string of a bounded number
 * of code points, at least one of them not ECMAScript white space (`\s`), well-formed Unicode.
 * `NAME_PATTERN` is that rule as one regular expression (with the `u` flag); the JSON Schemas
 * carry the same source.
 */
export const NAME_PATTERN = '^[^\\uD800-\\uDFFF]*[^\\s\\uD800-\\uDFFF][^\\uD800-\\uDFFF]*$';
const NAME_REGEXP = new RegExp(NAME_PATTERN, 'u');
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Length in Unicode code points, as JSON Schema counts `minLength`/`maxLength`: a surrogate pair is
 * one, a lone surrogate is one too. The string iterator walks exactly these code points.
 */
export const codePointLength = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

/** The failure of `value` as a name of `min`–`max` code points, or `undefined` when it is one. */
export const checkName = (value: unknown, min: number, max: number): ValidationFailed | undefined => {
  if (typeof value !== 'string') return validationFailed('name', 'name must be a string');
  const length = codePointLength(value);
  if (length < min || length > max) {
    return validationFailed('name', `name must be ${min} to ${max} characters long (got ${length})`);
  }
  if (NAME_REGEXP.test(value)) return undefined;
  if (LONE_SURROGATE.test(value)) {
    return validationFailed('name', 'name must be well-formed Unicode (it contains a lone surrogate)');
  }
  return validationFailed('name', 'name must contain at least one non-whitespace character');
};

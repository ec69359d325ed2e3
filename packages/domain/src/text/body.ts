import { quoteInput, validationFailed, type ValidationFailed } from '../errors.js';

/**
 * Checks shared by the hand-written validators of closed JSON bodies (the key admin's and the
 * webhooks' bodies): what ajv checks at the HTTP edge, said again in the domain's words for
 * embedders that call the use cases directly.
 */

/** Length in code points, as JSON Schema's `maxLength` counts it. */
export const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

/** A JSON object (not null, not an array). */
export const isObject = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body);

/** The first property of `body` not among `allowed`, as a `ValidationFailed` naming it (quoted, bounded); else undefined. */
export const checkFields = (
  body: Record<string, unknown>,
  allowed: readonly string[],
): ValidationFailed | undefined => {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key))
      return validationFailed(key, `unknown property '${quoteInput(key)}' (allowed: ${allowed.join(', ')})`);
  }
  return undefined;
};

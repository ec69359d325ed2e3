import { fail, ok, type Result } from '../result.js';
import { quoteInput, validationFailed, type ValidationFailed } from '../errors.js';
import { MAX_CATEGORY_ID } from '../pet/pet.js';
import { parseIdSegment } from '../text/id.js';

/** Largest pet id a body may name (2^53 − 1): ids beyond it do not survive JSON in JavaScript. */
export const MAX_PET_ID = MAX_CATEGORY_ID;

/** What `POST /v1/store/orders` takes, once its shape is checked. */
export interface NewOrder {
  readonly petId: number;
}

/**
 * Checks the closed body `{ "petId" }` (docs/rules.md §8): a JSON object with exactly `petId`, a JSON
 * integer from 1 to 2^53 − 1. Accepts exactly what `NewOrderSchema` accepts; whether a pet has
 * that id is the use case's to say.
 */
export const validateNewOrder = (body: unknown): Result<NewOrder, ValidationFailed> => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail(validationFailed('body', 'the body must be a JSON object: {"petId": …}'));
  }
  for (const key of Object.keys(body)) {
    if (key !== 'petId') return fail(validationFailed(key, `unknown property '${quoteInput(key)}' (allowed: petId)`));
  }
  if (!Object.hasOwn(body, 'petId')) return fail(validationFailed('petId', 'petId is required'));
  const petId = (body as Record<string, unknown>)['petId'];
  if (typeof petId !== 'number' || !Number.isInteger(petId) || petId < 1 || petId > MAX_PET_ID) {
    return fail(validationFailed('petId', `petId must be an integer from 1 to ${MAX_PET_ID}`));
  }
  return ok({ petId });
};

/** Parses an `orderId` path segment: the `petId` rules of docs/rules.md §2. */
export const parseOrderId = (raw: string): Result<number | null, ValidationFailed> => parseIdSegment(raw, 'orderId');

import { fail, ok, type Result } from '../result.js';
import { quoteInput, validationFailed, type ValidationFailed } from '../errors.js';
import { checkName } from '../text/name.js';
import { parseIdSegment } from '../text/id.js';
import {
  DEFAULT_PET_STATUS,
  isPetStatus,
  MAX_CATEGORY_ID,
  NAME_MAX_LENGTH,
  NAME_MIN_LENGTH,
  PET_STATUSES,
  type PetChanges,
  type PetDraft,
  type PetStatus,
} from './pet.js';

const ALLOWED_KEYS = new Set(['name', 'categoryId', 'status']);

/** `categoryId` and ids in general: a JSON integer from 1 to 2^53 − 1. */
const isCategoryId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_CATEGORY_ID;

/**
 * Checks a request body against the `NewPet` rules of docs/rules.md §1 and resolves the default
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
  const fields = checkFields(record);
  if (!fields.ok) return fields;
  const { name, categoryId, status = DEFAULT_PET_STATUS } = fields.value;
  return ok({ name: name!, categoryId: categoryId!, status });
};

/** The rules of docs/rules.md §1 for each of the three fields present in `record`; the fields as a fresh object. */
const checkFields = (record: Record<string, unknown>): Result<PetChanges, ValidationFailed> => {
  const fields: { name?: string; categoryId?: number; status?: PetStatus } = {};
  if (Object.hasOwn(record, 'name')) {
    const nameError = checkName(record['name'], NAME_MIN_LENGTH, NAME_MAX_LENGTH);
    if (nameError) return fail(nameError);
    fields.name = record['name'] as string;
  }
  if (Object.hasOwn(record, 'categoryId')) {
    const categoryId = record['categoryId'];
    if (!isCategoryId(categoryId))
      return fail(validationFailed('categoryId', `categoryId must be an integer from 1 to ${MAX_CATEGORY_ID}`));
    fields.categoryId = categoryId;
  }
  if (Object.hasOwn(record, 'status')) {
    const status = record['status'];
    if (!isPetStatus(status))
      return fail(validationFailed('status', `status must be one of ${PET_STATUSES.join(', ')}`));
    fields.status = status;
  }
  return ok(fields);
};

/**
 * Checks a `PATCH /v1/pets/{petId}` body (docs/rules.md §12): a closed JSON object with any of
 * `name`, `categoryId`, `status` (at least one), each under its rule of §1; `id` or an unknown
 * property → the failure names it. Accepts exactly what `PetPatchSchema` accepts. Whether
 * `categoryId` names a category is the use case's to say (after these rules).
 */
export const validatePetPatch = (body: unknown): Result<PetChanges, ValidationFailed> => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail(validationFailed('body', 'the body must be a JSON object with any of name, categoryId, status'));
  }
  for (const key of Object.keys(body)) {
    if (ALLOWED_KEYS.has(key)) continue;
    if (key === 'id')
      return fail(validationFailed('id', 'id is assigned by the service and never changes; leave it out'));
    return fail(validationFailed(key, `unknown property '${quoteInput(key)}' (allowed: name, categoryId, status)`));
  }
  if (Object.keys(body).length === 0)
    return fail(validationFailed('body', 'send at least one of name, categoryId, status'));
  return checkFields(body as Record<string, unknown>);
};

/**
 * Parses an id path segment (`petId`, `orderId`, …): a canonical positive decimal integer within
 * int64. Returns the id as a number, or `null` for a valid int64 that nothing can have (beyond 2^53 − 1).
 */
export const parsePetId = (raw: string): Result<number | null, ValidationFailed> => parseIdSegment(raw, 'petId');

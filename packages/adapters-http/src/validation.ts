import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { ListPetsQuerySchema, NewPetSchema, quoteInput, validateNewPet } from '@petstore/domain';
import { HttpError } from './errors.js';

/** The request validators, compiled once at start from the domain's JSON Schemas. */
export interface RequestValidators {
  readonly newPet: ValidateFunction;
  readonly listQuery: ValidateFunction;
}

export const compileValidators = (): RequestValidators => {
  // Strict schemas, no type coercion: a body is taken exactly as JSON gave it.
  const ajv = new Ajv2020({ strict: true, allErrors: false, coerceTypes: false, useDefaults: false });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  return { newPet: ajv.compile(NewPetSchema), listQuery: ajv.compile(ListPetsQuerySchema) };
};

const describeAjvError = (error: ErrorObject, where: string): string => {
  // A path into the body may hold the client's own property names: quoted, so bounded.
  const field = quoteInput(error.instancePath.replace(/^\//, '').replace(/\//g, '.'));
  if (error.keyword === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty?: unknown }).additionalProperty);
    return `unknown ${where} property '${quoteInput(extra)}'`;
  }
  if (error.keyword === 'required') {
    return `${String((error.params as { missingProperty?: unknown }).missingProperty)} is required`;
  }
  return `${field || where} ${error.message ?? 'is not valid'}`;
};

/** Validates a create body; the message names the field and the reason (the domain's wording). */
export const checkNewPet = (validators: RequestValidators, body: unknown): void => {
  if (validators.newPet(body)) return;
  const domain = validateNewPet(body);
  const message = domain.ok ? describeAjvError(validators.newPet.errors![0]!, 'body') : domain.error.message;
  throw new HttpError('validation_failed', message);
};

type ListQueryKey = 'limit' | 'status' | 'cursor';
const LIST_QUERY_KEYS: ReadonlySet<string> = new Set<ListQueryKey>(['limit', 'status', 'cursor']);

/**
 * The values of `limit`, `status` and `cursor` in a query string (all others ignored), exactly as
 * URLSearchParams (Koa's `ctx.query`) reads them — `+` is a space, percent escapes are decoded —
 * but without building the whole object: a pair with no `%` or `+` needs no decoding at all.
 * A key given twice keeps every value (then refused).
 */
export const parseListQuery = (querystring: string): Partial<Record<ListQueryKey, string | string[]>> => {
  const found: Partial<Record<ListQueryKey, string | string[]>> = {};
  if (querystring === '') return found;
  for (const pair of querystring.split('&')) {
    let key: string;
    let value: string;
    if (pair.includes('%') || pair.includes('+')) {
      const entry = new URLSearchParams(pair).entries().next();
      if (entry.done === true) continue;
      [key, value] = entry.value;
    } else {
      const eq = pair.indexOf('=');
      key = eq < 0 ? pair : pair.slice(0, eq);
      value = eq < 0 ? '' : pair.slice(eq + 1);
    }
    if (!LIST_QUERY_KEYS.has(key)) continue;
    const known = key as ListQueryKey;
    const before = found[known];
    found[known] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return found;
};

/** Query values: `limit` is read as an integer only when it is written as one; the rest stay text. */
export const readListQuery = (validators: RequestValidators, querystring: string): { limit?: number; status?: string; cursor?: string } => {
  const query = parseListQuery(querystring);
  const input: Record<string, unknown> = {};
  for (const key of ['limit', 'status', 'cursor'] as const) {
    const value = query[key];
    if (value === undefined) continue;
    if (Array.isArray(value)) throw new HttpError('validation_failed', `${key} must be given at most once`);
    // Only the canonical spelling is a number: `007`, `+5` or `1e1` stay text and fail the rule.
    input[key] = key === 'limit' && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : value;
  }
  if (!validators.listQuery(input)) {
    const error = validators.listQuery.errors![0]!;
    const field = error.instancePath.replace(/^\//, '');
    const message =
      field === 'limit'
        ? 'limit must be an integer from 1 to 100'
        : field === 'status'
          ? 'status must be one of available, pending, sold'
          : describeAjvError(error, 'query');
    throw new HttpError('validation_failed', message);
  }
  return input as { limit?: number; status?: string; cursor?: string };
};

import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import {
  ApiKeyPatchSchema,
  ListCategoriesQuerySchema,
  ListEventsQuerySchema,
  ListKeysQuerySchema,
  ListOrdersQuerySchema,
  ListPetsQuerySchema,
  NewApiKeySchema,
  NewCategorySchema,
  NewOrderSchema,
  NewPetSchema,
  PetPatchSchema,
  ListWebhooksQuerySchema,
  NewWebhookSchema,
  WebhookPatchSchema,
  ORDER_STATUSES,
  quoteInput,
  LIMIT_MAX,
  LIMIT_MIN,
  PET_STATUSES,
  readCatalogQuery,
} from '@petstore/domain';
import type { CatalogQueryInput, Result, ValidationFailed } from '@petstore/domain';
import { HttpError } from './errors.js';

/** The request validators, compiled once at start from the domain's JSON Schemas. */
export interface RequestValidators {
  readonly newPet: ValidateFunction;
  readonly listQuery: ValidateFunction;
  readonly newCategory: ValidateFunction;
  readonly categoriesQuery: ValidateFunction;
  readonly newOrder: ValidateFunction;
  readonly listOrdersQuery: ValidateFunction;
  readonly newApiKey: ValidateFunction;
  readonly apiKeyPatch: ValidateFunction;
  readonly listKeysQuery: ValidateFunction;
  readonly petPatch: ValidateFunction;
  /** The query of `GET /v1/events` (docs/rules.md §15). */
  readonly eventsQuery: ValidateFunction;
  /** The bodies of `POST` and `PATCH /v1/webhooks…`, and the query of its two lists (docs/rules.md §15). */
  readonly newWebhook: ValidateFunction;
  readonly webhookPatch: ValidateFunction;
  readonly listWebhooksQuery: ValidateFunction;
}

export const compileValidators = (): RequestValidators => {
  // Strict schemas, no type coercion: a body is taken exactly as JSON gave it.
  const ajv = new Ajv2020({ strict: true, allErrors: false, coerceTypes: false, useDefaults: false });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  return {
    newPet: ajv.compile(NewPetSchema),
    listQuery: ajv.compile(ListPetsQuerySchema),
    newCategory: ajv.compile(NewCategorySchema),
    categoriesQuery: ajv.compile(ListCategoriesQuerySchema),
    newOrder: ajv.compile(NewOrderSchema),
    listOrdersQuery: ajv.compile(ListOrdersQuerySchema),
    newApiKey: ajv.compile(NewApiKeySchema),
    apiKeyPatch: ajv.compile(ApiKeyPatchSchema),
    listKeysQuery: ajv.compile(ListKeysQuerySchema),
    petPatch: ajv.compile(PetPatchSchema),
    eventsQuery: ajv.compile(ListEventsQuerySchema),
    newWebhook: ajv.compile(NewWebhookSchema),
    webhookPatch: ajv.compile(WebhookPatchSchema),
    listWebhooksQuery: ajv.compile(ListWebhooksQuerySchema),
  };
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

type ListQueryKey = 'limit' | 'status' | 'categoryId' | 'cursor' | CatalogParameter;
/** The parameters the public catalogue adds to `GET /v1/pets` (docs/rules.md §16). */
type CatalogParameter = 'q' | 'sort' | 'seed' | 'expand';
const PET_LIST_KEYS = ['limit', 'status', 'categoryId', 'cursor', 'q', 'sort', 'seed', 'expand'] as const;
const LIST_QUERY_KEYS: ReadonlySet<string> = new Set<ListQueryKey>(PET_LIST_KEYS);
/** Query values read as integers, when written canonically (no sign, leading zero, fraction or exponent). */
const INTEGER_KEYS: ReadonlySet<string> = new Set<ListQueryKey>(['limit', 'categoryId', 'seed']);
const CANONICAL_INTEGER = /^(?:0|[1-9][0-9]{0,15})$/;

const QUERY_MESSAGES: Readonly<Record<string, string>> = {
  limit: `limit must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}`,
  status: `status must be one of ${PET_STATUSES.join(', ')}`,
  categoryId: `categoryId must be a positive integer from 1 to ${Number.MAX_SAFE_INTEGER}, written without sign, leading zeros or fraction`,
  cursor: 'cursor must be the opaque value of a Link: rel="next" header',
};

/**
 * The values of the list parameters (`limit`, `status`, `categoryId`, `cursor`) in a query string (all others ignored), exactly as
 * URLSearchParams (Koa's `ctx.query`) reads them — `+` is a space, percent escapes are decoded —
 * but without building the whole object: a pair with no `%` or `+` needs no decoding at all.
 * A key given twice keeps every value (then refused).
 */
export const parseListQuery = (querystring: string): Partial<Record<ListQueryKey, string | string[]>> =>
  parseQuery(querystring, LIST_QUERY_KEYS);

/** The values of the parameters named in `keys` (all others ignored), as `parseListQuery` reads them; a key given twice keeps every value. */
export const parseQuery = <K extends string>(
  querystring: string,
  keys: ReadonlySet<string>,
): Partial<Record<K, string | string[]>> => {
  const found: Partial<Record<K, string | string[]>> = {};
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
    if (!keys.has(key)) continue;
    const known = key as K;
    const before = found[known];
    found[known] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return found;
};

/** The listed keys of a query, checked by `validate`: integers where written canonically, the rest as text. */
const readQuery = <K extends ListQueryKey>(
  validate: ValidateFunction,
  querystring: string,
  keys: readonly K[],
  messages: Readonly<Record<string, string>> = QUERY_MESSAGES,
  /** The message of a refusal of `field` that `messages` does not hold, from the query string (read again). */
  refusal?: (field: string, querystring: string) => string | undefined,
): Partial<Record<K, string | number>> => {
  const query = parseListQuery(querystring);
  const input: Partial<Record<K, string | number>> = {};
  for (const key of keys) {
    const value: string | string[] | undefined = query[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new HttpError('validation_failed', `${key} must be given at most once`);
    // Only the canonical spelling is a number: `007`, `+5` or `1e1` stay text and fail the rule.
    input[key] = INTEGER_KEYS.has(key) && CANONICAL_INTEGER.test(value) ? Number(value) : value;
  }
  if (!validate(input)) {
    const error = validate.errors![0]!;
    const field = error.instancePath.replace(/^\//, '');
    throw new HttpError(
      'validation_failed',
      messages[field] ?? refusal?.(field, querystring) ?? describeAjvError(error, 'query'),
    );
  }
  return input;
};

/** The query of `GET /v1/pets` as read: the pager's `limit` and `cursor`, and the catalogue's parameters (docs/rules.md §16). */
export interface ListPetsParameters {
  readonly limit?: number;
  readonly cursor?: string;
  readonly status?: string;
  /** A number when one id is written canonically, else the text (a list, or a value to refuse). */
  readonly categoryId?: number | string;
  readonly q?: string;
  readonly sort?: string;
  readonly seed?: number;
  readonly expand?: string;
}

/** The pet list's messages: the pager's own; its filters' are the domain's (`readCatalogQuery`). */
const PET_LIST_MESSAGES: Readonly<Record<string, string>> = {
  limit: QUERY_MESSAGES['limit']!,
  cursor: QUERY_MESSAGES['cursor']!,
};

/**
 * The query of `GET /v1/pets`: each parameter at most once, shapes checked by the domain's schema.
 * A refusal of a catalogue parameter is said as the domain's parser says it (naming the parameter,
 * quoting at most 64 characters of what was sent); the parser reads them all again in `listPets`.
 */
export const readListQuery = (validators: RequestValidators, querystring: string): ListPetsParameters =>
  readQuery(validators.listQuery, querystring, PET_LIST_KEYS, PET_LIST_MESSAGES, catalogRefusal) as ListPetsParameters;

const CATALOG_FIELDS: ReadonlySet<string> = new Set(['status', 'categoryId', 'q', 'sort', 'seed', 'expand']);

/** The domain's message for a refused catalogue parameter, from its text as sent (given once: `readQuery` checked). */
const catalogRefusal = (field: string, querystring: string): string | undefined => {
  const sent = parseListQuery(querystring)[field as ListQueryKey];
  if (!CATALOG_FIELDS.has(field) || typeof sent !== 'string') return undefined;
  const read = readCatalogQuery({ [field as keyof CatalogQueryInput]: sent });
  return read.ok ? undefined : read.error.message;
};

/** `limit` and `cursor` of a paged list with no filter of its own (categories, keys): other parameters are ignored. */
export const readPageQuery = (validate: ValidateFunction, querystring: string): { limit?: number; cursor?: string } =>
  readQuery(validate, querystring, ['limit', 'cursor'] as const) as { limit?: number; cursor?: string };

/** A branch of a `oneOf` of closed object shapes, as the domain's schemas write one (a property `false` is one the shape refuses). */
type Shape = {
  readonly properties?: Readonly<
    Record<string, boolean | { readonly const?: unknown; readonly enum?: readonly unknown[] }>
  >;
};

/**
 * ajv's refusal of a body whose schema is a `oneOf` of closed shapes told apart by a tag (the key
 * bodies, told apart by `plan`: docs/rules.md §9), said as the domain says it: the field and what
 * to send. ajv reports every branch's first error and then "must match exactly one schema in
 * oneOf", of which only the branch the body was meant for speaks to the client: the branch whose
 * tag (`const` or `enum`) takes the body's, or, for a body without the tag, the branch that has none.
 */
const describeOneOf = (
  errors: readonly ErrorObject[],
  shapes: readonly Shape[],
  body: Record<string, unknown>,
): string | undefined => {
  const takes = (shape: Shape, name: string): boolean => {
    const property = shape.properties?.[name];
    return property !== undefined && property !== false;
  };
  /** The values a shape fixes `name` to, if it does. */
  const tagValues = (shape: Shape, name: string): readonly unknown[] | undefined => {
    const property = shape.properties?.[name];
    if (typeof property !== 'object') return undefined;
    return property.enum ?? ('const' in property ? [property.const] : undefined);
  };
  const fields = [...new Set(shapes.flatMap((shape) => Object.keys(shape.properties ?? {})))].filter((name) =>
    shapes.some((shape) => takes(shape, name)),
  );
  // The tag: a field that every shape taking it fixes (`plan`).
  const tag = fields.find((name) =>
    shapes.every((shape) => !takes(shape, name) || tagValues(shape, name) !== undefined),
  );
  if (tag === undefined) return undefined;
  const sent = Object.hasOwn(body, tag) ? body[tag] : undefined;
  const meant = shapes.findIndex((shape) =>
    sent === undefined ? !takes(shape, tag) : (tagValues(shape, tag)?.includes(sent) ?? false),
  );
  const allowed = shapes.flatMap((shape) => tagValues(shape, tag) ?? []).map(String);
  if (meant < 0)
    return sent === undefined
      ? `${tag} is required: one of ${allowed.join(', ')}`
      : `${tag} must be one of ${allowed.join(', ')}`;
  const error = errors.find((e) => e.schemaPath.startsWith(`#/oneOf/${meant}/`));
  if (error === undefined) return undefined;
  const as = sent === undefined ? `without ${tag}` : `with ${tag} ${String(sent)}`;
  if (error.keyword === 'additionalProperties') {
    // A field another shape takes: say which (numbers with a fixed plan).
    const extra = String((error.params as { additionalProperty?: unknown }).additionalProperty);
    const elsewhere = shapes
      .filter((shape) => takes(shape, extra))
      .map((shape) =>
        takes(shape, tag) ? `with ${tag} ${(tagValues(shape, tag) ?? []).join(' or ')}` : `without ${tag}`,
      );
    if (elsewhere.length > 0) return `${extra} is not sent ${as}: only ${elsewhere.join(', or ')}`;
  }
  if (error.keyword === 'required')
    return `${String((error.params as { missingProperty?: unknown }).missingProperty)} is required ${as}`;
  if (error.keyword === 'minProperties' && error.instancePath === '')
    return `send at least one of ${fields.join(', ')}`;
  return describeAjvError(error, 'body');
};

/** Why `validate` refused `body`, naming the field and what to send: a `oneOf`'s refusal as the branch meant says it, any other as ajv's first error. */
export const describeRefusal = (validate: ValidateFunction, body: unknown): string => {
  const errors = validate.errors ?? [];
  const shapes = (validate.schema as { oneOf?: readonly Shape[] }).oneOf;
  const oneOf =
    shapes !== undefined &&
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    errors.some((e) => e.keyword === 'oneOf' && e.instancePath === '');
  return (
    (oneOf ? describeOneOf(errors, shapes, body as Record<string, unknown>) : undefined) ??
    describeAjvError(errors[0]!, 'body')
  );
};

/**
 * Validates a body against its JSON Schema; when it fails, the message is the domain rule's (which
 * names the field and quotes at most 64 characters of what was sent), else the schema's.
 */
export const checkBody = (
  validate: ValidateFunction,
  body: unknown,
  domainRule: (body: unknown) => Result<unknown, ValidationFailed>,
): void => {
  if (validate(body)) return;
  const domain = domainRule(body);
  throw new HttpError('validation_failed', domain.ok ? describeRefusal(validate, body) : domain.error.message);
};

/** Messages of the order list's query: as the pet list's, but `status` is an order status. */
const ORDER_QUERY_MESSAGES: Readonly<Record<string, string>> = {
  ...QUERY_MESSAGES,
  status: `status must be one of ${ORDER_STATUSES.join(', ')}`,
};

/** `limit`, `status` and `cursor` of `GET /v1/store/orders`, read as for the pet list; `status` is an order status. */
export const readOrderListQuery = (
  validators: RequestValidators,
  querystring: string,
): { limit?: number; status?: string; cursor?: string } =>
  readQuery(validators.listOrdersQuery, querystring, ['limit', 'status', 'cursor'] as const, ORDER_QUERY_MESSAGES) as {
    limit?: number;
    status?: string;
    cursor?: string;
  };

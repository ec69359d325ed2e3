import type { CommandStartedEvent, Document, MongoClient } from 'mongodb';

/** An index's key pattern, e.g. `{ status: 1, _id: 1 }`. */
export type KeyPattern = Readonly<Record<string, number>>;

/** One query as sent on the wire: the collection, the filter, the sort and the hint (absent when none). */
export interface SentQuery {
  readonly command: string;
  readonly collection: string;
  readonly filter: Document;
  readonly sort?: Document | undefined;
  readonly hint?: unknown;
  /** A find's first batch size, when it asks for one. */
  readonly batchSize?: unknown;
}

const RANGE_OPERATORS = new Set(['$gt', '$gte', '$lt', '$lte', '$elemMatch', '$all']);

/** Whether a field's predicate is an equality (a value, `null`, or `$in`) rather than a range. */
const isEquality = (predicate: unknown): boolean => {
  if (predicate === null || typeof predicate !== 'object' || Array.isArray(predicate)) return true;
  const operators = Object.keys(predicate);
  if (operators.length === 1 && operators[0] === '$in') return true;
  if (operators.every((op) => RANGE_OPERATORS.has(op))) return false;
  throw new Error(`a predicate the shape check does not know: ${JSON.stringify(predicate)}`);
};

/** The filter as conjunctions: an `$or`'s branches, each with the rest (each must be served, however the server combines them). */
const branchesOf = (filter: Document): Document[] => {
  const { $or, ...rest } = filter as { $or?: Document[] };
  return $or === undefined ? [rest] : $or.map((branch) => ({ ...rest, ...branch }));
};

/**
 * Why `key` cannot serve `filter` and `sort` in equality–sort–range order, or `undefined` when it
 * can: in each branch, the key's fields before the sort are all equalities (without a sort, the
 * leading one is at least filtered), the sort is the next
 * fields of the key (all in the key's directions or all reversed), every range is on a sort field or
 * after it, and no field is filtered outside the key but those in `residual` (checked on the documents).
 */
export const esrMismatch = (
  key: KeyPattern,
  filter: Document,
  sort: Document | undefined,
  residual: readonly string[] = [],
): string | undefined => {
  const fields = Object.keys(key);
  const sortFields = Object.keys(sort ?? {});
  let equalities = 0;
  if (sortFields.length > 0) {
    equalities = fields.indexOf(sortFields[0]!);
    if (equalities < 0) return `sorts by ${sortFields[0]}, not in the index`;
    const sign = Math.sign(sort![sortFields[0]!] as number) * Math.sign(key[sortFields[0]!]!);
    for (const [i, field] of sortFields.entries()) {
      if (fields[equalities + i] !== field) return `the sort ${JSON.stringify(sort)} is not the index's next keys`;
      if (Math.sign(sort![field] as number) * Math.sign(key[field]!) !== sign)
        return `the sort ${JSON.stringify(sort)} mixes directions against the index`;
    }
  }
  for (const branch of branchesOf(filter)) {
    const eq = sortFields.length > 0 ? equalities : fields.findIndex((f) => !(f in branch) || !isEquality(branch[f]));
    const prefix = eq < 0 ? fields.length : eq;
    // Without a sort, an index whose leading key is not filtered would be read whole.
    if (sortFields.length === 0 && !(fields[0]! in branch)) return `${fields[0]} leads the index but is not filtered`;
    for (const field of fields.slice(0, prefix)) {
      if (!(field in branch)) return `${field} leads the index but is not filtered by equality`;
      if (!isEquality(branch[field])) return `a range on ${field}, before the sort`;
    }
    for (const field of Object.keys(branch)) {
      if (!fields.includes(field) && !residual.includes(field)) return `filters ${field}, not in the index`;
    }
  }
  return undefined;
};

/** Whether a filter finds one document by `_id` (the primary key's own index serves it). */
const byPrimaryKey = (filter: Document): boolean => '_id' in filter && isEquality(filter['_id']);

/**
 * Why `query` is not served by one of `declared` (key patterns of one collection), or `undefined`.
 * With a hint, the hint must be a declared index (by key or by its default name) and serve it; without
 * one, some declared index must, unless the filter names one `_id`.
 */
export const notServed = (
  query: SentQuery,
  declared: readonly { readonly key: KeyPattern; readonly name: string }[],
  residual: readonly string[] = [],
): string | undefined => {
  if (query.hint !== undefined) {
    const hinted = declared.find((index) =>
      typeof query.hint === 'string'
        ? index.name === query.hint
        : JSON.stringify(index.key) === JSON.stringify(query.hint),
    );
    if (hinted === undefined) return `hints ${JSON.stringify(query.hint)}, which is not declared`;
    return esrMismatch(hinted.key, query.filter, query.sort, residual);
  }
  if (byPrimaryKey(query.filter)) return undefined;
  const reasons = declared.map((index) => esrMismatch(index.key, query.filter, query.sort, residual));
  return reasons.includes(undefined) ? undefined : `no declared index serves it (${reasons.join('; ')})`;
};

/** A command's sort as an object: the driver sends it as a `Map` (its order kept), which `Object.keys` would not see. */
const sortOf = (sort: unknown): Document | undefined =>
  sort instanceof Map ? (Object.fromEntries(sort) as Document) : (sort as Document | undefined);

/** The queries a command carries (a find, an aggregation's first `$match`, each update's or delete's filter). */
const queriesOf = (event: CommandStartedEvent): SentQuery[] => {
  const c = event.command;
  const collection = String(c[event.commandName] ?? '');
  const base = { command: event.commandName, collection };
  switch (event.commandName) {
    case 'find':
      return [
        { ...base, filter: c['filter'] ?? {}, sort: sortOf(c['sort']), hint: c['hint'], batchSize: c['batchSize'] },
      ];
    case 'count':
      return [{ ...base, filter: c['query'] ?? {}, hint: c['hint'] }];
    case 'findAndModify':
      return [{ ...base, filter: c['query'] ?? {}, sort: sortOf(c['sort']), hint: c['hint'] }];
    case 'aggregate': {
      const match = (c['pipeline'] as Document[])[0]?.['$match'] as Document | undefined;
      return [{ ...base, filter: match ?? {}, hint: c['hint'] }];
    }
    case 'update':
      return (c['updates'] as Document[]).map((u) => ({ ...base, filter: u['q'] as Document, hint: u['hint'] }));
    case 'delete':
      return (c['deletes'] as Document[]).map((d) => ({ ...base, filter: d['q'] as Document, hint: d['hint'] }));
    default:
      return [];
  }
};

/** The driver's own commands (connection handshakes, session ends): no round trip of a store call. */
const HANDSHAKE = new Set(['hello', 'ismaster', 'isMaster', 'endSessions']);

/**
 * Collects what `client` sends (it must be made with `monitorCommands: true`) until `stop`: every
 * query, and the name of every command (one per round trip: a `getMore` too).
 */
export const recordQueries = (
  client: MongoClient,
): { readonly queries: SentQuery[]; readonly commands: string[]; stop(): void } => {
  const queries: SentQuery[] = [];
  const commands: string[] = [];
  const listener = (event: CommandStartedEvent): void => {
    if (HANDSHAKE.has(event.commandName)) return;
    commands.push(event.commandName);
    queries.push(...queriesOf(event));
  };
  client.on('commandStarted', listener);
  return { queries, commands, stop: () => void client.off('commandStarted', listener) };
};

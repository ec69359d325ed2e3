import type { ServerResponse } from 'node:http';
import type { Event, EventFeed, FeedInput, FeedQuery } from '@petstore/domain';
import { eventJson, readFeedQuery } from '@petstore/domain';
import { HttpError } from './errors.js';
import { answerJson } from './answer.js';
import { CLOSE, EMPTY_PAGE, madeOnce, OPEN } from './serialize.js';
import type { ApiRouter } from './api-router.js';
import { fromDomain } from './route-helpers.js';
import { describeRefusal, parseQuery, type RequestValidators } from './validation.js';

/** The feed's path (docs/rules.md §15). */
export const EVENTS_PATH = '/v1/events';

type FeedKey = keyof FeedInput;
const FEED_KEYS: ReadonlySet<string> = new Set<FeedKey>(['after', 'types', 'limit', 'wait']);
/** Values read as integers when written canonically (`007`, `+5`, `1e1` or `-1` stay text, and fail the rule). */
const INTEGER_KEYS: ReadonlySet<string> = new Set<FeedKey>(['after', 'limit', 'wait']);
const CANONICAL_NATURAL = /^(?:0|[1-9][0-9]*)$/;

/**
 * The long polls under way (`GET /v1/events?wait=…`): each one holds a timer and the store's wait,
 * and ends when an event arrives, its time runs out, its client goes away, or `close` is called
 * (the server stopping: each answers at once with what it has, an empty page and its `Link`).
 */
export class LongPolls {
  private readonly ends = new Set<() => void>();
  private closed = false;

  /**
   * Runs `read` with a promise that settles when the client goes away (the response closes before
   * it was sent) or `close` is called, whichever comes first; nothing is held once `read` is done.
   */
  async hold<T>(res: ServerResponse, read: (until: Promise<void>) => Promise<T>): Promise<T> {
    let end!: () => void;
    const until = new Promise<void>((resolve) => (end = resolve));
    if (this.closed) end();
    this.ends.add(end);
    res.once('close', end);
    try {
      return await read(until);
    } finally {
      this.ends.delete(end);
      res.off('close', end);
    }
  }

  /** Ends every long poll under way, and every one that starts from now on, at once. */
  close(): void {
    this.closed = true;
    for (const end of this.ends) end();
    this.ends.clear();
  }

  /** Long polls under way (for tests: none is left behind). */
  get size(): number {
    return this.ends.size;
  }
}

/** A checked query of the feed, and the parameters the client gave (they go on into the `next` link). */
interface EventsQuery {
  readonly query: FeedQuery;
  readonly given: ReadonlySet<FeedKey>;
}

/**
 * Reads `after`, `types`, `limit` and `wait` of a query string (others are ignored): each at most
 * once, checked by the JSON Schema and by the domain's rule (`readFeedQuery`), whose message
 * names the parameter and what it takes (`types`: every known type).
 */
export const readEventsQuery = (validators: RequestValidators, querystring: string): EventsQuery => {
  const raw = parseQuery<FeedKey>(querystring, FEED_KEYS);
  const input: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(raw) as [FeedKey, string | string[]][]) {
    if (typeof value !== 'string') throw new HttpError('validation_failed', `${key} must be given at most once`);
    input[key] = INTEGER_KEYS.has(key) && CANONICAL_NATURAL.test(value) ? Number(value) : value;
  }
  const checked = readFeedQuery(input);
  if (!checked.ok) throw fromDomain(checked.error);
  // The domain's rule and the schema the document shows say the same (a test holds them to it); the schema has the last word.
  if (!validators.eventsQuery(input))
    throw new HttpError('validation_failed', describeRefusal(validators.eventsQuery, input));
  return { query: checked.value, given: new Set(Object.keys(input) as FeedKey[]) };
};

/**
 * `Link` of every page of the feed: the events after `next` (the last sequence of the page, or the
 * page's own `after` when it is empty), with the page's `types`, `limit` and `wait` when given.
 * Following it forever reads every event once.
 */
export const feedLink = (next: number, { query, given }: EventsQuery): string => {
  let target = `${EVENTS_PATH}?after=${next}`;
  if (given.has('types') && query.types !== undefined) target += `&types=${query.types.join(',')}`;
  if (given.has('limit')) target += `&limit=${query.limit}`;
  if (given.has('wait')) target += `&wait=${query.waitMs / 1000}`;
  return `<${target}>; rel="next"`;
};

/**
 * Each event's JSON as bytes, with the comma that goes before it in a page (`,{…}`), made once per
 * frozen event (`madeOnce`). A page of the feed is then one copy of bytes already made, and the
 * answer's length is known without reading its text (a string body is scanned to count its UTF-8
 * bytes, then encoded: each costs more than the copy).
 */
const bytesOf = madeOnce((event: Event): Buffer => Buffer.from(`,${eventJson(event)}`));

/** A page of events as JSON (UTF-8), each event's fields in the order of the schema: the bytes of `JSON.stringify` of the page. */
export const serializeEvents = (events: readonly Event[]): Buffer => {
  if (events.length === 0) return EMPTY_PAGE;
  const parts = new Array<Buffer>(events.length + 2);
  parts[0] = OPEN;
  const first = bytesOf(events[0]!).subarray(1);
  parts[1] = first;
  let length = 2 + first.length;
  for (let i = 1; i < events.length; i++) {
    const bytes = bytesOf(events[i]!);
    parts[i + 1] = bytes;
    length += bytes.length;
  }
  parts[events.length + 1] = CLOSE;
  return Buffer.concat(parts, length);
};

/**
 * `GET /v1/events` (docs/rules.md §15, admin keys only): a client key → 403 before anything is
 * read; the query's rules → 400; behind the retention → 410 `gone` naming the first sequence kept;
 * else a page of events, waiting up to `wait` seconds for the first one, with its `Link:
 * rel="next"` on every page, empty or not.
 */
export const addEventRoutes = (
  routes: ApiRouter,
  feed: EventFeed,
  longPolls: LongPolls,
  validators: RequestValidators,
): void => {
  routes.get({ name: 'listEvents', path: EVENTS_PATH }, async (ctx) => {
    const allowed = feed.authorize(ctx.state.caller);
    if (!allowed.ok) throw fromDomain(allowed.error);
    const asked = readEventsQuery(validators, ctx.querystring);
    const page =
      asked.query.waitMs === 0
        ? await feed.read(asked.query)
        : await longPolls.hold(ctx.res, (until) => feed.read(asked.query, until));
    if (!page.ok) throw fromDomain(page.error);
    ctx.set('Link', feedLink(page.value.next, asked));
    answerJson(ctx, serializeEvents(page.value.events));
  });
};

import LinkHeader from 'http-link-header';
import type { components } from './generated/openapi.js';
import type { PetstoreClient } from './client.js';
import { failure } from './pages.js';

/** An event of the feed (docs/rules.md §15): `data` is typed by `type`. */
export type Event = components['schemas']['Event'];
/** An event type (`pet.created`, `order.delivered`…). */
export type EventType = Event['type'];

export interface FollowOptions {
  /** Events after this `sequence` (default 0, the start of the feed): the last one you handled, saved, to resume. */
  readonly after?: number;
  /** Only events of these types (default: every type). */
  readonly types?: readonly EventType[];
  /** How long each long poll waits for the next event, in seconds (0–30, default 30). */
  readonly wait?: number;
  /** Events per page (1–100; the server's default 20 when absent). */
  readonly limit?: number;
  /** Ends the iteration: the poll under way is dropped, and the loop returns. */
  readonly signal?: AbortSignal;
}

type UntypedGet = (
  path: string,
  init: { params: { query: Record<string, unknown> }; signal?: AbortSignal },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * Follows the feed of events (`GET /v1/events`, admin keys): every event after `after`, in order,
 * each once, as it arrives. Each request is a long poll (`wait`), answered as soon as an event is
 * there; the next one follows the answer's `Link: rel="next"`, so nothing is missed or read twice.
 * Save the `sequence` of each event you have handled and pass it as `after` to resume there. 429
 * and 503 are retried by the client's own backoff (`RetryOptions`); an answer that is still not a
 * success throws `PetstoreError` (a reader behind the retention: 410 `gone`, its message giving the
 * first sequence kept). Runs until `signal` aborts (or the loop is left).
 */
export async function* events(
  client: PetstoreClient,
  options: FollowOptions = {},
): AsyncGenerator<Event, void, undefined> {
  const get = client.GET as unknown as UntypedGet;
  const { signal } = options;
  let query: Record<string, unknown> = {
    after: options.after ?? 0,
    ...(options.types === undefined ? {} : { types: options.types.join(',') }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
    wait: options.wait ?? 30,
  };
  const aborted = (): boolean => signal?.aborted === true;
  while (!aborted()) {
    let answer: Awaited<ReturnType<UntypedGet>>;
    try {
      answer = await get('/events', { params: { query }, ...(signal === undefined ? {} : { signal }) });
    } catch (error) {
      if (aborted()) return;
      throw error;
    }
    const { data, error, response } = answer;
    if (!response.ok || !Array.isArray(data)) throw failure(error, response);
    yield* data as Event[];
    const link = response.headers.get('Link');
    const next = link === null ? undefined : LinkHeader.parse(link).rel('next')[0];
    if (next === undefined) throw new Error('a page of the feed came without its Link: rel="next"');
    // The next page: the link's query (after, and the types, limit and wait given), on the same path.
    query = Object.fromEntries(new URL(next.uri, response.url).searchParams);
  }
}

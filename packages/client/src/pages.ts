import LinkHeader from 'http-link-header';
import type { paths } from './generated/openapi.js';
import type { PetstoreClient } from './client.js';

/**
 * Paths whose `GET` answers a plain JSON array, paged with `Link: rel="next"` until the last page,
 * and takes no path parameter. (Not the feed of events: it has no last page; follow it with `events`.)
 */
export type ListPath = Exclude<
  {
    [P in keyof paths]: paths[P] extends {
      get: {
        parameters: { path?: never };
        responses: { 200: { content: { 'application/json': readonly unknown[] } } };
      };
    }
      ? P
      : never;
  }[keyof paths],
  '/events'
>;

/** An item of the list at `P`. */
export type ListItem<P extends ListPath> = paths[P]['get']['responses'][200]['content']['application/json'][number];

/** The query of the list at `P` (its filters and `limit`; the `cursor` comes from the links). */
export type ListQuery<P extends ListPath> = Omit<NonNullable<paths[P]['get']['parameters']['query']>, 'cursor'>;

/** One page: its items and the answer that carried them (headers: rate limit, `Link`). */
export interface Page<T> {
  readonly items: readonly T[];
  readonly response: Response;
}

/** An answer that is not a success, with the `Error` body of docs/rules.md §3. */
export class PetstoreError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly response: Response,
  ) {
    super(message);
    this.name = 'PetstoreError';
  }
}

type UntypedGet = (
  path: string,
  init: { params: { query?: Record<string, unknown> } },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** The `PetstoreError` of an answer that is not a success. */
export const failure = (error: unknown, response: Response): PetstoreError => {
  const body = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  const code = typeof body.code === 'string' ? body.code : 'unknown';
  return new PetstoreError(
    response.status,
    code,
    typeof body.message === 'string' ? body.message : `HTTP ${response.status}`,
    response,
  );
};

/**
 * The pages of a list, following `Link: rel="next"` until the last page (docs/rules.md §2): each
 * matching item once, in ascending id order. An answer that is not a success throws `PetstoreError`
 * (after the client's own retries of 429 and 503).
 */
export async function* pages<P extends ListPath>(
  client: PetstoreClient,
  path: P,
  query?: ListQuery<P>,
): AsyncGenerator<Page<ListItem<P>>, void, undefined> {
  const get = client.GET as unknown as UntypedGet;
  let params: Record<string, unknown> | undefined = query;
  for (;;) {
    const { data, error, response } = await get(path, { params: params === undefined ? {} : { query: params } });
    if (!response.ok || !Array.isArray(data)) throw failure(error, response);
    yield { items: data as ListItem<P>[], response };
    const link = response.headers.get('Link');
    const next = link === null ? undefined : LinkHeader.parse(link).rel('next')[0];
    if (next === undefined) return;
    const url = new URL(next.uri, response.url);
    // The next page of the same list: the link's query (filters, limit, cursor), on the same path.
    if (url.pathname !== new URL(response.url).pathname)
      throw new Error(`the next page of ${path} links to another path: ${url.pathname}`);
    params = Object.fromEntries(url.searchParams);
  }
}

/** Every item of a list, page after page (see `pages`). */
export async function* items<P extends ListPath>(
  client: PetstoreClient,
  path: P,
  query?: ListQuery<P>,
): AsyncGenerator<ListItem<P>, void, undefined> {
  for await (const page of pages(client, path, query)) yield* page.items;
}

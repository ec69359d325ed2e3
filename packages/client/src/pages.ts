import LinkHeader from 'http-link-header';
import type { components, paths } from './generated/openapi.js';
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

/** An animal as `GET /pets` gives it (docs/rules.md §1). */
export type Pet = components['schemas']['Pet'];
/** An animal with its photos, as `GET /pets?expand=photos` gives it (docs/rules.md §16). */
export type PetWithPhotos = components['schemas']['PetWithPhotos'];
/** A photo in a page of `expand=photos`: its signed `url` and `srcset`, ready for `<img>`. */
export type PhotoView = components['schemas']['PhotoView'];
/** An animal's status. */
export type PetStatus = Pet['status'];

type DocumentQuery<P extends ListPath> = Omit<NonNullable<paths[P]['get']['parameters']['query']>, 'cursor'>;

/**
 * The query of the list at `P` (its filters and `limit`; the `cursor` comes from the links). For
 * `/pets`, `status` and `categoryId` take one value or an array of them, sent as the API's
 * comma-separated value lists (docs/rules.md §16: a pet matches any of them).
 */
export type ListQuery<P extends ListPath> = P extends '/pets'
  ? Omit<DocumentQuery<'/pets'>, 'status' | 'categoryId'> & {
      readonly status?: PetStatus | readonly PetStatus[];
      readonly categoryId?: number | readonly number[];
    }
  : DocumentQuery<P>;

/** An item of the list at `P` asked with query `Q`: for `/pets`, `PetWithPhotos` with `expand: 'photos'`, else `Pet`. */
export type ListItem<P extends ListPath, Q = ListQuery<P>> = P extends '/pets'
  ? Q extends { readonly expand: 'photos' }
    ? PetWithPhotos
    : Pet
  : paths[P]['get']['responses'][200]['content']['application/json'][number];

/** The query as the API reads it: value lists comma-separated, absent values left out. */
const sent = (query: object): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(query)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]: [string, unknown]) => [name, Array.isArray(value) ? value.join(',') : value]),
  );

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
 * matching item once, in the list's order (ascending id, or the `sort` asked of `/pets`; the link
 * carries every parameter). An answer that is not a success throws `PetstoreError` (after the
 * client's own retries of 429 and 503).
 */
export async function* pages<P extends ListPath, const Q extends ListQuery<P> = ListQuery<P>>(
  client: PetstoreClient,
  path: P,
  query?: Q,
): AsyncGenerator<Page<ListItem<P, Q>>, void, undefined> {
  const get = client.GET as unknown as UntypedGet;
  let params: Record<string, unknown> | undefined = query === undefined ? undefined : sent(query);
  for (;;) {
    const { data, error, response } = await get(path, { params: params === undefined ? {} : { query: params } });
    if (!response.ok || !Array.isArray(data)) throw failure(error, response);
    yield { items: data as ListItem<P, Q>[], response };
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
export async function* items<P extends ListPath, const Q extends ListQuery<P> = ListQuery<P>>(
  client: PetstoreClient,
  path: P,
  query?: Q,
): AsyncGenerator<ListItem<P, Q>, void, undefined> {
  for await (const page of pages<P, Q>(client, path, query)) yield* page.items;
}

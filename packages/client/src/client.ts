import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import { IDEMPOTENT_CREATES } from './generated/idempotent-creates.js';
import { retryingFetch, type RetryOptions } from './retry.js';

/** The typed client: `GET`, `POST`, `PATCH`, `DELETE`… of openapi-fetch over every path of the v1 API. */
export type PetstoreClient = Client<paths, 'application/json'>;

export interface PetstoreClientOptions {
  /** The API's base address, ending in `/v1`: `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` on every request: a secret key (`pet_…`) or a publishable one (`pk_…`, docs/rules.md §16). */
  readonly apiKey: string;
  /**
   * Sent as `Origin` on every request, for a publishable key outside a browser (a test, a server-side
   * check of the key). In a browser, leave it out: the browser sends the page's own `Origin` by
   * itself (and does not let a script set it).
   */
  readonly origin?: string;
  /** Retrying answers 429 and 503 (on by default, see `RetryOptions`); `false` for none. */
  readonly retry?: RetryOptions | false;
  /**
   * Send an `Idempotency-Key` on every create that takes one and was given none (default `true`):
   * a new key per call, the same on each retry of that call (docs/rules.md §10).
   */
  readonly idempotentCreates?: boolean;
  /** Makes each `Idempotency-Key` (default `crypto.randomUUID`). */
  readonly newIdempotencyKey?: () => string;
  /** The `fetch` underneath (default `globalThis.fetch`). */
  readonly fetch?: (request: Request) => Promise<Response>;
}

const CREATES = new Set(IDEMPOTENT_CREATES.map((c) => `${c.method} ${c.path}`));

/** Adds an `Idempotency-Key` to a create that has none: one per call, so its retries share it. */
const idempotencyKeys = (newKey: () => string): Middleware => ({
  onRequest({ request, schemaPath }) {
    if (!CREATES.has(`${request.method} ${schemaPath}`) || request.headers.has('Idempotency-Key')) return undefined;
    request.headers.set('Idempotency-Key', newKey());
    return request;
  },
});

/** A client of the v1 API: typed requests and answers, retries after 429/503, idempotent creates. */
export const createPetstoreClient = (options: PetstoreClientOptions): PetstoreClient => {
  const base = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: {
      Authorization: `Bearer ${options.apiKey}`,
      ...(options.origin === undefined ? {} : { Origin: options.origin }),
    },
    fetch: options.retry === false ? base : retryingFetch(base, options.retry),
  });
  if (options.idempotentCreates !== false)
    client.use(idempotencyKeys(options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID())));
  return client;
};

import type { Caller } from '@petstore/domain';

/** What the middleware chain records about a request in `ctx.state`. */
export interface AppState {
  requestId: string;
  /** The matched route pattern (e.g. `GET /v1/pets/:petId`), for the log line. */
  route?: string;
  /** Log-safe subject: the key's public id (`key_<12 hex>`) for a key holder, `a:<address>` otherwise. */
  subjectTag?: string;
  /** The key holder, once the gate has authenticated the request (routes pass it to the use cases). */
  caller?: Caller;
  /** The largest body the matched route takes (set by the gate: `bodyLimitOf`). */
  bodyLimit?: number;
}

import type { Caller, IdempotentCreation, OwnStatus } from '@petstore/domain';

/** What the middleware chain records about a request in `ctx.state`. */
export interface AppState {
  requestId: string;
  /** The matched route pattern (e.g. `GET /v1/pets/:petId`), for the log line. */
  route?: string;
  /** Log-safe subject: the key's public id (`key_<12 hex>`) for a key holder, `a:<address>` otherwise. */
  subjectTag?: string;
  /** The key holder, once the gate has authenticated the request (routes pass it to the use cases). */
  caller?: Caller;
  /** `GET /v1/me` only: the key's status, read by the gate (docs/rules.md §14). */
  ownStatus?: OwnStatus;
  /** A create run under its `Idempotency-Key` (docs/rules.md §10): its creation token; creating routes pass it to the use cases. */
  creation?: IdempotentCreation;
  /** The largest body the matched route takes (set by the gate: `bodyLimitOf`). */
  bodyLimit?: number;
  /** The body's bytes, read at most once (`readRawBody`): the idempotency step and the route share them. */
  body?: Promise<Buffer | undefined>;
}

import type { Caller, IdempotentCreation, OwnStatus, Result, Subject, Unauthorized } from '@petstore/domain';
import type { RouteSettings } from './api-router.js';

/** What the middleware chain records about a request in `ctx.state`. */
export interface AppState {
  requestId: string;
  /** `<METHOD> <path template>` of the route (or probe, or documentation file) that answered, for the log line. */
  route?: string;
  /** The matched route's settings, as registered (`ApiRouter`): the gate's steps and the body readers read them. */
  routeSettings?: RouteSettings;
  /** The credential as the `credential` middleware read it: the key's subject, or why there is none. */
  authentication?: Result<Subject, Unauthorized>;
  /** Who is counted: the key's subject when the credential is valid, otherwise the client address's. */
  subject?: Subject;
  /** Log-safe subject: the key's public id (`key_<12 hex>`) for a key holder, `a:<address>` otherwise. */
  subjectTag?: string;
  /** A keyless read of a photo whose credential is its URL's valid signature (docs/rules.md §16). */
  signedUrl?: boolean;
  /** A publishable key's request only: whether its `Origin` (or `Referer`) is one of the key's (docs/rules.md §16). */
  fromKeyOrigin?: boolean;
  /** The key holder, once the gate has authenticated the request (routes pass it to the use cases). */
  caller?: Caller;
  /** `GET /v1/me` only: the key's status, read by the gate (docs/rules.md §14). */
  ownStatus?: OwnStatus;
  /** A create run under its `Idempotency-Key` (docs/rules.md §10): its creation token; creating routes pass it to the use cases. */
  creation?: IdempotentCreation;
  /** The body's bytes, read at most once (`readRawBody`): the idempotency step and the route share them. */
  body?: Promise<Buffer | undefined>;
}

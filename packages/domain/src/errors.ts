/**
 * Every error code the v1 API can answer with: the one list (docs/rules.md §3).
 * The domain returns the first group as values; the HTTP adapter adds the transport ones
 * and owns the single table from code to HTTP status.
 */
export const ERROR_CODES = [
  'validation_failed',
  'malformed_json',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'conflict',
  'gone',
  'precondition_failed',
  'payload_too_large',
  'unsupported_media_type',
  'idempotency_key_reused',
  'rate_limited',
  'temporarily_banned',
  'headers_too_large',
  'internal_error',
  'unavailable',
  'insufficient_storage',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ValidationFailed {
  readonly code: 'validation_failed';
  /** The field (or `body`, `query`, `cursor`) that broke a rule. */
  readonly field: string;
  readonly message: string;
}
export interface NotFound {
  readonly code: 'not_found';
  readonly message: string;
}
export interface Gone {
  readonly code: 'gone';
  readonly message: string;
}
export interface Unauthorized {
  readonly code: 'unauthorized';
  /** `missing`: no usable credential was sent; `invalid`: one was sent and is not accepted. */
  readonly reason: 'missing' | 'invalid';
  readonly message: string;
}

/** A valid client key on an operation that needs an admin key. */
export interface Forbidden {
  readonly code: 'forbidden';
  readonly message: string;
}
/** The request is valid but the state forbids it; the message says the state. */
export interface Conflict {
  readonly code: 'conflict';
  readonly message: string;
}

/** `If-Match` names another revision of the pet than the stored one (docs/rules.md §12): nothing changed. */
export interface PreconditionFailed {
  readonly code: 'precondition_failed';
  readonly message: string;
}

/** An `Idempotency-Key` sent again with a different request (docs/rules.md §10). */
export interface IdempotencyKeyReused {
  readonly code: 'idempotency_key_reused';
  readonly message: string;
}

/** A body of a media type the operation does not take (a photo upload: not one of the three image types, docs/rules.md §13). */
export interface UnsupportedMediaType {
  readonly code: 'unsupported_media_type';
  readonly message: string;
}

/** The store's own bound on bytes is spent (the memory store's photo budget, docs/rules.md §13): nothing was stored. */
export interface InsufficientStorage {
  readonly code: 'insufficient_storage';
  readonly message: string;
}

export type DomainError =
  | ValidationFailed
  | NotFound
  | Gone
  | Unauthorized
  | Forbidden
  | Conflict
  | PreconditionFailed
  | IdempotencyKeyReused
  | UnsupportedMediaType
  | InsufficientStorage;

export const validationFailed = (field: string, message: string): ValidationFailed => ({
  code: 'validation_failed',
  field,
  message,
});

/**
 * Thrown (not returned) by an adapter when its store cannot be reached or did not answer in
 * time. An outage is not an expected outcome of a rule, so it travels as an exception; the
 * HTTP adapter answers it with 503 `unavailable`.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The most characters of anything a client sent that a message quotes (docs/rules.md §3). */
export const QUOTE_LIMIT = 64;

/**
 * Client input as an error message may quote it: at most `QUOTE_LIMIT` code points, cut with `…`
 * (a lone surrogate is never split off its pair). Every message that repeats a property name, a
 * value or a path goes through here, so no error body grows with the request.
 */
export const quoteInput = (text: string): string => {
  let points = 0;
  let end = 0;
  for (const point of text) {
    if (points === QUOTE_LIMIT) return `${text.slice(0, end)}…`;
    points++;
    end += point.length;
  }
  return text;
};

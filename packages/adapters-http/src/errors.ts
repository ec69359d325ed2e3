import type { ErrorCode } from '@petstore/domain';

/** The one table from error code to HTTP status (docs/rules.md §3). */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  validation_failed: 400,
  malformed_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  temporarily_banned: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
  insufficient_storage: 507,
};

/** A failure the HTTP layer answers with an `Error` body; `headers` go out with it. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

/** The `Error` body of a failure: `status` repeats the HTTP status. */
export const errorBody = (code: ErrorCode, message: string): string =>
  JSON.stringify({ code, message, status: ERROR_STATUS[code] });

/** The first code of the status table for each status (400 → `validation_failed`, 429 → `rate_limited`…). */
const CODE_OF_STATUS: ReadonlyMap<number, ErrorCode> = new Map(
  (Object.entries(ERROR_STATUS) as [ErrorCode, number][]).reverse().map(([code, status]) => [status, code] as const),
);

/** The code a status that Koa or Node raised on its own is answered with: the table's first code for it, else `internal_error`. */
export const codeForStatus = (status: number): ErrorCode => CODE_OF_STATUS.get(status) ?? 'internal_error';

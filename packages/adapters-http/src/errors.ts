import type { ErrorCode } from '@petstore/domain';

/** The one table from error code to HTTP status (CONTRACT.md §3). */
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
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  temporarily_banned: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
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

/** Status codes Koa or Node may raise on their own, and the code each is answered with. */
export const codeForStatus = (status: number): ErrorCode => {
  switch (status) {
    case 400:
      return 'validation_failed';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 408:
      return 'request_timeout';
    case 409:
      return 'conflict';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 431:
      return 'headers_too_large';
    case 503:
      return 'unavailable';
    default:
      return 'internal_error';
  }
};

/** The whole request head must arrive within this (docs/rules.md §6: 10 s), else 408. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** A request's body must arrive within this once its headers are in (docs/rules.md §6: 30 s), else 408. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** A photo upload's body may take this long (docs/rules.md §6, §13: 120 s)… */
export const UPLOAD_BODY_TIMEOUT_MS = 120_000;
/** …as long as no pause between its bytes lasts this long (10 s), else 408. */
export const UPLOAD_STALL_TIMEOUT_MS = 10_000;
/** The largest request head Node's parser accepts (its default `maxHeaderSize`, set explicitly), else 431. */
export const HEADER_LIMIT_BYTES = 16 * 1024;

/** The 408 message, for the timeouts a server was given. */
export const requestTimeoutMessage = (headersTimeoutMs: number, requestTimeoutMs: number): string =>
  `the request did not arrive in time: send the headers within ${headersTimeoutMs / 1000} s and the whole request within ${requestTimeoutMs / 1000} s`;

/** The 408 message of a photo upload whose body was too slow or stalled. */
export const uploadTimeoutMessage = (totalMs: number, stallMs: number): string =>
  `the photo did not arrive in time: its body may take up to ${totalMs / 1000} s as long as bytes keep arriving, with no pause of ${stallMs / 1000} s`;

/** The 431 message. */
export const HEADERS_TOO_LARGE_MESSAGE = `the request headers are larger than ${HEADER_LIMIT_BYTES / 1024} KB`;

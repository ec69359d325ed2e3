/** The fields of the one log line written per request (message `request`). */
export interface RequestLogFields {
  readonly requestId: string;
  readonly method: string;
  /** `<METHOD> <route template>`, or `null` when no operation matched. */
  readonly route: string | null;
  readonly status: number;
  readonly durationMs: number;
  /** The key's public id, or the client address; `null` when the request never reached the gate. */
  readonly subject: string | null;
}

/** What the HTTP adapter needs of a logger; pino's `Logger` satisfies it. */
export interface HttpLogger {
  info(fields: Record<string, unknown>, message: string): void;
  /** A client's fault worth noting (malformed HTTP, too slow): never the service's own. */
  warn(fields: Record<string, unknown>, message: string): void;
  /** The service's own faults only (a bug, a store outage). */
  error(fields: Record<string, unknown>, message: string): void;
  /**
   * Writes the request line (at level info); when absent, `info(fields, 'request')` does. A
   * logger may write this one line its own faster way (see apps/server's log destination).
   */
  request?(fields: RequestLogFields): void;
}

/** How the request line of `logger` is written: its own `request` when it has one, else `info`. */
export const requestLogger = (logger: HttpLogger): ((fields: RequestLogFields) => void) =>
  logger.request !== undefined ? logger.request.bind(logger) : (fields) => logger.info({ ...fields }, 'request');

/** Discards everything: for embedders and tests that do not want log lines. */
export const silentLogger: HttpLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** The level a failure of a client's connection is logged at, when it is the client's fault. */
type ClientFaultLevel = 'info' | 'warn';

/** Codes of a client that went away mid-request (reset, closed, the connection ended mid-message): routine, `info`. */
const CLIENT_GONE = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'HPE_INVALID_EOF_STATE',
]);

/**
 * Whether a connection's failure is the client's fault, and at which level it is logged: `info`
 * for a client that went away, `warn` for HTTP that Node's parser refuses (`HPE_*`: a bad chunk
 * size, a malformed request line or header…) or a request not complete in time. `undefined`: not
 * a client's fault, logged at `error`.
 */
export const clientFaultLevel = (error: unknown): ClientFaultLevel | undefined => {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return undefined;
  if (CLIENT_GONE.has(code)) return 'info';
  return code.startsWith('HPE_') || code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'warn' : undefined;
};

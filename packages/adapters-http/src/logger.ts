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
export const silentLogger: HttpLogger = { info: () => {}, error: () => {} };

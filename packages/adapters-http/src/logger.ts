/** What the HTTP adapter needs of a logger; pino's `Logger` satisfies it. */
export interface HttpLogger {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** Discards everything: for embedders and tests that do not want log lines. */
export const silentLogger: HttpLogger = { info: () => {}, error: () => {} };

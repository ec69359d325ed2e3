import { pino, type Logger } from 'pino';
import type { RequestLogFields } from '@petstore/adapters-http';

/** What pino needs of a destination, and what `logger.flush` calls. */
interface LogDestination {
  write(line: string): boolean;
  flush(callback: (error?: Error | null) => void): void;
}

/** Pending log text that triggers a write at once (SonicBoom's own largest write). */
const LOG_BATCH_CHARS = 16_384;
/** The longest a log line waits before it is written. */
const LOG_BATCH_DELAY_MS = 100;

/**
 * The server's log destination: stdout through pino's asynchronous destination (SonicBoom), fed
 * in batches: lines are collected until 16 KiB are pending or 100 ms have passed since the first
 * of them, then handed over as one chunk.
 *
 * Why: every SonicBoom write that finds it idle becomes an `fs.write` on libuv's thread pool, a
 * thread wake-up and a system call on the same core as the server, and measures the text it is
 * given (`Buffer.byteLength`). One line per request made that about a tenth of the server's CPU
 * under load (profile in bench/analysis.md); in batches it is paid once per ~80 lines.
 * What this costs: a line reaches stdout up to 100 ms late. `logger.flush` and the process exit
 * (pino's exit hook, and ours for the batch) write everything pending first; only a process killed
 * outright (SIGKILL) can lose the last 100 ms of lines.
 */
const createLogDestination = (fd = 1): LogDestination => {
  // minLength 1, not 0: with 0, SonicBoom's `flush` calls back at once, before its asynchronous
  // write has finished; with 1 it writes as soon as anything is pending (as 0 would) and calls a
  // flush back only once that write is done ('drain').
  const out = pino.destination({ dest: fd, sync: false, minLength: 1 });
  let pending: string[] = [];
  let pendingChars = 0;
  let timer: NodeJS.Timeout | undefined;
  const handOver = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const chunk = pending.join('');
    pending = [];
    pendingChars = 0;
    out.write(chunk);
  };
  process.on('exit', () => {
    handOver();
    try {
      out.flushSync();
    } catch {
      // Not open yet, or already closed: nothing can be written.
    }
  });
  return {
    write(line) {
      pending.push(line);
      pendingChars += line.length;
      if (pendingChars >= LOG_BATCH_CHARS) handOver();
      else if (timer === undefined) timer = setTimeout(handOver, LOG_BATCH_DELAY_MS).unref();
      return true;
    },
    flush(callback) {
      handOver();
      out.flush(callback);
    },
  };
};

/** The fields every line of the server's log carries after `level` and `time`. */
const BASE = { service: 'petstore' } as const;
/** pino's number for `info`, the request line's level. */
const INFO = 30;

/** A string as JSON: quoted as it is when nothing in it needs escaping (the usual case), else by `JSON.stringify`. */
const PLAIN = /^[\w .:/{}@+-]*$/;
const jsonText = (text: string | null): string =>
  text === null ? 'null' : PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);

/**
 * The request line, exactly as pino writes `logger.info(fields, 'request')` with this logger's
 * base (a test holds the two equal, field by field and in order): built here, because it is
 * written once per request and pino's general serialiser (it walks the fields object, checks each
 * string for characters to escape, and joins the pieces) was the largest single item of a list
 * answer's cost (~16k of ~265k instructions; `pnpm bench:instr`). Its fields have a fixed shape,
 * and all but the subject are ours (request ids pass a strict pattern or are UUIDs, methods are
 * HTTP tokens, routes are templates), so the text needs a regular-expression check, not a walk.
 */
export const requestLine = (fields: RequestLogFields, time: number): string =>
  `{"level":${INFO},"time":${time},"service":"${BASE.service}","requestId":${jsonText(fields.requestId)},"method":${jsonText(fields.method)},` +
  `"route":${jsonText(fields.route)},"status":${fields.status},"durationMs":${fields.durationMs},"subject":${jsonText(fields.subject)},"msg":"request"}\n`;

/** The server's logger: pino, plus the request line written straight to the same destination. */
export type ServerLogger = Logger & { request(fields: RequestLogFields): void };

/** The server's logger: pino at `level`, one JSON line per entry on stdout, through `createLogDestination`. */
export const createServerLogger = (level: string): ServerLogger => {
  const destination = createLogDestination();
  const logger = pino({ level, base: BASE }, destination);
  return Object.assign(logger, {
    request(fields: RequestLogFields): void {
      if (logger.isLevelEnabled('info')) destination.write(requestLine(fields, Date.now()));
    },
  });
};

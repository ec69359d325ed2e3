import { pino, type Logger } from 'pino';

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

/** The server's logger: pino at `level`, one JSON line per entry on stdout, through `createLogDestination`. */
export const createServerLogger = (level: string): Logger => pino({ level, base: { service: 'petstore' } }, createLogDestination());

import { pino, type Logger } from 'pino';

/** What pino needs of a destination, and what `logger.flush` and the process exit call. */
export interface LogDestination {
  write(line: string): boolean;
  flush(callback: (error?: Error | null) => void): void;
}

/**
 * The server's log destination: stdout through pino's asynchronous destination (SonicBoom), fed
 * one chunk per turn of the event loop instead of one write per line.
 *
 * Why: every SonicBoom `write` measures the line and the chunk it joins (`Buffer.byteLength`,
 * which flattens a concatenated string) and, when no write is in flight, hands an `fs.write` to
 * libuv's thread pool (a thread wake-up). Under load one turn answers many requests; collecting
 * their lines in an array and handing them over once, at the end of the turn (`setImmediate`),
 * pays that per turn instead of per line. A line waits for no timer, only for the current turn to
 * end; `flush` (called by `logger.flush`) and the process exit hand over what is pending first.
 */
export const createLogDestination = (fd = 1): LogDestination => {
  const out = pino.destination({ dest: fd, sync: false });
  let pending: string[] = [];
  let scheduled = false;
  const handOver = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunk = pending.length === 1 ? pending[0]! : pending.join('');
    pending = [];
    out.write(chunk);
  };
  // pino's own exit hook flushes the SonicBoom synchronously; the lines of the last turn go first.
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
      if (!scheduled) {
        scheduled = true;
        setImmediate(handOver);
      }
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

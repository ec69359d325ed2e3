import type { IncomingMessage, ServerResponse } from 'node:http';
import { declaresBody } from './body.js';

/** How long a request's body may take to arrive, counted from the moment its headers are in (docs/rules.md §6). */
export interface BodyTimeouts {
  /** The whole body must be in within this many ms (0: no such rule). */
  readonly totalMs: number;
  /** No byte of it for this many ms cuts it too (none or 0: no such rule). */
  readonly stallMs?: number;
}

/** Requests whose body has an upload's time (`allowUploadBody`). */
const uploadBodies = new WeakSet<IncomingMessage>();

/**
 * Gives the body of `req` an upload's timeouts instead of a request's (docs/rules.md §6, §13: a
 * photo's body may take up to 120 s as long as bytes keep arriving). The upload admission calls it
 * when it admits an upload; `BodyDeadlines` reads it on each check.
 */
export const allowUploadBody = (req: IncomingMessage): void => {
  uploadBodies.add(req);
};

interface Watched {
  readonly arrivedAt: number;
  /** The connection's bytes read when last seen to grow, and when. */
  bytesRead: number;
  progressAt: number;
}

/**
 * The body deadlines of docs/rules.md §6, per request: Node's own `requestTimeout` is one number for
 * a whole server, and a photo upload may take longer than any other request. Every request that
 * has a body is watched from the moment its headers are in until the body is complete (or the
 * answer is over: a body the app did not read is then dropped with the connection): past
 * `request.totalMs` it is cut, or, for an upload (`allowUploadBody`), past `upload.totalMs` or after
 * `upload.stallMs` without a byte. Progress is the connection's bytes read (`socket.bytesRead`):
 * watching the body itself would consume it.
 *
 * `expire` does the cutting (the server answers 408 when it still can, and closes the connection);
 * it is told whether the body had an upload's timeouts.
 */
export class BodyDeadlines {
  private readonly watched = new Map<IncomingMessage, Watched>();
  private timer: NodeJS.Timeout | undefined;
  /** How often the deadlines are checked: every second, or a quarter of the shortest timeout when that is shorter. */
  readonly checkEveryMs: number;

  constructor(
    private readonly timeouts: { readonly request: BodyTimeouts; readonly upload: BodyTimeouts },
    private readonly expire: (req: IncomingMessage, uploading: boolean) => void,
  ) {
    const shortest = Math.min(
      ...[
        timeouts.request.totalMs,
        timeouts.upload.totalMs,
        timeouts.upload.stallMs ?? 0,
        timeouts.request.stallMs ?? 0,
      ].filter((ms) => ms > 0),
    );
    this.checkEveryMs = Math.max(10, Math.min(1_000, Math.floor(shortest / 4)));
  }

  /** Watches the body of `req` (nothing to do when it has none, or it is in already). */
  watch(req: IncomingMessage, res: ServerResponse): void {
    if (req.complete || !declaresBody(req.headers)) return;
    const at = performance.now();
    this.watched.set(req, { arrivedAt: at, bytesRead: req.socket.bytesRead, progressAt: at });
    res.once('close', () => this.watched.delete(req));
    this.timer ??= setInterval(() => this.check(), this.checkEveryMs).unref();
  }

  /** Cuts every body past its deadline; forgets the complete ones. */
  private check(): void {
    const now = performance.now();
    for (const [req, entry] of this.watched) {
      if (req.complete || req.destroyed) {
        this.watched.delete(req);
        continue;
      }
      const read = req.socket.bytesRead;
      if (read !== entry.bytesRead) {
        entry.bytesRead = read;
        entry.progressAt = now;
      }
      const uploading = uploadBodies.has(req);
      const { totalMs, stallMs } = uploading ? this.timeouts.upload : this.timeouts.request;
      // 0, as for Node's own timeouts: no such deadline.
      const late =
        (totalMs > 0 && now - entry.arrivedAt > totalMs) ||
        (stallMs !== undefined && stallMs > 0 && now - entry.progressAt > stallMs);
      if (!late) continue;
      this.watched.delete(req);
      this.expire(req, uploading);
    }
    if (this.watched.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Stops watching (the server closed). */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.watched.clear();
  }
}

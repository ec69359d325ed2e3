import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { PHOTO_BODY_LIMIT_BYTES } from '@petstore/domain';
import { declaresBody } from './body.js';
import { allowUploadBody } from './body-deadlines.js';
import { answerError } from './middleware/request-context.js';
import type { AppState } from './state.js';

/**
 * Photo uploads in flight at once, at most, unless told otherwise (docs/rules.md §13): as many as
 * the image processor lets wait for their turn (a burst of 20 small photos for one pet is served).
 */
const DEFAULT_UPLOADS_IN_FLIGHT = 32;
/**
 * Bytes of photo uploads in flight at once, at most, unless told otherwise: four of the largest
 * (the bound that matters for large photos: their bodies in memory, their decoding waiting).
 */
const DEFAULT_UPLOAD_BYTES_IN_FLIGHT = 4 * PHOTO_BODY_LIMIT_BYTES;
/** The `Retry-After` of an upload refused because too many are in flight, in seconds. */
export const UPLOAD_RETRY_AFTER_SECONDS = 5;

/** The bounds of `UploadAdmission`. */
export interface UploadBounds {
  /** Uploads in flight at once, at most (at least 1). */
  readonly uploads: number;
  /** Their bytes at once, at most (at least `PHOTO_BODY_LIMIT_BYTES`, so that any upload can be admitted on its own). */
  readonly bytes: number;
}

/** A place taken by an admitted upload; `release` gives it back (once: later calls do nothing). */
export interface UploadTicket {
  /** The bytes the upload was counted for. */
  readonly bytes: number;
  release(): void;
}

/**
 * The bytes an upload is counted for before a byte of its body is read: its declared
 * `Content-Length`, or the largest body a photo may have when it declares none (chunked).
 */
const uploadBytesOf = (req: IncomingMessage): number => {
  const declared = req.headers['content-length'];
  return declared === undefined ? PHOTO_BODY_LIMIT_BYTES : Math.min(PHOTO_BODY_LIMIT_BYTES, Number(declared));
};

/**
 * How many photo uploads the process works on at once (docs/rules.md §13), counted from before
 * their body is read until their answer is decided, by number and by bytes. Each upload's work
 * (its body in memory, its decoding, encoding and hashing) is bounded by the image processor's
 * own queue; this bound keeps a burst of uploads from reaching that far: past it an upload is
 * refused at once, unread, so the rest of the API keeps its pace whatever arrives.
 */
export class UploadAdmission {
  private uploads = 0;
  private bytes = 0;
  readonly bounds: UploadBounds;

  constructor(bounds: Partial<UploadBounds> = {}) {
    const uploads = bounds.uploads ?? DEFAULT_UPLOADS_IN_FLIGHT;
    const bytes = bounds.bytes ?? DEFAULT_UPLOAD_BYTES_IN_FLIGHT;
    if (!Number.isInteger(uploads) || uploads < 1)
      throw new RangeError(`uploads in flight must be a whole number of at least 1 (got ${uploads})`);
    if (!Number.isInteger(bytes) || bytes < PHOTO_BODY_LIMIT_BYTES) {
      throw new RangeError(
        `bytes in flight must be a whole number of at least ${PHOTO_BODY_LIMIT_BYTES} (one photo of the largest size; got ${bytes})`,
      );
    }
    this.bounds = { uploads, bytes };
  }

  /** The uploads in flight now, and their bytes. */
  get inFlight(): { readonly uploads: number; readonly bytes: number } {
    return { uploads: this.uploads, bytes: this.bytes };
  }

  /**
   * Takes a place for an upload of `bytes` (at most `PHOTO_BODY_LIMIT_BYTES`): a ticket when one
   * more upload and its bytes stay within both bounds, `undefined` otherwise (nothing taken).
   */
  tryEnter(bytes: number): UploadTicket | undefined {
    if (this.uploads + 1 > this.bounds.uploads || this.bytes + bytes > this.bounds.bytes) return undefined;
    this.uploads += 1;
    this.bytes += bytes;
    let held = true;
    return {
      bytes,
      release: () => {
        if (!held) return;
        held = false;
        this.uploads -= 1;
        this.bytes -= bytes;
      },
    };
  }
}

/** How long a refused upload's connection stays open after its answer, its body unread, before it closes. */
const LINGER_MS = 1_000;

/**
 * Closes the connection of a request answered without reading its body (`Connection: close`)
 * without reading the body still coming, but not at once. Node would end it as soon as the answer
 * is written, reading and dropping the body meanwhile; closing a connection with unread bytes
 * resets it, and a client still writing its body (no `Expect: 100-continue`) then often fails on
 * that write before it reads the answer (about one in three, measured on loopback with node:http).
 * Instead the request stops being read (the body stays in the kernel's buffers, the client's
 * writes block), our side ends, and the connection is closed `LINGER_MS` later, or when the client
 * closes it first: the answer has arrived by then.
 */
const closeUnread = (req: IncomingMessage): void => {
  const socket = req.socket;
  // Node calls `destroySoon` once the answer is written (after resuming the request to drop its body).
  socket.destroySoon = () => {
    req.pause();
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
};

/** The message of the 503 an upload gets when too many are in flight. */
export const tooManyUploadsMessage = (retryAfterSeconds: number): string =>
  `too many photos are being processed right now; nothing was read or stored, retry in ${retryAfterSeconds} seconds`;

/**
 * The step before a photo upload's body is read (docs/rules.md §13): an upload by an admin key
 * that has a body takes a place in `admission` for the whole of its work (released however it
 * ends: answered, refused, failed, cut off or timed out), and its body gets an upload's time to
 * arrive (`allowUploadBody`: up to 120 s as long as bytes keep coming, docs/rules.md §6). When no
 * place is free it is answered 503 `unavailable` at once, with `Retry-After` and `Connection:
 * close`, its body never read (a client that sent `Expect: 100-continue` never gets its 100; one
 * that sent it anyway gets a moment to read the answer before the close: `closeUnread`).
 *
 * A client key's upload takes no place: it is refused 403 before its body is read (docs/rules.md
 * §4, §13), and a busy server must not answer it 503 in place of that 403. Nor does an upload
 * without a body (a 400 that reads nothing).
 */
export const admitUploads = (
  admission: UploadAdmission,
  retryAfterSeconds = UPLOAD_RETRY_AFTER_SECONDS,
): Middleware<AppState> =>
  async function admitUpload(ctx, next) {
    if (ctx.state.caller?.role !== 'admin' || !declaresBody(ctx.req.headers)) return next();
    const ticket = admission.tryEnter(uploadBytesOf(ctx.req));
    if (ticket === undefined) {
      ctx.set('Retry-After', String(retryAfterSeconds));
      ctx.set('Connection', 'close');
      answerError(ctx, 'unavailable', tooManyUploadsMessage(retryAfterSeconds));
      closeUnread(ctx.req);
      return;
    }
    allowUploadBody(ctx.req);
    try {
      await next();
    } finally {
      ticket.release();
    }
  };

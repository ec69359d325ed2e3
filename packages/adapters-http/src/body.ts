import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { ParameterizedContext } from 'koa';
import { HttpError } from './errors.js';
import type { AppState } from './state.js';

/** Largest request body accepted (docs/rules.md §1). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Whether a request's headers declare a body over `limit` bytes (docs/rules.md §6: refused at once, unread). */
export const declaresOverLimit = (headers: IncomingHttpHeaders, limit: number): boolean =>
  Number(headers['content-length'] ?? 0) > limit;

/** The 413 of a body over `limit` bytes. */
export const tooLarge = (limit: number): HttpError =>
  new HttpError('payload_too_large', `the body is larger than ${limit} bytes`);

const JSON_MEDIA_TYPE = /^application\/json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** A declared body over this many bytes is read into one buffer of its declared size. */
const LARGE_BODY_BYTES = 64 * 1024;

/** What the body readers need of a request's context: its request, its response, and its state. */
type BodyContext = Pick<ParameterizedContext<AppState>, 'req' | 'res' | 'state'>;

/** Whether a request's headers say it has a body (a length other than 0, or chunks). */
export const declaresBody = (headers: IncomingHttpHeaders): boolean => {
  const declared = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (declared !== undefined && Number(declared) !== 0);
};

/** The largest body the request's route takes (its `bodyLimit`), `BODY_LIMIT_BYTES` (1 MiB) without one. */
const limitOf = (ctx: BodyContext): number => ctx.state.routeSettings?.bodyLimit ?? BODY_LIMIT_BYTES;

/**
 * The body's bytes under docs/rules.md §1: `application/json` only (415, refused before any of the
 * body is read), at most the route's limit (413 as soon as the stream passes it); `undefined` when
 * the request has no body. Read at most once per request: later calls get the same bytes (or the
 * same refusal).
 */
export const readBodyBytes = (ctx: BodyContext): Promise<Buffer | undefined> => {
  const { headers } = ctx.req;
  if (!declaresBody(headers)) return Promise.resolve(undefined);
  const type = headers['content-type'] ?? '';
  const charset = CHARSET.exec(type)?.[1]?.toLowerCase();
  if (!JSON_MEDIA_TYPE.test(type) || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    return Promise.reject(new HttpError('unsupported_media_type', 'send the body as application/json (UTF-8)'));
  }
  return readRawBody(ctx);
};

/**
 * The body's bytes whatever its media type, at most the route's limit (413 as soon as the stream
 * passes it: the bytes past the limit are never kept). For the idempotency fingerprint (§10), which
 * also covers a body refused with 415; the route's `readBodyBytes` then gets the same bytes (kept in
 * `ctx.state.body`: a request's body is read once).
 */
export const readRawBody = (ctx: BodyContext): Promise<Buffer | undefined> =>
  (ctx.state.body ??= readBytes(ctx.req, ctx.res, limitOf(ctx)));

const readBytes = async (req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer | undefined> => {
  // A declared length over the route's limit never gets here: the gate refuses it on every path.
  if (!declaresBody(req.headers)) return undefined;
  // The connection went (the client left, or its body was cut for being too slow) before the body
  // was read: no event will come any more, so waiting for one would hold the request for ever.
  if (req.destroyed) throw new HttpError('validation_failed', 'the request body ended before it was complete');

  // `Expect: 100-continue`: the client is invited to send the body only now, once everything
  // before it (credential, rate limit, size, and the media type unless the body is read for an
  // idempotency fingerprint) has passed.
  if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
  const chunks: Buffer[] = [];
  let size = 0;
  // A large declared body (a photo) is copied into one buffer of its size as it arrives: no list of
  // chunks kept, no second copy to join them (megabytes less for the collector per upload).
  const declared = Number(req.headers['content-length'] ?? 0);
  const whole = declared > LARGE_BODY_BYTES && declared <= limit ? Buffer.allocUnsafe(declared) : undefined;
  await new Promise<void>((resolve, reject) => {
    const done = (error?: unknown): void => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        // Stop collecting, answer at once; the connection closes after the answer.
        done(tooLarge(limit));
      } else if (whole !== undefined) chunk.copy(whole, size - chunk.length);
      else chunks.push(chunk);
    };
    const onEnd = (): void => done();
    const onClose = (): void => {
      if (!req.complete) done(new HttpError('validation_failed', 'the request body ended before it was complete'));
    };
    // A client that goes away mid-body is a bad request, not a fault of the service.
    const onError = (): void =>
      done(new HttpError('validation_failed', 'the request body ended before it was complete'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
  if (size === 0) return undefined;
  if (whole !== undefined) return size === whole.length ? whole : whole.subarray(0, size);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
};

/**
 * Reads a JSON request body under docs/rules.md §1 (see `readBodyBytes`), UTF-8 (`malformed_json`
 * otherwise), parsed with `JSON.parse`, which makes `__proto__` an own property and never
 * touches a prototype. Returns `undefined` when the request has no body.
 */
export const readJsonBody = async (ctx: BodyContext): Promise<unknown> => {
  const bytes = await readBodyBytes(ctx);
  if (bytes === undefined) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError('malformed_json', 'the body is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError('malformed_json', 'the body is not valid JSON');
  }
};

import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { checkIdempotencyKey, type IdempotentRequests, type KeptAnswer } from '@petstore/domain';
import { errorBody, HttpError } from '../errors.js';
import { answerJson } from '../answer.js';
import { BODY_LIMIT_BYTES, declaresOverLimit, readRawBody, tooLarge } from '../body.js';
import { sha256HexInSlices } from '../digest.js';
import type { HttpLogger } from '../logger.js';
import type { AppState } from '../state.js';

const EMPTY_SHA256 = createHash('sha256').digest('hex');

type Ctx = Context & { state: AppState };

/**
 * The step of every create registered as an `idempotentCreate` (`ApiRouter` puts it just before
 * the create itself, after any role check). A declared body over the route's limit, which the gate
 * leaves to this step on a create by a known key, is answered 413 here, unread, and kept under the
 * key like any answer (docs/rules.md §6, §10). Without `requests` (an embedder that configured no
 * idempotency) the key is ignored.
 *
 * No key → the create runs as is. A key (checked: 1–255 printable ASCII, else 400) is
 * scoped by the caller's API key; the request's fingerprint (method, path, SHA-256 of the body's
 * bytes, or "over 1 MiB": see `fingerprintOf`) decides between processing it, replaying the answer kept for it (with
 * `Idempotent-Replayed: true`, creating nothing), or refusing it (422 another request, 409 still
 * in progress). The route creates under the claim's creation token (`ctx.state.creation`), and
 * answers what an earlier attempt created under it, if any (docs/rules.md §10: a create never happens
 * twice under one key). The answer is then kept, or the claim ended, as the domain's rule says.
 */
export const underIdempotencyKey = (
  requests: IdempotentRequests | undefined,
  logger: HttpLogger,
): Middleware<AppState> =>
  async function underIdempotencyKey(ctx, next) {
    const limit = ctx.state.routeSettings?.bodyLimit ?? BODY_LIMIT_BYTES;
    const run = declaresOverLimit(ctx.headers, limit) ? () => Promise.reject(tooLarge(limit)) : next;
    const raw = ctx.req.headers['idempotency-key'];
    if (requests === undefined || raw === undefined) {
      await run();
      return;
    }
    const key = checkIdempotencyKey(Array.isArray(raw) ? raw.join(', ') : raw);
    if (!key.ok) throw new HttpError(key.error.code, key.error.message);
    const caller = ctx.state.caller;
    if (key.value === undefined || caller === undefined) {
      await run();
      return;
    }

    const fingerprint = await fingerprintOf(ctx, requests);

    const started = await requests.start(caller.keyId, key.value, fingerprint);
    if (started.kind === 'refused') throw new HttpError(started.error.code, started.error.message);
    if (started.kind === 'replay') {
      answerReplayed(ctx, started.answer);
      return;
    }

    const { ticket } = started;
    // The route creates under this token, and answers what an earlier attempt created under it, if any.
    ctx.state.creation = ticket.creation;
    let answer: KeptAnswer;
    try {
      await run();
      const text = typeof ctx.body === 'string' ? ctx.body : JSON.stringify(ctx.body ?? null);
      const location = ctx.response.get('Location');
      answer = location === '' ? { status: ctx.status, body: text } : { status: ctx.status, body: text, location };
    } catch (error) {
      if (!(error instanceof HttpError)) {
        // An outage or a bug: a 5xx, never kept; a retry runs again, under the same creation token.
        await requests.abandon(ticket).catch(() => undefined);
        throw error;
      }
      await keep(
        requests,
        ticket,
        { status: error.status, body: errorBody(error.code, error.message) },
        logger,
        ctx.state.requestId,
      );
      throw error;
    }
    await keep(requests, ticket, answer, logger, ctx.state.requestId);
  };

/**
 * Answers a request as a replay (docs/rules.md §10): the status, body and `Location` of the answer
 * first given (a kept answer, or a create found under the request's creation token), with
 * `Idempotent-Replayed: true`.
 */
export const answerReplayed = (ctx: Context, answer: KeptAnswer): void => {
  answerJson(ctx, answer.body, answer.status);
  if (answer.location !== undefined) ctx.set('Location', answer.location);
  ctx.set('Idempotent-Replayed', 'true');
};

/**
 * The request's fingerprint, as far as the service sees the request (docs/rules.md §10 keeps every
 * answer below 500 but 401, 403, 408, 429 and the in-progress 409, so 413 and 415 too):
 * - a body within 1 MiB: method, path and the SHA-256 of its bytes, whatever its media type. A body
 *   that is not `application/json` is read for this (never more than 1 MiB), then refused with 415
 *   by the route as usual; that 415 is kept. The media type is not part of the fingerprint (the
 *   contract's "same request" is method, path and body): the same bytes resent as
 *   `application/json` with the same key get the kept 415; a fixed request takes a new key.
 * - a body over 1 MiB: `oversizedFingerprint`, "this method and path with a body over
 *   1 MiB", no body bytes. A declared length over the limit is never read (the gate answers its
 *   413 at once, through here); a chunked body passing the limit stops being read there, no byte
 *   past it kept. The same oversized request repeated gets the kept 413 (`Idempotent-Replayed`);
 *   the same key with a body within the limit is another request (422).
 * - a body cut short (the client went away): no fingerprint, the 400 is answered and not kept.
 */
const fingerprintOf = async (ctx: Ctx, requests: IdempotentRequests): Promise<string> => {
  // The route's limit (a photo upload: 10 MiB, docs/rules.md §13, whose body's SHA-256 is its fingerprint too).
  const limit = ctx.state.routeSettings?.bodyLimit ?? BODY_LIMIT_BYTES;
  if (declaresOverLimit(ctx.headers, limit)) return requests.oversizedFingerprint(ctx.method, ctx.path);
  let body: Buffer | undefined;
  try {
    body = await readRawBody(ctx);
  } catch (error) {
    if (error instanceof HttpError && error.code === 'payload_too_large')
      return requests.oversizedFingerprint(ctx.method, ctx.path);
    throw error;
  }
  // A photo's 10 MiB are hashed in slices: the event loop keeps serving meanwhile (docs/rules.md §13).
  const bodySha256 = body === undefined ? EMPTY_SHA256 : await sha256HexInSlices(body);
  return requests.fingerprint(ctx.method, ctx.path, bodySha256);
};

/**
 * Keeps the answer (or ends the claim). When the store fails here, the request itself has already
 * been processed: its answer still goes out (a 503 would only make the client retry), and a repeat
 * takes the claim over when its lease ends and answers what this request created, found by its token.
 */
const keep = async (
  requests: IdempotentRequests,
  ticket: Parameters<IdempotentRequests['finish']>[0],
  answer: KeptAnswer,
  logger: HttpLogger,
  requestId: string,
): Promise<void> => {
  try {
    await requests.finish(ticket, answer);
  } catch (error) {
    logger.error(
      { requestId, err: error instanceof Error ? { name: error.name, message: error.message } : String(error) },
      'idempotency answer not kept',
    );
  }
};

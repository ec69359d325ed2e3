import type { ParameterizedContext } from 'koa';

/** The media type of every JSON answer of the API. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers `body` (JSON text, or its UTF-8 bytes), with `status` when it is not 200. The Content-Type goes straight
 * onto the response: Koa's `ctx.type` setter looks its value up (mime tables behind an LRU cache)
 * on every call, for a value that never changes. Koa's `body` setter keeps a Content-Type already
 * set and adds the Content-Length.
 */
export const answerJson = (ctx: ParameterizedContext<unknown>, body: string | Buffer, status?: number): void => {
  if (status !== undefined) ctx.status = status;
  ctx.res.setHeader('Content-Type', JSON_TYPE);
  ctx.body = body;
};

import type { ParameterizedContext } from 'koa';

/** The media type of every JSON answer of the API. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers `body` (JSON text, or its UTF-8 bytes), with `status` when it is not 200. The media type
 * is set as the header it is (`ctx.type` would look a full media type up in its tables to give it
 * back unchanged); Koa's `body` setter keeps a Content-Type already set and adds the Content-Length.
 */
export const answerJson = (ctx: ParameterizedContext<unknown>, body: string | Buffer, status?: number): void => {
  if (status !== undefined) ctx.status = status;
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = body;
};

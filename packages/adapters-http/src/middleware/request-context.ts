import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { StoreUnavailableError } from '@petstore/domain';
import { codeForStatus, errorBody, ERROR_STATUS, HttpError } from '../errors.js';
import { answerJson } from '../answer.js';
import { declaresBody } from '../body.js';
import { requestLogger, type HttpLogger } from '../logger.js';
import { UNMATCHED_ROUTE, type HttpMetrics } from '../metrics.js';
import type { AppState } from '../state.js';

const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Seconds a client waits before retrying while the store is out. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * The outermost middleware: request id in and out, one log line per request, and the one place
 * where every failure becomes an `Error` body. Unknown failures answer 500 with nothing
 * internal in the body, and are logged with the request id. Every answer is counted in `metrics`
 * under its route template (`unmatched` when no operation matched).
 */
export const requestContext = (logger: HttpLogger, metrics: HttpMetrics): Middleware<AppState> => {
  const logRequest = requestLogger(logger);
  return async function requestContext(ctx, next) {
    const started = performance.now();
    const incoming = ctx.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && WELL_FORMED_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } catch (error) {
      if (error instanceof HttpError) {
        ctx.set(error.headers);
        answerError(ctx, error.code, error.message);
      } else if (error instanceof StoreUnavailableError) {
        ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        answerError(ctx, 'unavailable', 'the pet store is unavailable right now; retry shortly');
        logger.error({ requestId, err: { name: error.name, message: error.message } }, 'store unavailable');
      } else {
        const status = (error as { status?: unknown }).status;
        const expose =
          (error as { expose?: unknown }).expose === true &&
          typeof status === 'number' &&
          status >= 400 &&
          status < 500;
        if (expose) {
          answerError(ctx, codeForStatus(status), (error as Error).message);
        } else {
          answerError(ctx, 'internal_error', `an internal error occurred; quote request id ${requestId}`);
          logger.error(
            {
              requestId,
              err:
                error instanceof Error
                  ? { name: error.name, message: error.message, stack: error.stack }
                  : String(error),
            },
            'unhandled error',
          );
        }
      }
    }
    // A body left unread (the request was refused before its body mattered) is not drained:
    // the connection closes after the answer instead.
    if (!ctx.req.complete && declaresBody(ctx.headers)) ctx.set('Connection', 'close');
    const seconds = (performance.now() - started) / 1000;
    const route = ctx.state.route;
    // `route` is `<METHOD> <template>`: the label is the template alone.
    metrics.request(
      ctx.method,
      route === undefined ? UNMATCHED_ROUTE : route.slice(route.indexOf(' ') + 1),
      ctx.status,
      seconds,
    );
    logRequest({
      requestId,
      method: ctx.method,
      route: ctx.state.route ?? null,
      status: ctx.status,
      durationMs: Math.round(seconds * 1_000_000) / 1000,
      subject: ctx.state.subjectTag ?? null,
    });
  };
};

export const answerError = (
  ctx: Parameters<Middleware<AppState>>[0],
  code: Parameters<typeof errorBody>[0],
  message: string,
): void => answerJson(ctx, errorBody(code, message), ERROR_STATUS[code]);

import type { Middleware } from 'koa';
import { quoteInput } from '@petstore/domain';
import { answerJson } from './answer.js';
import { answerError, UNAVAILABLE_RETRY_AFTER_SECONDS } from './middleware/request-context.js';
import type { AppState } from './state.js';

const ALLOW = 'GET, HEAD, OPTIONS';

/**
 * The probes of docs/rules.md §6 and the OpenAPI document (§2): `GET /healthz`, `GET /readyz` (the
 * store answers, via `isReady`) and `GET /v1/openapi.json` (`openApi`, the document's JSON). No
 * credential, not rate-limited: they are answered before the gate. On their paths `OPTIONS` and
 * other methods are answered as on every known path (204, 405 with `Allow`); any other path goes on.
 */
export const probes = (isReady: () => Promise<boolean>, openApi: string): Middleware<AppState> => {
  const answers = new Map<string, (ctx: Parameters<Middleware<AppState>>[0]) => Promise<void> | void>([
    ['/healthz', (ctx) => answerJson(ctx, '{"status":"ok"}')],
    [
      '/readyz',
      async (ctx) => {
        if (await isReady()) return answerJson(ctx, '{"status":"ready"}');
        ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        answerError(ctx, 'unavailable', 'the pet store cannot be reached');
      },
    ],
    ['/v1/openapi.json', (ctx) => answerJson(ctx, openApi)],
  ]);
  return function probes(ctx, next) {
    const answer = answers.get(ctx.path);
    if (answer === undefined) return next();
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', ALLOW);
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', ALLOW);
      answerError(ctx, 'method_not_allowed', `${quoteInput(ctx.method)} is not allowed here; use ${ALLOW}`);
      return;
    }
    // `HEAD` is answered by the same route as `GET`, and logged as it.
    ctx.state.route = `GET ${ctx.path}`;
    return answer(ctx);
  };
};

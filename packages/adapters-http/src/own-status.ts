import type { OwnStatus } from '@petstore/domain';
import { answerJson } from './answer.js';
import type { ApiRouter } from './api-router.js';

const isoFromSeconds = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString();

/** The `OwnStatus` body of docs/rules.md §14; times in RFC 3339 UTC. */
const serializeOwnStatus = (status: OwnStatus): string =>
  JSON.stringify({
    keyId: status.caller.keyId,
    role: status.caller.role,
    plan: status.plan,
    quota: { perMinute: status.quota.perMinute, perDay: status.quota.perDay },
    windows: status.windows.map((w) => ({
      name: w.name,
      limit: w.limit,
      remaining: w.remaining,
      resetAt: isoFromSeconds(w.resetAt),
    })),
    bannedUntil: status.bannedUntil === undefined ? null : new Date(status.bannedUntil).toISOString(),
  });

/**
 * `GET /v1/me` (docs/rules.md §14), admitted by its own status: the gate's `quota` does the work
 * before this runs (the look's allowance, the rate-limit headers, the read of the key's windows)
 * and leaves the status in `ctx.state.ownStatus`; the route answers it.
 */
export const addOwnStatusRoute = (routes: ApiRouter): void => {
  routes.get({ name: 'getMe', path: '/v1/me', admission: 'own-status', publishable: true }, (ctx) => {
    const status = ctx.state.ownStatus;
    if (status === undefined) throw new Error('GET /v1/me ran without the status the gate reads');
    answerJson(ctx, serializeOwnStatus(status));
  });
};

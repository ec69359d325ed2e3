/**
 * The OpenAPI part of own-status.ts: `GET /me` (docs/rules.md §14, tag `me`, beta, any key), and its schema.
 */
import { OWN_STATUS_QUOTA, OwnStatusSchema, PLAN_QUOTAS } from '@petstore/domain';
import {
  BETA,
  COMMON_HEADERS,
  errorExample,
  errorResponse,
  ref,
  sharedErrors,
  withExample,
  withHeaders,
  type OpenApiPart,
} from './openapi-shared.js';

/** `GET /me` of docs/rules.md §14 (tag `me`, beta, any key). */
const ownStatusPaths = () => {
  const allowance = `${OWN_STATUS_QUOTA.perMinute} a minute`;
  const free = PLAN_QUOTAS.free;
  const window = (name: 'minute' | 'day', limit: number, remaining: number, resetAt: string) => ({
    name,
    limit,
    remaining,
    resetAt,
  });
  return {
    '/me': {
      get: {
        operationId: 'getMe',
        summary: "Your key's plan, windows and ban",
        description:
          "The calling key (client, admin or publishable; a publishable key: its visitor's windows, docs/rules.md §16): its public id, role, plan and quota, each window's limit, what is left and when it resets, and the end of a running ban. " +
          'It takes nothing from your windows and answers 200 also while you are over your limit or banned: see why you get 429 and until when, without making it worse. ' +
          'The rate-limit headers describe your windows as they stand without this request. ' +
          `It has an allowance of its own, ${allowance} per key: past it, 429 \`rate_limited\` with \`Retry-After\` and the allowance's numbers in the headers, never a ban. ` +
          `A missing or invalid key gets 401, counted against the client address like any request without a valid key. ${BETA}`,
        tags: ['me'],
        'x-stability': 'beta',
        responses: {
          '200': withHeaders(
            COMMON_HEADERS,
            withExample(
              {
                description: 'Where the key stands, without this request.',
                content: { 'application/json': { schema: ref('schemas', 'OwnStatus') } },
              },
              'free',
              {
                summary: 'A free key 3 requests into the minute',
                value: {
                  keyId: 'key_3f2a9c81d04b',
                  role: 'client',
                  plan: 'free',
                  quota: { perMinute: free.perMinute, perDay: free.perDay },
                  windows: [
                    window('minute', free.perMinute, free.perMinute - 3, '2027-01-01T09:31:00.000Z'),
                    window('day', free.perDay, free.perDay - 41, '2027-01-02T00:00:00.000Z'),
                  ],
                  bannedUntil: null,
                },
              },
            ),
          ),
          ...sharedErrors,
          '429': withExample(
            errorResponse(
              ['rate_limited', 'temporarily_banned'],
              `Past this operation's own allowance (${allowance} per key): \`rate_limited\`, never a ban. Without a valid key, the client address is over its limit or banned.`,
              ['Retry-After'],
            ),
            'allowance',
            errorExample(
              'rate_limited',
              `rate limit of ${OWN_STATUS_QUOTA.perMinute} requests per minute on GET /v1/me exceeded; retry in 17 seconds`,
            ),
          ),
        },
      },
    },
  };
};

export const ownStatusPart = (): OpenApiPart => ({ paths: ownStatusPaths(), schemas: { OwnStatus: OwnStatusSchema } });

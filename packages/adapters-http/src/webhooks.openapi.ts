/**
 * The OpenAPI part of webhooks.ts (docs/rules.md §15 "Webhooks", tag `events`, beta, admin keys
 * only): the seven operations, the schemas of a subscription and of an attempt, and the callback a
 * receiver implements (the signed delivery).
 */
import {
  CreatedWebhookSchema,
  ListWebhooksQuerySchema,
  NewWebhookSchema,
  WEBHOOK_DELIVERIES_KEPT,
  WebhookDeliverySchema,
  WebhookIdSchema,
  WebhookPatchSchema,
  WebhookSchema,
} from '@petstore/domain';
import {
  BETA,
  BODY_TOO_LARGE,
  COMMON_HEADERS,
  errorResponse,
  header,
  ref,
  sharedErrors,
  withHeaders,
  type OpenApiPart,
} from './openapi-shared.js';

const EXAMPLE = {
  id: 'wh_5f0c2a9e7b1d4c3a8e6f0b2d',
  url: 'https://shelter.example/hooks/petstore',
  types: ['pet.created', 'order.delivered'],
  description: "The shelter's web site",
  enabled: true,
  pausedReason: null,
  createdAt: '2027-01-02T09:00:00.000Z',
};
/** The shape of a secret (`whsec_` + base64 of 32 bytes), plainly not a real one. */
const EXAMPLE_SECRET = `whsec_${'EXAMPLEnotArealSecret'.padEnd(43, 'x')}=`;
const PAUSED = {
  ...EXAMPLE,
  enabled: false,
  pausedReason:
    'paused after 8 failed attempts over 32 h at event 1043 (the last: 503 Service Unavailable); PATCH {"enabled": true} resumes at that event',
};
const DELIVERIES = [
  {
    eventId: 'evt_mbx2k1q0a4c1e3a5b7d9f1e3',
    sequence: 42,
    attempt: 2,
    at: '2027-01-02T10:00:05.310Z',
    status: 204,
    outcome: 'delivered',
    durationMs: 38,
  },
  {
    eventId: 'evt_mbx2k1q0a4c1e3a5b7d9f1e3',
    sequence: 42,
    attempt: 1,
    at: '2027-01-02T10:00:00.120Z',
    status: 503,
    outcome: 'failed',
    durationMs: 12,
    error: 'the receiver answered 503',
  },
];

const webhookPaths = () => {
  const adminOnly = { tags: ['events'], 'x-stability': 'beta', security: [{ adminKey: [] }] };
  const beta = `Needs an admin key; a client key gets 403 before anything is read. ${BETA}`;
  const json = (schema: string, value: unknown) => ({
    'application/json': { schema: ref('schemas', schema), example: value },
  });
  const { description: idDescription, ...idSchema } = WebhookIdSchema;
  const idParam = {
    name: 'webhookId',
    in: 'path',
    required: true,
    description: idDescription,
    schema: idSchema,
    example: EXAMPLE.id,
  };
  const pageParam = (name: 'limit' | 'cursor') => {
    const { description, ...schema } = ListWebhooksQuerySchema.properties[name];
    return { name, in: 'query', required: false, description, schema };
  };
  const badRequest = errorResponse(
    ['validation_failed', 'malformed_json'],
    'The request breaks a rule; the message names the field and why (for `url`: which rule, e.g. the address class its host resolves to).',
    [],
    'the host resolves to 10.0.0.5, a private address',
  );
  const badId = errorResponse(['validation_failed'], 'webhookId is not `wh_` and 24 lowercase hex digits.');
  const notFound = errorResponse(['not_found'], 'No subscription has this id (or it was deleted).');
  const bodyErrors = {
    '413': errorResponse(['payload_too_large'], BODY_TOO_LARGE),
    '415': errorResponse(['unsupported_media_type'], 'The body is not application/json.'),
  };
  const withSecret = {
    Location: ref('headers', 'Location-Webhook'),
    'Cache-Control': ref('headers', 'Cache-Control-Secret'),
  };
  return {
    '/webhooks': {
      get: {
        ...adminOnly,
        operationId: 'listWebhooks',
        summary: 'List webhook subscriptions',
        description: `Every subscription, in order of creation, paged like \`GET /pets\`: at most \`limit\`, and \`Link: <…>; rel="next"\` while more exist. Never a secret. ${beta}`,
        parameters: [pageParam('limit'), pageParam('cursor')],
        responses: {
          '200': withHeaders(COMMON_HEADERS, {
            description: 'A page of subscriptions.',
            headers: { Link: ref('headers', 'Link-Next') },
            content: json('Webhooks', [EXAMPLE, PAUSED]),
          }),
          '400': badRequest,
          '403': ref('responses', 'Forbidden'),
          ...sharedErrors,
        },
      },
      post: {
        ...adminOnly,
        operationId: 'createWebhook',
        summary: 'Subscribe a URL to the feed',
        description:
          'Delivers the events after the last one at this moment (or after `after`) to `url`, one at a time in `sequence` order, each as a signed `POST` (Standard Webhooks; see the `event` callback). ' +
          'A delivery succeeds with a 2xx within 10 s; a failure is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (±20 %), then the subscription pauses with its reason and nothing is dropped. ' +
          `The answer is the only place the \`secret\` appears (\`Cache-Control: no-store\`): store it now. Takes no \`Idempotency-Key\`. ${beta}`,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'NewWebhook'),
              examples: {
                all: { summary: 'Every event, from now on', value: { url: EXAMPLE.url } },
                some: {
                  summary: 'Two types, with a description',
                  value: { url: EXAMPLE.url, types: EXAMPLE.types, description: EXAMPLE.description },
                },
                earlier: { summary: 'From an earlier event on', value: { url: EXAMPLE.url, after: 1042 } },
              },
            },
          },
        },
        responses: {
          '201': withHeaders(COMMON_HEADERS, {
            description: 'The subscription, with its secret shown this once.',
            headers: withSecret,
            content: json('CreatedWebhook', { ...EXAMPLE, secret: EXAMPLE_SECRET }),
          }),
          '400': badRequest,
          '403': ref('responses', 'Forbidden'),
          ...bodyErrors,
          ...sharedErrors,
        },
        callbacks: {
          event: {
            '{$request.body#/url}': {
              post: {
                summary: 'A delivery: one event, signed',
                description:
                  'The body is the `Event` as `GET /events` shows it. Headers (Standard Webhooks 1.0): `webhook-id` (the event id, the same on every attempt: drop repeats), `webhook-timestamp` (Unix seconds of the attempt), `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the base64-decoded part of the secret after `whsec_`; two, space-separated, for 24 h after a rotation), `User-Agent: petstore-webhooks/<version>`. ' +
                  'Verify it with any Standard Webhooks library (e.g. the `standardwebhooks` npm package). Answer 2xx within 10 s; 410 pauses the subscription; anything else is retried. Redirects are not followed.',
                parameters: [
                  { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' } },
                  {
                    name: 'webhook-timestamp',
                    in: 'header',
                    required: true,
                    schema: { type: 'string', pattern: '^[0-9]+$' },
                  },
                  {
                    name: 'webhook-signature',
                    in: 'header',
                    required: true,
                    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
                  },
                ],
                requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'Event') } } },
                responses: {
                  '2XX': { description: 'Delivered: the next event follows.' },
                  '410': { description: 'Gone: the subscription pauses (nothing dropped; resume it with `PATCH`).' },
                  default: { description: 'Not delivered: the same event is sent again on the retry schedule.' },
                },
              },
            },
          },
        },
      },
    },
    '/webhooks/{webhookId}': {
      parameters: [idParam],
      get: {
        ...adminOnly,
        operationId: 'getWebhook',
        summary: 'Fetch one webhook subscription',
        description: `Its URL, types, description, whether it delivers and why it paused. Never its secret. ${beta}`,
        responses: {
          '200': withHeaders(COMMON_HEADERS, { description: 'The subscription.', content: json('Webhook', EXAMPLE) }),
          '400': badId,
          '403': ref('responses', 'Forbidden'),
          '404': notFound,
          ...sharedErrors,
        },
      },
      patch: {
        ...adminOnly,
        operationId: 'updateWebhook',
        summary: 'Change, pause or resume a webhook subscription',
        description: `Any of \`url\` (checked as at creation), \`types\` (\`null\`: every type), \`description\` and \`enabled\`. \`enabled: true\` resumes a paused or disabled subscription at the very event it stopped at (its retries start over); \`false\` stops it where it stands. ${beta}`,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'WebhookPatch'),
              examples: {
                resume: { summary: 'Resume a paused subscription', value: { enabled: true } },
                types: { summary: 'Every type again', value: { types: null } },
                url: { summary: 'Move it', value: { url: 'https://shelter.example/hooks/v2' } },
              },
            },
          },
        },
        responses: {
          '200': withHeaders(COMMON_HEADERS, {
            description: 'The subscription after the change.',
            content: json('Webhook', EXAMPLE),
          }),
          '400': badRequest,
          '403': ref('responses', 'Forbidden'),
          '404': notFound,
          ...bodyErrors,
          ...sharedErrors,
        },
      },
      delete: {
        ...adminOnly,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook subscription',
        description: `Nothing more is delivered (an attempt under way may still arrive); its deliveries log goes with it. ${beta}`,
        responses: {
          '204': withHeaders(COMMON_HEADERS, { description: 'Deleted.' }),
          '400': badId,
          '403': ref('responses', 'Forbidden'),
          '404': notFound,
          ...sharedErrors,
        },
      },
    },
    '/webhooks/{webhookId}/rotate-secret': {
      parameters: [idParam],
      post: {
        ...adminOnly,
        operationId: 'rotateWebhookSecret',
        summary: 'Give a webhook subscription a new secret',
        description: `Answers the new secret, shown this once (\`Cache-Control: no-store\`). For 24 h every delivery is signed with both the new and the old secret (two signatures), so receivers can switch at their pace. ${beta}`,
        responses: {
          '200': withHeaders(COMMON_HEADERS, {
            description: 'The subscription with its new secret.',
            headers: { 'Cache-Control': ref('headers', 'Cache-Control-Secret') },
            content: json('CreatedWebhook', { ...EXAMPLE, secret: EXAMPLE_SECRET }),
          }),
          '400': badId,
          '403': ref('responses', 'Forbidden'),
          '404': notFound,
          ...sharedErrors,
        },
      },
    },
    '/webhooks/{webhookId}/deliveries': {
      parameters: [idParam],
      get: {
        ...adminOnly,
        operationId: 'listWebhookDeliveries',
        summary: "List a webhook subscription's delivery attempts",
        description: `The last ${WEBHOOK_DELIVERIES_KEPT.toLocaleString('en-US')} attempts, newest first, paged like \`GET /pets\`: the event, the attempt's number, when, the receiver's status, the outcome and how long it took. Nothing of the receiver's answer body is kept. ${beta}`,
        parameters: [pageParam('limit'), pageParam('cursor')],
        responses: {
          '200': withHeaders(COMMON_HEADERS, {
            description: 'A page of attempts, newest first.',
            headers: { Link: ref('headers', 'Link-Next') },
            content: json('WebhookDeliveries', DELIVERIES),
          }),
          '400': badRequest,
          '403': ref('responses', 'Forbidden'),
          '404': notFound,
          ...sharedErrors,
        },
      },
    },
  };
};

export const webhooksPart = (): OpenApiPart => ({
  paths: webhookPaths(),
  schemas: {
    Webhook: WebhookSchema,
    Webhooks: { type: 'array', items: ref('schemas', 'Webhook') },
    CreatedWebhook: CreatedWebhookSchema,
    NewWebhook: NewWebhookSchema,
    WebhookPatch: WebhookPatchSchema,
    WebhookDelivery: WebhookDeliverySchema,
    WebhookDeliveries: { type: 'array', items: ref('schemas', 'WebhookDelivery') },
  },
  headers: {
    'Location-Webhook': header('Path of the created subscription, `/v1/webhooks/{webhookId}`.'),
    'Cache-Control-Secret': header('`no-store`: the answer holds a secret, which no cache may keep.'),
  },
});

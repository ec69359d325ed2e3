import type { ParameterizedContext } from 'koa';
import type { WebhookAdmin } from '@petstore/domain';
import { validateWebhookCreate, validateWebhookPatch } from '@petstore/domain';
import { HttpError } from './errors.js';
import { answerJson } from './answer.js';
import { readJsonBody } from './body.js';
import { checkBody, readPageQuery, type RequestValidators } from './validation.js';
import type { AppState } from './state.js';
import { nextLink } from './next-link.js';
import type { ApiRouter } from './api-router.js';
import { fromDomain } from './route-helpers.js';

/** The subscriptions' path (docs/rules.md §15, "Webhooks"). */
export const WEBHOOKS_PATH = '/v1/webhooks';

/**
 * The seven operations of docs/rules.md §15 ("Webhooks") under `/v1/webhooks`, admin keys only. A
 * client key is refused (403) before its body is read or anything looked up. The secret is in the
 * answers of a create and a rotation only, which no cache may keep.
 */
export const addWebhookRoutes = (routes: ApiRouter, webhooks: WebhookAdmin, validators: RequestValidators): void => {
  const authorize = (caller: AppState['caller']): void => {
    const allowed = webhooks.authorize(caller);
    if (!allowed.ok) throw fromDomain(allowed.error);
  };
  const readBody = async (ctx: ParameterizedContext<AppState>, example: string): Promise<unknown> => {
    const body = await readJsonBody(ctx);
    if (body === undefined) throw new HttpError('validation_failed', `a JSON body is required: ${example}`);
    return body;
  };
  /** Answers a subscription with its secret: shown this once. */
  const answerSecret = (ctx: ParameterizedContext<AppState>, value: object, status: number): void => {
    ctx.set('Cache-Control', 'no-store');
    answerJson(ctx, JSON.stringify(value), status);
  };

  routes.post({ name: 'createWebhook', path: WEBHOOKS_PATH }, async (ctx) => {
    authorize(ctx.state.caller);
    const body = await readBody(ctx, '{"url": "https://…"}');
    checkBody(validators.newWebhook, body, validateWebhookCreate);
    const result = await webhooks.create(ctx.state.caller, body);
    if (!result.ok) throw fromDomain(result.error);
    ctx.set('Location', `${WEBHOOKS_PATH}/${result.value.id}`);
    answerSecret(ctx, result.value, 201);
  });

  routes.get({ name: 'listWebhooks', path: WEBHOOKS_PATH }, async (ctx) => {
    authorize(ctx.state.caller);
    const query = readPageQuery(validators.listWebhooksQuery, ctx.querystring);
    const result = await webhooks.list(ctx.state.caller, query);
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor } = result.value;
    if (nextCursor !== undefined) ctx.set('Link', nextLink(WEBHOOKS_PATH, items.length, {}, nextCursor));
    answerJson(ctx, JSON.stringify(items));
  });

  routes.get({ name: 'getWebhook', path: `${WEBHOOKS_PATH}/:webhookId` }, async (ctx) => {
    const result = await webhooks.get(ctx.state.caller, ctx.params.webhookId);
    if (!result.ok) throw fromDomain(result.error);
    answerJson(ctx, JSON.stringify(result.value));
  });

  routes.patch({ name: 'updateWebhook', path: `${WEBHOOKS_PATH}/:webhookId` }, async (ctx) => {
    authorize(ctx.state.caller);
    const body = await readBody(ctx, '{"url": …, "types": …, "description": …, "enabled": …} (any of them)');
    checkBody(validators.webhookPatch, body, validateWebhookPatch);
    const result = await webhooks.patch(ctx.state.caller, ctx.params.webhookId, body);
    if (!result.ok) throw fromDomain(result.error);
    answerJson(ctx, JSON.stringify(result.value));
  });

  routes.delete({ name: 'deleteWebhook', path: `${WEBHOOKS_PATH}/:webhookId` }, async (ctx) => {
    const result = await webhooks.remove(ctx.state.caller, ctx.params.webhookId);
    if (!result.ok) throw fromDomain(result.error);
    ctx.status = 204;
  });

  routes.post({ name: 'rotateWebhookSecret', path: `${WEBHOOKS_PATH}/:webhookId/rotate-secret` }, async (ctx) => {
    const result = await webhooks.rotateSecret(ctx.state.caller, ctx.params.webhookId);
    if (!result.ok) throw fromDomain(result.error);
    answerSecret(ctx, result.value, 200);
  });

  routes.get({ name: 'listWebhookDeliveries', path: `${WEBHOOKS_PATH}/:webhookId/deliveries` }, async (ctx) => {
    authorize(ctx.state.caller);
    const query = readPageQuery(validators.listWebhooksQuery, ctx.querystring);
    const { webhookId } = ctx.params;
    const result = await webhooks.deliveries(ctx.state.caller, webhookId, query);
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor } = result.value;
    if (nextCursor !== undefined)
      ctx.set('Link', nextLink(`${WEBHOOKS_PATH}/${webhookId}/deliveries`, items.length, {}, nextCursor));
    answerJson(ctx, JSON.stringify(items));
  });
};

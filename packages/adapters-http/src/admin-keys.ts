import type { ParameterizedContext } from 'koa';
import type { KeyAdmin } from '@petstore/domain';
import { validateKeyPatch, validateKeyRequest } from '@petstore/domain';
import { HttpError } from './errors.js';
import { answerJson } from './answer.js';
import { readJsonBody } from './body.js';
import { checkBody, readPageQuery, type RequestValidators } from './validation.js';
import type { AppState } from './state.js';
import { nextLink } from './next-link.js';
import type { ApiRouter } from './api-router.js';
import { fromDomain } from './route-helpers.js';

const BASE = '/v1/admin/keys';

/**
 * The five operations of docs/rules.md §9 under `/v1/admin/keys`. The role check is the domain's (`KeyAdmin`); a client key is refused before
 * its body is read.
 */
export const addAdminKeyRoutes = (routes: ApiRouter, keys: KeyAdmin, validators: RequestValidators): void => {
  const authorize = (caller: AppState['caller']): void => {
    const allowed = keys.authorize(caller);
    if (!allowed.ok) throw fromDomain(allowed.error);
  };
  const readBody = async (ctx: ParameterizedContext<AppState>, example: string): Promise<unknown> => {
    const body = await readJsonBody(ctx);
    if (body === undefined) throw new HttpError('validation_failed', `a JSON body is required: ${example}`);
    return body;
  };

  routes.post({ name: 'createApiKey', path: BASE }, async (ctx) => {
    authorize(ctx.state.caller);
    const body = await readBody(ctx, '{"plan": …}');
    checkBody(validators.newApiKey, body, validateKeyRequest);
    const result = await keys.create(ctx.state.caller, body);
    if (!result.ok) throw fromDomain(result.error);
    ctx.set('Location', `${BASE}/${result.value.id}`);
    // The only answer that ever holds a key: no cache may keep it.
    ctx.set('Cache-Control', 'no-store');
    answerJson(ctx, JSON.stringify(result.value), 201);
  });

  routes.get({ name: 'listApiKeys', path: BASE }, async (ctx) => {
    authorize(ctx.state.caller);
    const query = readPageQuery(validators.listKeysQuery, ctx.querystring);
    const result = await keys.list(ctx.state.caller, query);
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor } = result.value;
    if (nextCursor !== undefined) ctx.set('Link', nextLink(BASE, items.length, {}, nextCursor));
    answerJson(ctx, JSON.stringify(items));
  });

  routes.get({ name: 'getApiKey', path: `${BASE}/:keyId` }, async (ctx) => {
    const result = await keys.get(ctx.state.caller, ctx.params.keyId);
    if (!result.ok) throw fromDomain(result.error);
    answerJson(ctx, JSON.stringify(result.value));
  });

  routes.patch({ name: 'updateApiKey', path: `${BASE}/:keyId` }, async (ctx) => {
    authorize(ctx.state.caller);
    const body = await readBody(ctx, '{"plan": …, "perMinute": …, "perDay": …, "label": …} (any of them)');
    checkBody(validators.apiKeyPatch, body, validateKeyPatch);
    const result = await keys.patch(ctx.state.caller, ctx.params.keyId, body);
    if (!result.ok) throw fromDomain(result.error);
    answerJson(ctx, JSON.stringify(result.value));
  });

  routes.delete({ name: 'revokeApiKey', path: `${BASE}/:keyId` }, async (ctx) => {
    const result = await keys.revoke(ctx.state.caller, ctx.params.keyId);
    if (!result.ok) throw fromDomain(result.error);
    ctx.status = 204;
  });
};

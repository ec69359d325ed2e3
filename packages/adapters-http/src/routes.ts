import Router from '@koa/router';
import type { CategoryCatalog, PetCatalog, DomainError } from '@petstore/domain';
import { HttpError } from './errors.js';
import { readJsonBody } from './body.js';
import { checkNewCategory, checkNewPet, readCategoriesQuery, readListQuery, type RequestValidators } from './validation.js';
import type { AppState } from './state.js';
import { serializeCategories, serializeCategory, serializePet, serializePets } from './serialize.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const fromDomain = (error: DomainError): HttpError => new HttpError(error.code, error.message);

/** The v1 operations. Routes are named after their OpenAPI operation ids. */
export const createRouter = (catalog: PetCatalog, categories: CategoryCatalog, validators: RequestValidators): Router<AppState> => {
  const router = new Router<AppState>({ sensitive: true, strict: false });

  router.get('listPets', '/v1/pets', async (ctx) => {
    const query = readListQuery(validators, ctx.querystring);
    const result = await catalog.listPets(query);
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor } = result.value;
    if (nextCursor !== undefined) {
      const status = query.status === undefined ? '' : `&status=${query.status}`;
      const categoryId = query.categoryId === undefined ? '' : `&categoryId=${query.categoryId}`;
      ctx.set('Link', `</v1/pets?limit=${items.length}${status}${categoryId}&cursor=${nextCursor}>; rel="next"`);
    }
    ctx.type = JSON_TYPE;
    ctx.body = serializePets(items);
  });

  router.post('createPet', '/v1/pets', async (ctx) => {
    const body = await readJsonBody(ctx.req, ctx.res);
    if (body === undefined) throw new HttpError('validation_failed', 'a JSON body is required: {"name": …, "categoryId": …}');
    checkNewPet(validators, body);
    const result = await catalog.createPet(body);
    if (!result.ok) throw fromDomain(result.error);
    ctx.status = 201;
    ctx.set('Location', `/v1/pets/${result.value.id}`);
    ctx.type = JSON_TYPE;
    ctx.body = serializePet(result.value);
  });

  router.get('getPet', '/v1/pets/:petId', async (ctx) => {
    // The raw path segment, not the router's decoded one: `%31` is not a canonical id.
    const raw = ctx.path.split('/')[3] ?? '';
    const result = await catalog.getPet(raw);
    if (!result.ok) throw fromDomain(result.error);
    ctx.type = JSON_TYPE;
    ctx.body = serializePet(result.value);
  });

  router.get('listCategories', '/v1/categories', async (ctx) => {
    const query = readCategoriesQuery(validators, ctx.querystring);
    const result = await categories.listCategories(query);
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor } = result.value;
    if (nextCursor !== undefined) ctx.set('Link', `</v1/categories?limit=${items.length}&cursor=${nextCursor}>; rel="next"`);
    ctx.type = JSON_TYPE;
    ctx.body = serializeCategories(items);
  });

  router.post('createCategory', '/v1/categories', async (ctx) => {
    const body = await readJsonBody(ctx.req, ctx.res);
    if (body === undefined) throw new HttpError('validation_failed', 'a JSON body is required: {"name": …}');
    checkNewCategory(validators, body);
    const result = await categories.createCategory(body);
    if (!result.ok) throw fromDomain(result.error);
    ctx.status = 201;
    ctx.set('Location', `/v1/categories/${result.value.id}`);
    ctx.type = JSON_TYPE;
    ctx.body = serializeCategory(result.value);
  });

  router.get('getCategory', '/v1/categories/:categoryId', async (ctx) => {
    // The raw path segment, as for getPet: `%31` is not a canonical id.
    const raw = ctx.path.split('/')[3] ?? '';
    const result = await categories.getCategory(raw);
    if (!result.ok) throw fromDomain(result.error);
    ctx.type = JSON_TYPE;
    ctx.body = serializeCategory(result.value);
  });

  return router;
};

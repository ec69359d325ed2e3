import Router from '@koa/router';
import type { PetCatalog, DomainError } from '@petstore/domain';
import { HttpError } from './errors.js';
import { readJsonBody } from './body.js';
import { checkNewPet, readListQuery, type RequestValidators } from './validation.js';
import type { AppState } from './state.js';
import { serializePet, serializePets } from './serialize.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const fromDomain = (error: DomainError): HttpError => new HttpError(error.code, error.message);

/** The three v1 operations. Routes are named after their OpenAPI operation ids. */
export const createRouter = (catalog: PetCatalog, validators: RequestValidators): Router<AppState> => {
  const router = new Router<AppState>({ sensitive: true, strict: false });

  router.get('listPets', '/v1/pets', async (ctx) => {
    const query = readListQuery(validators, ctx.querystring);
    const result = await catalog.listPets(query);
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor } = result.value;
    if (nextCursor !== undefined) {
      const status = query.status === undefined ? '' : `&status=${query.status}`;
      ctx.set('Link', `</v1/pets?limit=${items.length}${status}&cursor=${nextCursor}>; rel="next"`);
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

  return router;
};

import type { ParameterizedContext } from 'koa';
import type { Adoption, Caller, CategoryCatalog, DomainError, OrderAction, PetCatalog } from '@petstore/domain';
import { entityTag, isPromise, validateNewCategory, validateNewOrder, validateNewPet } from '@petstore/domain';
import { HttpError } from './errors.js';
import { answerJson } from './answer.js';
import { readJsonBody } from './body.js';
import { checkBody, readListQuery, readOrderListQuery, readPageQuery, type RequestValidators } from './validation.js';
import { nextLink } from './next-link.js';
import type { AppState } from './state.js';
import type { Routes } from './dispatch.js';
import { serializeCategories, serializeCategory, serializeOrder, serializeOrders, serializePet, serializePets } from './serialize.js';
import { answerReplayed } from './middleware/idempotency.js';

const fromDomain = (error: DomainError): HttpError => new HttpError(error.code, error.message);

/** The key holder the gate authenticated (every route runs after it). */
const callerOf = (ctx: { state: AppState }): Caller => {
  const { caller } = ctx.state;
  if (caller === undefined) throw new Error('a route ran without an authenticated caller');
  return caller;
};

/**
 * 201 with the created resource (`body`) at `location`. `earlier`: an earlier attempt of this
 * request created it under the request's `Idempotency-Key` (docs/rules.md §10): answered as a replay.
 */
const answerCreated = (ctx: ParameterizedContext<AppState>, location: string, body: string, earlier: boolean): void => {
  if (earlier) return answerReplayed(ctx, { status: 201, body, location });
  ctx.set('Location', location);
  answerJson(ctx, body, 201);
};

/**
 * The operations on pets, categories and orders. Routes are named after their OpenAPI operation
 * ids; ids come from the path as the client wrote them (`ctx.params`: `%31` is not a canonical id).
 */
export const addCatalogRoutes = (routes: Routes, catalog: PetCatalog, categories: CategoryCatalog, adoption: Adoption, validators: RequestValidators): void => {
  routes.get('listPets', '/v1/pets', async (ctx) => {
    const query = readListQuery(validators, ctx.querystring);
    const listing = catalog.listPets(query);
    // The memory store answers at once (`Answer`): no promise turn then.
    const result = isPromise(listing) ? await listing : listing;
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor } = result.value;
    if (nextCursor !== undefined) ctx.set('Link', nextLink('/v1/pets', items.length, { status: query.status, categoryId: query.categoryId }, nextCursor));
    answerJson(ctx, serializePets(items));
  });

  routes.create('createPet', '/v1/pets', async (ctx) => {
    const body = await readJsonBody(ctx.req, ctx.res);
    if (body === undefined) throw new HttpError('validation_failed', 'a JSON body is required: {"name": …, "categoryId": …}');
    checkBody(validators.newPet, body, validateNewPet);
    const { creation } = ctx.state;
    const earlier = creation === undefined ? undefined : await catalog.petCreatedUnder(creation);
    let pet = earlier;
    if (pet === undefined) {
      const result = await catalog.createPet(body, creation);
      if (!result.ok) throw fromDomain(result.error);
      pet = result.value;
    }
    answerCreated(ctx, `/v1/pets/${pet.id}`, serializePet(pet), earlier !== undefined);
  });

  routes.get('getPet', '/v1/pets/:petId', async (ctx) => {
    const result = await catalog.getPet(ctx.params.petId);
    if (!result.ok) throw fromDomain(result.error);
    // The pet's revision (docs/rules.md §12): what `If-Match` names on PATCH and DELETE.
    ctx.set('ETag', entityTag(result.value.revision));
    answerJson(ctx, serializePet(result.value));
  });

  routes.get('listCategories', '/v1/categories', async (ctx) => {
    const query = readPageQuery(validators.categoriesQuery, ctx.querystring);
    const result = await categories.listCategories(query);
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor } = result.value;
    if (nextCursor !== undefined) ctx.set('Link', nextLink('/v1/categories', items.length, {}, nextCursor));
    answerJson(ctx, serializeCategories(items));
  });

  routes.create('createCategory', '/v1/categories', async (ctx) => {
    const body = await readJsonBody(ctx.req, ctx.res);
    if (body === undefined) throw new HttpError('validation_failed', 'a JSON body is required: {"name": …}');
    checkBody(validators.newCategory, body, validateNewCategory);
    const { creation } = ctx.state;
    const earlier = creation === undefined ? undefined : await categories.categoryCreatedUnder(creation);
    let category = earlier;
    if (category === undefined) {
      const result = await categories.createCategory(body, creation);
      if (!result.ok) throw fromDomain(result.error);
      category = result.value;
    }
    answerCreated(ctx, `/v1/categories/${category.id}`, serializeCategory(category), earlier !== undefined);
  });

  routes.get('getCategory', '/v1/categories/:categoryId', async (ctx) => {
    const result = await categories.getCategory(ctx.params.categoryId);
    if (!result.ok) throw fromDomain(result.error);
    answerJson(ctx, serializeCategory(result.value));
  });

  // ---- The adoption flow (docs/rules.md §8) ----

  routes.create('placeOrder', '/v1/store/orders', async (ctx) => {
    const body = await readJsonBody(ctx.req, ctx.res);
    if (body === undefined) throw new HttpError('validation_failed', 'a JSON body is required: {"petId": …}');
    checkBody(validators.newOrder, body, validateNewOrder);
    const { creation } = ctx.state;
    const earlier = creation === undefined ? undefined : await adoption.placedUnder(creation);
    const result = earlier ?? (await adoption.place(callerOf(ctx), body, creation));
    if (!result.ok) throw fromDomain(result.error);
    answerCreated(ctx, `/v1/store/orders/${result.value.id}`, serializeOrder(result.value), earlier !== undefined);
  });

  routes.get('listOrders', '/v1/store/orders', async (ctx) => {
    const query = readOrderListQuery(validators, ctx.querystring);
    const result = await adoption.listOrders(callerOf(ctx), query);
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor } = result.value;
    if (nextCursor !== undefined) ctx.set('Link', nextLink('/v1/store/orders', items.length, { status: query.status }, nextCursor));
    answerJson(ctx, serializeOrders(items));
  });

  routes.get('getOrder', '/v1/store/orders/:orderId', async (ctx) => {
    const result = await adoption.getOrder(callerOf(ctx), ctx.params.orderId);
    if (!result.ok) throw fromDomain(result.error);
    answerJson(ctx, serializeOrder(result.value));
  });

  const actions: ReadonlyArray<readonly [string, OrderAction]> = [
    ['approveOrder', 'approve'],
    ['deliverOrder', 'deliver'],
    ['cancelOrder', 'cancel'],
  ];
  for (const [name, action] of actions) {
    routes.post(name, `/v1/store/orders/:orderId/${action}` as const, async (ctx) => {
      const result = await adoption.act(callerOf(ctx), action, ctx.params.orderId);
      if (!result.ok) throw fromDomain(result.error);
      answerJson(ctx, serializeOrder(result.value));
    });
  }

  routes.get('getInventory', '/v1/store/inventory', async (ctx) => {
    const counts = await adoption.inventory();
    answerJson(ctx, JSON.stringify({ available: counts.available, pending: counts.pending, sold: counts.sold }));
  });
};

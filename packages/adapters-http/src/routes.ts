import type { Adoption, CategoryCatalog, OrderAction, PetCatalog } from '@petstore/domain';
import {
  deprecationHeaders,
  entityTag,
  GET_PET_DEPRECATION,
  validateNewCategory,
  validateNewOrder,
  validateNewPet,
} from '@petstore/domain';
import { HttpError } from './errors.js';
import { answerJson } from './answer.js';
import { readJsonBody } from './body.js';
import { checkBody, readListQuery, readOrderListQuery, readPageQuery, type RequestValidators } from './validation.js';
import { nextLink } from './next-link.js';
import type { ApiRouter } from './api-router.js';
import { answerCreate, callerOf, found, fromDomain } from './route-helpers.js';
import {
  serializeCategories,
  serializeCategory,
  serializeOrder,
  serializeOrders,
  serializePet,
  serializePets,
  serializePetsWithPhotos,
} from './serialize.js';

/**
 * The operations on pets (on `pets`), categories and orders (on `store`). Routes are named after
 * their OpenAPI operation ids; ids come from the path as the client wrote them (`ctx.params`: `%31`
 * is not a canonical id).
 */
export const addCatalogRoutes = (
  pets: ApiRouter,
  store: ApiRouter,
  catalog: PetCatalog,
  categories: CategoryCatalog,
  adoption: Adoption,
  validators: RequestValidators,
): void => {
  pets.get({ name: 'listPets', path: '/v1/pets', publishable: true }, async (ctx) => {
    const query = readListQuery(validators, ctx.querystring);
    const result = await catalog.listPets(query);
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor, photos } = result.value;
    if (nextCursor !== undefined) {
      // Every parameter in use goes on with the cursor (docs/rules.md §16): the cursor is bound to them.
      const { status, categoryId, q, sort, seed, expand } = query;
      ctx.set('Link', nextLink('/v1/pets', items.length, { status, categoryId, q, sort, seed, expand }, nextCursor));
    }
    answerJson(ctx, photos === undefined ? serializePets(items) : serializePetsWithPhotos(items, photos));
  });

  pets.post({ name: 'createPet', path: '/v1/pets', idempotentCreate: true }, async (ctx) => {
    const body = await readJsonBody(ctx);
    if (body === undefined)
      throw new HttpError('validation_failed', 'a JSON body is required: {"name": …, "categoryId": …}');
    checkBody(validators.newPet, body, validateNewPet);
    await answerCreate(ctx, {
      earlier: async (creation) => found(await catalog.petCreatedUnder(creation)),
      create: (creation) => catalog.createPet(body, creation),
      answer: (pet) => ({ location: `/v1/pets/${pet.id}`, body: serializePet(pet) }),
    });
  });

  // Deprecated (docs/rules.md §2): its headers go on every answer, a refusal of the gate's included.
  pets.get(
    { name: 'getPet', path: '/v1/pets/:petId', headers: deprecationHeaders(GET_PET_DEPRECATION) },
    async (ctx) => {
      const result = await catalog.getPet(ctx.params.petId);
      if (!result.ok) throw fromDomain(result.error);
      // The pet's revision (docs/rules.md §12): what `If-Match` names on PATCH and DELETE.
      ctx.set('ETag', entityTag(result.value.revision));
      answerJson(ctx, serializePet(result.value));
    },
  );

  store.get({ name: 'listCategories', path: '/v1/categories', publishable: true }, async (ctx) => {
    const query = readPageQuery(validators.categoriesQuery, ctx.querystring);
    const result = await categories.listCategories(query);
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor } = result.value;
    if (nextCursor !== undefined) ctx.set('Link', nextLink('/v1/categories', items.length, {}, nextCursor));
    answerJson(ctx, serializeCategories(items));
  });

  store.post({ name: 'createCategory', path: '/v1/categories', idempotentCreate: true }, async (ctx) => {
    const body = await readJsonBody(ctx);
    if (body === undefined) throw new HttpError('validation_failed', 'a JSON body is required: {"name": …}');
    checkBody(validators.newCategory, body, validateNewCategory);
    await answerCreate(ctx, {
      earlier: async (creation) => found(await categories.categoryCreatedUnder(creation)),
      create: (creation) => categories.createCategory(body, creation),
      answer: (category) => ({ location: `/v1/categories/${category.id}`, body: serializeCategory(category) }),
    });
  });

  store.get({ name: 'getCategory', path: '/v1/categories/:categoryId', publishable: true }, async (ctx) => {
    const result = await categories.getCategory(ctx.params.categoryId);
    if (!result.ok) throw fromDomain(result.error);
    answerJson(ctx, serializeCategory(result.value));
  });

  // ---- The adoption flow (docs/rules.md §8) ----

  store.post({ name: 'placeOrder', path: '/v1/store/orders', idempotentCreate: true }, async (ctx) => {
    const body = await readJsonBody(ctx);
    if (body === undefined) throw new HttpError('validation_failed', 'a JSON body is required: {"petId": …}');
    checkBody(validators.newOrder, body, validateNewOrder);
    await answerCreate(ctx, {
      earlier: (creation) => adoption.placedUnder(creation),
      create: (creation) => adoption.place(callerOf(ctx), body, creation),
      answer: (order) => ({ location: `/v1/store/orders/${order.id}`, body: serializeOrder(order) }),
    });
  });

  store.get({ name: 'listOrders', path: '/v1/store/orders' }, async (ctx) => {
    const query = readOrderListQuery(validators, ctx.querystring);
    const result = await adoption.listOrders(callerOf(ctx), query);
    if (!result.ok) throw fromDomain(result.error);
    const { items, nextCursor } = result.value;
    if (nextCursor !== undefined)
      ctx.set('Link', nextLink('/v1/store/orders', items.length, { status: query.status }, nextCursor));
    answerJson(ctx, serializeOrders(items));
  });

  store.get({ name: 'getOrder', path: '/v1/store/orders/:orderId' }, async (ctx) => {
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
    store.post({ name, path: `/v1/store/orders/:orderId/${action}` as const }, async (ctx) => {
      const result = await adoption.act(callerOf(ctx), action, ctx.params.orderId);
      if (!result.ok) throw fromDomain(result.error);
      answerJson(ctx, serializeOrder(result.value));
    });
  }

  store.get({ name: 'getInventory', path: '/v1/store/inventory' }, async (ctx) => {
    const counts = await adoption.inventory();
    answerJson(ctx, JSON.stringify({ available: counts.available, pending: counts.pending, sold: counts.sold }));
  });
};

/**
 * The JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) of every request and response,
 * as plain data: the HTTP adapter compiles them with ajv and builds the OpenAPI document from
 * them, so validation and documentation cannot drift apart.
 */
export { ErrorSchema, IdempotencyKeySchema } from './shared.js';
export { NewPetSchema, PetPatchSchema, PetSchema, ListPetsQuerySchema, PetIdSchema } from './pets.js';
export { CategorySchema, NewCategorySchema, CategoryIdSchema, ListCategoriesQuerySchema } from './categories.js';
export { NewOrderSchema, OrderSchema, ListOrdersQuerySchema, OrderIdSchema, InventorySchema } from './orders.js';
export {
  KeyIdSchema,
  NewApiKeySchema,
  ApiKeyPatchSchema,
  ApiKeySchema,
  CreatedApiKeySchema,
  ListKeysQuerySchema,
} from './keys.js';
export { OwnStatusSchema } from './own-status.js';
export { PhotoSchema, PhotoIdSchema, PhotoWidthSchema } from './photos.js';
export { PhotoViewSchema, PetWithPhotosSchema } from './catalog.js';

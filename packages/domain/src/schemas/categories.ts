/** The categories' schemas (docs/rules.md §7). */
import { MAX_CATEGORY_ID } from '../pet/pet.js';
import { NAME_PATTERN } from '../text/name.js';
import { CATEGORY_NAME_MAX_LENGTH, CATEGORY_NAME_MIN_LENGTH } from '../category/category.js';
import { assignedId } from './shared.js';
import { ListPetsQuerySchema, PageCursorSchema, PetIdSchema } from './pets.js';

const categoryName = {
  type: 'string',
  minLength: CATEGORY_NAME_MIN_LENGTH,
  maxLength: CATEGORY_NAME_MAX_LENGTH,
  pattern: NAME_PATTERN,
  description:
    "The category's name: 1–100 characters, at least one not white space, well-formed Unicode. Stored as sent; unique ignoring case and Unicode normalization (`Cats`, `CATS` and `cats` are one name).",
} as const;

/** `Category` (docs/rules.md §7). */
export const CategorySchema = {
  type: 'object',
  description: 'A category of animals; `categoryId` of a pet names one.',
  properties: {
    id: assignedId(
      'Unique identifier, assigned by the service on creation; increasing in creation order.',
      MAX_CATEGORY_ID,
    ),
    name: categoryName,
  },
  required: ['id', 'name'],
  additionalProperties: false,
} as const;

/** `NewCategory`: closed, `{ "name" }` only. */
export const NewCategorySchema = {
  type: 'object',
  description: 'A new category. `id` is assigned by the service and must not be sent.',
  properties: { name: categoryName },
  required: ['name'],
  additionalProperties: false,
} as const;

/** Query of `GET /categories`: the pager's parameters only. Unknown parameters are ignored. */
export const ListCategoriesQuerySchema = {
  type: 'object',
  properties: {
    limit: { ...ListPetsQuerySchema.properties.limit, description: 'Maximum number of categories to return.' },
    cursor: {
      ...PageCursorSchema,
      description: 'Opaque position of the next page, taken from the `Link: rel="next"` header.',
    },
  },
  additionalProperties: true,
} as const;

/** Path of `GET /categories/{categoryId}`: the `petId` rules. */
export const CategoryIdSchema = {
  ...PetIdSchema,
  description:
    'Identifier of the category: a positive decimal integer up to 9223372036854775807, without sign, leading zeros or fraction.',
} as const;

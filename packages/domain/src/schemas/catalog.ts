/** The schemas of a page of `GET /pets?expand=photos` (docs/rules.md §16). */
import { PetSchema } from './pets.js';
import { PhotoSchema } from './photos.js';

/** A photo as an expanded page shows it: what a browser needs to show it, with a URL that needs no key. */
export const PhotoViewSchema = {
  type: 'object',
  properties: {
    id: PhotoSchema.properties.id,
    contentType: PhotoSchema.properties.contentType,
    width: PhotoSchema.properties.width,
    height: PhotoSchema.properties.height,
    url: {
      type: 'string',
      minLength: 1,
      description:
        'The photo, signed: `<base>/v1/pets/{petId}/photos/{photoId}?sig=…`, served without a key (`<base>` is the setting `PETSTORE_PUBLIC_URL`, or nothing).',
    },
    srcset: {
      type: 'string',
      minLength: 1,
      description:
        'The URL with `&width=160`, `320` and `640` (those narrower than the photo), then the URL itself, each with its width descriptor: ready for `<img srcset>`.',
    },
  },
  required: ['id', 'contentType', 'width', 'height', 'url', 'srcset'],
  additionalProperties: false,
} as const;

/** An animal of a page with `expand=photos`: its fields, and its photos in ascending id (`[]` when none). */
export const PetWithPhotosSchema = {
  type: 'object',
  properties: {
    ...PetSchema.properties,
    photos: {
      type: 'array',
      items: PhotoViewSchema,
      description: "The animal's photos in ascending id; `[]` when it has none.",
    },
  },
  required: [...PetSchema.required, 'photos'],
  additionalProperties: false,
} as const;

/** The photos' schemas (docs/rules.md §13). */
import { PHOTO_CONTENT_TYPES, PHOTO_STORED_LONG_SIDE, PHOTO_WIDTHS } from '../photo/photo.js';
import { assignedId } from './shared.js';
import { PetIdSchema } from './pets.js';

/** A photo of an animal (docs/rules.md §13): `width`, `height` and `bytes` of the stored original. */
export const PhotoSchema = {
  type: 'object',
  properties: {
    id: assignedId('Unique identifier of the photo, assigned by the service.', Number.MAX_SAFE_INTEGER),
    petId: assignedId('The animal the photo shows.', Number.MAX_SAFE_INTEGER),
    contentType: {
      type: 'string',
      enum: [...PHOTO_CONTENT_TYPES],
      description: 'The image type the photo is stored and served in: the one it was sent in.',
    },
    width: {
      type: 'integer',
      minimum: 1,
      maximum: PHOTO_STORED_LONG_SIDE,
      description: 'Width of the stored photo in pixels (upright, at most 4,096 on the long side).',
    },
    height: {
      type: 'integer',
      minimum: 1,
      maximum: PHOTO_STORED_LONG_SIDE,
      description: 'Height of the stored photo in pixels.',
    },
    bytes: {
      type: 'integer',
      minimum: 1,
      description: 'Size of the stored photo in bytes (re-encoded, without metadata).',
    },
    createdAt: { type: 'string', format: 'date-time', description: 'When the photo was added (RFC 3339, UTC).' },
  },
  required: ['id', 'petId', 'contentType', 'width', 'height', 'bytes', 'createdAt'],
  additionalProperties: false,
} as const;

/** Path of `/pets/{petId}/photos/{photoId}`: the `petId` rules. */
export const PhotoIdSchema = {
  ...PetIdSchema,
  description:
    'Identifier of the photo: a positive decimal integer up to 9223372036854775807, without sign, leading zeros or fraction.',
} as const;

/** `?width=` of `GET /pets/{petId}/photos/{photoId}`. */
export const PhotoWidthSchema = {
  type: 'integer',
  enum: [...PHOTO_WIDTHS],
  description:
    'Answer the photo this many pixels wide (the height in proportion), in the same format; never wider than the original (a narrower photo is answered as it is). Absent: the stored original.',
} as const;

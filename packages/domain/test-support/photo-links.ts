import type { Photo, PhotoLinks, PhotoView } from '../src/index.js';
import { srcsetOf } from '../src/index.js';

/**
 * A `PhotoLinks` for tests: each photo's URL as the service's has it, with a fixed signature `test`
 * (`/v1/pets/{petId}/photos/{photoId}?sig=test`), and its `srcset` by the domain's one rule.
 */
export const testPhotoLinks: PhotoLinks = {
  links: async (photos: readonly Photo[]): Promise<readonly PhotoView[]> =>
    photos.map((photo) => {
      const url = `/v1/pets/${photo.petId}/photos/${photo.id}?sig=test`;
      return {
        id: photo.id,
        contentType: photo.contentType,
        width: photo.width,
        height: photo.height,
        url,
        srcset: srcsetOf(url, photo.width),
      };
    }),
};

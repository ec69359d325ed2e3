import { srcsetOf, type Photo, type PhotoLinks, type PhotoView } from '@petstore/domain';

/**
 * The links of `expand=photos` (docs/rules.md §16) until the signed URLs are wired: each photo's
 * path (`/v1/pets/{petId}/photos/{photoId}`), which serves it to a request with a key (§13), and
 * its `srcset` by the domain's rule. The signed URLs replace it: their `PhotoLinks` takes this binding.
 */
export const keyedPhotoLinks: PhotoLinks = {
  links: async (photos: readonly Photo[]): Promise<readonly PhotoView[]> =>
    photos.map((photo) => {
      const url = `/v1/pets/${photo.petId}/photos/${photo.id}`;
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

import type { Photo } from '../photo/photo.js';

/** A photo as a page of `GET /v1/pets?expand=photos` shows it (docs/rules.md §16). */
export interface PhotoView {
  readonly id: number;
  readonly contentType: Photo['contentType'];
  readonly width: number;
  readonly height: number;
  /** The photo's signed URL: `<base>/v1/pets/{petId}/photos/{photoId}?sig=…`, usable without a key. */
  readonly url: string;
  /** `srcsetOf(url, width)`: the narrower widths, then the URL itself, ready for `<img srcset>`. */
  readonly srcset: string;
}

/** How photos are linked: signs each photo's URL with the service's signing secret. */
export interface PhotoLinks {
  /** The views of `photos`, in the same order (one call per page, however many photos it holds). */
  links(photos: readonly Photo[]): Promise<readonly PhotoView[]>;
}

/** How a photo's URL is offered to a browser (docs/rules.md §16): one rule, used by every `PhotoLinks`. */
import { PHOTO_WIDTHS } from './photo.js';

/**
 * The `srcset` of a photo `width` pixels wide at `url`: the URL with `width=160`, `320` and `640`
 * (only those narrower than the photo, as §13 serves them) and then the URL itself, each followed by
 * its width descriptor, comma-separated: `…&width=160 160w, …&width=320 320w, … 500w`.
 */
export const srcsetOf = (url: string, width: number): string => {
  const join = url.includes('?') ? '&' : '?';
  const parts: string[] = [];
  for (const narrower of PHOTO_WIDTHS) if (narrower < width) parts.push(`${url}${join}width=${narrower} ${narrower}w`);
  parts.push(`${url} ${width}w`);
  return parts.join(', ');
};

/** Code points below U+0080 only. */
const ASCII = /^[\0-\x7f]*$/;

/**
 * Whether `text` is ASCII: text that Unicode normalization leaves as it is, that holds no combining
 * mark, and whose UTF-8 bytes are its own code units. The fold and the cursors skip their general
 * (and far costlier) path for it, as most names and queries are.
 */
export const isAscii = (text: string): boolean => ASCII.test(text);

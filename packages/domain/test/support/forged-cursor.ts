/**
 * What a forger of page cursors can write (docs/rules.md §2, §16): the checksum is no secret, so a
 * test spells a cursor's fields as it likes under a fitting checksum, and checks that the fields
 * are refused on their own. cyrb53, as pagination/cursor.ts computes it; a test checks the two agree.
 */
export const cursorChecksum = (text: string): string => {
  let h1 = 0xdeadbeef ^ 0x5eed;
  let h2 = 0x41c6ce57 ^ 0x5eed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
};

/** `body` and, after a dot, the checksum of `body` in `scope`, as base64url (each character one byte). */
export const forgeCursor = (body: string, scope: string): string =>
  Buffer.from(`${body}.${cursorChecksum(`${body}|${scope}`)}`, 'latin1').toString('base64url');

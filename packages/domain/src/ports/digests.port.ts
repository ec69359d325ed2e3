/**
 * SHA-256, HMAC-SHA256 and the comparison of secrets, as a port: the platform's cryptography (Node's
 * `node:crypto`), never the domain's own. Every hex digest is lowercase.
 */
export interface Digests {
  /** SHA-256 of the text's UTF-8 bytes (a lone surrogate encoded as U+FFFD): keys, request fingerprints, creation tokens. */
  sha256Hex(text: string): string;
  /** SHA-256 of bytes (a photo's files: megabytes), as a promise: an adapter may hash without holding its thread. */
  sha256HexOfBytes(bytes: Uint8Array): Promise<string>;
  /** HMAC-SHA256 of the message's UTF-8 bytes under the key's UTF-8 bytes: the 32 bytes of the MAC (signed photo URLs). */
  hmacSha256(key: string, message: string): Uint8Array;
  /** Whether two strings are equal, in time that does not depend on where they differ (a key's hash against the one stored). */
  equal(a: string, b: string): boolean;
}

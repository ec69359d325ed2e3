import { createHash } from 'node:crypto';

/** Bytes hashed at a time before the event loop gets its turn back (some 0.2 ms each). */
const DIGEST_SLICE_BYTES = 256 * 1024;

/**
 * The SHA-256 of `bytes`, lowercase hex, with Node's native hash, in slices of
 * `DIGEST_SLICE_BYTES` with the event loop's turn between them, so that megabytes
 * (a photo's body) never hold it for more than a slice.
 * Nothing is copied. (WebCrypto's `digest` hashes on libuv's threads, but first copies its input on
 * this one: for 10 MB that copy holds the event loop about as long as hashing it here would.)
 */
export const sha256HexInSlices = async (bytes: Uint8Array): Promise<string> => {
  const sha = createHash('sha256');
  for (let at = 0; at < bytes.length; at += DIGEST_SLICE_BYTES) {
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    sha.update(bytes.subarray(at, at + DIGEST_SLICE_BYTES));
  }
  return sha.digest('hex');
};

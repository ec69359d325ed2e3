import { createHash, createHmac, hash, timingSafeEqual } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Digests } from '@petstore/domain';

/** Bytes hashed at a time before the event loop gets its turn back (about 0.15 ms each). */
const SLICE_BYTES = 256 * 1024;

/** The domain's digests on `node:crypto`. */
export class NodeDigests implements Digests {
  sha256Hex(text: string): string {
    return hash('sha256', text, 'hex');
  }

  /**
   * In slices of 256 KiB with the event loop's turn between them, so that megabytes (a photo's
   * files) never hold it for more than a slice. Nothing is copied.
   */
  async sha256HexOfBytes(bytes: Uint8Array): Promise<string> {
    const sha = createHash('sha256');
    for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
      if (at > 0) await nextTurn();
      sha.update(bytes.subarray(at, at + SLICE_BYTES));
    }
    return sha.digest('hex');
  }

  hmacSha256(key: string, message: string): Uint8Array {
    return createHmac('sha256', key).update(message, 'utf8').digest();
  }

  /** `timingSafeEqual` over the UTF-8 bytes; strings of different lengths are unequal at once. */
  equal(a: string, b: string): boolean {
    const x = Buffer.from(a, 'utf8');
    const y = Buffer.from(b, 'utf8');
    return x.length === y.length && timingSafeEqual(x, y);
  }
}

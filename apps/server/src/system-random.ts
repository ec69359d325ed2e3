import { randomBytes, randomFillSync } from 'node:crypto';
import type { Random } from '@petstore/domain';

/** Bytes drawn from the CSPRNG at once, from which requests of up to a quarter of it are cut. */
const POOL_BYTES = 256;

/**
 * The operating system's CSPRNG (node:crypto). A draw costs about 13k instructions whatever its
 * size, over 3 % of a create that needs 4 bytes (a shuffle key), so small requests are cut from a
 * pool drawn 256 bytes at a time, as Node's own `randomUUID` caches its entropy. Each byte is handed
 * out once, as a copy, and wiped from the pool; larger requests are drawn on their own.
 */
export class SystemRandom implements Random {
  private readonly pool = new Uint8Array(POOL_BYTES);
  private next = POOL_BYTES;

  bytes(length: number): Uint8Array {
    // Anything but a small whole count, a bad one included (which randomBytes refuses), is drawn on its own.
    if (!Number.isSafeInteger(length) || length < 0 || length > POOL_BYTES / 4) return randomBytes(length);
    if (this.next + length > POOL_BYTES) {
      randomFillSync(this.pool);
      this.next = 0;
    }
    const out = this.pool.slice(this.next, this.next + length);
    this.pool.fill(0, this.next, this.next + length);
    this.next += length;
    return out;
  }
}

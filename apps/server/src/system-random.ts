import { randomBytes } from 'node:crypto';
import type { Random } from '@petstore/domain';

/** The operating system's CSPRNG (node:crypto `randomBytes`). */
export class SystemRandom implements Random {
  bytes(length: number): Uint8Array {
    return randomBytes(length);
  }
}

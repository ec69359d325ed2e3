import type { Random } from '../src/index.js';
import { nodeDigests } from './node-digests.js';

/** Random bytes that are a function of a seed and a counter: deterministic, never repeating within a run. */
export class SeededRandom implements Random {
  private counter = 0;
  constructor(private readonly seed: string = 'seed') {}
  bytes(length: number): Uint8Array {
    const hex = nodeDigests.sha256Hex(`${this.seed}:${this.counter++}`).repeat(Math.ceil(length / 32));
    return Uint8Array.from({ length }, (_, i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16));
  }
}

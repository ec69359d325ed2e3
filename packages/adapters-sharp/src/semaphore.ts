/**
 * At most `limit` tasks at once; up to `queueLimit` more wait their turn, first come first
 * served. `run` answers `undefined` (the task not started) when the queue is full.
 */
export class Semaphore {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly queueLimit: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`a semaphore needs a limit of at least 1 (got ${limit})`);
  }

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  run<T>(task: () => Promise<T>): Promise<T> | undefined {
    if (this.active < this.limit) return this.start(task);
    if (this.queue.length >= this.queueLimit) return undefined;
    return new Promise<T>((resolve, reject) => {
      this.queue.push(() => void this.start(task).then(resolve, reject));
    });
  }

  private async start<T>(task: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}

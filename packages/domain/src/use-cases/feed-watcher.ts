import { isPromise } from '../ports/answer.js';
import { asksFor, FEED_PAGE, type SubscriptionWorker } from './subscription-worker.js';
import type { DispatchContext } from './dispatch-context.js';

/**
 * Its wait on the feed has no timeout (an event ends it, a stop at once): an event then costs the
 * process no timer set and cleared (Node files timers by their duration: one that comes and goes
 * makes and drops its list each time).
 */
const WATCH_MS = Number.POSITIVE_INFINITY;
/** How long it waits after its store failed before it looks again (a stop ends the wait). */
const WATCH_RETRY_MS = 1000;

/**
 * A dispatcher's one watch on the feed (docs/rules.md §15): it waits on the feed (the store's wait,
 * one for the process), reads each new event once, and wakes only the idle workers with an event of
 * their types beyond their position; none at all while the process holds no subscription. So an
 * event of other types costs a subscription nothing. docs/design.md ("Webhooks") says why.
 */
export class FeedWatcher {
  /**
   * The last sequence it has examined (`-Infinity` until it has learned where the feed ends): every
   * idle worker was woken for an event up to it of its types beyond its position.
   */
  private seen = Number.NEGATIVE_INFINITY;
  /** Its current loop (`start` begins a new one): a token compared by identity. */
  private loop: object = {};
  /** Ends its wait for a first worker. */
  private workerStarted: () => void = () => undefined;
  /** Ends its wait on the feed under way (`stop`). */
  private endWatch: () => void = () => undefined;
  private watching: Promise<void> = Promise.resolve();

  constructor(
    private readonly context: DispatchContext,
    /** The dispatcher's workers, by subscription. */
    private readonly workers: ReadonlyMap<string, SubscriptionWorker>,
  ) {}

  /** The last sequence it has examined (`-Infinity` until it knows where the feed ends). */
  get seenThrough(): number {
    return this.seen;
  }

  /** Starts its loop (a loop of an earlier start ends at its next look). */
  start(): void {
    const loop = {};
    this.loop = loop;
    this.seen = Number.NEGATIVE_INFINITY;
    const stopping = new Promise<void>((resolve) => (this.endWatch = resolve));
    this.watching = this.watch(() => !this.context.stopped() && loop === this.loop, stopping);
  }

  /** Ends its wait under way (the dispatcher stopped); answers once its loop has ended. */
  stop(): Promise<void> {
    this.endWatch();
    return this.watching;
  }

  /** A worker was started: a watcher waiting for one looks at the feed again. */
  workerAdded(): void {
    this.workerStarted();
  }

  private async watch(current: () => boolean, stopping: Promise<void>): Promise<void> {
    const { events, onError, sleep } = this.context;
    while (current()) {
      try {
        if (this.workers.size === 0) {
          // No subscription held here: nothing to wake, so no wait on the feed (a read and a timer
          // per event). A worker started ends this wait; it then learns the feed's end afresh.
          await new Promise<void>((resolve) => {
            this.workerStarted = resolve;
            void stopping.then(resolve);
          });
          this.seen = Number.NEGATIVE_INFINITY;
          continue;
        }
        const seen = this.seen;
        if (seen === Number.NEGATIVE_INFINITY) {
          // The workers that went idle before it knew where the feed ends, short of it, look again
          // (once): events up to it may have come after their read.
          const last = await events.lastSequence();
          this.seen = last;
          for (const worker of this.workers.values()) if (worker.position < last) worker.wake();
          continue;
        }
        await events.waitBeyond(seen, WATCH_MS, stopping);
        await this.readFeed(current);
      } catch (error) {
        onError?.(error);
        if (current()) await sleep(WATCH_RETRY_MS);
      }
    }
  }

  /** Reads the feed after `seen`, page after page to its end, waking the idle workers each page concerns. */
  private async readFeed(current: () => boolean): Promise<void> {
    for (;;) {
      const read = this.context.events.after(this.seen, { limit: FEED_PAGE });
      const page = isPromise(read) ? await read : read;
      if (!current()) return;
      const last = page.at(-1);
      if (last === undefined) return;
      this.seen = last.sequence;
      for (const worker of this.workers.values()) {
        if (!worker.idle) continue;
        const { position, types } = worker;
        if (page.some((event) => event.sequence > position && asksFor(types, event))) worker.wake();
      }
      if (page.length < FEED_PAGE) return;
    }
  }
}

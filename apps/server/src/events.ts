import {
  EventFeed,
  EventRelay,
  EventRetention,
  isPromise,
  RelayLoop,
  type Answer,
  type Clock,
  type EventStore,
} from '@petstore/domain';
import { LongPolls, type HttpLogger, type HttpMetrics } from '@petstore/adapters-http';
import { errorFields, leaseHolder } from './background.js';

/** How often the retention runs (docs/rules.md §15, guarantee 5): at start, then every ten minutes. */
export const EVENT_RETENTION_EVERY_MS = 10 * 60_000;
/** Purges per run at most (each removes at most a few thousand events): a backlog goes over several runs. */
const PURGES_PER_RUN = 20;

/** Everything else the events of the server need. */
export interface ServerEventsOptions {
  readonly clock: Clock;
  readonly metrics: HttpMetrics;
  readonly logger: HttpLogger;
  /** `PETSTORE_EVENT_RETENTION_DAYS`. */
  readonly retentionDays: number;
}

/**
 * The relay under a lease, logging a failing streak once (when it starts, at `error`: the store did
 * not answer) and its end (at `info`), instead of every run of the loop.
 */
class LoggedRelay extends EventRelay {
  private failing = false;

  constructor(
    store: EventStore,
    clock: Clock,
    holder: string,
    metrics: HttpMetrics,
    private readonly logger: HttpLogger,
  ) {
    // Counted once per event this relay appended (a repeat it finds in the feed is not counted again).
    super(store, clock, holder, { onAppended: (event) => metrics.eventAppended?.(event.type) });
  }

  override run(): Answer<number> {
    // On the memory store a run answers at once: no promise is made for it here either.
    const answer = super.run();
    return isPromise(answer)
      ? answer.then(
          (moved) => this.succeeded(moved),
          (error: unknown) => this.failed(error),
        )
      : this.succeeded(answer);
  }

  private succeeded(moved: number): number {
    if (this.failing) this.logger.info({}, 'event relay: runs again');
    this.failing = false;
    return moved;
  }

  private failed(error: unknown): never {
    if (!this.failing)
      this.logger.error(errorFields(error), 'event relay: a run failed; retrying (nothing recorded is lost)');
    this.failing = true;
    throw error;
  }
}

/**
 * The events of one server process (docs/rules.md §15): the feed its routes read, the relay that
 * moves what its writes (and other processes' writes) record into the feed, under a lease shared
 * by every process on the store, and the retention. Without an event store (stores given by the
 * caller that record no events) there is no feed, no relay and no retention.
 */
export class ServerEvents {
  /** `GET /v1/events`; absent without an event store. */
  readonly feed: EventFeed | undefined;
  /** The feed's long polls under way: ended at once when the server stops. */
  readonly longPolls = new LongPolls();
  private readonly relay: LoggedRelay | undefined;
  private readonly loop: RelayLoop | undefined;
  private readonly retention: EventRetention | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;
  private retaining: Promise<void> | undefined;

  constructor(
    store: EventStore | undefined,
    private readonly options: ServerEventsOptions,
  ) {
    if (store === undefined) return;
    this.feed = new EventFeed(store, options.clock);
    // Unique per process: several processes share the lease of one store.
    const holder = leaseHolder();
    this.relay = new LoggedRelay(store, options.clock, holder, options.metrics, options.logger);
    // A failed run is logged by the relay itself (once per failing streak); the loop goes on.
    this.loop = new RelayLoop(this.relay, store, globalThis, { onError: () => {} });
    this.retention = new EventRetention(store, options.clock, options.retentionDays);
  }

  /** Starts the relay (a run at once) and the retention (a run at once, then every `EVENT_RETENTION_EVERY_MS`). */
  start(): void {
    this.loop?.start();
    if (this.retention === undefined) return;
    this.retain();
    this.retentionTimer = setInterval(() => this.retain(), EVENT_RETENTION_EVERY_MS);
    this.retentionTimer.unref();
  }

  /** Ends the long polls under way (each answers at once): the first step of a stop. */
  closeLongPolls(): void {
    this.longPolls.close();
  }

  /**
   * Stops the relay once the requests in flight are done: the run under way ends, then one last run
   * moves what they recorded; the retention stops. (What is still waiting then, another process's
   * relay or this one's next start moves: nothing recorded is lost.)
   */
  async stop(): Promise<void> {
    this.longPolls.close();
    clearInterval(this.retentionTimer);
    await this.loop?.stop();
    if (this.relay !== undefined) await Promise.resolve(this.relay.run()).catch(() => undefined);
    await this.retaining;
  }

  private retain(): void {
    if (this.retaining !== undefined || this.retention === undefined) return;
    const retention = this.retention;
    this.retaining = (async () => {
      let removed = 0;
      for (let run = 0; run < PURGES_PER_RUN; run++) {
        const purged = await retention.purge();
        removed += purged;
        if (purged === 0) break;
      }
      if (removed > 0)
        this.options.logger.info(
          { removed, retentionDays: this.options.retentionDays },
          'events past their retention removed',
        );
    })()
      .catch((error: unknown) => {
        this.options.logger.warn(errorFields(error), 'event retention: a run failed; the next one goes on');
      })
      .finally(() => (this.retaining = undefined));
  }
}

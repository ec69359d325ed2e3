import type { Clock } from '../ports/clock.port.js';
import type { EventStore } from '../ports/event-store.port.js';
import type { Caller } from '../auth/api-key.js';
import type { Forbidden, Gone } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import type { Event, EventType } from '../events/event.js';
import type { FeedQuery } from '../events/feed-query.js';
import {
  behindRetentionMessage,
  EVENT_RETENTION_DAYS,
  expiredPrefix,
  isBehindRetention,
  retentionCutoff,
} from '../events/retention.js';

/** A page of the feed: its events, and where the next page starts (`after` of the `rel="next"` link). */
export interface FeedPage {
  readonly events: readonly Event[];
  /** The last sequence of this page, or the page's own `after` when it is empty: following it reads every event once. */
  readonly next: number;
}

/** What `follow` reads at a time. */
export interface FollowOptions {
  readonly types?: readonly EventType[] | undefined;
  /** Events read per store call (default 100). */
  readonly batch?: number;
  /** How long one wait for new events lasts before it looks again (default 30 s). */
  readonly waitMs?: number;
  /** Settles when the follower should stop: the iteration then ends (after the events already read). */
  readonly until?: PromiseLike<unknown>;
}

/**
 * The feed of docs/rules.md §15, for the HTTP feed (`GET /v1/events`, admin keys) and for services
 * that embed the domain: pages after a sequence, a long poll for the next event, and `follow`, every
 * event from a sequence on as it arrives. A reader behind the retention is told so (`gone`, with the
 * first sequence kept), never moved silently past what it missed.
 */
export class EventFeed {
  constructor(
    private readonly events: EventStore,
    private readonly clock: Clock,
  ) {}

  /** Client keys → `forbidden`, before anything is read. */
  authorize(caller: Caller | undefined): Result<void, Forbidden> {
    return caller?.role === 'admin'
      ? ok(undefined)
      : fail({ code: 'forbidden', message: 'only an admin key may read the events' });
  }

  /**
   * The events after `query.after` (of `query.types`), at most `query.limit`; when none matches yet,
   * waits up to `query.waitMs` and answers as soon as one is there (or `until` settles), else an
   * empty page. `gone` when the event after `query.after` is no longer kept.
   */
  async read(query: FeedQuery, until?: PromiseLike<unknown>): Promise<Result<FeedPage, Gone>> {
    const deadline = this.clock.now() + query.waitMs;
    const ask = query.types === undefined ? { limit: query.limit } : { types: query.types, limit: query.limit };
    let seen = query.after;
    for (;;) {
      const read = this.events.after(query.after, ask);
      const events = read instanceof Promise ? await read : read;
      // Checked after the read: a purge is a prefix, so a page read before the first kept event moved on is whole.
      const first = await this.events.firstSequence();
      if (isBehindRetention(query.after, first))
        return fail({ code: 'gone', message: behindRetentionMessage(query.after, first) });
      if (events.length > 0) return ok({ events, next: events[events.length - 1]!.sequence });
      const left = deadline - this.clock.now();
      if (left <= 0) return ok({ events, next: query.after });
      // Events of other types may arrive meanwhile: wait past what has been looked at, then read again.
      const last = await this.events.waitBeyond(seen, left, until);
      if (last <= seen) return ok({ events, next: query.after });
      seen = last;
    }
  }

  /**
   * Every event after `after`, in order, as it arrives: the events there now, then each new one as
   * soon as the feed has it (waiting `options.waitMs` at a time). Ends when `options.until` settles.
   * Throws `gone`'s message (an `Error`) when `after` is behind the retention.
   */
  async *follow(after = 0, options: FollowOptions = {}): AsyncGenerator<Event, void, undefined> {
    let stop = false;
    void options.until?.then(
      () => (stop = true),
      () => (stop = true),
    );
    const limit = options.batch ?? 100;
    let cursor = after;
    while (!stop) {
      const page = await this.read(
        { after: cursor, types: options.types, limit, waitMs: options.waitMs ?? 30_000 },
        options.until,
      );
      if (!page.ok) throw new Error(page.error.message);
      yield* page.value.events;
      cursor = page.value.next;
    }
  }
}

/** Events read per store call while looking for the end of what may be purged. */
const PURGE_PAGE = 100;
/** Pages looked at per `purge` (the next call goes on). */
const PURGE_MAX_PAGES = 50;

/**
 * Guarantee 5 of docs/rules.md §15: events are kept `days` days (within `EVENT_RETENTION_DAYS`),
 * then leave the start of the feed, never its middle; the newest event always stays (it carries the
 * feed's position).
 */
export class EventRetention {
  constructor(
    private readonly events: EventStore,
    private readonly clock: Clock,
    private readonly days: number = EVENT_RETENTION_DAYS.default,
  ) {}

  /** Removes the expired events from the start of the feed (up to `PURGE_MAX_PAGES` pages of them a call); answers how many went. */
  async purge(): Promise<number> {
    const cutoff = retentionCutoff(this.clock.now(), this.days);
    const last = await this.events.lastSequence();
    const first = await this.events.firstSequence();
    let through = first - 1;
    for (let page = 0; page < PURGE_MAX_PAGES; page++) {
      const read = this.events.after(through, { limit: PURGE_PAGE });
      const events = read instanceof Promise ? await read : read;
      const expired = expiredPrefix(events, cutoff);
      if (expired > 0) through = events[expired - 1]!.sequence;
      if (expired < PURGE_PAGE) break;
    }
    through = Math.min(through, last - 1);
    return through >= first ? this.events.purge(through) : 0;
  }
}

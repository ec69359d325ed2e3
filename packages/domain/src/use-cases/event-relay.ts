import type { Clock } from '../ports/clock.port.js';
import type { EventStore } from '../ports/event-store.port.js';
import { isPromise, type Answer } from '../ports/answer.js';
import { StoreUnavailableError } from '../errors.js';
import { toEvent, type Event, type EventSource, type OutboxEntry, type Precedent } from '../events/event.js';
import {
  bySource,
  RELAY_BATCH,
  RELAY_LEASE_MS,
  RELAY_MAX_DEPTH,
  RELAY_MAX_ROUNDS,
  RELAY_MAX_TAKEN,
  relayDelay,
} from '../events/outbox.js';

export interface RelayOptions {
  /** Outbox entries read per round (default `RELAY_BATCH`). */
  readonly batch?: number;
  /** How long a lease taken or renewed lasts (default `RELAY_LEASE_MS`). */
  readonly leaseMs?: number;
  /** Told of every event this relay appended to the feed, once (not of a repeat it found there): for `petstore_events_total{type}`. */
  readonly onAppended?: (event: Event) => void;
}

/** A relay run's steps: each `yield` hands a store call's answer (a value or a promise) to `drive`, which gives back the value. */
type Steps<T> = Generator<unknown, T, unknown>;

/**
 * One store call within the steps, typed: `const page = yield* call(this.store.pending(n))`. `drive`
 * gives back what the answer yielded here holds (its value, or what its promise resolved to), so the
 * one cast is here, not at each call.
 */
function* call<T>(answer: Answer<T>): Steps<T> {
  return (yield answer) as T;
}

/**
 * Runs `steps` to their end. Each answer that is a value goes straight back into them, so a run on
 * a store inside the process (the memory store) takes no promise turn at all, where an `await` per
 * store call cost several per event on the create path; from the first promise on, each answer is
 * awaited. A store call that throws, or whose promise rejects, throws inside the steps (at their
 * `yield`), so they see it as a call that failed; what they do not catch ends the run with it.
 */
const drive = <T>(steps: Steps<T>): Answer<T> => {
  let next = steps.next();
  while (next.done !== true) {
    // Stryker disable next-line ConditionalExpression: awaiting a value too gives the same run, only with promise turns
    if (isPromise(next.value)) return driveAsync(steps, next.value);
    next = steps.next(next.value);
  }
  return next.value;
};

const driveAsync = async <T>(steps: Steps<T>, first: Promise<unknown>): Promise<T> => {
  let answer: unknown = first;
  for (;;) {
    let next: IteratorResult<unknown, T>;
    // Stryker disable next-line ConditionalExpression: awaiting a value too gives the same run, only with promise turns
    if (isPromise(answer)) {
      let failed = false;
      let value: unknown;
      try {
        value = await answer;
      } catch (error) {
        failed = true;
        value = error;
      }
      next = failed ? steps.throw(value) : steps.next(value);
    } else next = steps.next(answer);
    if (next.done === true) return next.value;
    answer = next.value;
  }
};

/**
 * The relay (docs/rules.md §15, docs/design.md "Events"): moves the events waiting in the outboxes
 * into the feed, each at the next sequence. Under its lease, per round: read a batch of waiting
 * entries; for each resource, in its outbox's order, first move what the entry `follows` (the
 * waiting entries of those resources, up to the one marked `through`), then `append` the entry at the last sequence + 1 (`taken`:
 * another relay numbered one first, read the last sequence again and retry; `duplicate`: an earlier
 * run moved it and stopped before clearing it, nothing to do); then `clear` the resource's moved
 * entries. A fault between any two of these steps leaves entries that the next run moves again, and
 * `append`'s refusals make the repeat a no-op: every event reaches the feed exactly once, numbered
 * without a gap, each resource's in the order of its writes. The lease only keeps relays from
 * contending; two at once still give that same feed.
 *
 * The steps are written once, as generators whose `yield`s are the store's calls (`drive` runs
 * them): on a store that answers at once a whole run is one synchronous pass, on MongoDB each call
 * is awaited in turn.
 */
export class EventRelay {
  private readonly batch: number;
  private readonly leaseMs: number;
  private last = 0;
  /** Until when this relay holds the lease, as far as its own takes tell (no other relay can take it before). */
  private heldUntil = Number.NEGATIVE_INFINITY;
  private more = false;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    /** This relay's name in the lease (unique per process: several processes share one store). */
    private readonly holder: string,
    private readonly options: RelayOptions = {},
  ) {
    this.batch = options.batch ?? RELAY_BATCH;
    this.leaseMs = options.leaseMs ?? RELAY_LEASE_MS;
  }

  /**
   * One run: takes the lease (renews it once half of it has passed; reads the feed's last sequence
   * when it took it anew), then moves waiting entries until a batch comes back short (at most
   * `RELAY_MAX_ROUNDS` batches, renewing the lease between them when due). Answers how many events it
   * appended; 0 when another relay holds the lease: at once when the store answered every step at
   * once, else a promise. A store failure rejects (what was moved stays moved), also one the store
   * threw at once: `run` itself never throws.
   */
  run(): Answer<number> {
    try {
      return drive(this.runSteps());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Whether the last run stopped at its round limit, with batches still full: more may wait. */
  get hasMore(): boolean {
    return this.more;
  }

  private *runSteps(): Steps<number> {
    this.more = false;
    try {
      if (!(yield* this.holdLease())) return 0;
      let appended = 0;
      for (let round = 0; round < RELAY_MAX_ROUNDS; round++) {
        const waiting = yield* call(this.store.pending(this.batch));
        const moved = new Set<string>();
        const groups = bySource(waiting);
        for (let i = 0; i < groups.length; i++)
          appended += yield* this.move(groups[i]!.source, groups[i]!.entries, moved, 0);
        // A short batch was all that waited when it was read (what was recorded since wakes the relay again).
        if (waiting.length < this.batch) return appended;
        if (!(yield* this.holdLease())) return appended;
      }
      this.more = true;
      return appended;
    } catch (error) {
      // After a failure nothing is assumed: the next run takes the lease and reads the last sequence again.
      this.heldUntil = Number.NEGATIVE_INFINITY;
      throw error;
    }
  }

  /**
   * Takes or renews the lease, through the store once half of it has passed (until then no other
   * relay can take it, and a run costs no store call for it); true while this relay holds it. Taken
   * anew (not held a moment ago: other relays may have appended since), it reads the feed's last
   * sequence; while it holds, only this relay appends, so `last` stays right without a read (and a
   * relay whose lease ran out under it finds its sequence `taken`, and `append` reads it again).
   */
  private *holdLease(): Steps<boolean> {
    const now = this.clock.now();
    if (this.heldUntil - now > this.leaseMs / 2) return true;
    const held = this.heldUntil > now;
    this.heldUntil = Number.NEGATIVE_INFINITY;
    if (!(yield* call(this.store.lease(this.holder, now, now + this.leaseMs)))) return false;
    if (!held) this.last = yield* call(this.store.lastSequence());
    this.heldUntil = now + this.leaseMs;
    return true;
  }

  /** Moves `entries` (a prefix of `source`'s outbox, in order) into the feed, then clears them. `moved`: ids moved in this round. */
  private *move(
    source: EventSource,
    entries: readonly OutboxEntry[],
    moved: Set<string>,
    depth: number,
  ): Steps<number> {
    let appended = 0;
    // Indexed loops: a generator's `for…of` over an array runs the iterator protocol for each entry.
    const ids: string[] = [];
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      ids.push(entry.id);
      if (moved.has(entry.id)) continue;
      const follows = entry.follows;
      if (follows !== undefined)
        for (let f = 0; f < follows.length; f++) appended += yield* this.drain(follows[f]!, moved, depth + 1);
      if (yield* this.append(entry)) appended++;
      moved.add(entry.id);
    }
    yield* call(this.store.clear(source, ids));
    return appended;
  }

  /**
   * Moves what waits in the outbox of the resource an entry follows, up to the entry marked
   * `through` (all of it without one; none when that entry no longer waits: it is in the feed).
   */
  private *drain(earlier: Precedent, moved: Set<string>, depth: number): Steps<number> {
    if (depth > RELAY_MAX_DEPTH)
      throw new Error(
        `the outboxes' follows lead deeper than ${RELAY_MAX_DEPTH} resources (at ${earlier.kind} ${earlier.id}): a store that records events out of its rules`,
      );
    const source: EventSource = { kind: earlier.kind, id: earlier.id };
    const waiting = yield* call(this.store.pendingOf(source));
    const end =
      earlier.through === undefined ? waiting.length : waiting.findIndex((entry) => entry.mark === earlier.through) + 1;
    return end === 0 ? 0 : yield* this.move(source, waiting.slice(0, end), moved, depth);
  }

  /** Appends `entry` at the next sequence: true when appended, false when the feed has it already. */
  private *append(entry: OutboxEntry): Steps<boolean> {
    for (let attempt = 0; attempt < RELAY_MAX_TAKEN; attempt++) {
      const event = toEvent(entry, this.last + 1);
      const outcome = yield* call(this.store.append(event));
      if (outcome === 'duplicate') return false;
      if (outcome === 'appended') {
        this.last = event.sequence;
        this.options.onAppended?.(event);
        return true;
      }
      this.last = yield* call(this.store.lastSequence());
    }
    throw new StoreUnavailableError(
      `the feed's next sequence was taken ${RELAY_MAX_TAKEN} times in a row (other relays at work); retry`,
    );
  }
}

/** The timers a `RelayLoop` schedules its runs with, and `SequenceWaiters` its timeouts (`globalThis` has them on every JavaScript runtime). */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface RelayLoopOptions {
  /** Told of a run that failed (the loop goes on, after the idle wait). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Keeps a relay running in a process: a run at once whenever a write of this process recorded
 * events (`EventStore.onRecorded`), again at once while the relay has more (full batches), and
 * otherwise after the waits of `relayDelay`: 25 ms after a run that moved something, then longer
 * and longer up to 400 ms while none does, to find what other processes recorded. One timer at a
 * time, kept across the writes that wake it (each wake runs at once, the timer only bounds the wait).
 */
export class RelayLoop {
  private timer: unknown;
  /** The wait `timer` was set for: it fires within that from now. */
  private timerDelay = 0;
  private running: Promise<void> | undefined;
  private again = false;
  private idle = 0;
  private stopped = true;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly relay: EventRelay,
    private readonly store: EventStore,
    private readonly timers: Timers,
    private readonly options: RelayLoopOptions = {},
  ) {}

  /** Starts the loop (a run at once). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.store.onRecorded(() => this.wake());
    this.wake();
  }

  /** A run as soon as possible (after the current one, if one is under way). */
  wake(): void {
    if (this.stopped) return;
    this.idle = 0;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    // The idle timer is left as it is: the run's own `schedule` keeps it when it fires soon enough,
    // which under a stream of writes spares a cancel and a new timer at each of them.
    // Never inside the caller's turn (a write recording its events): the run starts once it is done.
    this.running = Promise.resolve().then(() => this.runOnce());
  }

  /** Stops the loop: no run starts from now on; answers once a run under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.cancelTimer();
    await this.running;
  }

  /** A run, then the next one scheduled; on a store that answers at once, all of it in this turn. */
  private runOnce(): Promise<void> | undefined {
    const answer = this.relay.run();
    if (!isPromise(answer)) return this.ran(answer);
    return answer.then(
      (moved) => this.ran(moved),
      (error: unknown) => {
        this.options.onError?.(error);
        return this.ran(0);
      },
    );
  }

  /** After a run that moved `moved` events: the next one at once, or a look after the idle wait. */
  private ran(moved: number): undefined {
    this.running = undefined;
    // Woken while it ran (what woke it may have come after the run looked), or more may wait: at once.
    const again = this.again || this.relay.hasMore;
    this.again = false;
    if (this.stopped) return undefined;
    // Else look again soon after a run that moved something, later and later while none does.
    this.idle = again ? 0 : moved > 0 ? 1 : this.idle + 1;
    const delay = relayDelay(this.idle);
    if (delay === 0) this.running = Promise.resolve().then(() => this.runOnce());
    else this.schedule(delay);
    return undefined;
  }

  /**
   * A look within `delay` ms: a timer already set for no longer a wait is kept (it fires as soon or
   * sooner, and a look that finds nothing costs less than a timer cancelled and set again); else a
   * new one.
   */
  private schedule(delay: number): void {
    if (this.timer !== undefined && this.timerDelay <= delay) return;
    this.cancelTimer();
    this.timerDelay = delay;
    this.timer = this.timers.setTimeout(() => this.tick(), delay);
  }

  private tick(): void {
    this.timer = undefined;
    if (this.stopped) return;
    // A timer kept through a wake can fire during the run the wake started: that run schedules the next look.
    if (this.running !== undefined) return;
    // Through a promise turn, as `wake`: a run that ends at once sets `running` itself, after this assignment.
    this.running = Promise.resolve().then(() => this.runOnce());
  }

  private cancelTimer(): void {
    if (this.timer === undefined) return;
    this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

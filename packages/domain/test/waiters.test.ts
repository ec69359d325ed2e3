import { expect } from 'chai';
import fc from 'fast-check';
import { SequenceWaiters } from '../src/index.js';
import { type ManualTimer, ManualTimers } from './support/manual-timers.js';

/** Lets every settled promise run its callbacks (an `until` that settled ends its wait on a later tick). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A wait under test: its promise, what it resolved with (once it has), its timer and its `until`. */
interface Watched {
  readonly sequence: number;
  readonly timer: ManualTimer | undefined;
  readonly until: { resolve: () => void; reject: (error: Error) => void } | undefined;
  resolved: number | undefined;
}

const setUp = () => {
  const timers = new ManualTimers();
  const waiters = new SequenceWaiters(timers);
  const state = { current: 0 };
  const current = (): number => state.current;
  const watch = (sequence: number, timeoutMs: number, withUntil = false): Watched => {
    const before = timers.scheduled.length;
    let until: Watched['until'];
    const promise = waiters.wait(
      sequence,
      timeoutMs,
      current,
      withUntil ? new Promise<void>((resolve, reject) => (until = { resolve, reject })) : undefined,
    );
    const watched: Watched = { sequence, timer: timers.scheduled[before], until, resolved: undefined };
    expect(timers.scheduled.length, 'at most one timer a wait').to.be.at.most(before + 1);
    void promise.then((value) => (watched.resolved = value));
    return watched;
  };
  return { timers, waiters, state, watch };
};

describe('SequenceWaiters (the waits of EventStore.waitBeyond, docs/rules.md §15)', () => {
  it('a wait ends when told of a sequence beyond its own, not at or below it, and answers the current sequence', async () => {
    const { timers, waiters, state, watch } = setUp();
    state.current = 4;
    const wait = watch(4, 5_000);
    expect(timers.live.map((t) => t.ms)).to.deep.equal([5_000]);
    expect(waiters.size).to.equal(1);
    waiters.notify(3);
    waiters.notify(4);
    await settle();
    expect(wait.resolved, 'not at its own sequence').to.equal(undefined);
    state.current = 6;
    waiters.notify(5);
    await settle();
    expect(wait.resolved, 'the current sequence at its end').to.equal(6);
    expect(waiters.size).to.equal(0);
    expect(timers.live, 'its timer cleared').to.deep.equal([]);
  });

  it('a wait ends at its timeout, or when its `until` settles (resolved or rejected), with the current sequence', async () => {
    const { timers, waiters, state, watch } = setUp();
    state.current = 2;
    const timedOut = watch(2, 100);
    const told = watch(2, 5_000, true);
    const refused = watch(2, 5_000, true);
    timers.fire(timedOut.timer!);
    await settle();
    expect([timedOut.resolved, told.resolved, refused.resolved]).to.deep.equal([2, undefined, undefined]);
    told.until!.resolve();
    refused.until!.reject(new Error('gone'));
    await settle();
    expect([told.resolved, refused.resolved]).to.deep.equal([2, 2]);
    expect(waiters.size).to.equal(0);
    expect(timers.live, 'their timers cleared').to.deep.equal([]);
  });

  it('a wait without a timeout (Infinity) sets no timer, and ends by an event or its `until` only', async () => {
    const { timers, waiters, state, watch } = setUp();
    state.current = 1;
    const byEvent = watch(1, Number.POSITIVE_INFINITY);
    const byUntil = watch(1, Number.POSITIVE_INFINITY, true);
    expect(timers.scheduled, 'no timer').to.deep.equal([]);
    expect(waiters.size).to.equal(2);
    byUntil.until!.resolve();
    await settle();
    expect([byEvent.resolved, byUntil.resolved]).to.deep.equal([undefined, 1]);
    state.current = 2;
    waiters.notify(2);
    await settle();
    expect(byEvent.resolved).to.equal(2);
    expect(waiters.size).to.equal(0);
    expect(timers.scheduled).to.deep.equal([]);
  });

  it('a wait for a sequence already passed ends at once, with no timer', async () => {
    const { timers, waiters, state, watch } = setUp();
    state.current = 3;
    const wait = watch(2, 5_000);
    await settle();
    expect(wait.resolved).to.equal(3);
    expect(waiters.size).to.equal(0);
    expect(timers.scheduled).to.deep.equal([]);
  });

  type Step =
    | { readonly kind: 'wait'; readonly offset: number; readonly timeoutMs: number; readonly withUntil: boolean }
    | { readonly kind: 'advance'; readonly by: number }
    | { readonly kind: 'notify'; readonly back: number }
    | { readonly kind: 'timeout'; readonly pick: number }
    | { readonly kind: 'settle'; readonly pick: number; readonly reject: boolean };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({
      kind: fc.constant('wait' as const),
      offset: fc.integer({ min: -2, max: 2 }),
      timeoutMs: fc.integer({ min: 1, max: 30_000 }),
      withUntil: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('advance' as const), by: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ kind: fc.constant('notify' as const), back: fc.integer({ min: 0, max: 2 }) }),
    fc.record({ kind: fc.constant('timeout' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), reject: fc.boolean() }),
  );

  it('every wait ends exactly once, at the first of its three ends, with the sequence current then; none is left behind', () =>
    fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const { timers, waiters, state, watch } = setUp();
        const watched: Watched[] = [];
        /** What each wait must have resolved with (the model): undefined while it runs. */
        const expected: (number | undefined)[] = [];
        const end = (i: number): void => {
          if (expected[i] === undefined) expected[i] = state.current;
        };
        for (const s of steps) {
          switch (s.kind) {
            case 'wait': {
              const sequence = state.current + s.offset;
              watched.push(watch(sequence, s.timeoutMs, s.withUntil));
              expected.push(state.current > sequence ? state.current : undefined);
              const timer = watched[watched.length - 1]!.timer;
              if (timer !== undefined) expect(timer.ms).to.equal(s.timeoutMs);
              break;
            }
            case 'advance':
              state.current += s.by;
              break;
            case 'notify': {
              const last = state.current - s.back;
              waiters.notify(last);
              watched.forEach((w, i) => w.sequence < last && end(i));
              break;
            }
            case 'timeout': {
              if (watched.length === 0) break;
              const i = s.pick % watched.length;
              const timer = watched[i]!.timer;
              // A cleared timer never fires (as on a real runtime); one still live ends its wait.
              if (timer === undefined || timer.cleared) break;
              timers.fire(timer);
              end(i);
              break;
            }
            case 'settle': {
              if (watched.length === 0) break;
              const i = s.pick % watched.length;
              const until = watched[i]!.until;
              if (until === undefined) break;
              if (s.reject) until.reject(new Error('gone'));
              else until.resolve();
              end(i);
              break;
            }
          }
          await settle();
          expect(
            watched.map((w) => w.resolved),
            'each wait answered as the model says',
          ).to.deep.equal(expected);
          const running = expected.filter((e) => e === undefined).length;
          expect(waiters.size, 'the waits under way').to.equal(running);
          expect(timers.live.length, 'one live timer a running wait, none for an ended one').to.equal(running);
          expect(
            timers.scheduled.filter((t) => t.clears > 1),
            'each wait ended once (its end clears its timer, once)',
          ).to.deep.equal([]);
        }
        // Every wait that still runs ends at its timeout; nothing is left behind. Then every `until`
        // settles: an ended wait stays ended, once.
        for (const timer of timers.live) timers.fire(timer);
        for (const w of watched) w.until?.resolve();
        await settle();
        expect(watched.every((w) => w.resolved !== undefined)).to.equal(true);
        expect(waiters.size).to.equal(0);
        expect(timers.live).to.deep.equal([]);
        expect(timers.scheduled.filter((t) => t.clears > 1)).to.deep.equal([]);
      }),
    ));
});

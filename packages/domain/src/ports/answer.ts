/**
 * What the event store's relay steps and feed reads return (`EventStore`: `lease`, `pending`,
 * `pendingOf`, `lastSequence`, `append`, `clear`, `after`), and `EventRelay.run`: a store inside the
 * process (the memory store) answers with the value itself, a store behind a network with a promise
 * of it. A relay run after a create on the memory store is then one synchronous pass, with no
 * promise turn per store call (what it saves is in BENCHMARKS.md). `await` works on both. Every
 * other port method returns a promise.
 */
export type Answer<T> = T | Promise<T>;

/** Whether an answer is still to come (a promise) rather than the value itself: the one test for it. */
export const isPromise = <T>(answer: Answer<T>): answer is Promise<T> => answer instanceof Promise;

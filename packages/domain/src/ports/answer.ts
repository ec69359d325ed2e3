/**
 * What a method returns when its store may answer at once: a store inside the process (the memory
 * adapters) returns the value itself, a store behind a network returns a promise of it. `await`
 * works on both; the request path awaits only a promise (`isPromise`) or chains with `andThen`,
 * so that an in-process answer costs no promise turn, which is a measurable part of a request
 * served from memory (BENCHMARKS.md). An implementation may throw synchronously or reject;
 * callers treat both alike.
 *
 * Only the methods on the path of frequent requests return an `Answer`:
 * - ports: `ApiKeyStore.findByHash` (every request), `QuotaStore.consume` (every request),
 *   `PetRepository.list` (the list), `PhotoStore.list`, `PhotoStore.find` and `PhotoStore.read`
 *   (a pet's photos and a photo's bytes);
 * - the use cases that pass them on: `Authenticator.authenticate`, `Admission.admit`,
 *   `PetCatalog.listPets`, and a found photo's `bytes()` (`PhotoLibrary.get`);
 * - after every write that records events: the relay's steps of `EventStore` (`lease`, `pending`,
 *   `pendingOf`, `lastSequence`, `append`, `clear`), its reads of the feed (`after`), and
 *   `EventRelay.run`, which answers at once when every step did (a failure of it always rejects).
 */
export type Answer<T> = T | Promise<T>;

/** Whether an answer is still to come (a promise) rather than the value itself: the one test for it. */
export const isPromise = <T>(answer: Answer<T>): answer is Promise<T> => answer instanceof Promise;

/** Runs `next` on the answer: at once when it is a value, after it settles when it is a promise. */
export const andThen = <T, U>(answer: Answer<T>, next: (value: T) => Answer<U>): Answer<U> =>
  isPromise(answer) ? answer.then(next) : next(answer);

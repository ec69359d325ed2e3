/**
 * What a port method returns when its store may answer at once: a store inside the process (the
 * memory adapters) returns the value itself, a store behind a network returns a promise of it.
 * `await` works on both; the request path uses `andThen` (and the HTTP gate an `instanceof
 * Promise` check) so that an in-process answer costs no promise turn, which is a measurable part
 * of a request served from memory (BENCHMARKS.md). Only the port methods on every request's path
 * return an `Answer`: `ApiKeyStore.findByHash`, `QuotaStore.consume`, `PetRepository.list`.
 * An implementation may throw synchronously or reject; callers treat both alike.
 */
export type Answer<T> = T | Promise<T>;

/** Runs `next` on the answer: at once when it is a value, after it settles when it is a promise. */
export const andThen = <T, U>(answer: Answer<T>, next: (value: T) => Answer<U>): Answer<U> =>
  answer instanceof Promise ? answer.then(next) : next(answer);

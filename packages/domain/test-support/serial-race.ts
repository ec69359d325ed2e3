import type { PetStatus } from '../src/index.js';

/**
 * One request of the race of docs/rules.md §12 ("of a DELETE, a PATCH of status and N order
 * placements arriving together for one available pet, the outcomes are those of some serial order
 * of them"), as it was sent. `ifMatch`: none, `*`, or the pet's tag as it was before the race.
 */
export type RaceRequest =
  | { readonly kind: 'place' }
  | { readonly kind: 'withdraw'; readonly ifMatch: 'none' | '*' | 'initial' }
  | { readonly kind: 'patch'; readonly status: PetStatus; readonly ifMatch: 'none' | '*' | 'initial' };

/** What a request got: `ok`, or its error code (`validation_failed`, `not_found`, `conflict`, `precondition_failed`…). */
export type RaceOutcome = string;

/** The pet after the race: withdrawn (gone), or there with a status. */
export type RaceEnd = { readonly withdrawn: true } | { readonly withdrawn: false; readonly status: PetStatus };

interface RaceState {
  readonly exists: boolean;
  readonly status: PetStatus;
  readonly held: boolean;
  /** The pet changed since the race began: a tag taken before it no longer matches. */
  readonly changed: boolean;
}

/** docs/rules.md §8 and §12 written out once more, for one pet and one request at a time. */
const apply = (state: RaceState, request: RaceRequest): { readonly outcome: RaceOutcome; readonly next: RaceState } => {
  if (request.kind === 'place') {
    if (!state.exists) return { outcome: 'validation_failed', next: state };
    if (state.status !== 'available') return { outcome: 'conflict', next: state };
    return { outcome: 'ok', next: { ...state, status: 'pending', held: true, changed: true } };
  }
  if (!state.exists) return { outcome: 'not_found', next: state };
  if (request.ifMatch === 'initial' && state.changed) return { outcome: 'precondition_failed', next: state };
  if (request.kind === 'patch') {
    if (request.status === state.status) return { outcome: 'ok', next: state };
    if (state.held) return { outcome: 'conflict', next: state };
    return { outcome: 'ok', next: { ...state, status: request.status, changed: true } };
  }
  if (state.held) return { outcome: 'conflict', next: state };
  return { outcome: 'ok', next: { ...state, exists: false, changed: true } };
};

/**
 * A serial order of `requests` (indexes into it) that gives each request the outcome it got and
 * leaves the pet as it ended, starting from an unheld pet with status `start`; `undefined` when no
 * serial order does. A depth-first search that drops a branch as soon as a request would get
 * another outcome than it did, and tries only one of the requests that are alike (placements with
 * the same outcome), so it stays small for dozens of placements.
 */
export const serialOrderOf = (
  start: PetStatus,
  requests: readonly RaceRequest[],
  outcomes: readonly RaceOutcome[],
  end: RaceEnd,
): readonly number[] | undefined => {
  if (requests.length !== outcomes.length) throw new Error('one outcome per request');
  const search = (
    state: RaceState,
    left: readonly number[],
    order: readonly number[],
  ): readonly number[] | undefined => {
    if (left.length === 0) {
      const ends = end.withdrawn ? !state.exists : state.exists && state.status === end.status;
      return ends ? order : undefined;
    }
    const tried = new Set<string>();
    for (const index of left) {
      const request = requests[index]!;
      const alike = `${JSON.stringify(request)}→${outcomes[index]!}`;
      if (tried.has(alike)) continue;
      tried.add(alike);
      const { outcome, next } = apply(state, request);
      if (outcome !== outcomes[index]) continue;
      const found = search(
        next,
        left.filter((i) => i !== index),
        [...order, index],
      );
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return search(
    { exists: true, status: start, held: false, changed: false },
    requests.map((_, i) => i),
    [],
  );
};

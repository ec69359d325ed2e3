/**
 * A process's hold on work only one process at a time may do (the event relay, the delivery of one
 * webhook subscription): `holder` does it until `until` (epoch ms, by its own clock), renewing it.
 */
export interface Lease {
  readonly holder: string;
  readonly until: number;
}

/**
 * Whether `holder` may take (or renew) a lease at `now`: none is held, it is its own, or it has run
 * out (`until <= now`). The one rule of every lease: the relay, the dispatcher and the stores decide
 * by it (a store that cannot run it says it in its own terms: on MongoDB, a query filter).
 */
export const leaseAllows = (current: Lease | undefined, holder: string, now: number): boolean =>
  current === undefined || current.holder === holder || current.until <= now;

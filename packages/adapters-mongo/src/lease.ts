import type { Document, Filter } from 'mongodb';

/**
 * The domain's `leaseAllows` as a query filter: the lease kept in the fields `holder` and `until`
 * under `path` (`''`: the document's own fields) is free, `holder`'s own, or has run out at `now`.
 * The condition of every update that takes or renews a lease here (the relay's, a subscription's);
 * a test holds it to `leaseAllows` for every kind of lease (lease.integration.test.ts).
 */
export const leaseAllowsFilter = <T extends Document>(
  path: '' | `${string}.`,
  holder: string,
  now: number,
): Filter<T> =>
  ({
    $or: [
      { [`${path}holder`]: { $exists: false } },
      { [`${path}holder`]: holder },
      { [`${path}until`]: { $lte: now } },
    ],
  }) as Filter<T>;

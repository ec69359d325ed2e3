import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';

/**
 * What the server's background work (the event relay, the webhooks' dispatcher) shares: the name
 * it holds leases under, and how a failure of it is logged.
 */

/** A lease holder's name, unique per process (several processes share the leases of one store): `host/pid/random`. */
export const leaseHolder = (): string => `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;

/** An error as a log field: its name and message only (never a stack, never a driver's options). */
export const errorFields = (error: unknown) => ({
  err: error instanceof Error ? { name: error.name, message: error.message } : String(error),
});

import type { Clock } from '@petstore/domain';

/** How long the circuit stays open after a store failure before one call may probe the store. */
export const STORE_CIRCUIT_OPEN_MS = 1_000;

/** Who hears of the circuit: the failure metric (by port) and the open/closed state (log line, gauge). */
export interface StoreCircuitListener {
  /** A call of `port` failed with an outage (`StoreUnavailableError`, or the deadline passed). */
  failure(port: string): void;
  /** The circuit opened (`true`: calls are refused from now on) or closed (the store answered again). */
  change(open: boolean): void;
}

/**
 * Fail fast during a store outage (docs/rules.md §6): one circuit for the whole store, whose
 * ports share one connection.
 * - Closed: every call goes to the store. Checking costs one field read (`open`).
 * - Open: a call that failed with an outage opened it; calls are refused at once (503
 *   `unavailable`, the store is not called) for `openMs` from the last failure…
 * - …then one call at a time goes through as a probe (half-open), the others are still refused.
 * - Any call the store answers closes it; a failure opens it again for `openMs`.
 * A call that settles with anything but an outage counts as answered: the store did answer.
 * Time comes from the `Clock` port, so tests drive it by hand.
 *
 * Written here rather than taken from a library: cockatiel's and opossum's current releases need
 * Node 22, and their breakers read `Date.now()` and wrap each call in promises and events of their
 * own, where this one is a field read per call and takes the service's clock.
 */
export class StoreCircuit {
  /** False while closed: the one thing a call reads when the store is fine. */
  open = false;
  /** While open: the clock time from which a probe may go through. */
  private probeFrom = 0;
  /** While open: a probe is in flight (the others wait for its outcome, refused). */
  private probing = false;

  constructor(
    private readonly clock: Clock,
    private readonly openMs: number,
    private readonly listener: StoreCircuitListener,
  ) {}

  /** While open: true when this call may go through as the probe (then it is one), false when it is refused. */
  admitsProbe(): boolean {
    if (this.probing || this.clock.now() < this.probeFrom) return false;
    this.probing = true;
    return true;
  }

  /** The store answered a call: the circuit closes (nothing to do when it is closed). */
  answered(): void {
    if (!this.open) return;
    this.open = false;
    this.probing = false;
    this.listener.change(false);
  }

  /**
   * A call of `port` failed with an outage: the circuit opens, or stays open, for `openMs` from
   * now. `probe`: the call was the probe (another probe may follow once `openMs` has passed).
   */
  failed(port: string, probe: boolean): void {
    this.listener.failure(port);
    if (probe) this.probing = false;
    this.probeFrom = this.clock.now() + this.openMs;
    if (this.open) return;
    this.open = true;
    this.listener.change(true);
  }
}

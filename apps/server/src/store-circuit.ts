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
  /** While open: the id of the probe in flight (the others wait for its outcome, refused); 0: none. */
  private probing = 0;
  /** The last probe id given. */
  private probes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly openMs: number,
    private readonly listener: StoreCircuitListener,
  ) {}

  /** While open: this call's probe id when it may go through as the probe, 0 when it is refused. */
  admitsProbe(): number {
    if (this.probing !== 0 || this.clock.now() < this.probeFrom) return 0;
    this.probing = ++this.probes;
    return this.probing;
  }

  /** The store answered a call: the circuit closes (nothing to do when it is closed). */
  answered(): void {
    if (!this.open) return;
    this.open = false;
    this.probing = 0;
    this.listener.change(false);
  }

  /**
   * A call of `port` failed with an outage: the circuit opens, or stays open, for `openMs` from
   * now. `probe`: the call's probe id (0: not a probe); when it is the probe in flight, another
   * may follow once `openMs` has passed (a late failure of an earlier probe changes nothing).
   */
  failed(port: string, probe: number): void {
    this.listener.failure(port);
    if (probe !== 0 && probe === this.probing) this.probing = 0;
    this.probeFrom = this.clock.now() + this.openMs;
    if (this.open) return;
    this.open = true;
    this.listener.change(true);
  }
}

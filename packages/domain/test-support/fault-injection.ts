import type {
  ApiKeyStore,
  CategoryRepository,
  IdempotencyStore,
  NamedPorts,
  OrderRepository,
  PetRepository,
  PhotoStore,
  PortCall,
  PortName,
  QuotaStore,
  EventStore,
  WebhookStore,
} from '../src/index.js';
import { StoreUnavailableError, withEventPassthrough, wrapPort } from '../src/index.js';

// Timers are the one platform facility used here; declared locally so that test-support stays
// free of any runtime's type package (every JavaScript runtime has these two globals).
declare const setTimeout: (callback: () => void, ms: number) => unknown;
declare const clearTimeout: (handle: unknown) => void;

/**
 * What one port call does under fault injection:
 * - `pass`: the call reaches the wrapped store untouched;
 * - `fail`: it throws `StoreUnavailableError` at once, and the store never sees it;
 * - `hang`: it waits `hangMs` (a driver's own timeout) and then throws, the store never sees it;
 * - `fail-after-write`: the store applies the call, then the caller gets `StoreUnavailableError`
 *   (the answer was lost on the way back); for a read, the read happens and its answer is lost;
 * - `hang-after-write`: the store applies the call, then the answer is held `hangMs` and lost.
 */
export type FaultMode = 'pass' | 'fail' | 'hang' | 'fail-after-write' | 'hang-after-write';
export const FAULT_MODES: readonly FaultMode[] = ['pass', 'fail', 'hang', 'fail-after-write', 'hang-after-write'];

/** The port a call went to: one of `PORT_NAMES` (the name 1.0 exported; `PortName` of `@petstore/domain`). */
export type FaultyPort = PortName;
export type { PortCall };

/** One call through a wrapped port, as the injector saw it: the port call, the mode applied, and whether the wrapped store received it (and, for a write, applied it). */
export type InjectedCall = PortCall & {
  readonly mode: FaultMode;
  readonly reached: boolean;
};

export interface FaultInjectorOptions {
  /** How long a `hang` lasts before it throws, in ms (default 30 s: longer than any service deadline). */
  readonly hangMs?: number;
}

/**
 * Switchable faults for any adapter of the store ports: wrap the adapter with `port(name, adapter)`
 * (or its shorthand: `petRepository`, `categoryRepository`, `orderRepository`, `quotaStore`,
 * `apiKeyStore`, `idempotencyStore`, `photoStore`), then choose per call what happens (`set` for every call from
 * now on, `queue` for the next calls, `use` for a function of the call). The injector logs every
 * call with the mode applied, so tests can tell what the store really received.
 */
export class FaultInjector {
  private standing: FaultMode = 'pass';
  private readonly queued: FaultMode[] = [];
  private decide: ((call: PortCall) => FaultMode | undefined) | undefined;
  private readonly hanging = new Set<() => void>();
  private readonly hangMs: number;
  /** Every call made through the wrapped ports, in order. */
  readonly calls: InjectedCall[] = [];

  constructor(options: FaultInjectorOptions = {}) {
    this.hangMs = options.hangMs ?? 30_000;
  }

  /** Every call from now on (after any queued modes) gets `mode`; `pass` restores the store. */
  set(mode: FaultMode): this {
    this.standing = mode;
    return this;
  }

  /** The next calls get these modes, one each, in order; then the standing mode again. */
  queue(...modes: FaultMode[]): this {
    this.queued.push(...modes);
    return this;
  }

  /** Decides each call with `decide` (before queue and standing mode); `undefined` falls through. */
  use(decide: ((call: PortCall) => FaultMode | undefined) | undefined): this {
    this.decide = decide;
    return this;
  }

  /** Ends every hanging call now (each throws `StoreUnavailableError`) and restores `pass`. */
  reset(): void {
    this.standing = 'pass';
    this.queued.length = 0;
    this.decide = undefined;
    for (const wake of [...this.hanging]) wake();
  }

  /** Calls made so far that match every field given. */
  count(filter: Partial<Omit<InjectedCall, 'args'>> = {}): number {
    return this.calls.filter(
      (c) =>
        (filter.port === undefined || c.port === filter.port) &&
        (filter.method === undefined || c.method === filter.method) &&
        (filter.write === undefined || c.write === filter.write) &&
        (filter.mode === undefined || c.mode === filter.mode) &&
        (filter.reached === undefined || c.reached === filter.reached),
    ).length;
  }

  /** `inner` with every call (`PORT_METHODS`) through the injector. */
  port<N extends PortName>(name: N, inner: NamedPorts[N]): NamedPorts[N] {
    return wrapPort(name, inner, (call, forward) => this.run(call, forward));
  }

  petRepository(inner: PetRepository): PetRepository {
    return this.port('PetRepository', inner);
  }

  categoryRepository(inner: CategoryRepository): CategoryRepository {
    return this.port('CategoryRepository', inner);
  }

  orderRepository(inner: OrderRepository): OrderRepository {
    return this.port('OrderRepository', inner);
  }

  quotaStore(inner: QuotaStore): QuotaStore {
    return this.port('QuotaStore', inner);
  }

  apiKeyStore(inner: ApiKeyStore): ApiKeyStore {
    return this.port('ApiKeyStore', inner);
  }

  idempotencyStore(inner: IdempotencyStore): IdempotencyStore {
    return this.port('IdempotencyStore', inner);
  }

  photoStore(inner: PhotoStore): PhotoStore {
    return this.port('PhotoStore', inner);
  }

  /**
   * The event store (docs/rules.md §15): faults in the relay's steps and the feed's reads. `onRecorded`
   * and `waitBeyond` are passed through untouched (a cue and a wait, not store calls).
   */
  eventStore(inner: EventStore): EventStore {
    return withEventPassthrough(this.port('EventStore', inner), inner);
  }

  /** The webhook store (docs/rules.md §15): faults in the subscriptions' API, their leases, cursors and logs. */
  webhookStore(inner: WebhookStore): WebhookStore {
    return this.port('WebhookStore', inner);
  }

  private modeFor(call: PortCall): FaultMode {
    return this.decide?.(call) ?? this.queued.shift() ?? this.standing;
  }

  private async run<T>(call: PortCall, forward: () => Promise<T>): Promise<T> {
    const mode = this.modeFor(call);
    const reached = mode === 'pass' || mode === 'fail-after-write' || mode === 'hang-after-write';
    this.calls.push({ ...call, mode, reached });
    const what = `${call.port}.${call.method}`;
    switch (mode) {
      case 'pass':
        return forward();
      case 'fail':
        throw new StoreUnavailableError(`injected fault: ${what} could not reach the store`);
      case 'hang':
        await this.hang();
        throw new StoreUnavailableError(`injected fault: ${what} timed out`);
      case 'fail-after-write':
        await forward();
        throw new StoreUnavailableError(`injected fault: ${what} was applied but its answer was lost`);
      case 'hang-after-write':
        await forward();
        await this.hang();
        throw new StoreUnavailableError(`injected fault: ${what} was applied, then timed out`);
    }
  }

  private hang(): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.hanging.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.hangMs);
      this.hanging.add(wake);
    });
  }
}

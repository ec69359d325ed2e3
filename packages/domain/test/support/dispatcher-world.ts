import type {
  Caller,
  DeliveryAttempt,
  Event,
  EventType,
  WebhookRequest,
  WebhookResult,
  WebhookSender,
  WebhookStore,
} from '../../src/index.js';
import {
  StoreUnavailableError,
  timestamp,
  WebhookAdmin,
  WebhookDispatcher,
  type DispatcherOptions,
} from '../../src/index.js';
import { ManualClock, SeededRandom } from '../../test-support/index.js';
import { EventStoreModel } from './event-store-model.js';
import { VirtualTimers } from './virtual-time.js';
import { WebhookStoreModel } from '../../test-support/webhook-store-model.js';

// The world of the dispatcher's tests (webhook-dispatcher, subscription-worker*, feed-watcher): a
// manual clock with virtual timers, the plain stores, a scripted sender, and the admin's API.

export const ADMIN: Caller = { keyId: 'key_000000000000', role: 'admin' };
export const T0 = Date.UTC(2027, 0, 1, 12);
export const DELIVERED: WebhookResult = { outcome: 'delivered', status: 204, durationMs: 3 };
export const FAILED: WebhookResult = {
  outcome: 'failed',
  status: 500,
  durationMs: 7,
  error: 'the receiver answered 500',
};

export interface Sent extends WebhookRequest {
  /** Clock time the attempt started. */
  readonly at: number;
  readonly holder: string;
}

/**
 * The dispatcher's `WebhookSender`, scripted: `answer` decides each attempt (it may hold it as long
 * as it likes). Records every request, and any two attempts to one URL at the same time.
 */
export class ScriptedSender implements WebhookSender {
  readonly sent: Sent[] = [];
  readonly results: { request: Sent; result: WebhookResult }[] = [];
  private readonly inFlight = new Map<string, number>();
  overlaps = 0;

  constructor(
    private readonly clock: ManualClock,
    private readonly holder: string,
    readonly answer: { next: (request: Sent) => WebhookResult | Promise<WebhookResult> } = { next: () => DELIVERED },
    private readonly shared?: ScriptedSender,
  ) {}

  async send(request: WebhookRequest): Promise<WebhookResult> {
    const log = this.shared ?? this;
    const running = (log.inFlight.get(request.url) ?? 0) + 1;
    if (running > 1) log.overlaps++;
    log.inFlight.set(request.url, running);
    const sent = { ...request, at: this.clock.now(), holder: this.holder };
    log.sent.push(sent);
    try {
      const result = await this.answer.next(sent);
      log.results.push({ request: sent, result });
      return result;
    } finally {
      log.inFlight.set(request.url, log.inFlight.get(request.url)! - 1);
    }
  }

  /** The event ids delivered to `url`, in order. */
  deliveredTo(url: string): string[] {
    return this.results
      .filter(({ request, result }) => request.url === url && result.outcome === 'delivered')
      .map(({ request }) => request.webhookId);
  }
}

/** A held answer: the test settles it. */
export const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
};

export const world = (seed = 'dispatcher-test') => {
  const clock = new ManualClock(T0);
  const timers = new VirtualTimers(clock);
  const store = new WebhookStoreModel();
  const events = new EventStoreModel(timers);
  const random = new SeededRandom(seed);
  const admin = new WebhookAdmin(store, events, { check: async () => undefined }, random, clock);
  const attempts: [string, DeliveryAttempt][] = [];
  const errors: unknown[] = [];
  const dispatchers: WebhookDispatcher[] = [];
  const dispatcher = (
    sender: WebhookSender,
    holder = 'p1',
    options: DispatcherOptions = {},
    webhooks: WebhookStore = store,
  ): WebhookDispatcher => {
    const made = new WebhookDispatcher(webhooks, events, sender, clock, timers, random, holder, {
      onAttempt: (id, attempt) => attempts.push([id, attempt]),
      onError: (error) => errors.push(error),
      ...options,
    });
    dispatchers.push(made);
    return made;
  };
  const publish = (...types: EventType[]): Event[] =>
    types.map((type) => {
      const sequence = events.lastSeq + 1;
      const event = {
        id: `evt_${sequence}`,
        sequence,
        type,
        occurredAt: timestamp(clock.now()),
        data: { id: sequence },
      } as Event;
      void events.append(event);
      return event;
    });
  const subscribe = async (body: Record<string, unknown> = {}) => {
    const made = await admin.create(ADMIN, { url: 'https://a.example/hook', after: 0, ...body });
    if (!made.ok) throw new Error(made.error.message);
    return made.value;
  };
  const row = (id: string) => store.rows.get(id)!;
  const stopAll = () => Promise.all(dispatchers.map((d) => d.stop()));
  return { clock, timers, store, events, admin, attempts, errors, dispatcher, publish, subscribe, row, stopAll };
};

/** `inner` with each call failing as `mode` says: before reaching the store, or after it applied the call (the answer lost). */
export const faulty = (inner: WebhookStore, mode: () => 'pass' | 'fail' | 'fail-after-write'): WebhookStore =>
  new Proxy(inner, {
    get: (target, name) => {
      const method = target[name as keyof WebhookStore] as unknown;
      if (typeof method !== 'function') return method;
      return async (...args: unknown[]): Promise<unknown> => {
        const now = mode();
        if (now === 'fail')
          throw new StoreUnavailableError(`injected fault: ${String(name)} could not reach the store`);
        const answer: unknown = await (method as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (now === 'fail-after-write')
          throw new StoreUnavailableError(`injected fault: ${String(name)} was applied but its answer was lost`);
        return answer;
      };
    },
  });

export const types = (count: number): EventType[] =>
  Array.from({ length: count }, (_, i) => (['pet.created', 'order.placed', 'pet.updated'] as const)[i % 3]!);

/** `inner` with `before` run ahead of every call (by the method's name): it may hold the call, or throw in its place. */
export const intercept = (inner: WebhookStore, before: (name: string) => void | Promise<void>): WebhookStore =>
  new Proxy(inner, {
    get: (target, name) => {
      const method = target[name as keyof WebhookStore] as unknown;
      if (typeof method !== 'function') return method;
      return async (...args: unknown[]): Promise<unknown> => {
        await before(String(name));
        return (method as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });

/** `inner` whose first call of each method named in `names` fails (the store did not answer). */
export const failingOnce = (inner: WebhookStore, names: readonly string[]): WebhookStore => {
  const failed = new Set<string>();
  return intercept(inner, (name) => {
    if (!names.includes(name) || failed.has(name)) return;
    failed.add(name);
    throw new StoreUnavailableError(`injected fault: ${name} could not reach the store`);
  });
};

import type { Clock } from '../ports/clock.port.js';
import type { EventStore } from '../ports/event-store.port.js';
import type { Random } from '../ports/random.port.js';
import type { WebhookStore } from '../ports/webhook-store.port.js';
import type { WebhookSender } from '../ports/webhook-sender.port.js';
import type { DeliveryAttempt } from '../webhooks/webhook.js';
import type { Timers } from './event-relay.js';

/** What a `WebhookDispatcher` shares with its feed watcher and its subscription workers. */
export interface DispatchContext {
  readonly webhooks: WebhookStore;
  readonly events: EventStore;
  readonly sender: WebhookSender;
  readonly clock: Clock;
  readonly timers: Timers;
  /** The retry schedule's jitter. */
  readonly random: Random;
  /** This process's name in the leases (unique per process: several share one store). */
  readonly holder: string;
  /** How long a lease taken or renewed lasts. */
  readonly leaseMs: number;
  /** How often a worker renews its lease: a third of `leaseMs`. */
  readonly renewMs: number;
  readonly onAttempt: ((webhookId: string, attempt: DeliveryAttempt) => void) | undefined;
  readonly onError: ((error: unknown) => void) | undefined;
  /** Whether the dispatcher was stopped: its watcher and workers end. */
  readonly stopped: () => boolean;
  /** A wait of `ms` on `timers` that the dispatcher's stop ends at once. */
  readonly sleep: (ms: number) => Promise<void>;
}

/** Waits on injected timers, every one of which can be ended at once (a dispatcher's stop). */
export class Sleeps {
  /** The waits under way, each one's `cancel`. */
  private readonly under = new Set<() => void>();

  constructor(private readonly timers: Timers) {}

  /** A wait of `ms`; `cancelAll` ends it at once. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const end = (): void => {
        this.under.delete(cancel);
        resolve();
      };
      const handle = this.timers.setTimeout(end, ms);
      const cancel = (): void => {
        this.timers.clearTimeout(handle);
        end();
      };
      this.under.add(cancel);
    });
  }

  /** Ends every wait under way. */
  cancelAll(): void {
    for (const cancel of [...this.under]) cancel();
  }
}

import {
  WebhookAdmin,
  WebhookDispatcher,
  type Clock,
  type EventStore,
  type Random,
  type WebhookStore,
} from '@petstore/domain';
import { HttpWebhookSender, WebhookUrlPolicy } from '@petstore/adapters-webhooks';
import type { HttpLogger, HttpMetrics } from '@petstore/adapters-http';
import { errorFields, leaseHolder } from './background.js';

/** `User-Agent` of every delivery (docs/rules.md §15): `petstore-webhooks/<version>`. */
export const WEBHOOK_USER_AGENT = 'petstore-webhooks/1.0.0';

export interface ServerWebhooksOptions {
  readonly clock: Clock;
  readonly random: Random;
  readonly metrics: HttpMetrics;
  readonly logger: HttpLogger;
  /** `PETSTORE_WEBHOOKS`: false keeps this process from delivering (the API still works). */
  readonly deliver: boolean;
  /** `PETSTORE_WEBHOOK_ALLOW_HOSTS`. */
  readonly allowHosts: readonly string[];
}

/**
 * The webhooks of one server process (docs/rules.md §15): the subscriptions' API, and, unless
 * `PETSTORE_WEBHOOKS=off`, the dispatcher that delivers them, sharing the work with the other
 * processes on the store through a lease per subscription. Without an event store there are no
 * webhooks (nothing to deliver).
 */
export class ServerWebhooks {
  /** `/v1/webhooks`; absent without an event store. */
  readonly admin: WebhookAdmin | undefined;
  private readonly dispatcher: WebhookDispatcher | undefined;
  private readonly deliver: boolean;
  private failing = false;

  constructor(store: WebhookStore | undefined, events: EventStore | undefined, options: ServerWebhooksOptions) {
    this.deliver = options.deliver;
    if (store === undefined || events === undefined) return;
    const policy = new WebhookUrlPolicy({ allowHosts: options.allowHosts });
    this.admin = new WebhookAdmin(store, events, policy, options.random, options.clock);
    const sender = new HttpWebhookSender({ policy, userAgent: WEBHOOK_USER_AGENT });
    // Unique per process: several processes share the subscriptions' leases on one store.
    const holder = leaseHolder();
    const { metrics, logger } = options;
    this.dispatcher = new WebhookDispatcher(store, events, sender, options.clock, globalThis, options.random, holder, {
      onAttempt: (_webhookId, attempt) => {
        metrics.webhookAttempt?.(attempt.outcome);
        if (this.failing) logger.info({}, 'webhooks: the store answers again');
        this.failing = false;
      },
      // A store that does not answer: logged once per failing streak (the dispatcher retries by itself).
      onError: (error) => {
        if (!this.failing)
          logger.error(errorFields(error), 'webhooks: a store call failed; retrying (nothing is lost)');
        this.failing = true;
      },
    });
    // The lag is read from the store: a process that does not deliver (PETSTORE_WEBHOOKS=off) reports it too.
    const dispatcher = this.dispatcher;
    metrics.webhookLag?.(() => dispatcher.lagSeconds());
  }

  /** Starts delivering, unless `PETSTORE_WEBHOOKS=off`. */
  start(): void {
    if (this.deliver) this.dispatcher?.start();
  }

  /** Stops delivering: no attempt starts from now on; answers once those under way have ended and the leases are given up. */
  async stop(): Promise<void> {
    await this.dispatcher?.stop();
  }
}

import type {
  DeliveryAttempt,
  DeliveryCursor,
  NewWebhook,
  StoredDelivery,
  StoredWebhook,
  WebhookChanges,
  WebhookPause,
  WebhookStore,
} from '../../src/index.js';
import { WEBHOOK_DELIVERIES_KEPT } from '../../src/index.js';

/**
 * A plain webhook store for the domain's tests of `WebhookAdmin` and `WebhookDispatcher`: a map of
 * subscriptions and one array per log, each method the port's rule spelled out directly. Every
 * method is a property, so a test can replace one to stage a race or a store that fails.
 */
export class WebhookStoreModel implements WebhookStore {
  readonly rows = new Map<string, StoredWebhook>();
  readonly logs = new Map<string, StoredDelivery[]>();
  /** Ids ever inserted (never reused, also after a removal). */
  private readonly ids = new Set<string>();
  private position = 0;
  private readonly numbers = new Map<string, number>();

  insert = async (webhook: NewWebhook): Promise<StoredWebhook | 'taken'> => {
    if (this.ids.has(webhook.id)) return 'taken';
    this.ids.add(webhook.id);
    const stored: StoredWebhook = { ...webhook, position: ++this.position, revision: 1 };
    this.rows.set(stored.id, stored);
    this.logs.set(stored.id, []);
    return stored;
  };

  findById = async (id: string): Promise<StoredWebhook | undefined> => this.rows.get(id);

  list = async (afterPosition: number, limit: number): Promise<readonly StoredWebhook[]> =>
    [...this.rows.values()]
      .filter((row) => row.position > afterPosition)
      .sort((a, b) => a.position - b.position)
      .slice(0, limit);

  update = async (id: string, changes: WebhookChanges): Promise<StoredWebhook | undefined> => {
    const row = this.rows.get(id);
    if (row === undefined) return undefined;
    const { types, enabled, ...rest } = changes;
    let next: StoredWebhook = { ...row, ...rest, revision: row.revision + 1 };
    if (types === null) {
      const { types: _dropped, ...everyType } = next;
      next = everyType;
    } else if (types !== undefined) next = { ...next, types };
    if (enabled === true) next = { ...next, enabled: true, failures: 0, retryAt: 0, pausedReason: null };
    if (enabled === false) next = { ...next, enabled: false, pausedReason: null };
    return this.set(next);
  };

  remove = async (id: string): Promise<boolean> => {
    this.logs.delete(id);
    return this.rows.delete(id);
  };

  enabled = async (): Promise<readonly StoredWebhook[]> =>
    [...this.rows.values()].filter((row) => row.enabled).sort((a, b) => a.position - b.position);

  lease = async (id: string, holder: string, now: number, until: number): Promise<StoredWebhook | undefined> => {
    const row = this.rows.get(id);
    if (row === undefined || !row.enabled) return undefined;
    if (row.lease !== undefined && row.lease.holder !== holder && row.lease.until > now) return undefined;
    return this.set({ ...row, lease: { holder, until } });
  };

  release = async (id: string, holder: string): Promise<void> => {
    const row = this.rows.get(id);
    if (row?.lease?.holder !== holder) return;
    const { lease: _released, ...free } = row;
    this.set(free);
  };

  advance = async (
    id: string,
    holder: string,
    from: DeliveryCursor,
    next: DeliveryCursor,
  ): Promise<StoredWebhook | undefined> => {
    const row = this.held(id, holder, from);
    if (row === undefined) return undefined;
    return this.set({
      ...row,
      delivered: next.delivered,
      failures: next.failures,
      retryAt: next.retryAt,
      revision: row.revision + 1,
    });
  };

  pause = async (
    id: string,
    holder: string,
    from: DeliveryCursor,
    pause: WebhookPause,
  ): Promise<StoredWebhook | undefined> => {
    const row = this.held(id, holder, from);
    if (row === undefined) return undefined;
    return this.set({
      ...row,
      enabled: false,
      pausedReason: pause.reason,
      delivered: pause.delivered,
      failures: 0,
      retryAt: 0,
      revision: row.revision + 1,
    });
  };

  log = async (id: string, attempt: DeliveryAttempt): Promise<void> => {
    const log = this.logs.get(id);
    if (log === undefined) return;
    const number = (this.numbers.get(id) ?? 0) + 1;
    this.numbers.set(id, number);
    log.push({ ...attempt, number });
    if (log.length > WEBHOOK_DELIVERIES_KEPT) log.splice(0, log.length - WEBHOOK_DELIVERIES_KEPT);
  };

  deliveries = async (id: string, before: number | undefined, limit: number): Promise<readonly StoredDelivery[]> =>
    (this.logs.get(id) ?? [])
      .filter((row) => before === undefined || row.number < before)
      .reverse()
      .slice(0, limit);

  /** The subscription when it is enabled, `holder` holds its lease, and its cursor is `from`. */
  private held(id: string, holder: string, from: DeliveryCursor): StoredWebhook | undefined {
    const row = this.rows.get(id);
    if (row === undefined || !row.enabled || row.lease?.holder !== holder) return undefined;
    return row.delivered === from.delivered && row.failures === from.failures ? row : undefined;
  }

  private set(row: StoredWebhook): StoredWebhook {
    this.rows.set(row.id, row);
    return row;
  }
}

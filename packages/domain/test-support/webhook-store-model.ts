import type {
  DeliveryAttempt,
  DeliveryCursor,
  NewWebhook,
  StoredDelivery,
  StoredWebhook,
  WebhookChanges,
  WebhookPause,
  WebhookStore,
} from '../src/index.js';
import { leaseAllows, WEBHOOK_DELIVERIES_KEPT } from '../src/index.js';

/**
 * The `WebhookStore` port (docs/rules.md §15, "Webhooks") written out once more, as a plain model:
 * a map of subscriptions and one array per log, each method the port's doc comment spelled out
 * directly (one process, no concurrency). The contract's model-based property holds an adapter to
 * it call by call, and the domain's tests of `WebhookAdmin` and the dispatcher run on it. Every
 * method is a property, so a test can replace one to stage a race or a store that fails.
 */
export class WebhookStoreModel implements WebhookStore {
  /** The subscriptions, by id. */
  readonly rows = new Map<string, StoredWebhook>();
  /** Each subscription's kept attempts, oldest first. */
  readonly logs = new Map<string, StoredDelivery[]>();
  /** Ids ever inserted (never reused, also after a removal). */
  private readonly ids = new Set<string>();
  private position = 0;
  /** Each subscription's last attempt number. */
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
    this.all()
      .filter((row) => row.position > afterPosition)
      .slice(0, limit);

  update = async (id: string, changes: WebhookChanges): Promise<StoredWebhook | undefined> => {
    const row = this.rows.get(id);
    if (row === undefined) return undefined;
    const { types: _types, ...rest } = row;
    const types = changes.types === undefined ? row.types : (changes.types ?? undefined);
    return this.set({
      ...rest,
      ...(types === undefined ? {} : { types }),
      ...(changes.url === undefined ? {} : { url: changes.url }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(changes.secrets === undefined ? {} : { secrets: changes.secrets }),
      ...(changes.enabled === true ? { enabled: true, failures: 0, retryAt: 0, pausedReason: null } : {}),
      ...(changes.enabled === false ? { enabled: false, pausedReason: null } : {}),
      revision: row.revision + 1,
    });
  };

  remove = async (id: string): Promise<boolean> => {
    this.logs.delete(id);
    return this.rows.delete(id);
  };

  enabled = async (): Promise<readonly StoredWebhook[]> => this.all().filter((row) => row.enabled);

  lease = async (id: string, holder: string, now: number, until: number): Promise<StoredWebhook | undefined> => {
    const row = this.rows.get(id);
    if (row === undefined || !row.enabled || !leaseAllows(row.lease, holder, now)) return undefined;
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
    const { delivered, failures, retryAt } = next;
    return this.set({ ...row, delivered, failures, retryAt, revision: row.revision + 1 });
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

  private all(): StoredWebhook[] {
    return [...this.rows.values()].sort((a, b) => a.position - b.position);
  }

  private set(row: StoredWebhook): StoredWebhook {
    this.rows.set(row.id, row);
    return row;
  }
}

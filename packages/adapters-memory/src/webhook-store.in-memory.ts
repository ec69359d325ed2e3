import type {
  DeliveryAttempt,
  DeliveryCursor,
  NewWebhook,
  StoredDelivery,
  StoredWebhook,
  WebhookChanges,
  WebhookPause,
  WebhookStore,
} from '@petstore/domain';
import { leaseAllows, WEBHOOK_DELIVERIES_KEPT } from '@petstore/domain';

interface Entry {
  record: StoredWebhook;
  /** The number the last logged attempt got (the next gets one more). */
  logged: number;
  /** The kept attempts, oldest first (at most `WEBHOOK_DELIVERIES_KEPT`). */
  readonly log: StoredDelivery[];
}

/** A copy of `record` without the fields named (an absent optional field is left out, not `undefined`). */
const without = <K extends 'types' | 'lease'>(record: StoredWebhook, key: K): Omit<StoredWebhook, K> => {
  const { [key]: _dropped, ...rest } = record;
  return rest;
};

/**
 * Webhook subscriptions in process memory (docs/rules.md §15, "Webhooks"): a map by id in insertion
 * order, which is position order (positions only grow), and each subscription's log as an array.
 * Every method runs to its end without yielding, so each call is atomic as the port asks. Removed
 * ids are remembered so that none is used again. Records are frozen: what a caller got never
 * changes under it.
 */
export class WebhookStoreInMemory implements WebhookStore {
  private readonly entries = new Map<string, Entry>();
  /** Every id ever inserted, removed ones too. */
  private readonly used = new Set<string>();
  private lastPosition = 0;

  async insert(webhook: NewWebhook): Promise<StoredWebhook | 'taken'> {
    if (this.used.has(webhook.id)) return 'taken';
    this.used.add(webhook.id);
    const { types, ...rest } = webhook;
    const record: StoredWebhook = Object.freeze({
      ...rest,
      ...(types === undefined ? {} : { types: [...types] }),
      secrets: webhook.secrets.map((s) => ({ ...s })),
      position: ++this.lastPosition,
      revision: 1,
    });
    this.entries.set(webhook.id, { record, logged: 0, log: [] });
    return record;
  }

  async findById(id: string): Promise<StoredWebhook | undefined> {
    return this.entries.get(id)?.record;
  }

  async list(afterPosition: number, limit: number): Promise<readonly StoredWebhook[]> {
    const out: StoredWebhook[] = [];
    for (const { record } of this.entries.values()) {
      if (out.length >= limit) break;
      if (record.position > afterPosition) out.push(record);
    }
    return out;
  }

  async update(id: string, changes: WebhookChanges): Promise<StoredWebhook | undefined> {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const before = changes.types === undefined ? entry.record : without(entry.record, 'types');
    entry.record = Object.freeze({
      ...before,
      ...(changes.url === undefined ? {} : { url: changes.url }),
      ...(changes.types === undefined || changes.types === null ? {} : { types: [...changes.types] }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(changes.secrets === undefined ? {} : { secrets: changes.secrets.map((s) => ({ ...s })) }),
      // A resume starts again at the event the cursor stands at, with no failures and no wait.
      ...(changes.enabled === true ? { enabled: true, failures: 0, retryAt: 0, pausedReason: null } : {}),
      ...(changes.enabled === false ? { enabled: false, pausedReason: null } : {}),
      revision: entry.record.revision + 1,
    });
    return entry.record;
  }

  async remove(id: string): Promise<boolean> {
    return this.entries.delete(id);
  }

  async enabled(): Promise<readonly StoredWebhook[]> {
    return [...this.entries.values()].map((e) => e.record).filter((r) => r.enabled);
  }

  async lease(id: string, holder: string, now: number, until: number): Promise<StoredWebhook | undefined> {
    const entry = this.entries.get(id);
    if (entry === undefined || !entry.record.enabled || !leaseAllows(entry.record.lease, holder, now)) return undefined;
    entry.record = Object.freeze({ ...entry.record, lease: { holder, until } });
    return entry.record;
  }

  async release(id: string, holder: string): Promise<void> {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.record.lease?.holder !== holder) return;
    entry.record = Object.freeze(without(entry.record, 'lease'));
  }

  async advance(
    id: string,
    holder: string,
    from: DeliveryCursor,
    next: DeliveryCursor,
  ): Promise<StoredWebhook | undefined> {
    const entry = this.writable(id, holder, from);
    if (entry === undefined) return undefined;
    entry.record = Object.freeze({
      ...entry.record,
      delivered: next.delivered,
      failures: next.failures,
      retryAt: next.retryAt,
      revision: entry.record.revision + 1,
    });
    return entry.record;
  }

  async pause(
    id: string,
    holder: string,
    from: DeliveryCursor,
    pause: WebhookPause,
  ): Promise<StoredWebhook | undefined> {
    const entry = this.writable(id, holder, from);
    if (entry === undefined) return undefined;
    entry.record = Object.freeze({
      ...entry.record,
      enabled: false,
      pausedReason: pause.reason,
      delivered: pause.delivered,
      failures: 0,
      retryAt: 0,
      revision: entry.record.revision + 1,
    });
    return entry.record;
  }

  async log(id: string, attempt: DeliveryAttempt): Promise<void> {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    entry.log.push(Object.freeze({ ...attempt, number: ++entry.logged }));
    if (entry.log.length > WEBHOOK_DELIVERIES_KEPT) entry.log.splice(0, entry.log.length - WEBHOOK_DELIVERIES_KEPT);
  }

  async deliveries(id: string, before: number | undefined, limit: number): Promise<readonly StoredDelivery[]> {
    const log = this.entries.get(id)?.log ?? [];
    const out: StoredDelivery[] = [];
    // Numbers ascend along the array: walk it from the newest end.
    for (let i = log.length - 1; i >= 0 && out.length < limit; i--) {
      const delivery = log[i]!;
      if (before === undefined || delivery.number < before) out.push(delivery);
    }
    return out;
  }

  /** The entry when `holder` may move its cursor from `from` (enabled, held by `holder`, at `from`). */
  private writable(id: string, holder: string, from: DeliveryCursor): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const { record } = entry;
    const ok =
      record.enabled &&
      record.lease?.holder === holder &&
      record.delivered === from.delivered &&
      record.failures === from.failures;
    return ok ? entry : undefined;
  }
}

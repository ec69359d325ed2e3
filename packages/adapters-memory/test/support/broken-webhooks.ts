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
import { WEBHOOK_DELIVERIES_KEPT } from '@petstore/domain';

/**
 * Webhook stores that each break one sentence of the `WebhookStore` port (docs/rules.md §15) the
 * way a real adapter could, for the strength test (webhooks-contract-strength.test.ts): the
 * exported contract suite must fail for each.
 */
export const WEBHOOK_DEFECTS = [
  {
    name: 'gives a lease to two holders:',
    why: 'lease reads the subscription, then writes its lease a moment later without looking again (a read and a write, not one conditional write)',
  },
  {
    name: 'keeps a lease that ran out:',
    why: 'another holder takes a lease over only once until < now, not at until = now',
  },
  {
    name: 'moves a cursor whose failures changed:',
    why: 'advance and pause compare delivered only, not failures',
  },
  {
    name: 'advances a disabled subscription:',
    why: 'advance and pause do not look at enabled',
  },
  {
    name: 'resumes with its wait:',
    why: 'enabled: true clears failures and pausedReason but keeps retryAt',
  },
  {
    name: 'gives an id again:',
    why: 'remove forgets the id, so an insert of it is stored again',
  },
  {
    name: 'gives a position again:',
    why: 'a position is the number of subscriptions + 1, so after a removal one is given twice',
  },
  {
    name: 'keeps the log of a removed subscription:',
    why: 'remove leaves its deliveries behind',
  },
  {
    name: 'gives a log number twice:',
    why: 'log numbers an attempt one above the newest kept, read a moment before its insert',
  },
  {
    name: 'keeps one attempt too many:',
    why: `the log is trimmed to ${WEBHOOK_DELIVERIES_KEPT} before the insert, not after it`,
  },
] as const;
export type WebhookDefect = (typeof WEBHOOK_DEFECTS)[number]['name'];

interface Entry {
  record: StoredWebhook;
  log: StoredDelivery[];
  logged: number;
}

const aMoment = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** A plain store in a map, right but for its one `defect`. */
export class FlawedWebhookStore implements WebhookStore {
  private readonly entries = new Map<string, Entry>();
  private readonly used = new Set<string>();
  private last = 0;

  constructor(private readonly defect: WebhookDefect) {}

  async insert(webhook: NewWebhook): Promise<StoredWebhook | 'taken'> {
    if (this.used.has(webhook.id)) return 'taken';
    this.used.add(webhook.id);
    const position = this.defect === 'gives a position again:' ? this.entries.size + 1 : ++this.last;
    const record: StoredWebhook = { ...webhook, position, revision: 1 };
    this.entries.set(webhook.id, { record, log: [], logged: 0 });
    return record;
  }

  async findById(id: string): Promise<StoredWebhook | undefined> {
    return this.entries.get(id)?.record;
  }

  async list(afterPosition: number, limit: number): Promise<readonly StoredWebhook[]> {
    return this.all()
      .filter((w) => w.position > afterPosition)
      .slice(0, limit);
  }

  async update(id: string, changes: WebhookChanges): Promise<StoredWebhook | undefined> {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const { types, ...rest } = entry.record;
    const nextTypes = changes.types === undefined ? types : (changes.types ?? undefined);
    const resumed = this.defect === 'resumes with its wait:' ? {} : { retryAt: 0 };
    entry.record = {
      ...rest,
      ...(nextTypes === undefined ? {} : { types: nextTypes }),
      ...(changes.url === undefined ? {} : { url: changes.url }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(changes.secrets === undefined ? {} : { secrets: changes.secrets }),
      ...(changes.enabled === true ? { enabled: true, failures: 0, pausedReason: null, ...resumed } : {}),
      ...(changes.enabled === false ? { enabled: false, pausedReason: null } : {}),
      revision: entry.record.revision + 1,
    };
    return entry.record;
  }

  async remove(id: string): Promise<boolean> {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.entries.delete(id);
    if (this.defect === 'gives an id again:') this.used.delete(id);
    if (this.defect === 'keeps the log of a removed subscription:') this.orphans.set(id, entry.log);
    return true;
  }

  /** The logs `remove` left behind (the defect of that name). */
  private readonly orphans = new Map<string, StoredDelivery[]>();

  async enabled(): Promise<readonly StoredWebhook[]> {
    return this.all().filter((w) => w.enabled);
  }

  async lease(id: string, holder: string, now: number, until: number): Promise<StoredWebhook | undefined> {
    const entry = this.entries.get(id);
    if (entry === undefined || !entry.record.enabled) return undefined;
    const current = entry.record.lease;
    const running =
      current !== undefined &&
      current.holder !== holder &&
      (this.defect === 'keeps a lease that ran out:' ? current.until >= now : current.until > now);
    if (running) return undefined;
    if (this.defect === 'gives a lease to two holders:') await aMoment();
    entry.record = { ...entry.record, lease: { holder, until } };
    return entry.record;
  }

  async release(id: string, holder: string): Promise<void> {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.record.lease?.holder !== holder) return;
    const { lease: _lease, ...rest } = entry.record;
    entry.record = rest;
  }

  async advance(
    id: string,
    holder: string,
    from: DeliveryCursor,
    next: DeliveryCursor,
  ): Promise<StoredWebhook | undefined> {
    const entry = this.writable(id, holder, from);
    if (entry === undefined) return undefined;
    entry.record = {
      ...entry.record,
      delivered: next.delivered,
      failures: next.failures,
      retryAt: next.retryAt,
      revision: entry.record.revision + 1,
    };
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
    entry.record = {
      ...entry.record,
      enabled: false,
      pausedReason: pause.reason,
      delivered: pause.delivered,
      failures: 0,
      retryAt: 0,
      revision: entry.record.revision + 1,
    };
    return entry.record;
  }

  async log(id: string, attempt: DeliveryAttempt): Promise<void> {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    let number: number;
    if (this.defect === 'gives a log number twice:') {
      number = (entry.log[entry.log.length - 1]?.number ?? 0) + 1;
      await aMoment();
    } else number = ++entry.logged;
    if (this.defect === 'keeps one attempt too many:' && entry.log.length > WEBHOOK_DELIVERIES_KEPT)
      entry.log.splice(0, entry.log.length - WEBHOOK_DELIVERIES_KEPT);
    entry.log.push({ ...attempt, number });
    entry.log.sort((a, b) => a.number - b.number);
    if (this.defect !== 'keeps one attempt too many:' && entry.log.length > WEBHOOK_DELIVERIES_KEPT)
      entry.log.splice(0, entry.log.length - WEBHOOK_DELIVERIES_KEPT);
  }

  async deliveries(id: string, before: number | undefined, limit: number): Promise<readonly StoredDelivery[]> {
    const log = this.entries.get(id)?.log ?? this.orphans.get(id) ?? [];
    return log
      .filter((d) => before === undefined || d.number < before)
      .reverse()
      .slice(0, limit);
  }

  private writable(id: string, holder: string, from: DeliveryCursor): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const r = entry.record;
    const enabled = r.enabled || this.defect === 'advances a disabled subscription:';
    const failures = r.failures === from.failures || this.defect === 'moves a cursor whose failures changed:';
    return enabled && r.lease?.holder === holder && r.delivered === from.delivered && failures ? entry : undefined;
  }

  private all(): StoredWebhook[] {
    return [...this.entries.values()].map((e) => e.record).sort((a, b) => a.position - b.position);
  }
}

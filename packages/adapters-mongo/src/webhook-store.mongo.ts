import type {
  DeliveryAttempt,
  DeliveryCursor,
  DeliveryOutcome,
  EventType,
  NewWebhook,
  StoredDelivery,
  StoredWebhook,
  WebhookChanges,
  WebhookPause,
  WebhookSecret,
  WebhookStore,
} from '@petstore/domain';
import { StoreUnavailableError, WEBHOOK_DELIVERIES_KEPT } from '@petstore/domain';
import type { Collection, Db, Document, Filter, UpdateFilter } from 'mongodb';
import { classifyMongoError, guard, upsertWithRetry } from './errors.js';
import { COLLECTIONS, COUNTERS } from './indexes.js';
import { leaseAllowsFilter } from './lease.js';

/**
 * A subscription: `_id` its id. A removed one stays as a tombstone (`removed: true`, `_id` and
 * `position` only) so that its id is never given again; every read and write filters it out.
 */
interface WebhookDocument {
  readonly _id: string;
  readonly position: number;
  readonly removed?: true;
  readonly url?: string;
  readonly types?: readonly EventType[];
  readonly description?: string;
  readonly enabled?: boolean;
  readonly pausedReason?: string | null;
  readonly createdAt?: Date;
  readonly secrets?: readonly WebhookSecret[];
  readonly revision?: number;
  readonly delivered?: number;
  readonly failures?: number;
  readonly retryAt?: number;
  readonly lease?: { readonly holder: string; readonly until: number };
  /** The number the last logged attempt got (`$inc`: the next attempt's number). */
  readonly logged?: number;
}

/** A logged attempt: `_id` = `<webhook id>:<number>`. */
interface DeliveryDocument {
  readonly _id: string;
  readonly webhook: string;
  readonly number: number;
  readonly eventId: string;
  readonly sequence: number;
  readonly attempt: number;
  readonly at: number;
  readonly status: number | null;
  readonly outcome: DeliveryOutcome;
  readonly durationMs: number;
  readonly error?: string;
}

interface CounterDocument {
  readonly _id: string;
  readonly value: number;
}

const LIVE = { removed: { $ne: true } } as const;
/** Every field a tombstone drops. */
const TOMBSTONE_DROPS = {
  url: '',
  types: '',
  description: '',
  enabled: '',
  pausedReason: '',
  createdAt: '',
  secrets: '',
  revision: '',
  delivered: '',
  failures: '',
  retryAt: '',
  lease: '',
} as const;
/** Inserts lost to another process taking the same position (never expected with a counter) before an insert gives up. */
const MAX_INSERT_ATTEMPTS = 8;

/**
 * Webhook subscriptions on MongoDB (docs/rules.md §15, "Webhooks"), each call one atomic
 * single-document write (classic update operators, no transaction, no update pipeline), so that
 * several processes may share them:
 *
 * - `webhooks`: one document per subscription, `_id` its id (so an insert of an id already there,
 *   or removed, is refused by the server), its lease (`lease: { holder, until }`) on it, and a
 *   `logged` counter. Positions come from the `webhooks` counter (`$inc`), so they only grow, also
 *   across processes. `lease`, `advance` and `pause` are `findOneAndUpdate`s whose filter is their
 *   condition: the server applies one of racing writes, the others match nothing.
 * - `webhook_deliveries`: one document per attempt, `_id` `<webhook id>:<number>`. `log` takes the
 *   next number with `$inc` on the subscription's `logged`, inserts the attempt, reads `logged`
 *   again and deletes the subscription's attempts numbered up to that minus `WEBHOOK_DELIVERIES_KEPT`.
 *   Reading it after the insert bounds the log also when attempts are inserted out of the order of
 *   their numbers: of an attempt n and the attempt n + KEPT, the one inserted last deletes n. A
 *   `log` that finds the subscription removed after its insert deletes the subscription's log (a
 *   `remove` racing it may have deleted it before the insert).
 */
export class WebhookStoreMongo implements WebhookStore {
  private readonly webhooks: Collection<WebhookDocument>;
  private readonly deliveryLog: Collection<DeliveryDocument>;
  private readonly counters: Collection<CounterDocument>;

  constructor(db: Db) {
    this.webhooks = db.collection<WebhookDocument>(COLLECTIONS.webhooks);
    this.deliveryLog = db.collection<DeliveryDocument>(COLLECTIONS.webhookDeliveries);
    this.counters = db.collection<CounterDocument>(COLLECTIONS.counters);
  }

  async insert(webhook: NewWebhook): Promise<StoredWebhook | 'taken'> {
    // Looked up first, so that a refused insert uses no position.
    if ((await this.exists(webhook.id)) !== null) return 'taken';
    for (let attempt = 0; attempt < MAX_INSERT_ATTEMPTS; attempt++) {
      const counter = await upsertWithRetry(
        () =>
          this.counters.findOneAndUpdate(
            { _id: COUNTERS.webhooks },
            { $inc: { value: 1 } },
            { upsert: true, returnDocument: 'after' },
          ),
        `findAndModify on ${COLLECTIONS.counters}`,
      );
      if (counter === null) throw new Error('the webhook position counter was not returned');
      const doc: WebhookDocument = {
        _id: webhook.id,
        position: counter.value,
        url: webhook.url,
        ...(webhook.types === undefined ? {} : { types: [...webhook.types] }),
        description: webhook.description,
        enabled: webhook.enabled,
        pausedReason: webhook.pausedReason,
        createdAt: new Date(webhook.createdAt),
        secrets: webhook.secrets.map(secretOf),
        revision: 1,
        delivered: webhook.delivered,
        failures: webhook.failures,
        retryAt: webhook.retryAt,
        logged: 0,
      };
      const inserted = await guard(async () => {
        try {
          await this.webhooks.insertOne(doc);
          return true;
        } catch (error) {
          if (classifyMongoError(error) === 'duplicate_key') return false;
          throw error;
        }
      }, `insert on ${COLLECTIONS.webhooks}`);
      if (inserted) return toWebhook(doc);
      // The id inserted meanwhile by another process (or the position taken, with a unique index on it).
      if ((await this.exists(webhook.id)) !== null) return 'taken';
    }
    throw new StoreUnavailableError('too many concurrent webhook creations; retry shortly');
  }

  async findById(id: string): Promise<StoredWebhook | undefined> {
    const doc = await guard(() => this.webhooks.findOne({ _id: id, ...LIVE }), `find on ${COLLECTIONS.webhooks}`);
    return doc === null ? undefined : toWebhook(doc);
  }

  async list(afterPosition: number, limit: number): Promise<readonly StoredWebhook[]> {
    // The driver reads a limit of 0 as none.
    if (limit <= 0) return [];
    return this.find({ position: { $gt: afterPosition }, ...LIVE }, limit);
  }

  async update(id: string, changes: WebhookChanges): Promise<StoredWebhook | undefined> {
    const set: Record<string, unknown> = {
      ...(changes.url === undefined ? {} : { url: changes.url }),
      ...(changes.types === undefined || changes.types === null ? {} : { types: [...changes.types] }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(changes.secrets === undefined ? {} : { secrets: changes.secrets.map(secretOf) }),
      // A resume starts again at the event the cursor stands at, with no failures and no wait.
      ...(changes.enabled === true ? { enabled: true, failures: 0, retryAt: 0, pausedReason: null } : {}),
      ...(changes.enabled === false ? { enabled: false, pausedReason: null } : {}),
    };
    const update: UpdateFilter<WebhookDocument> = {
      $inc: { revision: 1 },
      ...(Object.keys(set).length === 0 ? {} : { $set: set }),
      ...(changes.types === null ? { $unset: { types: '' } } : {}),
    };
    return this.write({ _id: id, ...LIVE }, update);
  }

  async remove(id: string): Promise<boolean> {
    const result = await guard(
      () => this.webhooks.updateOne({ _id: id, ...LIVE }, { $set: { removed: true }, $unset: TOMBSTONE_DROPS }),
      `update on ${COLLECTIONS.webhooks}`,
    );
    if (result.matchedCount === 0) return false;
    await this.dropLog(id);
    return true;
  }

  async enabled(): Promise<readonly StoredWebhook[]> {
    return this.find({ enabled: true, ...LIVE });
  }

  async lease(id: string, holder: string, now: number, until: number): Promise<StoredWebhook | undefined> {
    return this.write(
      { _id: id, enabled: true, ...LIVE, ...leaseAllowsFilter<WebhookDocument>('lease.', holder, now) },
      { $set: { lease: { holder, until } } },
    );
  }

  async release(id: string, holder: string): Promise<void> {
    await guard(
      () => this.webhooks.updateOne({ _id: id, 'lease.holder': holder, ...LIVE }, { $unset: { lease: '' } }),
      `update on ${COLLECTIONS.webhooks}`,
    );
  }

  async advance(
    id: string,
    holder: string,
    from: DeliveryCursor,
    next: DeliveryCursor,
  ): Promise<StoredWebhook | undefined> {
    return this.write(writable(id, holder, from), {
      $set: { delivered: next.delivered, failures: next.failures, retryAt: next.retryAt },
      $inc: { revision: 1 },
    });
  }

  async pause(
    id: string,
    holder: string,
    from: DeliveryCursor,
    pause: WebhookPause,
  ): Promise<StoredWebhook | undefined> {
    return this.write(writable(id, holder, from), {
      $set: { enabled: false, pausedReason: pause.reason, delivered: pause.delivered, failures: 0, retryAt: 0 },
      $inc: { revision: 1 },
    });
  }

  async log(id: string, attempt: DeliveryAttempt): Promise<void> {
    const counted = await guard(
      () =>
        this.webhooks.findOneAndUpdate(
          { _id: id, ...LIVE },
          { $inc: { logged: 1 } },
          { returnDocument: 'after', projection: { logged: 1 } },
        ),
      `findAndModify on ${COLLECTIONS.webhooks}`,
    );
    if (counted === null) return;
    const number = counted.logged ?? 1;
    const doc: DeliveryDocument = {
      _id: `${id}:${number}`,
      webhook: id,
      number,
      eventId: attempt.eventId,
      sequence: attempt.sequence,
      attempt: attempt.attempt,
      at: attempt.at,
      status: attempt.status,
      outcome: attempt.outcome,
      durationMs: attempt.durationMs,
      ...(attempt.error === undefined ? {} : { error: attempt.error }),
    };
    await guard(() => this.deliveryLog.insertOne(doc), `insert on ${COLLECTIONS.webhookDeliveries}`);
    const now = await guard(
      () => this.webhooks.findOne({ _id: id, ...LIVE }, { projection: { logged: 1 } }),
      `find on ${COLLECTIONS.webhooks}`,
    );
    if (now === null) {
      // Removed meanwhile: its log goes with it, this attempt too.
      await this.dropLog(id);
      return;
    }
    const newest = Math.max(number, now.logged ?? number);
    if (newest <= WEBHOOK_DELIVERIES_KEPT) return;
    await guard(
      () => this.deliveryLog.deleteMany({ webhook: id, number: { $lte: newest - WEBHOOK_DELIVERIES_KEPT } }),
      `delete on ${COLLECTIONS.webhookDeliveries}`,
    );
  }

  async deliveries(id: string, before: number | undefined, limit: number): Promise<readonly StoredDelivery[]> {
    if (limit <= 0) return [];
    const filter: Filter<DeliveryDocument> =
      before === undefined ? { webhook: id } : { webhook: id, number: { $lt: before } };
    const docs = await guard(
      () => this.deliveryLog.find(filter).sort({ number: -1 }).limit(limit).toArray(),
      `find on ${COLLECTIONS.webhookDeliveries}`,
    );
    return docs.map(toDelivery);
  }

  private exists(id: string): Promise<Document | null> {
    return guard(
      () => this.webhooks.findOne({ _id: id }, { projection: { _id: 1 } }),
      `find on ${COLLECTIONS.webhooks}`,
    );
  }

  private async find(filter: Filter<WebhookDocument>, limit?: number): Promise<readonly StoredWebhook[]> {
    const docs = await guard(() => {
      const cursor = this.webhooks.find(filter).sort({ position: 1 });
      return (limit === undefined ? cursor : cursor.limit(limit)).toArray();
    }, `find on ${COLLECTIONS.webhooks}`);
    return docs.map(toWebhook);
  }

  /** One conditional `findOneAndUpdate`: the subscription after it, or undefined when the filter matched nothing. */
  private async write(
    filter: Filter<WebhookDocument>,
    update: UpdateFilter<WebhookDocument>,
  ): Promise<StoredWebhook | undefined> {
    const doc = await guard(
      () => this.webhooks.findOneAndUpdate(filter, update, { returnDocument: 'after' }),
      `findAndModify on ${COLLECTIONS.webhooks}`,
    );
    return doc === null ? undefined : toWebhook(doc);
  }

  private async dropLog(id: string): Promise<void> {
    await guard(() => this.deliveryLog.deleteMany({ webhook: id }), `delete on ${COLLECTIONS.webhookDeliveries}`);
  }
}

/** The filter of a delivery write: enabled, held by `holder`, its cursor at `from` (`delivered` and `failures`). */
const writable = (id: string, holder: string, from: DeliveryCursor): Filter<WebhookDocument> => ({
  _id: id,
  ...LIVE,
  enabled: true,
  'lease.holder': holder,
  delivered: from.delivered,
  failures: from.failures,
});

const secretOf = (s: WebhookSecret): WebhookSecret =>
  s.expiresAt === undefined ? { secret: s.secret } : { secret: s.secret, expiresAt: s.expiresAt };

const toWebhook = (doc: WebhookDocument): StoredWebhook => {
  if (
    typeof doc.url !== 'string' ||
    typeof doc.enabled !== 'boolean' ||
    !(doc.createdAt instanceof Date) ||
    !Array.isArray(doc.secrets) ||
    typeof doc.revision !== 'number'
  )
    throw new Error('a stored webhook subscription is malformed');
  return {
    id: doc._id,
    position: doc.position,
    url: doc.url,
    ...(doc.types === undefined || doc.types === null ? {} : { types: doc.types }),
    description: doc.description ?? '',
    enabled: doc.enabled,
    pausedReason: doc.pausedReason ?? null,
    createdAt: doc.createdAt.getTime(),
    secrets: doc.secrets.map(secretOf),
    revision: doc.revision,
    delivered: doc.delivered ?? 0,
    failures: doc.failures ?? 0,
    retryAt: doc.retryAt ?? 0,
    ...(doc.lease === undefined || doc.lease === null
      ? {}
      : { lease: { holder: doc.lease.holder, until: doc.lease.until } }),
  };
};

const toDelivery = (doc: DeliveryDocument): StoredDelivery => ({
  eventId: doc.eventId,
  sequence: doc.sequence,
  attempt: doc.attempt,
  at: doc.at,
  status: doc.status,
  outcome: doc.outcome,
  durationMs: doc.durationMs,
  ...(doc.error === undefined || doc.error === null ? {} : { error: doc.error }),
  number: doc.number,
});

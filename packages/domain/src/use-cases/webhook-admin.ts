import type { Clock } from '../ports/clock.port.js';
import type { EventStore } from '../ports/event-store.port.js';
import type { Random } from '../ports/random.port.js';
import type { WebhookStore } from '../ports/webhook-store.port.js';
import type { WebhookTargets } from '../ports/webhook-sender.port.js';
import { validationFailed, type Forbidden, type NotFound, type ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import type { Caller } from '../auth/api-key.js';
import { pageScope } from '../pagination/cursor.js';
import { assemblePage, readPageRequest, type Page, type PageInput } from '../pagination/page.js';
import { timestamp } from '../order/order.js';
import {
  checkWebhookUrl,
  generateWebhookId,
  generateWebhookSecret,
  validateWebhookCreate,
  validateWebhookId,
  validateWebhookPatch,
} from '../webhooks/request.js';
import {
  WEBHOOK_ROTATION_OVERLAP_MS,
  type DeliveryOutcome,
  type StoredDelivery,
  type StoredWebhook,
  type Webhook,
  type WebhookChanges,
  type WebhookSecret,
  type WebhookWithSecret,
} from '../webhooks/webhook.js';

/** One attempt of a subscription's deliveries log, as the API shows it. */
export interface DeliveryView {
  readonly eventId: string;
  readonly sequence: number;
  readonly attempt: number;
  /** ISO 8601: when the attempt started. */
  readonly at: string;
  readonly status: number | null;
  readonly outcome: DeliveryOutcome;
  readonly durationMs: number;
  readonly error?: string;
}

/** Attempts at a fresh id before giving up (a clash of 96-bit ids does not happen with a working random source). */
const CREATE_ATTEMPTS = 4;

const forbidden: Forbidden = { code: 'forbidden', message: 'this operation needs an admin key' };
const notFound = (id: string): NotFound => ({ code: 'not_found', message: `no webhook has id ${id}` });

/** The public view of a stored subscription: never a secret, nor its cursor or lease. */
const toWebhook = (stored: StoredWebhook): Webhook => ({
  id: stored.id,
  url: stored.url,
  ...(stored.types === undefined ? {} : { types: stored.types }),
  description: stored.description,
  enabled: stored.enabled,
  pausedReason: stored.pausedReason,
  createdAt: timestamp(stored.createdAt),
});

const toDeliveryView = (row: StoredDelivery): DeliveryView => ({
  eventId: row.eventId,
  sequence: row.sequence,
  attempt: row.attempt,
  at: timestamp(row.at),
  status: row.status,
  outcome: row.outcome,
  durationMs: row.durationMs,
  ...(row.error === undefined ? {} : { error: row.error }),
});

/**
 * The secrets after a rotation at `now`: the new one first (current), the one it replaces kept for
 * `WEBHOOK_ROTATION_OVERLAP_MS`, then those earlier rotations replaced that still sign; the expired
 * ones dropped.
 */
const rotatedSecrets = (secrets: readonly WebhookSecret[], fresh: string, now: number): WebhookSecret[] => [
  { secret: fresh },
  ...secrets.flatMap((kept): WebhookSecret[] => {
    if (kept.expiresAt === undefined) return [{ secret: kept.secret, expiresAt: now + WEBHOOK_ROTATION_OVERLAP_MS }];
    return kept.expiresAt > now ? [kept] : [];
  }),
];

/**
 * The webhook API (docs/rules.md §15, "Webhooks"): creating, listing, changing, removing
 * subscriptions, rotating their secrets, and reading their deliveries logs. Every operation takes
 * the caller and answers `forbidden` unless it holds an admin key, before reading or checking
 * anything. A secret appears only in the answers of `create` and `rotateSecret`.
 */
export class WebhookAdmin {
  private readonly listScope = pageScope('webhooks');

  constructor(
    private readonly webhooks: WebhookStore,
    private readonly events: EventStore,
    private readonly targets: WebhookTargets,
    private readonly random: Random,
    private readonly clock: Clock,
  ) {}

  /** `forbidden` unless the caller holds an admin key; lets a transport refuse before it reads a body. */
  authorize(caller: Caller | undefined): Result<Caller, Forbidden> {
    return caller?.role === 'admin' ? ok(caller) : fail(forbidden);
  }

  /**
   * A new subscription, enabled, starting at the end of the feed (it delivers the events after the
   * last one now), or after `after` when given: a sequence from the one before the first event kept
   * up to the last (anything earlier was purged; anything later does not exist yet).
   */
  async create(
    caller: Caller | undefined,
    body: unknown,
  ): Promise<Result<WebhookWithSecret, Forbidden | ValidationFailed>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const request = validateWebhookCreate(body);
    if (!request.ok) return request;
    const url = await checkWebhookUrl(request.value.url, this.targets);
    if (!url.ok) return url;
    const last = await this.events.lastSequence();
    let delivered = last;
    if (request.value.after !== undefined) {
      const first = await this.events.firstSequence();
      const after = request.value.after;
      if (after < first - 1 || after > last)
        return fail(
          validationFailed(
            'after',
            `after must be within the events kept: from ${first - 1} to ${last} (got ${after}; earlier events are past their retention)`,
          ),
        );
      delivered = after;
    }
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
      const secret = generateWebhookSecret(this.random);
      const stored = await this.webhooks.insert({
        id: generateWebhookId(this.random),
        url: url.value,
        ...(request.value.types === undefined ? {} : { types: request.value.types }),
        description: request.value.description,
        enabled: true,
        pausedReason: null,
        createdAt: this.clock.now(),
        secrets: [{ secret }],
        delivered,
        failures: 0,
        retryAt: 0,
      });
      if (stored === 'taken') continue;
      return ok({ ...toWebhook(stored), secret });
    }
    throw new Error(`no unused webhook id after ${CREATE_ATTEMPTS} attempts: the random source repeats itself`);
  }

  async list(
    caller: Caller | undefined,
    input: PageInput = {},
  ): Promise<Result<Page<Webhook>, Forbidden | ValidationFailed>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const request = readPageRequest(input, this.listScope);
    if (!request.ok) return request;
    const { limit, afterId } = request.value;
    const rows = await this.webhooks.list(afterId, limit + 1);
    const page = assemblePage(rows, limit, this.listScope, (row) => row.position);
    const items = page.items.map(toWebhook);
    return ok(page.nextCursor === undefined ? { items } : { items, nextCursor: page.nextCursor });
  }

  async get(caller: Caller | undefined, id: string): Promise<Result<Webhook, Forbidden | ValidationFailed | NotFound>> {
    const found = await this.find(caller, id);
    return found.ok ? ok(toWebhook(found.value)) : found;
  }

  /**
   * Changes `url` (checked by `WebhookTargets` again), `types`, `description`, `enabled`. `enabled:
   * true` on a paused or disabled subscription resumes it at the event it stands at, its failures
   * cleared; on an enabled one it changes nothing (a running retry schedule is not restarted), as
   * `enabled: false` on a disabled one changes nothing (a pause keeps its reason).
   */
  async patch(
    caller: Caller | undefined,
    id: string,
    body: unknown,
  ): Promise<Result<Webhook, Forbidden | ValidationFailed | NotFound>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const webhookId = validateWebhookId(id);
    if (!webhookId.ok) return webhookId;
    const patch = validateWebhookPatch(body);
    if (!patch.ok) return patch;
    if (patch.value.url !== undefined) {
      const url = await checkWebhookUrl(patch.value.url, this.targets);
      if (!url.ok) return url;
    }
    const current = await this.webhooks.findById(webhookId.value);
    if (current === undefined) return fail(notFound(webhookId.value));
    const { enabled, ...rest } = patch.value;
    const changes: WebhookChanges = enabled === undefined || enabled === current.enabled ? rest : { ...rest, enabled };
    if (Object.keys(changes).length === 0) return ok(toWebhook(current));
    const updated = await this.webhooks.update(webhookId.value, changes);
    return updated === undefined ? fail(notFound(webhookId.value)) : ok(toWebhook(updated));
  }

  /** Removes the subscription with its log; a delivery under way for it ends at its next write. */
  async remove(caller: Caller | undefined, id: string): Promise<Result<void, Forbidden | ValidationFailed | NotFound>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const webhookId = validateWebhookId(id);
    if (!webhookId.ok) return webhookId;
    return (await this.webhooks.remove(webhookId.value)) ? ok(undefined) : fail(notFound(webhookId.value));
  }

  /**
   * A new current secret, shown in this answer only; the one it replaces still signs for
   * `WEBHOOK_ROTATION_OVERLAP_MS` (deliveries carry both signatures), and any that has run out is
   * dropped. Two rotations at once: the later write wins (the other's new secret never signs).
   */
  async rotateSecret(
    caller: Caller | undefined,
    id: string,
  ): Promise<Result<WebhookWithSecret, Forbidden | ValidationFailed | NotFound>> {
    const found = await this.find(caller, id);
    if (!found.ok) return found;
    const secret = generateWebhookSecret(this.random);
    const secrets = rotatedSecrets(found.value.secrets, secret, this.clock.now());
    const updated = await this.webhooks.update(found.value.id, { secrets });
    return updated === undefined ? fail(notFound(found.value.id)) : ok({ ...toWebhook(updated), secret });
  }

  /** The subscription's last attempts, newest first, paged by their place in its log. */
  async deliveries(
    caller: Caller | undefined,
    id: string,
    input: PageInput = {},
  ): Promise<Result<Page<DeliveryView>, Forbidden | ValidationFailed | NotFound>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const webhookId = validateWebhookId(id);
    if (!webhookId.ok) return webhookId;
    const scope = pageScope('webhook-deliveries', { webhookId: webhookId.value });
    const request = readPageRequest(input, scope);
    if (!request.ok) return request;
    if ((await this.webhooks.findById(webhookId.value)) === undefined) return fail(notFound(webhookId.value));
    const { limit, afterId } = request.value;
    // Newest first: the cursor holds the `number` of the last attempt shown; the next page is below it.
    const rows = await this.webhooks.deliveries(webhookId.value, afterId === 0 ? undefined : afterId, limit + 1);
    const page = assemblePage(rows, limit, scope, (row) => row.number);
    const items = page.items.map(toDeliveryView);
    return ok(page.nextCursor === undefined ? { items } : { items, nextCursor: page.nextCursor });
  }

  private async find(
    caller: Caller | undefined,
    id: string,
  ): Promise<Result<StoredWebhook, Forbidden | ValidationFailed | NotFound>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const webhookId = validateWebhookId(id);
    if (!webhookId.ok) return webhookId;
    const found = await this.webhooks.findById(webhookId.value);
    return found === undefined ? fail(notFound(webhookId.value)) : ok(found);
  }
}

import type { ApiKeyStore, KeyChanges } from '../ports/api-key-store.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { Random } from '../ports/random.port.js';
import { validationFailed, type Conflict, type Forbidden, type NotFound, type ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import { toApiKey, type ApiKey, type Caller, type StoredApiKey } from '../auth/api-key.js';
import { generateApiKey } from '../auth/key-format.js';
import { generatePublishableKey } from '../auth/origins.js';
import { resolveGrant, validateKeyId, validateKeyPatch, validateKeyRequest } from '../auth/key-request.js';
import { pageScope } from '../pagination/cursor.js';
import { assemblePage, readPageRequest, type Page, type PageInput } from '../pagination/page.js';
import type { Digests } from '../ports/digests.port.js';
import { keyChanged } from '../events/recorders.js';
import { timestamp } from '../order/order.js';

export type { ApiKey };

/** The answer to a creation: the only place the key itself ever appears. */
export interface CreatedApiKey extends ApiKey {
  readonly key: string;
}

/** Whether `changes` leave `key` as it is: the same plan and quota, the same label, the same origins. */
const isNoKeyChange = (key: StoredApiKey, changes: KeyChanges): boolean =>
  (changes.grant === undefined ||
    (changes.grant.plan === key.plan &&
      changes.grant.quota.perMinute === key.quota.perMinute &&
      changes.grant.quota.perDay === key.quota.perDay)) &&
  (changes.label === undefined || changes.label === key.label) &&
  (changes.origins === undefined || changes.origins.join(' ') === key.origins?.join(' '));

const originsOnlyPublishable: ValidationFailed = validationFailed(
  'origins',
  'origins can be changed only on a publishable key (this key is not one)',
);

/** Attempts at a fresh key before giving up (a clash of 48-bit public ids is already rare). */
const CREATE_ATTEMPTS = 4;

const forbidden: Forbidden = { code: 'forbidden', message: 'this operation needs an admin key' };
const notFound = (keyId: string): NotFound => ({ code: 'not_found', message: `no key has id ${keyId}` });
const settingsKey = (keyId: string): Conflict => ({
  code: 'conflict',
  message: `key ${keyId} is managed by the server's configuration, not through this API; change it there`,
});

/**
 * Issuing, listing, changing and revoking keys (docs/rules.md §9). Every operation takes the caller
 * and answers `forbidden` unless it holds an admin key. Settings keys are listed but read-only.
 */
export class KeyAdmin {
  private readonly listScope = pageScope('keys');

  constructor(
    private readonly keys: ApiKeyStore,
    private readonly random: Random,
    private readonly clock: Clock,
    /** Epoch ms of the process's start: the `createdAt` shown for settings keys. */
    private readonly startedAt: number,
    private readonly digests: Digests,
  ) {}

  /** `forbidden` unless the caller holds an admin key; lets a transport refuse before it reads a body. */
  authorize(caller: Caller | undefined): Result<Caller, Forbidden> {
    return caller?.role === 'admin' ? ok(caller) : fail(forbidden);
  }

  async create(
    caller: Caller | undefined,
    body: unknown,
  ): Promise<Result<CreatedApiKey, Forbidden | ValidationFailed>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const request = validateKeyRequest(body);
    if (!request.ok) return request;
    const { role, plan, quota, label, origins } = request.value;
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
      // A publishable key begins with `pk_`, a secret one with `pet_`: a secret scanner tells them apart (§16).
      const key = role === 'publishable' ? generatePublishableKey(this.random) : generateApiKey(this.random);
      const now = this.clock.now();
      const stored = await this.keys.insert(
        {
          keyHash: this.digests.sha256Hex(key),
          role,
          plan,
          quota,
          createdAt: now,
          ...(label === undefined ? {} : { label }),
          ...(origins === undefined ? {} : { origins }),
        },
        keyChanged('key.created', timestamp(now), this.startedAt),
      );
      if (stored === 'taken') continue;
      const { id, ...view } = this.view(stored);
      return ok({ id, key, ...view });
    }
    throw new Error(`no unused key id after ${CREATE_ATTEMPTS} attempts: the random source repeats itself`);
  }

  async list(
    caller: Caller | undefined,
    input: PageInput = {},
  ): Promise<Result<Page<ApiKey>, Forbidden | ValidationFailed>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const request = readPageRequest(input, this.listScope);
    if (!request.ok) return request;
    const { limit, afterId } = request.value;
    const rows = await this.keys.list(afterId, limit + 1);
    const page = assemblePage(rows, limit, this.listScope, (row) => row.position);
    const items = page.items.map((row) => this.view(row));
    return ok(page.nextCursor === undefined ? { items } : { items, nextCursor: page.nextCursor });
  }

  async get(
    caller: Caller | undefined,
    keyId: string,
  ): Promise<Result<ApiKey, Forbidden | ValidationFailed | NotFound>> {
    const found = await this.find(caller, keyId);
    return found.ok ? ok(this.view(found.value)) : found;
  }

  async patch(
    caller: Caller | undefined,
    keyId: string,
    body: unknown,
  ): Promise<Result<ApiKey, Forbidden | ValidationFailed | NotFound | Conflict>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const id = validateKeyId(keyId);
    if (!id.ok) return id;
    const patch = validateKeyPatch(body);
    if (!patch.ok) return patch;
    const current = await this.keys.findById(id.value);
    if (current === undefined) return fail(notFound(id.value));
    if (current.source === 'settings') return fail(settingsKey(id.value));
    if (patch.value.origins !== undefined && current.role !== 'publishable') return fail(originsOnlyPublishable);
    let changes: KeyChanges = {};
    if (patch.value.plan !== undefined || patch.value.quota !== undefined) {
      const grant = resolveGrant(patch.value.plan ?? current.plan, patch.value.quota, current);
      if (!grant.ok) return grant;
      changes = { grant: grant.value };
    }
    if (patch.value.label !== undefined) changes = { ...changes, label: patch.value.label };
    if (patch.value.origins !== undefined) changes = { ...changes, origins: patch.value.origins };
    // A change to what the key already is changes nothing, and records no `key.updated` (docs/rules.md §15).
    if (isNoKeyChange(current, changes)) return ok(this.view(current));
    const updated = await this.keys.update(id.value, changes, this.recordAs('key.updated'));
    return updated === undefined ? fail(notFound(id.value)) : ok(this.view(updated));
  }

  async revoke(
    caller: Caller | undefined,
    keyId: string,
  ): Promise<Result<void, Forbidden | ValidationFailed | NotFound | Conflict>> {
    const found = await this.find(caller, keyId);
    if (!found.ok) return found;
    if (found.value.source === 'settings') return fail(settingsKey(keyId));
    return (await this.keys.revoke(keyId, this.recordAs('key.revoked'))) ? ok(undefined) : fail(notFound(keyId));
  }

  private async find(
    caller: Caller | undefined,
    keyId: string,
  ): Promise<Result<StoredApiKey, Forbidden | ValidationFailed | NotFound>> {
    const allowed = this.authorize(caller);
    if (!allowed.ok) return allowed;
    const id = validateKeyId(keyId);
    if (!id.ok) return id;
    const found = await this.keys.findById(id.value);
    return found === undefined ? fail(notFound(id.value)) : ok(found);
  }

  private recordAs(type: 'key.updated' | 'key.revoked') {
    return keyChanged(type, timestamp(this.clock.now()), this.startedAt);
  }

  /** The public view of a stored key: its public id, never the hash. */
  private view(record: StoredApiKey): ApiKey {
    return toApiKey(record, this.startedAt);
  }
}

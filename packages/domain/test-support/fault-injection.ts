import type {
  Answer,
  ApiKeyRecord,
  ApiKeyStore,
  KeyChanges,
  NewApiKey,
  StoredApiKey,
  Category,
  CategoryListQuery,
  CategoryNameTaken,
  CategoryRepository,
  ClaimOutcome,
  CompletedRecord,
  ConsumeRequest,
  IdempotencyStore,
  InProgressRecord,
  ConsumeResult,
  NewCategory,
  OrderDraft,
  OrderListQuery,
  OrderRecord,
  OrderRepository,
  OrderState,
  Pet,
  PetChanges,
  PetDraft,
  PetHold,
  PetListQuery,
  PetRecord,
  PetRepository,
  PetStatus,
  PhotoBytes,
  PhotoFile,
  PhotoStore,
  PhotoSweep,
  PhotoUpload,
  PublishOutcome,
  QuotaStore,
  Result,
  SubjectState,
  StoredPhoto,
  Recorder,
  EventStore,
  Event,
  EventQuery,
  EventSource,
  OutboxEntry,
  AppendOutcome,
} from '../src/index.js';
import { StoreUnavailableError } from '../src/index.js';

// Timers are the one platform facility used here; declared locally so that test-support stays
// free of any runtime's type package (every JavaScript runtime has these two globals).
declare const setTimeout: (callback: () => void, ms: number) => unknown;
declare const clearTimeout: (handle: unknown) => void;

/** A create's arguments as the caller passed them: the creation token only when there is one. */
const withToken = (args: readonly unknown[], token: string | undefined): readonly unknown[] => (token === undefined ? args : [...args, token]);
/**
 * Forwards a create as it was called: with its creation token (docs/rules.md §10) only when it has one,
 * and with its event recorder (§15) only when it has one.
 */
const creating = <D, T, R>(inner: { create(draft: D, token?: string, record?: Recorder<T>): Promise<R> }, draft: D, token: string | undefined, record: Recorder<T> | undefined): Promise<R> =>
  record !== undefined ? inner.create(draft, token, record) : token === undefined ? inner.create(draft) : inner.create(draft, token);

/**
 * What one port call does under fault injection:
 * - `pass`: the call reaches the wrapped store untouched;
 * - `fail`: it throws `StoreUnavailableError` at once, and the store never sees it;
 * - `hang`: it waits `hangMs` (a driver's own timeout) and then throws, the store never sees it;
 * - `fail-after-write`: the store applies the call, then the caller gets `StoreUnavailableError`
 *   (the answer was lost on the way back); for a read, the read happens and its answer is lost;
 * - `hang-after-write`: the store applies the call, then the answer is held `hangMs` and lost.
 */
export type FaultMode = 'pass' | 'fail' | 'hang' | 'fail-after-write' | 'hang-after-write';
export const FAULT_MODES: readonly FaultMode[] = ['pass', 'fail', 'hang', 'fail-after-write', 'hang-after-write'];

export type FaultyPort = 'PetRepository' | 'CategoryRepository' | 'OrderRepository' | 'QuotaStore' | 'ApiKeyStore' | 'IdempotencyStore' | 'PhotoStore' | 'EventStore';

/** One call through a wrapped port, as the injector saw it. */
export interface PortCall {
  readonly port: FaultyPort;
  readonly method: string;
  /** True for calls that change the store (`create`, `consume`, `save`, `insert`, `update`, `revoke`, `swapHold`, `updateState`, `withdraw`…). */
  readonly write: boolean;
  /** The call's arguments, as passed (a `decide` function may pick a mode by them). */
  readonly args: readonly unknown[];
}

export interface InjectedCall extends PortCall {
  readonly mode: FaultMode;
  /** True when the wrapped store received the call (and, for a write, applied it). */
  readonly reached: boolean;
}

export interface FaultInjectorOptions {
  /** How long a `hang` lasts before it throws, in ms (default 30 s: longer than any service deadline). */
  readonly hangMs?: number;
}

/**
 * Switchable faults for any adapter of the ports: wrap the adapter with `petRepository`,
 * `categoryRepository`, `orderRepository`, `quotaStore`, `apiKeyStore`, `idempotencyStore` or `photoStore`, then choose per call what happens (`set` for every call from
 * now on, `queue` for the next calls, `use` for a function of the call). The injector logs every
 * call with the mode applied, so tests can tell what the store really received.
 */
export class FaultInjector {
  private standing: FaultMode = 'pass';
  private readonly queued: FaultMode[] = [];
  private decide: ((call: PortCall) => FaultMode | undefined) | undefined;
  private readonly hanging = new Set<() => void>();
  private readonly hangMs: number;
  /** Every call made through the wrapped ports, in order. */
  readonly calls: InjectedCall[] = [];

  constructor(options: FaultInjectorOptions = {}) {
    this.hangMs = options.hangMs ?? 30_000;
  }

  /** Every call from now on (after any queued modes) gets `mode`; `pass` restores the store. */
  set(mode: FaultMode): this {
    this.standing = mode;
    return this;
  }

  /** The next calls get these modes, one each, in order; then the standing mode again. */
  queue(...modes: FaultMode[]): this {
    this.queued.push(...modes);
    return this;
  }

  /** Decides each call with `decide` (before queue and standing mode); `undefined` falls through. */
  use(decide: ((call: PortCall) => FaultMode | undefined) | undefined): this {
    this.decide = decide;
    return this;
  }

  /** Ends every hanging call now (each throws `StoreUnavailableError`) and restores `pass`. */
  reset(): void {
    this.standing = 'pass';
    this.queued.length = 0;
    this.decide = undefined;
    for (const wake of [...this.hanging]) wake();
  }

  /** Calls made so far that match every field given. */
  count(filter: Partial<Omit<InjectedCall, 'args'>> = {}): number {
    return this.calls.filter(
      (c) =>
        (filter.port === undefined || c.port === filter.port) &&
        (filter.method === undefined || c.method === filter.method) &&
        (filter.write === undefined || c.write === filter.write) &&
        (filter.mode === undefined || c.mode === filter.mode) &&
        (filter.reached === undefined || c.reached === filter.reached),
    ).length;
  }

  petRepository(inner: PetRepository): PetRepository {
    return {
      create: (draft: PetDraft, token?: string, record?: Recorder<Pet>): Promise<Pet> =>
        this.run({ port: 'PetRepository', method: 'create', write: true, args: withToken([draft], token) }, () => creating(inner, draft, token, record)),
      findByCreationToken: (token: string): Promise<Pet | undefined> =>
        this.run({ port: 'PetRepository', method: 'findByCreationToken', write: false, args: [token] }, () => inner.findByCreationToken(token)),
      findById: (id: number): Promise<PetRecord | undefined> =>
        this.run({ port: 'PetRepository', method: 'findById', write: false, args: [id] }, () => inner.findById(id)),
      list: (query: PetListQuery): Promise<readonly Pet[]> =>
        this.run({ port: 'PetRepository', method: 'list', write: false, args: [query] }, () => inner.list(query)),
      // The adoption holds.
      findHold: (id: number): Promise<PetHold | undefined> =>
        this.run({ port: 'PetRepository', method: 'findHold', write: false, args: [id] }, () => inner.findHold(id)),
      swapHold: (id: number, expected: PetHold, next: PetHold, record?: Recorder<Pet>): Promise<boolean> =>
        this.run({ port: 'PetRepository', method: 'swapHold', write: true, args: [id, expected, next] }, () => inner.swapHold(id, expected, next, record)),
      countByStatus: (): Promise<Readonly<Record<PetStatus, number>>> =>
        this.run({ port: 'PetRepository', method: 'countByStatus', write: false, args: [] }, () => inner.countByStatus()),
      // Maintenance.
      update: (id: number, revision: number, changes: PetChanges, at: string, record?: Recorder<Pet>): Promise<PetRecord | undefined> =>
        this.run({ port: 'PetRepository', method: 'update', write: true, args: [id, revision, changes, at] }, () => inner.update(id, revision, changes, at, record)),
      withdraw: (id: number, revision: number, record?: Recorder<Pet>): Promise<boolean> =>
        this.run({ port: 'PetRepository', method: 'withdraw', write: true, args: [id, revision] }, () => inner.withdraw(id, revision, record)),
    };
  }

  categoryRepository(inner: CategoryRepository): CategoryRepository {
    return {
      create: (category: NewCategory, token?: string, record?: Recorder<Category>): Promise<Result<Category, CategoryNameTaken>> =>
        this.run({ port: 'CategoryRepository', method: 'create', write: true, args: withToken([category], token) }, () => creating(inner, category, token, record)),
      findByCreationToken: (token: string): Promise<Category | undefined> =>
        this.run({ port: 'CategoryRepository', method: 'findByCreationToken', write: false, args: [token] }, () => inner.findByCreationToken(token)),
      findById: (id: number): Promise<Category | undefined> =>
        this.run({ port: 'CategoryRepository', method: 'findById', write: false, args: [id] }, () => inner.findById(id)),
      findByName: (name: string): Promise<Category | undefined> =>
        this.run({ port: 'CategoryRepository', method: 'findByName', write: false, args: [name] }, () => inner.findByName(name)),
      list: (query: CategoryListQuery): Promise<readonly Category[]> =>
        this.run({ port: 'CategoryRepository', method: 'list', write: false, args: [query] }, () => inner.list(query)),
    };
  }

  orderRepository(inner: OrderRepository): OrderRepository {
    return {
      create: (draft: OrderDraft, token?: string): Promise<OrderRecord> =>
        this.run({ port: 'OrderRepository', method: 'create', write: true, args: withToken([draft], token) }, () => creating(inner, draft, token, undefined)),
      findByCreationToken: (token: string): Promise<OrderRecord | undefined> =>
        this.run({ port: 'OrderRepository', method: 'findByCreationToken', write: false, args: [token] }, () => inner.findByCreationToken(token)),
      findById: (id: number): Promise<OrderRecord | undefined> =>
        this.run({ port: 'OrderRepository', method: 'findById', write: false, args: [id] }, () => inner.findById(id)),
      updateState: (id: number, expected: OrderState, next: OrderState, updatedAt: string, record?: Recorder<OrderRecord>): Promise<boolean> =>
        this.run({ port: 'OrderRepository', method: 'updateState', write: true, args: [id, expected, next, updatedAt] }, () =>
          inner.updateState(id, expected, next, updatedAt, record),
        ),
      list: (query: OrderListQuery): Promise<readonly OrderRecord[]> =>
        this.run({ port: 'OrderRepository', method: 'list', write: false, args: [query] }, () => inner.list(query)),
    };
  }

  quotaStore(inner: QuotaStore): QuotaStore {
    return {
      consume: (request: ConsumeRequest): Promise<ConsumeResult> =>
        this.run({ port: 'QuotaStore', method: 'consume', write: true, args: [request] }, () => inner.consume(request)),
      peek: (subject: string): Promise<SubjectState | undefined> =>
        this.run({ port: 'QuotaStore', method: 'peek', write: false, args: [subject] }, () => inner.peek(subject)),
    };
  }

  apiKeyStore(inner: ApiKeyStore): ApiKeyStore {
    const call = <T>(method: string, write: boolean, args: readonly unknown[], forward: () => Answer<T>): Promise<T> =>
      this.run({ port: 'ApiKeyStore', method, write, args }, forward);
    return {
      findByHash: (keyHash: string): Promise<StoredApiKey | undefined> => call('findByHash', false, [keyHash], () => inner.findByHash(keyHash)),
      findById: (keyId: string): Promise<StoredApiKey | undefined> => call('findById', false, [keyId], () => inner.findById(keyId)),
      list: (afterPosition: number, limit: number): Promise<readonly StoredApiKey[]> =>
        call('list', false, [afterPosition, limit], () => inner.list(afterPosition, limit)),
      save: (record: ApiKeyRecord): Promise<void> => call('save', true, [record], () => inner.save(record)),
      retainSettingsKeys: (keyHashes: readonly string[]): Promise<void> =>
        call('retainSettingsKeys', true, [keyHashes], () => inner.retainSettingsKeys(keyHashes)),
      insert: (key: NewApiKey, record?: Recorder<StoredApiKey>): Promise<StoredApiKey | 'taken'> => call('insert', true, [key], () => inner.insert(key, record)),
      update: (keyId: string, changes: KeyChanges, record?: Recorder<StoredApiKey>): Promise<StoredApiKey | undefined> =>
        call('update', true, [keyId, changes], () => inner.update(keyId, changes, record)),
      revoke: (keyId: string, record?: Recorder<StoredApiKey>): Promise<boolean> => call('revoke', true, [keyId], () => inner.revoke(keyId, record)),
    };
  }

  idempotencyStore(inner: IdempotencyStore): IdempotencyStore {
    return {
      claim: (id: string, claim: InProgressRecord, now: number): Promise<ClaimOutcome> =>
        this.run({ port: 'IdempotencyStore', method: 'claim', write: true, args: [id, claim, now] }, () => inner.claim(id, claim, now)),
      complete: (id: string, claim: InProgressRecord, record: CompletedRecord): Promise<void> =>
        this.run({ port: 'IdempotencyStore', method: 'complete', write: true, args: [id, claim, record] }, () => inner.complete(id, claim, record)),
      release: (id: string, claim: InProgressRecord): Promise<void> =>
        this.run({ port: 'IdempotencyStore', method: 'release', write: true, args: [id, claim] }, () => inner.release(id, claim)),
    };
  }

  photoStore(inner: PhotoStore): PhotoStore {
    const call = <T>(method: string, write: boolean, args: readonly unknown[], forward: () => Answer<T>): Promise<T> =>
      this.run({ port: 'PhotoStore', method, write, args }, forward);
    return {
      reserve: (petId: number, totalBytes: number, now: number): Promise<PhotoUpload | 'full' | 'no_space'> =>
        call('reserve', true, [petId, totalBytes, now], () => inner.reserve(petId, totalBytes, now)),
      putFile: (upload: PhotoUpload, file: PhotoFile, bytes: Uint8Array): Promise<void> =>
        call('putFile', true, [upload, file, bytes], () => inner.putFile(upload, file, bytes)),
      publish: (upload: PhotoUpload, photo: StoredPhoto, token?: string, record?: Recorder<StoredPhoto>): Promise<PublishOutcome> =>
        call('publish', true, withToken([upload, photo], token), () =>
          record !== undefined ? inner.publish(upload, photo, token, record) : token === undefined ? inner.publish(upload, photo) : inner.publish(upload, photo, token),
        ),
      findByCreationToken: (token: string): Promise<StoredPhoto | undefined> => call('findByCreationToken', false, [token], () => inner.findByCreationToken(token)),
      abandon: (upload: PhotoUpload): Promise<void> => call('abandon', true, [upload], () => inner.abandon(upload)),
      list: (petId: number): Promise<readonly StoredPhoto[]> => call('list', false, [petId], () => inner.list(petId)),
      find: (petId: number, photoId: number): Promise<StoredPhoto | undefined> => call('find', false, [petId, photoId], () => inner.find(petId, photoId)),
      read: (photoId: number, width: number): Promise<PhotoBytes | undefined> => call('read', false, [photoId, width], () => inner.read(photoId, width)),
      delete: (petId: number, photoId: number, record?: Recorder<StoredPhoto>): Promise<boolean> =>
        call('delete', true, [petId, photoId], () => inner.delete(petId, photoId, record)),
      deleteAllOf: (petId: number, record?: Recorder<StoredPhoto>): Promise<number> => call('deleteAllOf', true, [petId], () => inner.deleteAllOf(petId, record)),
      pets: (): Promise<readonly number[]> => call('pets', false, [], () => inner.pets()),
      sweep: (startedBefore: number): Promise<PhotoSweep> => call('sweep', true, [startedBefore], () => inner.sweep(startedBefore)),
    };
  }

  /**
   * The event store (docs/rules.md §15): faults in the relay's steps and the feed's reads. `onRecorded`
   * and `waitBeyond` are passed through untouched (a cue and a wait, not store calls).
   */
  eventStore(inner: EventStore): EventStore {
    const call = <T>(method: string, write: boolean, args: readonly unknown[], forward: () => Answer<T>): Promise<T> =>
      this.run({ port: 'EventStore', method, write, args }, forward);
    return {
      lease: (holder: string, now: number, until: number): Promise<boolean> => call('lease', true, [holder, now, until], () => inner.lease(holder, now, until)),
      pending: (limit: number): Promise<readonly OutboxEntry[]> => call('pending', false, [limit], () => inner.pending(limit)),
      pendingOf: (source: EventSource): Promise<readonly OutboxEntry[]> => call('pendingOf', false, [source], () => inner.pendingOf(source)),
      lastSequence: (): Promise<number> => call('lastSequence', false, [], () => inner.lastSequence()),
      append: (event: Event): Promise<AppendOutcome> => call('append', true, [event], () => inner.append(event)),
      clear: (source: EventSource, ids: readonly string[]): Promise<void> => call('clear', true, [source, ids], () => inner.clear(source, ids)),
      onRecorded: (listener: () => void): (() => void) => inner.onRecorded(listener),
      after: (sequence: number, query: EventQuery): Promise<readonly Event[]> => call('after', false, [sequence, query], () => inner.after(sequence, query)),
      firstSequence: (): Promise<number> => call('firstSequence', false, [], () => inner.firstSequence()),
      purge: (through: number): Promise<number> => call('purge', true, [through], () => inner.purge(through)),
      waitBeyond: (sequence: number, timeoutMs: number, until?: PromiseLike<unknown>): Promise<number> => inner.waitBeyond(sequence, timeoutMs, until),
    };
  }

  private modeFor(call: PortCall): FaultMode {
    return this.decide?.(call) ?? this.queued.shift() ?? this.standing;
  }

  private async run<T>(call: PortCall, forward: () => Answer<T>): Promise<T> {
    const mode = this.modeFor(call);
    const reached = mode === 'pass' || mode === 'fail-after-write' || mode === 'hang-after-write';
    this.calls.push({ ...call, mode, reached });
    const what = `${call.port}.${call.method}`;
    switch (mode) {
      case 'pass':
        return forward();
      case 'fail':
        throw new StoreUnavailableError(`injected fault: ${what} could not reach the store`);
      case 'hang':
        await this.hang();
        throw new StoreUnavailableError(`injected fault: ${what} timed out`);
      case 'fail-after-write':
        await forward();
        throw new StoreUnavailableError(`injected fault: ${what} was applied but its answer was lost`);
      case 'hang-after-write':
        await forward();
        await this.hang();
        throw new StoreUnavailableError(`injected fault: ${what} was applied, then timed out`);
    }
  }

  private hang(): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.hanging.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.hangMs);
      this.hanging.add(wake);
    });
  }
}

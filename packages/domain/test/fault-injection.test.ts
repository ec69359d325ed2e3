import { expect } from 'chai';
import type {
  ApiKeyRecord,
  ApiKeyStore,
  StoredApiKey,
  ConsumeRequest,
  ConsumeResult,
  ListedPets,
  Pet,
  PetEntry,
  PetHold,
  PetListQuery,
  PetRecord,
  PetRepository,
  PetStatus,
  QuotaStore,
  SubjectState,
} from '../src/index.js';
import {
  apiKeyRecord,
  consumeQuota,
  DEFAULT_BAN_RULE,
  nameKeysOf,
  PLAN_QUOTAS,
  StoreUnavailableError,
} from '../src/index.js';
import { entryOf, FaultInjector, nodeDigests } from '../test-support/index.js';
import { modelList } from '../test-support/pet-list.model.js';

const notUsed = (): never => {
  throw new Error('not used in these tests');
};

class Pets implements PetRepository {
  readonly rows: Pet[] = [];
  readonly shuffleKeys = new Map<number, number>();
  readonly tokens = new Map<string, Pet>();
  async create(entry: PetEntry, token?: string): Promise<Pet> {
    const earlier = token === undefined ? undefined : this.tokens.get(token);
    if (earlier !== undefined) return earlier;
    const { name, categoryId, status, shuffleKey } = entry;
    const pet = { id: this.rows.length + 1, name, categoryId, status };
    this.rows.push(pet);
    this.shuffleKeys.set(pet.id, shuffleKey);
    if (token !== undefined) this.tokens.set(token, pet);
    return pet;
  }
  async findByCreationToken(token: string): Promise<Pet | undefined> {
    return this.tokens.get(token);
  }
  async findById(id: number): Promise<PetRecord | undefined> {
    const pet = this.rows.find((p) => p.id === id);
    return pet && { ...pet, revision: 0, orderId: null, statusPatchedAt: null };
  }
  async list(q: PetListQuery): Promise<ListedPets> {
    return modelList(
      this.rows.map((pet) => ({ pet, shuffleKey: this.shuffleKeys.get(pet.id)!, ...nameKeysOf(pet.name) })),
      q,
    );
  }
  // Maintenance: the pet stores have their own contract suite.
  update = notUsed;
  withdraw = notUsed;
  async findHold(id: number): Promise<PetHold | undefined> {
    const pet = await this.findById(id);
    return pet && { status: pet.status, orderId: null };
  }
  async swapHold(id: number, expected: PetHold, next: PetHold): Promise<boolean> {
    const at = this.rows.findIndex((p) => p.id === id);
    if (at < 0 || this.rows[at]!.status !== expected.status || expected.orderId !== null) return false;
    this.rows[at] = { ...this.rows[at]!, status: next.status };
    return true;
  }
  async countByStatus(): Promise<Record<PetStatus, number>> {
    const count = (s: PetStatus) => this.rows.filter((p) => p.status === s).length;
    return { available: count('available'), pending: count('pending'), sold: count('sold') };
  }
}
class Quotas implements QuotaStore {
  readonly states = new Map<string, SubjectState>();
  async consume(request: ConsumeRequest): Promise<ConsumeResult> {
    const { state, result } = consumeQuota(this.states.get(request.subject), request);
    this.states.set(request.subject, state);
    return result;
  }
  async peek(subject: string): Promise<SubjectState | undefined> {
    return this.states.get(subject);
  }
}
class Keys implements ApiKeyStore {
  readonly byHash = new Map<string, StoredApiKey>();
  async findByHash(h: string): Promise<StoredApiKey | undefined> {
    return this.byHash.get(h);
  }
  async save(r: ApiKeyRecord): Promise<void> {
    this.byHash.set(r.keyHash, { ...r, source: 'settings', position: 1 });
  }
  // Not used by these tests: the key store has its own contract suite.
  findById = notUsed;
  listPublishableOrigins = notUsed;
  list = notUsed;
  retainSettingsKeys = notUsed;
  insert = notUsed;
  update = notUsed;
  revoke = notUsed;
}

const draft = { name: 'Rex', categoryId: 1, status: 'available' } as const;
const consume: ConsumeRequest = {
  subject: 's',
  now: Date.UTC(2027, 0, 1),
  quota: PLAN_QUOTAS.free,
  ban: DEFAULT_BAN_RULE,
};

const rejection = async (p: unknown): Promise<unknown> => {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
};

describe('FaultInjector (test support): switchable faults around any port', function () {
  it('passes calls through untouched by default', async () => {
    const faults = new FaultInjector();
    const inner = new Pets();
    const pets = faults.petRepository(inner);
    const pet = await pets.create(entryOf(draft));
    expect(await pets.findById(pet.id)).to.deep.equal({ ...pet, revision: 0, orderId: null, statusPatchedAt: null });
    expect(await pets.list({ order: { sort: 'id' }, limit: 10 })).to.deep.equal({ pets: [pet] });
    expect(faults.calls.map((c) => `${c.method}:${c.mode}`)).to.deep.equal([
      'create:pass',
      'findById:pass',
      'list:pass',
    ]);
  });

  it("forwards a create's creation token (and logs it with the call) only when there is one; findByCreationToken is a read", async () => {
    const faults = new FaultInjector();
    const inner = new Pets();
    const pets = faults.petRepository(inner);
    const plain = await pets.create(entryOf(draft));
    const tokened = await pets.create(entryOf(draft), 'tok-1');
    expect(await pets.create(entryOf(draft), 'tok-1'), 'the store saw the token: one pet for it').to.deep.equal(
      tokened,
    );
    expect(await pets.findByCreationToken('tok-1')).to.deep.equal(tokened);
    expect(inner.rows.map((p) => p.id)).to.deep.equal([plain.id, tokened.id]);
    expect(faults.calls.map((c) => [c.method, c.write, c.args.length])).to.deep.equal([
      ['create', true, 1],
      ['create', true, 2],
      ['create', true, 2],
      ['findByCreationToken', false, 1],
    ]);
  });

  it('fail: throws StoreUnavailableError and the store never sees the call', async () => {
    const faults = new FaultInjector().set('fail');
    const inner = new Pets();
    const error = await rejection(faults.petRepository(inner).create(entryOf(draft)));
    expect(error).to.be.instanceOf(StoreUnavailableError);
    expect(inner.rows).to.have.length(0);
    expect(faults.calls[0]).to.deep.include({
      port: 'PetRepository',
      method: 'create',
      write: true,
      mode: 'fail',
      reached: false,
    });
  });

  it('fail-after-write: the write is applied, then the caller gets StoreUnavailableError', async () => {
    const faults = new FaultInjector().set('fail-after-write');
    const pets = new Pets();
    const quotas = new Quotas();
    const keys = new Keys();
    expect(await rejection(faults.petRepository(pets).create(entryOf(draft)))).to.be.instanceOf(StoreUnavailableError);
    expect(await rejection(faults.quotaStore(quotas).consume(consume))).to.be.instanceOf(StoreUnavailableError);
    const record = apiKeyRecord(nodeDigests, 'k', 'pro') as ApiKeyRecord;
    expect(await rejection(faults.apiKeyStore(keys).save(record))).to.be.instanceOf(StoreUnavailableError);
    expect(pets.rows).to.have.length(1);
    expect(quotas.states.get('s')?.minuteCount).to.equal(1);
    expect(keys.byHash.size).to.equal(1);
    expect(faults.count({ reached: true })).to.equal(3);
  });

  it('hang: waits for the adapter-side deadline, then throws; reset() ends every hang at once', async () => {
    const short = new FaultInjector({ hangMs: 20 }).set('hang');
    const inner = new Quotas();
    expect(await rejection(short.quotaStore(inner).consume(consume))).to.be.instanceOf(StoreUnavailableError);
    expect(inner.states.size).to.equal(0);

    const long = new FaultInjector({ hangMs: 3_600_000 }).set('hang-after-write');
    const pending = rejection(long.quotaStore(inner).consume(consume));
    await new Promise((r) => setTimeout(r, 5));
    expect(inner.states.get('s')?.minuteCount, 'applied before the hang').to.equal(1);
    long.reset();
    expect(await pending).to.be.instanceOf(StoreUnavailableError);
  });

  it('queue() scripts the next calls, use() decides per call (by port, method or arguments), set("pass") recovers', async () => {
    const faults = new FaultInjector().queue('fail', 'pass', 'fail-after-write');
    const keys = faults.apiKeyStore(new Keys());
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++)
      outcomes.push(
        await Promise.resolve(keys.findByHash('x')).then(
          () => 'ok',
          () => 'unavailable',
        ),
      );
    expect(outcomes).to.deep.equal(['unavailable', 'ok', 'unavailable', 'ok']);

    faults.use((call) => (call.write ? 'fail' : undefined));
    expect(await keys.findByHash('x')).to.equal(undefined);
    expect(await rejection(keys.save(apiKeyRecord(nodeDigests, 'k', 'free') as ApiKeyRecord))).to.be.instanceOf(
      StoreUnavailableError,
    );
    faults.use((call) => (call.args[0] === 'boom' ? 'fail' : undefined));
    expect(await rejection(keys.findByHash('boom'))).to.be.instanceOf(StoreUnavailableError);
    expect(await keys.findByHash('calm')).to.equal(undefined);
    faults.use(undefined).set('fail');
    expect(await rejection(keys.findByHash('x'))).to.be.instanceOf(StoreUnavailableError);
    faults.set('pass');
    expect(await keys.findByHash('x')).to.equal(undefined);
    expect(faults.count({ port: 'ApiKeyStore', mode: 'fail' })).to.equal(4);
  });
});

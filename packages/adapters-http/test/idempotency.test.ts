// CONTRACT.md §10 over HTTP: Idempotency-Key on the creates (here POST /v1/pets; the rule applies
// by route to every path of IDEMPOTENT_CREATES).
import { expect } from 'chai';
import { StoreUnavailableError, type Pet, type PetDraft, type PetHold, type PetListQuery, type PetRepository } from '@petstore/domain';
import { PetRepositoryInMemory } from '@petstore/adapters-memory';
import { IDEMPOTENT_CREATES } from '../src/index.js';
import { expectError, KEYS, rateLimitOf, startServer, type RawResponse, type TestServer } from './support/server.js';

const NEW_PET = '{"name":"Rex","categoryId":1}';

/** A repository whose creates can be held (to see a request in progress) or made to fail once. */
class ControlledRepository implements PetRepository {
  readonly inner = new PetRepositoryInMemory();
  creates = 0;
  hold: Promise<void> | undefined;
  failNext = false;
  onCreate: (() => void) | undefined;
  async create(draft: PetDraft): Promise<Pet> {
    this.creates++;
    this.onCreate?.();
    if (this.hold !== undefined) await this.hold;
    if (this.failNext) {
      this.failNext = false;
      throw new StoreUnavailableError('injected outage');
    }
    return this.inner.create(draft);
  }
  findById(id: number) {
    return this.inner.findById(id);
  }
  list(query: PetListQuery) {
    return this.inner.list(query);
  }
  findHold(id: number) {
    return this.inner.findHold(id);
  }
  swapHold(id: number, expected: PetHold, next: PetHold) {
    return this.inner.swapHold(id, expected, next);
  }
  countByStatus() {
    return this.inner.countByStatus();
  }
}

describe('Idempotency-Key on the creates (CONTRACT.md §10)', () => {
  let s: TestServer;
  let repo: ControlledRepository;
  beforeEach(async () => {
    repo = new ControlledRepository();
    s = await startServer({ repository: repo });
  });
  afterEach(() => s.close());

  const post = (key: string | undefined, body = NEW_PET, apiKey: string = KEYS.huge, path = '/v1/pets'): Promise<RawResponse> =>
    s.request({
      method: 'POST',
      path,
      key: apiKey,
      headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
      body,
    });

  it('applies to POST of /v1/pets, /v1/categories and /v1/store/orders, and not to POST /v1/admin/keys', () => {
    expect([...IDEMPOTENT_CREATES].sort()).to.deep.equal(['/v1/categories', '/v1/pets', '/v1/store/orders']);
  });

  it('a repeat gets the kept answer (status, body, Location) with Idempotent-Replayed: true, and creates nothing', async () => {
    const first = await post('create-rex-1');
    expect(first.status).to.equal(201);
    expect(first.header('idempotent-replayed')).to.equal('');
    for (let i = 0; i < 3; i++) {
      const again = await post('create-rex-1');
      expect(again.status).to.equal(201);
      expect(again.text).to.equal(first.text);
      expect(again.header('location')).to.equal(first.header('location'));
      expect(again.header('content-type')).to.equal('application/json; charset=utf-8');
      expect(again.header('idempotent-replayed')).to.equal('true');
      expect(again.header('x-request-id')).not.to.equal(first.header('x-request-id'));
    }
    expect(repo.creates, 'one create for four requests').to.equal(1);
    expect(repo.inner.size).to.equal(1);
    // Without a key, every request creates.
    await post(undefined);
    await post(undefined);
    expect(repo.inner.size).to.equal(3);
  });

  it('the same key with another body or another path → 422 idempotency_key_reused, nothing created', async () => {
    expect((await post('k-1')).status).to.equal(201);
    expectError(await post('k-1', '{"name":"Other","categoryId":1}'), 422, 'idempotency_key_reused');
    expectError(await post('k-1', '{"categoryId":1,"name":"Rex"}'), 422, 'idempotency_key_reused');
    expectError(await post('k-1', NEW_PET, KEYS.huge, '/v1/pets/'), 422, 'idempotency_key_reused');
    expect(repo.creates).to.equal(1);
  });

  it('a concurrent duplicate → 409 conflict while the first runs; then the kept answer', async () => {
    let release!: () => void;
    repo.hold = new Promise<void>((resolve) => (release = resolve));
    const entered = new Promise<void>((resolve) => (repo.onCreate = resolve));
    const first = post('slow-1');
    await entered;
    const duplicate = await post('slow-1');
    expectError(duplicate, 409, 'conflict');
    expect(duplicate.header('idempotent-replayed')).to.equal('');
    // A different request with the key is still a misuse (422), in progress or not.
    expectError(await post('slow-1', '{"name":"Mia","categoryId":1}'), 422, 'idempotency_key_reused');
    release();
    expect((await first).status).to.equal(201);
    const replay = await post('slow-1');
    expect(replay.status).to.equal(201);
    expect(replay.header('idempotent-replayed')).to.equal('true');
    expect(repo.creates).to.equal(1);
  });

  it('keys are scoped per API key: another key reusing the same Idempotency-Key is independent', async () => {
    const mine = await post('shared-key', NEW_PET, KEYS.huge);
    const theirs = await post('shared-key', NEW_PET, KEYS.pro);
    expect([mine.status, theirs.status]).to.deep.equal([201, 201]);
    expect(theirs.header('idempotent-replayed')).to.equal('');
    expect(theirs.text).not.to.equal(mine.text);
    expect(repo.creates).to.equal(2);
  });

  it('a 4xx answer is kept and replayed too (the request itself was wrong); nothing is created', async () => {
    const refused = await post('bad-1', '{"name":"","categoryId":1}');
    expectError(refused, 400, 'validation_failed');
    const again = await post('bad-1', '{"name":"","categoryId":1}');
    expectError(again, 400, 'validation_failed');
    expect(again.text).to.equal(refused.text);
    expect(again.header('idempotent-replayed')).to.equal('true');
    const malformed = await post('bad-2', '{"name":');
    expectError(malformed, 400, 'malformed_json');
    expect((await post('bad-2', '{"name":')).header('idempotent-replayed')).to.equal('true');
    expect(repo.creates).to.equal(0);
  });

  it('a 5xx is not kept: a retry with the key runs again', async () => {
    repo.failNext = true;
    expectError(await post('outage-1'), 503, 'unavailable');
    const retry = await post('outage-1');
    expect(retry.status).to.equal(201);
    expect(retry.header('idempotent-replayed')).to.equal('');
    expect(repo.inner.size).to.equal(1);
  });

  it('an invalid Idempotency-Key (not 1–255 printable ASCII) → 400 validation_failed, nothing created', async () => {
    for (const bad of ['', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const res = await post(bad);
      const { message } = expectError(res, 400, 'validation_failed');
      expect(message).to.include('Idempotency-Key');
    }
    expect((await post('x'.repeat(255))).status).to.equal(201);
    expect((await post(' !"#$%&()*+,-./:;<=>?@[\\]^_`{|}~')).status).to.equal(201);
    expect(repo.creates).to.equal(2);
  });

  it('replays count against the rate limit like any request', async () => {
    const first = rateLimitOf(await post('counted', NEW_PET, KEYS.free));
    const replay = await post('counted', NEW_PET, KEYS.free);
    expect(replay.header('idempotent-replayed')).to.equal('true');
    expect(rateLimitOf(replay).remaining).to.equal(first.remaining - 1);
  });

  it('keeps the answer 24 h: a repeat a day later is processed as a new request', async () => {
    expect((await post('day-1')).status).to.equal(201);
    s.clock.advance(24 * 60 * 60 * 1000 - 1);
    expect((await post('day-1')).header('idempotent-replayed')).to.equal('true');
    s.clock.advance(1);
    const later = await post('day-1');
    expect(later.status).to.equal(201);
    expect(later.header('idempotent-replayed')).to.equal('');
    expect(repo.creates).to.equal(2);
  });
});

describe('Idempotency-Key on the other creates and where it does not apply (CONTRACT.md §10, §7–§9)', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await startServer({ categories: 1 });
  });
  afterEach(() => s.close());

  const post = (path: string, body: string, idempotencyKey?: string, apiKey: string = KEYS.huge): Promise<RawResponse> =>
    s.request({
      method: 'POST',
      path,
      key: apiKey,
      headers: { 'content-type': 'application/json', ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
      body,
    });
  const listed = async (path: string, key: string = KEYS.huge): Promise<unknown[]> => (await s.request({ path, key })).json() as unknown[];

  it('POST /v1/categories: a repeat replays the 201 (body, Location) and creates nothing; a kept 409 (name taken) replays as it was', async () => {
    const first = await post('/v1/categories', '{"name":"Birds"}', 'cat-1');
    expect(first.status).to.equal(201);
    const again = await post('/v1/categories', '{"name":"Birds"}', 'cat-1');
    expect([again.status, again.text, again.header('location'), again.header('idempotent-replayed')]).to.deep.equal([201, first.text, first.header('location'), 'true']);
    expect(await listed('/v1/categories')).to.have.length(2);
    const taken = await post('/v1/categories', '{"name":"BIRDS"}', 'cat-2');
    expectError(taken, 409, 'conflict');
    const takenAgain = await post('/v1/categories', '{"name":"BIRDS"}', 'cat-2');
    expect([takenAgain.status, takenAgain.text, takenAgain.header('idempotent-replayed')]).to.deep.equal([409, taken.text, 'true']);
  });

  it('POST /v1/store/orders: a repeat replays the 201 and places nothing more; a kept 409 (pet not available) replays, even once the pet is free again', async () => {
    const pet = (await s.postJson('{"name":"Rex","categoryId":1}')).json() as { id: number };
    const first = await post('/v1/store/orders', JSON.stringify({ petId: pet.id }), 'order-1');
    expect(first.status).to.equal(201);
    expect(first.header('location')).to.match(/^\/v1\/store\/orders\/\d+$/);
    const again = await post('/v1/store/orders', JSON.stringify({ petId: pet.id }), 'order-1');
    expect([again.status, again.text, again.header('location'), again.header('idempotent-replayed')]).to.deep.equal([201, first.text, first.header('location'), 'true']);
    expect(await listed('/v1/store/orders', KEYS.admin)).to.have.length(1);

    const refused = await post('/v1/store/orders', JSON.stringify({ petId: pet.id }), 'order-2', KEYS.pro);
    expectError(refused, 409, 'conflict');
    const id = (first.json() as { id: number }).id;
    expect((await s.request({ method: 'POST', path: `/v1/store/orders/${id}/cancel`, key: KEYS.huge })).status).to.equal(200);
    const replayed = await post('/v1/store/orders', JSON.stringify({ petId: pet.id }), 'order-2', KEYS.pro);
    expect([replayed.status, replayed.text, replayed.header('idempotent-replayed')]).to.deep.equal([409, refused.text, 'true']);
    expect(await listed('/v1/store/orders', KEYS.admin)).to.have.length(1);
  });

  it('one key across the three paths: another path with the same key → 422, nothing created', async () => {
    expect((await post('/v1/categories', '{"name":"Fish"}', 'shared')).status).to.equal(201);
    expectError(await post('/v1/pets', '{"name":"Fish","categoryId":1}', 'shared'), 422, 'idempotency_key_reused');
    expectError(await post('/v1/store/orders', '{"petId":1}', 'shared'), 422, 'idempotency_key_reused');
    expect(await listed('/v1/pets')).to.have.length(0);
    expect(await listed('/v1/store/orders', KEYS.admin)).to.have.length(0);
  });

  it('POST /v1/admin/keys takes no Idempotency-Key: each request issues a new key, nothing is kept or replayed', async () => {
    const before = s.idempotencyStore.size;
    const a = await post('/v1/admin/keys', '{"plan":"free"}', 'issue-1', KEYS.admin);
    const b = await post('/v1/admin/keys', '{"plan":"free"}', 'issue-1', KEYS.admin);
    expect([a.status, b.status]).to.deep.equal([201, 201]);
    expect(b.header('idempotent-replayed')).to.equal('');
    expect((a.json() as { key: string }).key).not.to.equal((b.json() as { key: string }).key);
    expect(s.idempotencyStore.size, 'no answer holding a key is stored').to.equal(before);
  });
});

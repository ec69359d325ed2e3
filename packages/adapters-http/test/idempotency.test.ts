// docs/rules.md §10 over HTTP: Idempotency-Key on the creates (here POST /v1/pets; the rule applies
// by route to every create registered as an idempotent one, which the OpenAPI document marks).
import { expect } from 'chai';
import {
  StoreUnavailableError,
  type Pet,
  type PetEdit,
  type PetEntry,
  type PetHold,
  type PetListQuery,
  type PetRepository,
} from '@petstore/domain';
import { PetRepositoryInMemory } from '@petstore/adapters-memory';
import { BODY_LIMIT_BYTES, buildOpenApiDocument } from '../src/index.js';
import {
  expectError,
  KEYS,
  parseRawResponse,
  rateLimitOf,
  rawSocket,
  sequential,
  startServer,
  streamingRequest,
  type RawResponse,
  type TestServer,
} from './support/server.js';

const NEW_PET = '{"name":"Rex","categoryId":1}';

/** A repository whose creates can be held (to see a request in progress) or made to fail once. */
class ControlledRepository implements PetRepository {
  readonly inner = new PetRepositoryInMemory();
  creates = 0;
  hold: Promise<void> | undefined;
  failNext = false;
  onCreate: (() => void) | undefined;
  async create(entry: PetEntry, token?: string): Promise<Pet> {
    this.creates++;
    this.onCreate?.();
    if (this.hold !== undefined) await this.hold;
    if (this.failNext) {
      this.failNext = false;
      throw new StoreUnavailableError('injected outage');
    }
    return this.inner.create(entry, token);
  }
  findByCreationToken(token: string) {
    return this.inner.findByCreationToken(token);
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
  update(id: number, revision: number, changes: PetEdit, at: string) {
    return this.inner.update(id, revision, changes, at);
  }
  withdraw(id: number, revision: number) {
    return this.inner.withdraw(id, revision);
  }
}

describe('Idempotency-Key on the creates (docs/rules.md §10)', () => {
  let s: TestServer;
  let repo: ControlledRepository;
  beforeEach(async () => {
    repo = new ControlledRepository();
    s = await startServer({ repository: repo });
  });
  afterEach(() => s.close());

  const post = (
    key: string | undefined,
    body = NEW_PET,
    apiKey: string = KEYS.huge,
    path = '/v1/pets',
  ): Promise<RawResponse> =>
    s.request({
      method: 'POST',
      path,
      key: apiKey,
      headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
      body,
    });

  it('applies to the POSTs the document marks with Idempotency-Key, and to no other: /v1/pets, /v1/categories, /v1/store/orders and photo uploads (§13), not /v1/admin/keys', async () => {
    const doc = buildOpenApiDocument() as {
      paths: Record<string, Record<string, { operationId: string; parameters?: unknown[] }>>;
    };
    const posts = Object.entries(doc.paths).flatMap(([path, item]) =>
      item['post'] === undefined ? [] : [{ path: `/v1${path.replace(/\{\w+\}/g, '1')}`, operation: item['post'] }],
    );
    const keyParameter = { $ref: '#/components/parameters/IdempotencyKey' };
    const marked = posts
      .filter(({ operation }) =>
        (operation.parameters ?? []).some((p) => JSON.stringify(p) === JSON.stringify(keyParameter)),
      )
      .map(({ operation }) => operation.operationId);
    expect(marked.sort()).to.deep.equal(['createCategory', 'createPet', 'placeOrder', 'uploadPetPhoto']);
    // The same request twice under one key: a create that takes the key replays its first answer
    // (here a 400 or a 415 of the body `{}`: kept like any answer below 500, §10); any other POST
    // answers again, without Idempotent-Replayed.
    for (const { path, operation } of posts) {
      const send = () =>
        s.request({
          method: 'POST',
          path,
          key: KEYS.admin,
          headers: { 'content-type': 'application/json', 'idempotency-key': `which-${operation.operationId}` },
          body: '{}',
        });
      const first = await send();
      const again = await send();
      expect(again.status, operation.operationId).to.equal(first.status);
      expect(again.header('idempotent-replayed'), operation.operationId).to.equal(
        marked.includes(operation.operationId) ? 'true' : '',
      );
    }
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

  it('a 415 (body not application/json) is kept: the body (within 1 MiB) is read and fingerprinted as usual; another body with the key → 422', async () => {
    const asText = (key: string, body: string, type = 'text/plain'): Promise<RawResponse> =>
      s.request({
        method: 'POST',
        path: '/v1/pets',
        key: KEYS.huge,
        headers: { 'content-type': type, 'idempotency-key': key },
        body,
      });
    const refused = await asText('typed-1', NEW_PET);
    expectError(refused, 415, 'unsupported_media_type');
    expect(refused.header('idempotent-replayed')).to.equal('');
    const again = await asText('typed-1', NEW_PET);
    expect([again.status, again.text, again.header('idempotent-replayed')]).to.deep.equal([415, refused.text, 'true']);
    // The fingerprint is method, path and body (docs/rules.md §10): the same bytes as JSON are the same
    // request, and get the kept 415; a fixed request takes a new key.
    const sameBytes = await asText('typed-1', NEW_PET, 'application/json');
    expect([sameBytes.status, sameBytes.header('idempotent-replayed')]).to.deep.equal([415, 'true']);
    expectError(
      await asText('typed-1', '{"name":"Mia","categoryId":1}', 'application/json'),
      422,
      'idempotency_key_reused',
    );
    expectError(await asText('typed-1', 'name=Rex'), 422, 'idempotency_key_reused');
    expect(repo.creates).to.equal(0);
    expect((await post('typed-3')).status).to.equal(201);
  });

  describe('a 413 (body over 1 MiB) is kept under "this method and path with a body over 1 MiB" (docs/rules.md §10)', () => {
    const TWO_MIB = 2 * 1024 * 1024;
    /** A POST that declares a body over 1 MiB and sends none of it (Connection: close: rawSocket reads until the server closes). */
    const declared = async (
      idempotencyKey: string | undefined,
      length = TWO_MIB,
      path = '/v1/pets',
      apiKey: string = KEYS.huge,
    ) => {
      const head =
        `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\n` +
        `${idempotencyKey === undefined ? '' : `Idempotency-Key: ${idempotencyKey}\r\n`}Content-Length: ${length}\r\n\r\n`;
      return parseRawResponse(await rawSocket(s.port, head));
    };
    /** A chunked body that passes 1 MiB while it is sent. */
    const chunked = (idempotencyKey: string, type = 'application/json') => {
      const piece = Buffer.alloc(64 * 1024, 0x20);
      const chunks = [Buffer.from('{"name":"a","categoryId":1}'), ...Array.from({ length: 17 }, () => piece)];
      return streamingRequest(
        s.port,
        {
          path: '/v1/pets',
          key: KEYS.huge,
          headers: { 'content-type': type, 'transfer-encoding': 'chunked', 'idempotency-key': idempotencyKey },
        },
        chunks,
      );
    };

    it('declared Content-Length: answered at once and unread, kept; repeated → the kept 413 with Idempotent-Replayed: true; the key with a valid body → 422', async () => {
      const first = await declared('huge-1');
      expect(first.status).to.equal(413);
      expect(JSON.parse(first.body)).to.deep.include({ code: 'payload_too_large', status: 413 });
      expect(first.headers.get('connection')).to.equal('close');
      expect(first.headers.has('idempotent-replayed')).to.equal(false);
      expect(first.headers.has('x-ratelimit-remaining')).to.equal(true);
      for (const length of [TWO_MIB, BODY_LIMIT_BYTES + 1, 50 * 1024 * 1024]) {
        const again = await declared('huge-1', length);
        expect([
          again.status,
          again.body,
          again.headers.get('idempotent-replayed'),
          again.headers.get('connection'),
        ]).to.deep.equal([413, first.body, 'true', 'close']);
      }
      // Nothing of the body was awaited: the answer came on a connection that sent none of it.
      const unsent = await streamingRequest(
        s.port,
        {
          path: '/v1/pets',
          key: KEYS.huge,
          headers: {
            'content-type': 'application/json',
            'content-length': String(TWO_MIB),
            'idempotency-key': 'huge-1',
          },
        },
        [],
      );
      expect([unsent.status, unsent.header('idempotent-replayed'), unsent.bytesWritten]).to.deep.equal([
        413,
        'true',
        0,
      ]);
      expectError(await post('huge-1'), 422, 'idempotency_key_reused');
      const otherPath = await declared('huge-1', TWO_MIB, '/v1/categories');
      expect([otherPath.status, JSON.parse(otherPath.body).code]).to.deep.equal([422, 'idempotency_key_reused']);
      expect((await post('huge-2')).status, 'another key: a new request').to.equal(201);
      expect(repo.creates).to.equal(1);
    });

    it('the other way round: a key first used with a valid body, then with an oversized one → 422 (unread)', async () => {
      expect((await post('fine-1')).status).to.equal(201);
      const oversized = await declared('fine-1');
      expect([oversized.status, oversized.headers.get('connection')]).to.deep.equal([422, 'close']);
      expect(JSON.parse(oversized.body)).to.deep.include({ code: 'idempotency_key_reused' });
      expect(repo.creates).to.equal(1);
    });

    it('a chunked body passing 1 MiB: 413 while read, kept under the same fingerprint as a declared one; the key with a valid body → 422', async () => {
      const first = await chunked('stream-1');
      expectError(first, 413, 'payload_too_large');
      expect(first.header('idempotent-replayed')).to.equal('');
      const again = await chunked('stream-1');
      expect([again.status, again.text, again.header('idempotent-replayed')]).to.deep.equal([413, first.text, 'true']);
      const asDeclared = await declared('stream-1');
      expect([asDeclared.status, asDeclared.headers.get('idempotent-replayed')]).to.deep.equal([413, 'true']);
      expectError(await post('stream-1'), 422, 'idempotency_key_reused');
      expect(repo.creates).to.equal(0);
      // Not JSON and over 1 MiB: the route's own order (415 before the size), kept as such.
      const typed = await chunked('stream-2', 'text/plain');
      expectError(typed, 415, 'unsupported_media_type');
      expect((await chunked('stream-2', 'text/plain')).header('idempotent-replayed')).to.equal('true');
    });

    it('still not kept: a 401 (no caller to scope it), a 429; without a key the 413 is as before; a malformed key → 400, unread', async () => {
      const before = s.idempotencyStore.size;
      const anonymous = await declared('anon-1', TWO_MIB, '/v1/pets', 'pet_not_a_key');
      expect(anonymous.status, 'the size refusal comes before the credential, as ever').to.equal(413);
      expect(anonymous.headers.has('idempotent-replayed')).to.equal(false);
      const plain = await declared(undefined);
      expect([plain.status, plain.headers.get('connection')]).to.deep.equal([413, 'close']);
      expect(s.idempotencyStore.size).to.equal(before);
      const badKey = await declared('caf\u00e9');
      expect([badKey.status, badKey.headers.get('connection')]).to.deep.equal([400, 'close']);
      expect(JSON.parse(badKey.body).message).to.contain('Idempotency-Key');
      // Rate limiting comes first: a key over its limit gets 429 with its headers, and nothing is kept.
      await sequential(60, () => s.request({ path: '/v1/pets?limit=1', key: KEYS.free }));
      const limited = await declared('limited-1', TWO_MIB, '/v1/pets', KEYS.free);
      expect([
        limited.status,
        limited.headers.get('x-ratelimit-remaining'),
        limited.headers.get('connection'),
      ]).to.deep.equal([429, '0', 'close']);
      expect(limited.headers.get('retry-after')).to.match(/^[1-9][0-9]*$/);
      expect(s.idempotencyStore.size).to.equal(before);
    });
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

describe('Idempotency-Key on the other creates and where it does not apply (docs/rules.md §10, §7–§9)', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await startServer({ categories: 1 });
  });
  afterEach(() => s.close());

  const post = (
    path: string,
    body: string,
    idempotencyKey?: string,
    apiKey: string = KEYS.huge,
  ): Promise<RawResponse> =>
    s.request({
      method: 'POST',
      path,
      key: apiKey,
      headers: {
        'content-type': 'application/json',
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      body,
    });
  const listed = async (path: string, key: string = KEYS.huge): Promise<unknown[]> =>
    (await s.request({ path, key })).json() as unknown[];

  it('POST /v1/categories: a repeat replays the 201 (body, Location) and creates nothing; a kept 409 (name taken) replays as it was', async () => {
    const first = await post('/v1/categories', '{"name":"Birds"}', 'cat-1');
    expect(first.status).to.equal(201);
    const again = await post('/v1/categories', '{"name":"Birds"}', 'cat-1');
    expect([again.status, again.text, again.header('location'), again.header('idempotent-replayed')]).to.deep.equal([
      201,
      first.text,
      first.header('location'),
      'true',
    ]);
    expect(await listed('/v1/categories')).to.have.length(2);
    const taken = await post('/v1/categories', '{"name":"BIRDS"}', 'cat-2');
    expectError(taken, 409, 'conflict');
    const takenAgain = await post('/v1/categories', '{"name":"BIRDS"}', 'cat-2');
    expect([takenAgain.status, takenAgain.text, takenAgain.header('idempotent-replayed')]).to.deep.equal([
      409,
      taken.text,
      'true',
    ]);
  });

  it('POST /v1/store/orders: a repeat replays the 201 and places nothing more; a kept 409 (pet not available) replays, even once the pet is free again', async () => {
    const pet = (await s.postJson('{"name":"Rex","categoryId":1}')).json() as { id: number };
    const first = await post('/v1/store/orders', JSON.stringify({ petId: pet.id }), 'order-1');
    expect(first.status).to.equal(201);
    expect(first.header('location')).to.match(/^\/v1\/store\/orders\/\d+$/);
    const again = await post('/v1/store/orders', JSON.stringify({ petId: pet.id }), 'order-1');
    expect([again.status, again.text, again.header('location'), again.header('idempotent-replayed')]).to.deep.equal([
      201,
      first.text,
      first.header('location'),
      'true',
    ]);
    expect(await listed('/v1/store/orders', KEYS.admin)).to.have.length(1);

    const refused = await post('/v1/store/orders', JSON.stringify({ petId: pet.id }), 'order-2', KEYS.pro);
    expectError(refused, 409, 'conflict');
    const id = (first.json() as { id: number }).id;
    expect(
      (await s.request({ method: 'POST', path: `/v1/store/orders/${id}/cancel`, key: KEYS.huge })).status,
    ).to.equal(200);
    const replayed = await post('/v1/store/orders', JSON.stringify({ petId: pet.id }), 'order-2', KEYS.pro);
    expect([replayed.status, replayed.text, replayed.header('idempotent-replayed')]).to.deep.equal([
      409,
      refused.text,
      'true',
    ]);
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

// docs/rules.md §3 500 internal_error and 503 unavailable: a store outage and a bug, injected
// through a replacement repository; the process keeps serving and recovers by itself.
import { expect } from 'chai';
import {
  type ListedPets,
  StoreUnavailableError,
  type Pet,
  type PetEdit,
  type PetEntry,
  type PetHold,
  type PetListQuery,
  type PetRecord,
  type PetRepository,
  type PetStatus,
} from '@petstore/domain';
import { PetRepositoryInMemory } from '@petstore/adapters-memory';
import type { HttpLogger } from '../src/index.js';
import { expectError, KEYS, rateLimitOf, startServer, type RawResponse, type TestServer } from './support/server.js';

type Mode = 'ok' | 'unavailable' | 'bug' | 'throw-string';
const DRIVER_TEXT = 'connect ECONNREFUSED mongodb://admin:hunter2@db.internal:27017';
const BUG_TEXT = 'Cannot read properties of undefined (reading hunter2-secret)';

/** The in-memory repository behind a switch: answers, or fails the way the mode says. */
class SwitchableRepository implements PetRepository {
  mode: Mode = 'ok';
  private readonly inner = new PetRepositoryInMemory();
  private check(): void {
    if (this.mode === 'unavailable') throw new StoreUnavailableError(DRIVER_TEXT);
    if (this.mode === 'bug') throw new Error(BUG_TEXT);
    if (this.mode === 'throw-string') throw BUG_TEXT;
  }
  async create(entry: PetEntry, token?: string): Promise<Pet> {
    this.check();
    return this.inner.create(entry, token);
  }
  async findByCreationToken(token: string): Promise<Pet | undefined> {
    this.check();
    return this.inner.findByCreationToken(token);
  }
  async findById(id: number): Promise<PetRecord | undefined> {
    this.check();
    return this.inner.findById(id);
  }
  async list(query: PetListQuery): Promise<ListedPets> {
    this.check();
    return this.inner.list(query);
  }
  // The adoption holds.
  async findHold(id: number): Promise<PetHold | undefined> {
    this.check();
    return this.inner.findHold(id);
  }
  async swapHold(id: number, expected: PetHold, next: PetHold): Promise<boolean> {
    this.check();
    return this.inner.swapHold(id, expected, next);
  }
  async countByStatus(): Promise<Readonly<Record<PetStatus, number>>> {
    this.check();
    return this.inner.countByStatus();
  }
  async update(id: number, revision: number, changes: PetEdit, at: string): Promise<PetRecord | undefined> {
    this.check();
    return this.inner.update(id, revision, changes, at);
  }
  async withdraw(id: number, revision: number): Promise<boolean> {
    this.check();
    return this.inner.withdraw(id, revision);
  }
}

describe('faults (docs/rules.md §3)', () => {
  let s: TestServer;
  let repository: SwitchableRepository;
  const errors: Record<string, unknown>[] = [];
  const infos: Record<string, unknown>[] = [];
  const logger: HttpLogger = {
    info: (fields, message) => infos.push({ ...fields, message }),
    warn: (fields, message) => infos.push({ ...fields, message }),
    error: (fields, message) => errors.push({ ...fields, message }),
  };
  before(async () => {
    repository = new SwitchableRepository();
    s = await startServer({ repository, logger });
    expect((await s.postJson('{"name":"Rex","categoryId":1}')).status).to.equal(201);
  });
  after(() => s.close());
  beforeEach(() => {
    repository.mode = 'ok';
    errors.length = 0;
    infos.length = 0;
  });

  const operations = (): Promise<RawResponse>[] => [
    s.request({ path: '/v1/pets', key: KEYS.huge }),
    s.request({ path: '/v1/pets?status=sold&limit=3', key: KEYS.huge }),
    s.postJson('{"name":"Kit","categoryId":2}'),
    s.request({ path: '/v1/pets/1', key: KEYS.huge }),
  ];
  const expectNothingLeaked = (res: RawResponse): void => {
    for (const text of [res.text, JSON.stringify(res.headers)]) {
      expect(text).to.not.include('hunter2');
      expect(text).to.not.include('ECONNREFUSED');
      expect(text).to.not.include('Cannot read');
      expect(text).to.not.match(/\n\s+at |\.js:\d+|node_modules|Error:/);
    }
  };

  it('a store that cannot be reached → 503 unavailable with Retry-After; the next request after it is back succeeds', async () => {
    repository.mode = 'unavailable';
    const down = await Promise.all(operations());
    for (const res of down) {
      expectError(res, 503, 'unavailable');
      expect(res.header('retry-after')).to.match(/^[1-9]\d*$/);
      rateLimitOf(res);
      expectNothingLeaked(res);
    }
    // getPet keeps its deprecation headers on a 503.
    expect(down[3]!.header('sunset')).to.equal('Thu, 05 Dec 2030 00:00:00 GMT');
    // The probes do not depend on the repository here; the process still serves.
    expect((await s.request({ path: '/healthz' })).status).to.equal(200);

    repository.mode = 'ok';
    const up = await Promise.all(operations());
    expect(up.map((r) => r.status)).to.deep.equal([200, 200, 201, 200]);
  });

  it('a bug → 500 internal_error: no stack, no text of the thrown error; logged with the request id', async () => {
    repository.mode = 'bug';
    const responses = [
      ...(await Promise.all(operations())),
      await s.request({ path: '/v1/pets', key: KEYS.huge, headers: { 'x-request-id': 'trace-me-42' } }),
    ];
    for (const res of responses) {
      const { message } = expectError(res, 500, 'internal_error');
      expectNothingLeaked(res);
      rateLimitOf(res);
      const requestId = res.header('x-request-id');
      expect(message, 'the message quotes the request id').to.include(requestId);
      const logged = errors.filter((line) => line['requestId'] === requestId);
      expect(logged, `an error line for ${requestId}`).to.have.length(1);
      expect(JSON.stringify(logged[0])).to.include(BUG_TEXT);
      expect(infos.filter((line) => line['requestId'] === requestId && line['status'] === 500)).to.have.length(1);
    }
    expect(responses[4]!.header('x-request-id')).to.equal('trace-me-42');
    expect(responses[3]!.header('deprecation')).to.match(/^@\d+$/);

    repository.mode = 'ok';
    expect((await s.request({ path: '/v1/pets', key: KEYS.huge })).status).to.equal(200);
  });

  it('a thrown non-Error is a 500 internal_error too, and nothing of it is answered', async () => {
    repository.mode = 'throw-string';
    for (const res of await Promise.all(operations())) {
      expectError(res, 500, 'internal_error');
      expectNothingLeaked(res);
    }
    expect(errors.length).to.be.at.least(4);
  });
});

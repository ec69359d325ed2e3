// docs/rules.md §15 ("Behind the retention") through the composition root: a subscription whose next
// event left the feed, by the retention (it carries on at the first event kept, at attempt 1) or for
// lack of room in the memory store (PETSTORE_EVENT_MEMORY_MAX: a reader of the feed behind it gets
// 410, a subscription behind it is paused, saying why), with receivers on loopback (allowed through
// PETSTORE_WEBHOOK_ALLOW_HOSTS) and a clock the test moves.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  EventStoreInMemory,
  MemoryOutbox,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  QuotaStoreInMemory,
  WebhookStoreInMemory,
} from '@petstore/adapters-memory';
import { silentLogger } from '@petstore/adapters-http';
import { ManualClock } from '@petstore/domain/testing';
import { parseSettings } from '../src/settings.js';
import { startServer, type StartedServer } from '../src/server.js';

const ADMIN = 'behind-admin-key-0123456789';
const CLIENT = 'behind-client-key-0123456789';
const DAY_MS = 86_400_000;

/** A receiver on 127.0.0.1 that answers every request `status`, counting them. */
const startReceiver = async (status: number) => {
  let received = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    host: `127.0.0.1:${port}`,
    received: () => received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** Stores in process memory that outlive a server: what a restart on MongoDB keeps. */
const memoryStores = () => {
  const events = new EventStoreInMemory(new MemoryOutbox());
  const { outbox } = events;
  return {
    events,
    webhooks: new WebhookStoreInMemory(),
    pets: new PetRepositoryInMemory(outbox),
    categories: new CategoryRepositoryInMemory(outbox),
    orders: new OrderRepositoryInMemory(outbox),
    quotas: new QuotaStoreInMemory(),
    keys: new ApiKeyStoreInMemory([], outbox),
  };
};

const call = async (url: string, method: string, path: string, body?: unknown, key = ADMIN) => {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as unknown };
};

/** Checks until `done` holds (at most 10 s). */
const waitFor = async (done: () => boolean | Promise<boolean>, what: string): Promise<void> => {
  const deadline = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

interface LoggedAttempt {
  readonly sequence: number;
  readonly attempt: number;
}

describe('webhooks behind the feed through the server (docs/rules.md §15)', function () {
  this.timeout(60_000);
  let server: StartedServer | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await receiver?.close();
    receiver = undefined;
  });

  it('restarted three days on with a retention of one day: the first attempt at the first event kept is attempt 1, not the failures at the event that left', async () => {
    receiver = await startReceiver(500);
    const clock = new ManualClock(Date.now());
    const stores = memoryStores();
    const start = (env: Record<string, string> = {}) =>
      startServer(
        parseSettings({
          HOST: '127.0.0.1',
          PORT: '0',
          PETSTORE_API_KEYS: `${CLIENT}:pro`,
          PETSTORE_ADMIN_KEYS: ADMIN,
          PETSTORE_WEBHOOK_ALLOW_HOSTS: receiver!.host,
          ...env,
        }),
        { logger: silentLogger, clock, stores },
      );
    server = await start();
    const category = (await call(server.url, 'POST', '/v1/categories', { name: 'Dogs' })).json() as { id: number };
    const hook = (await call(server.url, 'POST', '/v1/webhooks', { url: receiver.url, types: ['pet.created'] })).json();
    const path = `/v1/webhooks/${(hook as { id: string }).id}/deliveries`;
    for (const name of ['Rex', 'Bella'])
      expect((await call(server.url, 'POST', '/v1/pets', { name, categoryId: category.id }, CLIENT)).status).to.equal(
        201,
      );
    await waitFor(() => receiver!.received() >= 1, 'the first failed attempt at the first pet');
    await server.stop();

    clock.advance(3 * DAY_MS);
    server = await start({ PETSTORE_EVENT_RETENTION_DAYS: '1' });
    // The retention at start took every event but the newest: the first pet's event is gone.
    await waitFor(async () => (await call(server!.url, 'GET', '/v1/events?after=0')).status === 410, 'the purge');
    await waitFor(() => receiver!.received() >= 2, 'the attempt at the second pet');
    let log: LoggedAttempt[] = [];
    await waitFor(async () => {
      log = (await call(server!.url, 'GET', path)).json() as LoggedAttempt[];
      return log.length >= 2;
    }, 'the second attempt in the log');
    expect(log.map((row) => [row.sequence, row.attempt])).to.deep.equal([
      [3, 1],
      [2, 1],
    ]);
  });

  it('PETSTORE_EVENT_MEMORY_MAX filled: a reader behind it gets 410 naming the first event kept; a subscription behind it is paused, saying why, and resumed goes on at the first event kept', async () => {
    receiver = await startReceiver(204);
    server = await startServer(
      parseSettings({
        HOST: '127.0.0.1',
        PORT: '0',
        PETSTORE_API_KEYS: `${CLIENT}:pro`,
        PETSTORE_ADMIN_KEYS: ADMIN,
        PETSTORE_WEBHOOK_ALLOW_HOSTS: receiver.host,
        PETSTORE_EVENT_MEMORY_MAX: '5',
      }),
      { logger: silentLogger },
    );
    const { url } = server;
    const category = (await call(url, 'POST', '/v1/categories', { name: 'Cats' })).json() as { id: number };
    const hook = (await call(url, 'POST', '/v1/webhooks', { url: receiver.url, types: ['pet.created'] })).json() as {
      id: string;
    };
    const path = `/v1/webhooks/${hook.id}`;
    expect((await call(url, 'PATCH', path, { enabled: false })).status).to.equal(200);
    // Events 2 to 9: the memory store keeps the newest 5 (5 to 9).
    for (let i = 1; i <= 8; i++)
      expect(
        (await call(url, 'POST', '/v1/pets', { name: `Cat ${i}`, categoryId: category.id }, CLIENT)).status,
      ).to.equal(201);
    await waitFor(async () => (await call(url, 'GET', '/v1/events?after=0')).status === 410, 'the oldest to leave');
    const gone = await call(url, 'GET', '/v1/events?after=0');
    expect(JSON.parse(gone.text)).to.include({ code: 'gone', status: 410 });
    expect((JSON.parse(gone.text) as { message: string }).message).to.include('the first kept event is 5');
    expect(((await call(url, 'GET', '/v1/events?after=4')).json() as unknown[]).length).to.equal(5);

    expect((await call(url, 'PATCH', path, { enabled: true })).status).to.equal(200);
    let read: { enabled?: boolean; pausedReason?: string | null } = {};
    await waitFor(async () => {
      read = (await call(url, 'GET', path)).json() as typeof read;
      return read.enabled === false;
    }, 'the pause');
    expect(read.pausedReason).to.equal(
      'events of its types up to sequence 4 left the feed before they were delivered (the store keeps only its newest events, and it was full); enabling the subscription again resumes at event 5, the first kept',
    );
    expect(receiver.received(), 'nothing sent').to.equal(0);
    expect((await call(url, 'PATCH', path, { enabled: true })).status).to.equal(200);
    await waitFor(() => receiver!.received() === 5, 'the five events kept');
    const log = (await call(url, 'GET', `${path}/deliveries`)).json() as LoggedAttempt[];
    expect(log.map((row) => [row.sequence, row.attempt])).to.deep.equal([
      [9, 1],
      [8, 1],
      [7, 1],
      [6, 1],
      [5, 1],
    ]);
  });
});

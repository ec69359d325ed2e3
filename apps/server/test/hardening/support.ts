// Helpers of the hardening tests: a server started in-process on a free port over fault-injected
// memory stores, and raw HTTP clients (node:http for requests, node:net for malformed bytes).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Clock } from '@petstore/domain';
import { FaultInjector } from '@petstore/domain/testing';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  EventStoreInMemory,
  MemoryOutbox,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  PhotoStoreInMemory,
  QuotaStoreInMemory,
} from '@petstore/adapters-memory';
import { silentLogger, type HttpLogger } from '@petstore/adapters-http';
import { parseSettings } from '../../src/settings.js';
import { startServer, type StartedServer } from '../../src/server.js';

export const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

/**
 * The categories every server the tests start has: ids 1…50, `Category 1`…`Category 50`. The one
 * place where the server tests get the categories their pets name (a `categoryId` must name one):
 * the harness creates them in its store before the start, `seedCategories` through the API of a
 * server running in another process.
 */
export const TEST_CATEGORIES = 50;
const categoryName = (i: number): string => `Category ${i}`;

/** Creates categories 1…`TEST_CATEGORIES` through `POST /v1/categories` of a fresh server at `url`. */
export const seedCategories = async (url: string | URL, key: string): Promise<void> => {
  for (let i = 1; i <= TEST_CATEGORIES; i++) {
    const res = await fetch(new URL('/v1/categories', url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: categoryName(i) }),
    });
    const body = (await res.json()) as { id?: number };
    if (res.status !== 201 || body.id !== i)
      throw new Error(`seeding categories: category ${i} answered ${res.status}`);
  }
};

export interface Harness {
  readonly server: StartedServer;
  readonly url: string;
  readonly port: number;
  readonly faults: FaultInjector;
  /** The memory stores under the fault injector: what the store really holds. */
  readonly pets: PetRepositoryInMemory;
  readonly categories: CategoryRepositoryInMemory;
  readonly orders: OrderRepositoryInMemory;
  readonly quotas: QuotaStoreInMemory;
  readonly keys: ApiKeyStoreInMemory;
  /** The events' outbox and feed (docs/rules.md §15), with `events: true`. */
  readonly events: EventStoreInMemory | undefined;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  /** `PETSTORE_API_KEYS`, plus any other setting. */
  readonly env?: Readonly<Record<string, string>>;
  readonly logger?: HttpLogger;
  readonly clock?: Clock;
  /** The service's store deadline (default: the product's 5 s). */
  readonly storeDeadlineMs?: number;
  /** How long an injected `hang` lasts before the "driver" gives up (default 30 s). */
  readonly hangMs?: number;
  /**
   * The key lookup cache (default 0: off, so that a fault injected into a key lookup always meets
   * a request; the cache has its own tests, and one test here turns it on).
   */
  readonly keyCacheMaxAgeMs?: number;
  /**
   * Record events (docs/rules.md §15): the memory stores share one outbox, and the server gets their
   * event store (not under the fault injector: its relay's calls would take faults meant for a request);
   * or this event store, with its outbox, as it is (a feed that already holds events).
   */
  readonly events?: boolean | EventStoreInMemory;
}

/** Starts the real server (settings, container, HTTP) on 127.0.0.1, port 0, over fault-injected memory stores. */
export const startHarness = async (options: HarnessOptions = {}): Promise<Harness> => {
  const faults = new FaultInjector(options.hangMs === undefined ? {} : { hangMs: options.hangMs });
  const events =
    options.events === true
      ? new EventStoreInMemory(new MemoryOutbox())
      : options.events === false
        ? undefined
        : options.events;
  const outbox = events?.outbox;
  const pets = new PetRepositoryInMemory(outbox);
  const categories = new CategoryRepositoryInMemory(outbox);
  for (let i = 1; i <= TEST_CATEGORIES; i++) categories.createSync({ name: categoryName(i) });
  const orders = new OrderRepositoryInMemory(outbox);
  const quotas = new QuotaStoreInMemory();
  const keys = new ApiKeyStoreInMemory([], outbox);
  const settings = parseSettings({ PORT: '0', HOST: '127.0.0.1', ...options.env });
  const server = await startServer(settings, {
    logger: options.logger ?? silentLogger,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.storeDeadlineMs === undefined ? {} : { storeDeadlineMs: options.storeDeadlineMs }),
    keyCacheMaxAgeMs: options.keyCacheMaxAgeMs ?? 0,
    stores: {
      pets: faults.petRepository(pets),
      categories: faults.categoryRepository(categories),
      orders: faults.orderRepository(orders),
      quotas: faults.quotaStore(quotas),
      keys: faults.apiKeyStore(keys),
      // Photos in memory as the server keeps them, recording their events too.
      ...(events === undefined ? {} : { events, photos: new PhotoStoreInMemory(undefined, outbox) }),
    },
  });
  return {
    server,
    url: server.url,
    port: server.port,
    faults,
    pets,
    categories,
    orders,
    quotas,
    keys,
    events,
    async stop() {
      faults.reset();
      await server.stop();
    },
  };
};

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

export interface SendOptions {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string | string[]>>;
  readonly body?: string | Buffer;
  /** Give up (reject) after this many ms; default 15 s. */
  readonly timeoutMs?: number;
}

/** One request on its own connection (no keep-alive), the whole answer read. */
export const send = (port: number, options: SendOptions): Promise<Answer> =>
  new Promise<Answer>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        // A body always goes with its length (Node would send a GET or HEAD body undelimited).
        headers:
          options.body === undefined
            ? (options.headers ?? {})
            : { 'Content-Length': String(Buffer.byteLength(options.body)), ...options.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(options.timeoutMs ?? 15_000, () =>
      req.destroy(new Error(`no answer within ${options.timeoutMs ?? 15_000} ms`)),
    );
    req.on('error', reject);
    req.end(options.body);
  });

export interface RawExchange {
  /** Everything the server wrote before closing (or before the wait ended). */
  readonly text: string;
  /** True when the server closed the connection within the wait. */
  readonly closed: boolean;
}

/**
 * Writes raw bytes (in pieces, with pauses, for slow clients) and collects what comes back until
 * the server closes the connection or `waitMs` passes.
 */
export const rawExchange = (
  port: number,
  pieces: ReadonlyArray<string | Buffer | { readonly pauseMs: number }>,
  waitMs = 15_000,
): Promise<RawExchange> =>
  new Promise<RawExchange>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on(
      'connect',
      () =>
        void (async () => {
          for (const piece of pieces) {
            if (done) return;
            if (typeof piece === 'object' && !Buffer.isBuffer(piece))
              await new Promise((r) => setTimeout(r, piece.pauseMs));
            else if (!socket.destroyed) socket.write(piece);
          }
        })(),
    );
  });

/** The status code and parsed `Error` body of a raw HTTP response text (the first response on the connection). */
export const parseRaw = (text: string): { status: number; headers: string; body: string } => {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
  const split = text.indexOf('\r\n\r\n');
  return {
    status: match ? Number(match[1]) : 0,
    headers: split < 0 ? text : text.slice(0, split),
    body: split < 0 ? '' : text.slice(split + 4),
  };
};

/** Parses an `Error` body and checks its shape; throws with the text when it is not one. */
export const errorOf = (text: string): { code: string; message: string; status: number } => {
  const body = JSON.parse(text) as { code?: unknown; message?: unknown; status?: unknown };
  if (
    typeof body.code !== 'string' ||
    typeof body.message !== 'string' ||
    typeof body.status !== 'number' ||
    Object.keys(body).length !== 3
  ) {
    throw new Error(`not an Error body: ${text.slice(0, 300)}`);
  }
  return body as { code: string; message: string; status: number };
};

export interface ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
  /** Resolves with the listening URL from the `listening` log line. */
  url(): Promise<URL>;
}

/**
 * Runs `apps/server/dist/src/main.js` as a child process with only the given environment (and
 * PATH), in the compiled tests' folder (no `.env` there: the server reads one from its working directory).
 */
export const spawnServer = (env: Readonly<Record<string, string>>): ServerProcess => {
  const child = spawn(process.execPath, [MAIN], {
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    env: { PATH: process.env['PATH'] ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async url() {
      await waitFor(() => /"msg":"listening"/.test(out), 'the listening line');
      return new URL(/"url":"([^"]+)"/.exec(out)![1]!);
    },
  };
};

export const waitFor = async (check: () => boolean, what: string, ms = 10_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

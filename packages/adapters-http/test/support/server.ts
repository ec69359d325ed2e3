// The one test helper of the HTTP suite: a real server on a free port, composed exactly as an
// embedder would (memory adapters + domain use cases + createHttpApp), with an injectable
// ManualClock, keys, ban rule, proxy trust, repository and logger; and raw clients built on
// node:http (any method, any header, bodies with or without Content-Type, chunked or slow)
// and node:net (bytes the HTTP client refuses to send).
import {
  Agent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type Server,
} from 'node:http';
import { connect } from 'node:net';
import { expect } from 'chai';
import {
  Admission,
  Adoption,
  PetMaintenance,
  apiKeyRecord,
  Authenticator,
  CategoryCatalog,
  EventFeed,
  EventRelay,
  KeyAdmin,
  RelayLoop,
  IdempotentRequests,
  PetCatalog,
  PhotoLibrary,
  PhotoUrls,
  PublishableOrigins,
  type ApiKeyRecord,
  type KeyRole,
  type BanRule,
  type CategoryRepository,
  type IdempotencyStore,
  type OrderRepository,
  type PetRepository,
  type PhotoStore,
  type PlanName,
  type Quota,
} from '@petstore/domain';
import { ManualClock, SeededRandom, nodeDigests, testPhotoLinks } from '@petstore/domain/testing';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  EventStoreInMemory,
  IdempotencyStoreInMemory,
  MemoryOutbox,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  PhotoStoreInMemory,
  PhotoUrlSecretStoreInMemory,
  QuotaStoreInMemory,
} from '@petstore/adapters-memory';
import { SharpImageProcessor } from '@petstore/adapters-sharp';
import {
  createHttpApp,
  listen,
  LongPolls,
  type CorsOrigins,
  type HttpLogger,
  type HttpMetrics,
  type ListenOptions,
  type RunningServer,
  type UploadAdmission,
} from '../../src/index.js';

/** 2027-01-01T00:00:00Z: after the deprecation of getPet, before its sunset, at a minute's start. */
export const T0 = Date.UTC(2027, 0, 1);

/**
 * Categories every test server has unless told otherwise: ids 1…100, named `Category 1`…`Category 100`
 * (created before the server starts; the one place where the tests' pets get their categories, so
 * a `categoryId` from 1 to 100 names one and anything above does not).
 */
export const SEEDED_CATEGORIES = 100;

/** Keys every test server accepts unless told otherwise. */
export const KEYS = {
  free: 'free-key-0123456789',
  pro: 'pro-key-0123456789',
  business: 'business-key-0123456789',
  /** Enterprise with a quota no test reaches: for tests that are not about rate limits. */
  huge: 'huge-key-0123456789',
  /** An admin key (plan business, as admin keys are): order transitions, all orders, the admin API. */
  admin: 'admin-key-0123456789',
} as const;

export interface KeySpec {
  readonly key: string;
  readonly plan: PlanName;
  readonly quota?: Quota;
  readonly role?: KeyRole;
}

export const DEFAULT_KEYS: readonly KeySpec[] = [
  { key: KEYS.free, plan: 'free' },
  { key: KEYS.pro, plan: 'pro' },
  { key: KEYS.business, plan: 'business' },
  { key: KEYS.huge, plan: 'enterprise', quota: { perMinute: 100_000_000, perDay: 1_000_000_000 } },
  { key: KEYS.admin, plan: 'business', role: 'admin' },
];

export const record = (spec: KeySpec): ApiKeyRecord => {
  const made = apiKeyRecord(nodeDigests, spec.key, spec.plan, spec.quota, spec.role);
  if (typeof made === 'string') throw new Error(`bad test key ${spec.key}: ${made}`);
  return made;
};

export interface TestServerOptions {
  readonly clock?: ManualClock;
  /** Replaces DEFAULT_KEYS. */
  readonly keys?: readonly KeySpec[];
  readonly ban?: BanRule;
  readonly trustProxy?: boolean;
  /** Replaces the in-memory repository (e.g. to inject faults). */
  readonly repository?: PetRepository;
  /** Replaces the in-memory category repository (it gets the seeded categories all the same). */
  readonly categoryRepository?: CategoryRepository;
  /** How many categories to create before the start (default `SEEDED_CATEGORIES`; 0 for none). */
  readonly categories?: number;
  /** Replaces the in-memory order repository. */
  readonly orders?: OrderRepository;
  /** Told of each withdrawn pet (docs/rules.md §12: its photos go with it); nothing by default. */
  readonly afterWithdrawal?: (petId: number) => Promise<void>;
  /** Replaces the in-memory idempotency store (two apps given the same stores act as two processes sharing one database). */
  readonly idempotencyStore?: IdempotencyStoreInMemory;
  /** Wraps the in-memory idempotency store the app uses (e.g. to inject faults); `idempotencyStore` stays the inner one. */
  readonly wrapIdempotencyStore?: (inner: IdempotencyStore) => IdempotencyStore;
  readonly isReady?: () => Promise<boolean>;
  readonly logger?: HttpLogger;
  /** Where requests are counted (route templates…); nothing counted when absent. */
  readonly metrics?: HttpMetrics;
  readonly corsOrigins?: CorsOrigins;
  /** The photo budget of the in-memory photo store, in bytes (default: its own, 256 MiB). */
  readonly photoBudgetBytes?: number;
  /** Replaces the in-memory photo store (two apps given the same stores act as two processes sharing one database). */
  readonly photoStore?: PhotoStoreInMemory;
  /** Wraps the in-memory photo store the app uses (e.g. to inject faults); `photoStore` stays the inner one. */
  readonly wrapPhotoStore?: (inner: PhotoStoreInMemory) => PhotoStore;
  /** The upload admission (docs/rules.md §13); the app's default when absent. */
  readonly uploads?: UploadAdmission;
  /** The timeouts `listen` is given (docs/rules.md §6); its defaults when absent. */
  readonly timeouts?: Pick<
    ListenOptions,
    'headersTimeoutMs' | 'requestTimeoutMs' | 'uploadBodyTimeoutMs' | 'uploadStallTimeoutMs'
  >;
  /**
   * The events (docs/rules.md §15): the in-memory stores the server makes record their events in
   * one outbox, a relay loop moves them into this event store, and `GET /v1/events` reads it.
   * (Stores passed in above record nothing unless they were made with `events.outbox`.)
   */
  readonly events?: EventStoreInMemory;
  /**
   * The signed photo URLs (docs/rules.md §16): keyless photo reads, the rotation, and the links of
   * `expand=photos`. When absent, the server has its own (a secret in memory), and `expand=photos`
   * links as `testPhotoLinks` does.
   */
  readonly photoUrls?: PhotoUrls;
}

export interface RawRequest {
  readonly method?: string;
  /** Sent as is: no normalisation, no encoding. */
  readonly path: string;
  readonly headers?: OutgoingHttpHeaders;
  /** A bearer key: sets `Authorization: Bearer <key>`. */
  readonly key?: string;
  /** Sent with its Content-Length, unless `chunked`; Content-Type only if given in `headers`. */
  readonly body?: string | Buffer;
  /** Send `body` with `Transfer-Encoding: chunked`. */
  readonly chunked?: boolean;
  readonly agent?: Agent;
  /** The local address to connect from (`127.0.0.2`…: another client address on the loopback network). */
  readonly localAddress?: string;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The raw bytes as they came, for HEAD (must be empty) and the like. */
  readonly bytes: Buffer;
  json(): unknown;
  /** One header as a string ('' when absent; multiple values joined with ', '). */
  header(name: string): string;
}

const toResponse = (status: number, headers: IncomingHttpHeaders, bytes: Buffer): RawResponse => {
  const text = bytes.toString('utf8');
  return {
    status,
    headers,
    text,
    bytes,
    json: () => JSON.parse(text) as unknown,
    header: (name) => {
      const value = headers[name.toLowerCase()];
      return value === undefined ? '' : Array.isArray(value) ? value.join(', ') : String(value);
    },
  };
};

/** One HTTP/1.1 request on node:http; resolves with the whole response. */
export const rawRequest = (port: number, req: RawRequest, defaultAgent?: Agent): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const headers: OutgoingHttpHeaders = { ...(req.headers ?? {}) };
    if (req.key !== undefined) headers['authorization'] = `Bearer ${req.key}`;
    if (req.body !== undefined && !req.chunked) headers['content-length'] = String(Buffer.byteLength(req.body));
    if (req.chunked) headers['transfer-encoding'] = 'chunked';
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: req.method ?? 'GET',
        path: req.path,
        headers,
        agent: req.agent ?? defaultAgent ?? false,
        ...(req.localAddress === undefined ? {} : { localAddress: req.localAddress }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(toResponse(res.statusCode ?? 0, res.headers, Buffer.concat(chunks))));
        res.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    if (req.body !== undefined) outgoing.end(req.body);
    else outgoing.end();
  });

/**
 * Sends the request line and headers, then writes `chunks` one by one (each only after the
 * previous one was flushed), stopping as soon as the response starts; never ends the body.
 * For bodies refused part-way (413) or refused from their headers alone.
 */
export const streamingRequest = (
  port: number,
  req: Omit<RawRequest, 'body' | 'chunked' | 'agent'>,
  chunks: readonly Buffer[],
): Promise<RawResponse & { readonly bytesWritten: number }> =>
  new Promise((resolve, reject) => {
    const headers: OutgoingHttpHeaders = { ...(req.headers ?? {}) };
    if (req.key !== undefined) headers['authorization'] = `Bearer ${req.key}`;
    let answered = false;
    let written = 0;
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, method: req.method ?? 'POST', path: req.path, headers, agent: false },
      (res) => {
        answered = true;
        const got: Buffer[] = [];
        res.on('data', (chunk: Buffer) => got.push(chunk));
        res.on('end', () => {
          outgoing.destroy();
          resolve({ ...toResponse(res.statusCode ?? 0, res.headers, Buffer.concat(got)), bytesWritten: written });
        });
        res.on('error', reject);
      },
    );
    // Errors after the answer (the server closing a connection it no longer reads) do not matter.
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    outgoing.flushHeaders();
    const next = (index: number): void => {
      const chunk = chunks[index];
      if (answered || chunk === undefined) return;
      outgoing.write(chunk, (error) => {
        if (error) return;
        written += chunk.length;
        // Leave the server a moment to read what arrived before the next piece is sent.
        setImmediate(() => next(index + 1));
      });
    };
    next(0);
  });

/**
 * Sends raw bytes on a TCP connection and resolves with everything the server sent back until
 * it closed the connection (send `Connection: close`). For what node:http refuses to send.
 */
export const rawSocket = (port: number, bytes: string | Buffer): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const got: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => got.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' && got.length > 0) resolve(Buffer.concat(got).toString('latin1'));
      else reject(error);
    });
    socket.on('end', () => {
      socket.destroy();
      resolve(Buffer.concat(got).toString('latin1'));
    });
    socket.write(bytes);
  });

/** A raw HTTP/1.1 response read back from `rawSocket`: status, headers (lower-case names), body. */
export const parseRawResponse = (raw: string): { status: number; headers: Map<string, string>; body: string } => {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: end < 0 ? '' : raw.slice(end + 4) };
};

export interface TestServer {
  readonly port: number;
  /** The node:http server (its open connections, for the tests that wait until one is gone). */
  readonly server: Server;
  readonly url: string;
  readonly clock: ManualClock;
  /** The repository the app uses (the in-memory one unless replaced). */
  readonly repository: PetRepository;
  readonly categoryRepository: CategoryRepository;
  /** The key store the app uses. */
  readonly keys: ApiKeyStoreInMemory;
  /** The idempotency records the app keeps. */
  readonly idempotencyStore: IdempotencyStoreInMemory;
  /** The photos the app keeps (docs/rules.md §13). */
  readonly photoStore: PhotoStoreInMemory;
  /** The photo use case the app serves (for what no route does: `removeAllOf` after a withdrawal, `sweep`). */
  readonly photos: PhotoLibrary;
  /** The events' outbox and feed (docs/rules.md §15). */
  readonly events: EventStoreInMemory;
  /** The feed's long polls under way. */
  readonly longPolls: LongPolls;
  /** A keep-alive agent with room for 400 simultaneous requests, used by default. */
  readonly agent: Agent;
  request(req: RawRequest): Promise<RawResponse>;
  /** `POST /v1/pets` with a JSON text body (`application/json`). */
  postJson(text: string, key?: string, extraHeaders?: OutgoingHttpHeaders): Promise<RawResponse>;
  /** `POST /v1/categories` with a JSON text body (`application/json`). */
  postCategory(text: string, key?: string): Promise<RawResponse>;
  close(): Promise<void>;
}

/** One image processor for every test server (sharp's settings are process-wide anyway). */
const IMAGES = new SharpImageProcessor();

/** Starts the app on 127.0.0.1, port 0. Close it in `after`/`afterEach`. */
export const startServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const clock = options.clock ?? new ManualClock(T0);
  const events = options.events ?? new EventStoreInMemory(new MemoryOutbox());
  const { outbox } = events;
  const repository = options.repository ?? new PetRepositoryInMemory(outbox);
  const categoryRepository = options.categoryRepository ?? new CategoryRepositoryInMemory(outbox);
  for (let i = 1; i <= (options.categories ?? SEEDED_CATEGORIES); i++) {
    // Seeded as the store's starting content: no event.
    const created = await categoryRepository.create({ name: `Category ${i}` });
    if (!created.ok || created.value.id !== i) throw new Error(`seeding categories: expected category ${i}`);
  }
  const keys = new ApiKeyStoreInMemory((options.keys ?? DEFAULT_KEYS).map(record), outbox);
  const idempotencyStore = options.idempotencyStore ?? new IdempotencyStoreInMemory();
  const orders = options.orders ?? new OrderRepositoryInMemory(outbox);
  const photoStore = options.photoStore ?? new PhotoStoreInMemory(options.photoBudgetBytes, outbox);
  const photos = new PhotoLibrary(
    repository,
    options.wrapPhotoStore?.(photoStore) ?? photoStore,
    IMAGES,
    clock,
    nodeDigests,
  );
  // The relay (docs/rules.md §15): on the platform's timers, its lease on the test's clock.
  const relay = new RelayLoop(
    new EventRelay(
      events,
      clock,
      'test-server',
      options.metrics?.eventAppended === undefined
        ? {}
        : { onAppended: (event) => options.metrics!.eventAppended!(event.type) },
    ),
    events,
    globalThis,
  );
  relay.start();
  const longPolls = new LongPolls();
  const app = createHttpApp(
    {
      catalog: new PetCatalog(repository, categoryRepository, clock, new SeededRandom('http-test-pets'), {
        store: options.wrapPhotoStore?.(photoStore) ?? photoStore,
        links: options.photoUrls ?? testPhotoLinks,
      }),
      categories: new CategoryCatalog(categoryRepository, clock),
      adoption: new Adoption(repository, orders, clock),
      maintenance: new PetMaintenance(repository, orders, categoryRepository, clock, options.afterWithdrawal),
      authenticator: new Authenticator(keys, nodeDigests),
      admission: new Admission(new QuotaStoreInMemory(), clock, options.ban),
      keyAdmin: new KeyAdmin(
        keys,
        new SeededRandom(`test-server-${String(clock.now())}`),
        clock,
        clock.now(),
        nodeDigests,
      ),
      idempotency: new IdempotentRequests(
        options.wrapIdempotencyStore?.(idempotencyStore) ?? idempotencyStore,
        clock,
        nodeDigests,
      ),
      photos,
      publishableOrigins: new PublishableOrigins(keys, clock),
      events: new EventFeed(events, clock),
      longPolls,
      ...(options.uploads === undefined ? {} : { uploads: options.uploads }),
      photoUrls:
        options.photoUrls ??
        new PhotoUrls(
          { store: new PhotoUrlSecretStoreInMemory() },
          { digests: nodeDigests, random: new SeededRandom('test-server-photo-urls'), clock },
        ),
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
      ...(options.isReady === undefined ? {} : { isReady: options.isReady }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    },
    {
      ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
      ...(options.corsOrigins === undefined ? {} : { corsOrigins: options.corsOrigins }),
    },
  );
  const running: RunningServer = await listen(app, { port: 0, host: '127.0.0.1', ...options.timeouts });
  const agent = new Agent({ keepAlive: true, maxSockets: 400 });
  const request = (req: RawRequest): Promise<RawResponse> => rawRequest(running.port, req, agent);
  return {
    port: running.port,
    server: running.server,
    url: running.url,
    clock,
    repository,
    categoryRepository,
    keys,
    idempotencyStore,
    photoStore,
    photos,
    events,
    longPolls,
    agent,
    request,
    postJson: (text, key = KEYS.huge, extraHeaders = {}) =>
      request({
        method: 'POST',
        path: '/v1/pets',
        key,
        headers: { 'content-type': 'application/json', ...extraHeaders },
        body: text,
      }),
    postCategory: (text, key = KEYS.huge) =>
      request({
        method: 'POST',
        path: '/v1/categories',
        key,
        headers: { 'content-type': 'application/json' },
        body: text,
      }),
    async close() {
      agent.destroy();
      longPolls.close();
      await running.close(1_000);
      await relay.stop();
    },
  };
};

/** The `Error` body of docs/rules.md §3, checked in full: code, status = HTTP status, a message. */
export const expectError = (
  res: RawResponse,
  status: number,
  code: string,
): { code: string; message: string; status: number } => {
  expect(res.status, `status of ${res.text}`).to.equal(status);
  expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
  const body = res.json() as { code: string; message: string; status: number };
  expect(body).to.have.all.keys('code', 'message', 'status');
  expect(body.code).to.equal(code);
  expect(body.status).to.equal(status);
  expect(body.message).to.be.a('string').with.length.greaterThan(5);
  return body;
};

/** The rate-limit fields of docs/rules.md §5, parsed, after checking that all five are present. */
export const rateLimitOf = (
  res: RawResponse,
): { limit: number; remaining: number; reset: number; policy: string; name: string; r: number; t: number } => {
  for (const name of [
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'ratelimit-policy',
    'ratelimit',
  ]) {
    expect(res.headers, `${name} on a ${res.status}`).to.have.property(name);
  }
  const match = /^"(minute|day)";r=(\d+);t=(\d+)$/.exec(res.header('ratelimit'));
  expect(match, `RateLimit: ${res.header('ratelimit')}`).to.not.equal(null);
  const limit = Number(res.header('x-ratelimit-limit'));
  const remaining = Number(res.header('x-ratelimit-remaining'));
  const reset = Number(res.header('x-ratelimit-reset'));
  const r = Number(match![2]);
  expect(r, 'RateLimit r = X-RateLimit-Remaining').to.equal(remaining);
  expect(remaining).to.be.at.least(0);
  return { limit, remaining, reset, policy: res.header('ratelimit-policy'), name: match![1]!, r, t: Number(match![3]) };
};

/** Seconds (Unix) at the end of the UTC minute / day holding `ms`. */
export const minuteEnd = (ms: number): number => Math.floor(ms / 60_000) * 60 + 60;
export const dayEnd = (ms: number): number => Math.floor(ms / 86_400_000) * 86_400 + 86_400;

/** `n` requests one after the other. */
export const sequential = async <T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> => {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await make(i));
  return out;
};

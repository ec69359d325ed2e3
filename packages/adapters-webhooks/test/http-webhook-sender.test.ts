// Deliveries (docs/rules.md §15, "Delivery") to real receivers on 127.0.0.1, each checked with the
// stock verifier of the `standardwebhooks` package. A guard on every socket of this file makes sure
// that no connection goes anywhere but loopback, and records where each went.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_MAX_ANSWER_BYTES, type WebhookRequest } from '@petstore/domain';
import { HttpWebhookSender, WebhookUrlPolicy } from '../src/index.js';

// ---- the loopback guard -------------------------------------------------------------------------

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type Lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/** Where this file's sockets connected (the addresses a lookup answered, or the IP literal), and what the guard stopped. */
const guard = { connected: [] as string[], blocked: [] as string[] };
const originalConnect = net.Socket.prototype.connect;
const isLoopback = (address: string): boolean => ipaddr.process(address).range() === 'loopback';

function guardedConnect(this: net.Socket, ...args: unknown[]): net.Socket {
  const [first] = args;
  const options: unknown = Array.isArray(first) ? first[0] : first;
  if (typeof options === 'object' && options !== null && 'port' in options) {
    const tcp = options as net.TcpSocketConnectOpts;
    const host = tcp.host ?? 'localhost';
    if (net.isIP(host) !== 0) {
      guard.connected.push(host);
      if (!isLoopback(host)) {
        guard.blocked.push(host);
        this.destroy(new Error('test guard: not a loopback address'));
        return this;
      }
    } else {
      const lookup: Lookup = (tcp.lookup as Lookup | undefined) ?? (systemLookup as unknown as Lookup);
      const checked: Lookup = (hostname, lookupOptions, callback) =>
        lookup(hostname, lookupOptions, (error, address, family) => {
          if (error !== null) return callback(error, address, family);
          const found = typeof address === 'string' ? [address] : address.map((a) => a.address);
          guard.connected.push(...found);
          const outside = found.filter((a) => !isLoopback(a));
          if (outside.length > 0) {
            guard.blocked.push(...outside);
            return callback(new Error('test guard: not a loopback address'), '', 4);
          }
          callback(null, address, family);
        });
      (tcp as { lookup?: Lookup }).lookup = checked;
    }
  }
  return Reflect.apply(originalConnect, this, args) as net.Socket;
}

// ---- receivers ----------------------------------------------------------------------------------

interface Delivery {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaderNames: readonly string[];
  readonly body: string;
}

interface Receiver {
  readonly port: number;
  readonly url: (path?: string) => string;
  readonly deliveries: Delivery[];
  /** TCP connections the receiver accepted. */
  connections: number;
  readonly close: () => Promise<void>;
}

const open: (Server | TlsServer)[] = [];

const listen = async (server: Server | TlsServer): Promise<number> => {
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
};
const stop = async (server: Server | TlsServer): Promise<void> => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
};

/** A receiver on 127.0.0.1 that records each delivery, then answers it with `answer` (after reading the whole body). */
const receiver = async (answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> => {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawHeaderNames: req.rawHeaders.filter((_, i) => i % 2 === 0),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      answer(req, res);
    });
  });
  const port = await listen(server);
  const made: Receiver = {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    deliveries,
    connections: 0,
    close: () => stop(server),
  };
  server.on('connection', () => (made.connections += 1));
  return made;
};

const answerWith =
  (status: number, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(status, headers).end('{"ok":true}');
  };

/** An answer that never ends: chunks as fast as the reader takes them, until the connection closes. */
const endless =
  (status: number, sent: { bytes: number; closedEarly: boolean }) =>
  (_req: IncomingMessage, res: ServerResponse): void => {
    const chunk = Buffer.alloc(16 * 1024, 'x');
    res.writeHead(status, { 'Content-Type': 'text/plain' });
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk)) sent.bytes += chunk.length;
    };
    res.on('drain', pump);
    res.on('close', () => (sent.closedEarly = !res.writableFinished));
    pump();
  };

// ---- requests -----------------------------------------------------------------------------------

const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

const requestTo = (url: string, secrets: readonly string[] = [newSecret()]): WebhookRequest => ({
  url,
  webhookId: `evt_${randomBytes(12).toString('hex')}`,
  timestamp: Math.floor(Date.now() / 1000),
  body: JSON.stringify({ id: 'evt_1', sequence: 7, type: 'pet.created', data: { name: 'Rex 🐕', tags: ['a', 'b'] } }),
  secrets,
});

const local = new WebhookUrlPolicy({ allowHosts: ['127.0.0.1'] });
const senderWith = (options: Partial<ConstructorParameters<typeof HttpWebhookSender>[0]> = {}) =>
  new HttpWebhookSender({ policy: local, userAgent: 'petstore-webhooks/1.0.0', ...options });

/** The Standard Webhooks headers of a delivery, for the stock verifier. */
const signed = (delivery: Delivery): Record<string, string> => ({
  'webhook-id': String(delivery.headers['webhook-id']),
  'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
  'webhook-signature': String(delivery.headers['webhook-signature']),
});

describe('HttpWebhookSender (docs/rules.md §15, Delivery)', function () {
  this.timeout(20_000);

  before(() => {
    net.Socket.prototype.connect = guardedConnect as typeof originalConnect;
  });
  after(() => {
    net.Socket.prototype.connect = originalConnect;
  });
  beforeEach(() => {
    guard.connected.length = 0;
    guard.blocked.length = 0;
  });
  afterEach(async () => {
    expect(guard.blocked, 'connections the loopback guard stopped').to.deep.equal([]);
    await Promise.all(open.splice(0).map((server) => (server.listening ? stop(server) : Promise.resolve())));
  });

  it('POSTs the event with exactly the Standard Webhooks headers; the stock verifier accepts it', async () => {
    const hook = await receiver(answerWith(204));
    const secret = newSecret();
    const request = requestTo(hook.url('/hooks/petstore?tenant=7'), [secret]);
    const result = await senderWith().send(request);
    expect(result).to.deep.include({ outcome: 'delivered', status: 204 });
    expect(result).not.to.have.property('error');
    expect(hook.deliveries).to.have.length(1);
    const [delivery] = hook.deliveries;
    if (delivery === undefined) throw new Error('no delivery');
    expect(delivery.method).to.equal('POST');
    expect(delivery.path).to.equal('/hooks/petstore?tenant=7');
    expect(delivery.body).to.equal(request.body);
    expect(delivery.headers).to.deep.include({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(request.body)),
      'webhook-id': request.webhookId,
      'webhook-timestamp': String(request.timestamp),
      'user-agent': 'petstore-webhooks/1.0.0',
      host: `127.0.0.1:${hook.port}`,
    });
    // Those headers, the two HTTP/1.1 needs (Host, Content-Length) and Connection: close; nothing else.
    expect(delivery.rawHeaderNames.map((name) => name.toLowerCase()).sort()).to.deep.equal(
      [
        'connection',
        'content-length',
        'content-type',
        'host',
        'user-agent',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
      ].sort(),
    );
    expect(delivery.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(delivery.body, signed(delivery))).to.deep.equal(JSON.parse(request.body));
    // The verifier is not a formality: another secret, or another body, fails it.
    expect(() => new Webhook(newSecret()).verify(delivery.body, signed(delivery))).to.throw();
    expect(() => new Webhook(secret).verify(`${delivery.body} `, signed(delivery))).to.throw();
  });

  it('signs with every secret during a rotation: each verifies alone', async () => {
    const hook = await receiver(answerWith(200));
    const [current, previous] = [newSecret(), newSecret()];
    expect(await senderWith().send(requestTo(hook.url(), [current, previous]))).to.deep.include({
      outcome: 'delivered',
      status: 200,
    });
    const [delivery] = hook.deliveries;
    if (delivery === undefined) throw new Error('no delivery');
    const signatures = String(delivery.headers['webhook-signature']).split(' ');
    expect(signatures).to.have.length(2);
    for (const secret of [current, previous])
      expect(new Webhook(secret).verify(delivery.body, signed(delivery)), 'each secret alone').to.be.an('object');
    // Each signature is its own secret's: the current one first.
    for (const [i, secret] of [current, previous].entries()) {
      const alone = { ...signed(delivery), 'webhook-signature': signatures[i] ?? '' };
      expect(new Webhook(secret).verify(delivery.body, alone)).to.be.an('object');
    }
  });

  it('property: any id, timestamp and body (Unicode too) are signed as the stock verifier checks them', async () => {
    const hook = await receiver(answerWith(200));
    const sender = senderWith();
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 64 }), { minLength: 1, maxLength: 3 }),
        async (id, text, keys) => {
          hook.deliveries.length = 0;
          const secrets = keys.map((key) => `whsec_${Buffer.from(key).toString('base64')}`);
          const body = JSON.stringify({ text });
          const request = { ...requestTo(hook.url(), secrets), webhookId: id, body };
          expect(await sender.send(request)).to.deep.include({ outcome: 'delivered' });
          const [delivery] = hook.deliveries;
          if (delivery === undefined) throw new Error('no delivery');
          expect(delivery.body).to.equal(body);
          for (const secret of secrets)
            expect(new Webhook(secret).verify(delivery.body, signed(delivery))).to.be.an('object');
        },
      ),
      { numRuns: 25 },
    );
  });

  it('does not follow a redirect: failed with its status, and its target sees nothing', async () => {
    const target = await receiver(answerWith(200));
    for (const status of [301, 302, 303, 307, 308]) {
      const hook = await receiver(answerWith(status, { Location: target.url('/elsewhere') }));
      const result = await senderWith().send(requestTo(hook.url()));
      expect(result, String(status)).to.deep.include({
        outcome: 'failed',
        status,
        error: `a redirect (${status}), not followed`,
      });
      expect(hook.deliveries).to.have.length(1);
    }
    expect(target.deliveries).to.deep.equal([]);
    expect(target.connections).to.equal(0);
  });

  it('a redirect to a private or metadata address is not followed: failed, and nothing connects anywhere but the receiver', async () => {
    for (const location of [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/admin',
      'http://[::1]:9/',
      'http://localhost:9/',
    ]) {
      guard.connected.length = 0;
      const hook = await receiver(answerWith(302, { Location: location }));
      const result = await senderWith().send(requestTo(hook.url()));
      expect(result, location).to.deep.include({ outcome: 'failed', status: 302 });
      expect(hook.deliveries, location).to.have.length(1);
      // The receiver's own address only: no connection, no lookup towards the Location.
      expect(guard.connected, location).to.deep.equal(['127.0.0.1']);
    }
  });

  it('fails on any status but 2xx, with the status and never the answer', async () => {
    for (const status of [400, 404, 410, 500, 503]) {
      const hook = await receiver((_req, res) => res.writeHead(status).end('secret-answer-body'));
      const result = await senderWith().send(requestTo(hook.url()));
      expect(result, String(status)).to.deep.include({
        outcome: 'failed',
        status,
        error: `the receiver answered ${status}`,
      });
      expect(JSON.stringify(result)).not.to.contain('secret-answer-body');
    }
    for (const status of [200, 201, 202, 204, 299]) {
      const hook = await receiver(answerWith(status));
      expect(await senderWith().send(requestTo(hook.url())), String(status)).to.deep.include({
        outcome: 'delivered',
        status,
      });
    }
  });

  it('times out on a receiver that never answers', async () => {
    const hook = await receiver(() => undefined);
    const result = await senderWith({ timeoutMs: 300 }).send(requestTo(hook.url()));
    expect(result).to.deep.include({ outcome: 'timeout', status: null, error: 'no complete answer within 300 ms' });
    expect(hook.deliveries).to.have.length(1);
  });

  it('times out on a receiver that drips its answer past the limit, though its status was 2xx', async () => {
    const timers: NodeJS.Timeout[] = [];
    const hook = await receiver((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      timers.push(setInterval(() => res.write('.'), 20));
    });
    try {
      const result = await senderWith({ timeoutMs: 300 }).send(requestTo(hook.url()));
      expect(result).to.deep.include({ outcome: 'timeout', status: 200, error: 'no complete answer within 300 ms' });
    } finally {
      for (const timer of timers) clearInterval(timer);
    }
  });

  it('times out on a receiver that drips its headers', async () => {
    const timers: NodeJS.Timeout[] = [];
    const hook = await receiver((req) => {
      const socket = req.socket;
      socket.write('HTTP/1.1 200 OK\r\n');
      timers.push(setInterval(() => socket.write('X-Slow: 1\r\n'), 20));
    });
    try {
      const result = await senderWith({ timeoutMs: 300 }).send(requestTo(hook.url()));
      expect(result).to.deep.include({ outcome: 'timeout', status: null });
    } finally {
      for (const timer of timers) clearInterval(timer);
    }
  });

  it('is unreachable when the receiver closes the connection, or refuses it', async () => {
    const closing = await receiver((req) => req.socket.destroy());
    expect(await senderWith().send(requestTo(closing.url()))).to.deep.include({
      outcome: 'unreachable',
      status: null,
      error: 'the connection was closed before an answer',
    });
    const resetting = await receiver((req) => req.socket.resetAndDestroy());
    expect(await senderWith().send(requestTo(resetting.url()))).to.deep.include({
      outcome: 'unreachable',
      status: null,
      error: 'the connection was reset',
    });
    const gone = await receiver(answerWith(200));
    await gone.close();
    expect(await senderWith().send(requestTo(gone.url()))).to.deep.include({
      outcome: 'unreachable',
      status: null,
      error: 'the connection was refused',
    });
    const broken = await receiver((req, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('only part of it', () => req.socket.destroy());
    });
    expect(await senderWith().send(requestTo(broken.url()))).to.deep.include({
      outcome: 'unreachable',
      status: 200,
      error: 'the connection broke during the answer',
    });
    const garbled = await receiver((req) => req.socket.end('NOT HTTP AT ALL\r\n\r\n'));
    const result = await senderWith().send(requestTo(garbled.url()));
    expect(result).to.deep.include({ outcome: 'unreachable', status: null });
    expect(result.error).to.match(/^the answer was not valid HTTP \(HPE_[A-Z_]+\)$/);
  });

  it('reads at most the answer limit of an endless body, then closes: a 2xx is delivered, another status failed', async () => {
    for (const [status, outcome] of [
      [200, 'delivered'],
      [500, 'failed'],
    ] as const) {
      const sent = { bytes: 0, closedEarly: false };
      const hook = await receiver(endless(status, sent));
      // Without the limit this answer never ends, and the attempt would time out.
      const result = await senderWith({ timeoutMs: 10_000 }).send(requestTo(hook.url()));
      expect(result).to.deep.include({ outcome, status });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(sent.closedEarly, 'the receiver saw its answer cut').to.equal(true);
    }
  });

  it('stops reading once the limit is read: an answer that stalls after the limit is delivered, one byte short times out', async () => {
    /** A 2xx whose body stops after `bytes` and never ends. */
    const stalling = (bytes: number) =>
      receiver((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write(Buffer.alloc(bytes, 'y'));
      });
    for (const [limit, options] of [
      [WEBHOOK_MAX_ANSWER_BYTES, {}],
      [1024, { maxAnswerBytes: 1024 }],
    ] as const) {
      const full = await stalling(limit);
      expect(
        await senderWith({ ...options, timeoutMs: 2_000 }).send(requestTo(full.url())),
        `${limit}`,
      ).to.deep.include({
        outcome: 'delivered',
        status: 200,
      });
      const short = await stalling(limit - 1);
      expect(
        await senderWith({ ...options, timeoutMs: 300 }).send(requestTo(short.url())),
        `${limit - 1}`,
      ).to.deep.include({
        outcome: 'timeout',
        status: 200,
      });
    }
    // A whole answer under the limit is read to its end.
    const whole = await receiver((_req, res) =>
      res.writeHead(200).end(Buffer.alloc(WEBHOOK_MAX_ANSWER_BYTES - 1, 'y')),
    );
    expect(await senderWith().send(requestTo(whole.url()))).to.deep.include({ outcome: 'delivered', status: 200 });
  });

  it('measures durationMs with the clock it is given', async () => {
    const hook = await receiver(answerWith(200));
    const ticks = [1_000, 1_250];
    const result = await senderWith({ now: () => ticks.shift() ?? 9_999 }).send(requestTo(hook.url()));
    expect(result).to.deep.equal({ outcome: 'delivered', status: 200, durationMs: 250 });
  });

  it('opens a new connection for every attempt: none is kept or reused', async () => {
    const hook = await receiver(answerWith(200));
    const sender = senderWith();
    for (let i = 0; i < 3; i++)
      expect(await sender.send(requestTo(hook.url()))).to.deep.include({ outcome: 'delivered' });
    expect(hook.connections).to.equal(3);
    expect(hook.deliveries.map((d) => d.headers.connection)).to.deep.equal(['close', 'close', 'close']);
  });

  describe('the URL rules at delivery', () => {
    it('refuses, sending nothing, a URL the rules refuse', async () => {
      const hook = await receiver(answerWith(200));
      const strict = new HttpWebhookSender({
        policy: new WebhookUrlPolicy({ allowHosts: [] }),
        userAgent: 'petstore-webhooks/1.0.0',
      });
      const cases: readonly [string, string][] = [
        [hook.url(), "the URL's scheme must be https (http only for an allowed host)"],
        [`https://127.0.0.1:${hook.port}/hook`, 'the host 127.0.0.1 is a loopback address'],
        [
          `https://[::ffff:127.0.0.1]:${hook.port}/hook`,
          'the host ::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1, a loopback address',
        ],
        [`https://[::1]:${hook.port}/hook`, 'the host ::1 is a loopback address'],
        [`https://localhost:${hook.port}/hook`, ''],
        ['ftp://127.0.0.1/hook', "the URL's scheme must be https, not ftp:"],
        [`https://user:pw@127.0.0.1:${hook.port}/`, 'the URL may not hold a user name or password'],
        ['/relative', 'the URL is not an absolute URL'],
        [`https://example.com/${'a'.repeat(2048)}`, 'the URL is longer than 2048 characters'],
      ];
      for (const [url, reason] of cases) {
        const result = await strict.send(requestTo(url));
        expect(result, url).to.deep.include({ outcome: 'refused', status: null });
        if (reason === '')
          expect(result.error).to.match(/^the host resolves to (127\.0\.0\.1|::1), a loopback address$/);
        else expect(result.error).to.equal(reason);
      }
      expect(hook.connections).to.equal(0);
      expect(guard.connected).to.deep.equal([]);
    });

    it('refuses at delivery a name whose answer changed to a refused address since its creation: nothing sent', async () => {
      const hook = await receiver(answerWith(200));
      const answers: (readonly string[])[] = [['93.184.215.14'], ['127.0.0.1']];
      const calls: string[] = [];
      const policy = new WebhookUrlPolicy({
        allowHosts: [],
        resolve: async (hostname) => {
          calls.push(hostname);
          return answers.shift() ?? ['127.0.0.1'];
        },
      });
      const url = `https://receiver.test:${hook.port}/hook`;
      // Created: the name was public then (only checked: nothing connects to it).
      expect(await policy.check(url)).to.equal(undefined);
      const result = await new HttpWebhookSender({ policy, userAgent: 'petstore-webhooks/1.0.0' }).send(requestTo(url));
      expect(result).to.deep.include({
        outcome: 'refused',
        status: null,
        error: 'the host resolves to 127.0.0.1, a loopback address',
      });
      expect(calls).to.deep.equal(['receiver.test', 'receiver.test']);
      expect(hook.connections).to.equal(0);
      expect(guard.connected).to.deep.equal([]);
    });

    it('connects to the address it checked: a name only the injected resolver knows is delivered, the system resolver never asked', async () => {
      const hook = await receiver(answerWith(200));
      const calls: string[] = [];
      const policy = new WebhookUrlPolicy({
        allowHosts: ['receiver.test'],
        resolve: async (hostname) => {
          calls.push(hostname);
          return ['127.0.0.1'];
        },
      });
      const sender = new HttpWebhookSender({ policy, userAgent: 'petstore-webhooks/1.0.0' });
      const result = await sender.send(requestTo(`http://receiver.test:${hook.port}/hook`));
      expect(result).to.deep.include({ outcome: 'delivered', status: 200 });
      // One resolution, the policy's; the socket went to the address it answered; the name stayed in Host.
      expect(calls).to.deep.equal(['receiver.test']);
      expect(guard.connected).to.deep.equal(['127.0.0.1']);
      expect(hook.deliveries[0]?.headers.host).to.equal(`receiver.test:${hook.port}`);
    });

    it('connects to the first address the resolver answered, also for a name with several', async () => {
      const hook = await receiver(answerWith(200));
      const policy = new WebhookUrlPolicy({ allowHosts: ['receiver.test'], resolve: async () => ['127.0.0.1', '::1'] });
      const result = await new HttpWebhookSender({ policy, userAgent: 'ua' }).send(
        requestTo(`http://receiver.test:${hook.port}/`),
      );
      expect(result).to.deep.include({ outcome: 'delivered' });
      expect(guard.connected).to.deep.equal(['127.0.0.1']);
    });

    it('delivers to an allowed IPv6 literal, with the address in brackets in Host', async function () {
      const deliveries: string[] = [];
      const server = createServer((req, res) => {
        deliveries.push(String(req.headers.host));
        req.resume();
        req.on('end', () => res.end());
      });
      open.push(server);
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '::1', resolve);
        });
      } catch {
        // A machine without IPv6 on loopback cannot host the receiver: nothing to deliver to, so the
        // test is skipped, saying why in its title (it runs here and in CI).
        this.test!.title += ' (SKIPPED: no IPv6 loopback (::1) on this machine)';
        this.skip();
      }
      const { port } = server.address() as net.AddressInfo;
      const policy = new WebhookUrlPolicy({ allowHosts: ['[::1]'] });
      const result = await new HttpWebhookSender({ policy, userAgent: 'ua' }).send(requestTo(`http://[::1]:${port}/`));
      expect(result).to.deep.include({ outcome: 'delivered', status: 200 });
      expect(deliveries).to.deep.equal([`[::1]:${port}`]);
      expect(guard.connected).to.deep.equal(['::1']);
    });

    it('is unreachable when the name does not resolve at delivery', async () => {
      const policy = new WebhookUrlPolicy({
        allowHosts: ['receiver.test'],
        resolve: async () => {
          throw Object.assign(new Error('getaddrinfo ENOTFOUND receiver.test'), { code: 'ENOTFOUND' });
        },
      });
      const result = await new HttpWebhookSender({ policy, userAgent: 'ua' }).send(requestTo('http://receiver.test/'));
      expect(result).to.deep.include({ outcome: 'unreachable', status: null, error: 'the host name does not resolve' });
      expect(guard.connected).to.deep.equal([]);
    });

    it('times out when resolving the name takes longer than the limit', async () => {
      const policy = new WebhookUrlPolicy({
        allowHosts: ['receiver.test'],
        resolve: () => new Promise(() => undefined),
      });
      const result = await new HttpWebhookSender({ policy, userAgent: 'ua', timeoutMs: 200 }).send(
        requestTo('http://receiver.test/'),
      );
      expect(result).to.deep.include({
        outcome: 'timeout',
        status: null,
        error: 'the host name was not resolved within 200 ms',
      });
    });
  });

  it('never throws: a request Node cannot send is unreachable, and nothing is sent', async () => {
    const hook = await receiver(answerWith(200));
    const result = await senderWith().send({ ...requestTo(hook.url()), webhookId: 'evt_1\r\nX-Injected: 1' });
    expect(result).to.deep.include({ outcome: 'unreachable', status: null, error: 'the request could not be sent' });
    expect(hook.deliveries).to.deep.equal([]);
  });

  describe('over TLS', () => {
    let dir: string | undefined;
    let tls: { key: Buffer; cert: Buffer } | undefined;
    before(function () {
      try {
        dir = mkdtempSync(join(tmpdir(), 'petstore-webhooks-'));
        execFileSync(
          'openssl',
          [
            'req',
            '-x509',
            '-newkey',
            'ec',
            '-pkeyopt',
            'ec_paramgen_curve:prime256v1',
            '-nodes',
            '-days',
            '1',
            '-subj',
            '/CN=receiver.test',
            '-addext',
            'subjectAltName=DNS:receiver.test',
            '-keyout',
            join(dir, 'key.pem'),
            '-out',
            join(dir, 'cert.pem'),
          ],
          { stdio: 'ignore' },
        );
        tls = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
      } catch {
        // The TLS tests need a certificate, made with openssl: without it they are skipped, saying why
        // in their titles (openssl is present here and in CI, where they run).
        this.test?.parent?.tests.forEach((test) => (test.title += ' (SKIPPED: no openssl to make a certificate)'));
        this.skip();
      }
    });
    after(() => {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('names the host in SNI while connecting to the checked address, and checks the certificate (a self-signed one is refused, nothing sent)', async () => {
      if (tls === undefined) throw new Error('no certificate');
      let requests = 0;
      const server = createTlsServer({ ...tls }, (_req, res) => {
        requests += 1;
        res.end();
      });
      server.on('tlsClientError', () => undefined);
      const port = await listen(server);
      const policy = new WebhookUrlPolicy({ allowHosts: ['receiver.test'], resolve: async () => ['127.0.0.1'] });
      const result = await new HttpWebhookSender({ policy, userAgent: 'ua' }).send(
        requestTo(`https://receiver.test:${port}/hook`),
      );
      expect(result).to.deep.include({
        outcome: 'unreachable',
        status: null,
        error: 'the TLS handshake failed (DEPTH_ZERO_SELF_SIGNED_CERT)',
      });
      expect(guard.connected).to.deep.equal(['127.0.0.1']);
      expect(requests).to.equal(0);
      // The handshake reached the server far enough for it to read the SNI name (the client then refused the certificate).
      const sni: string[] = [];
      const probe = createTlsServer({
        ...tls,
        SNICallback: (name, callback) => {
          sni.push(name);
          callback(null);
        },
      });
      probe.on('tlsClientError', () => undefined);
      const probePort = await listen(probe);
      await new HttpWebhookSender({ policy, userAgent: 'ua' }).send(requestTo(`https://receiver.test:${probePort}/`));
      expect(sni).to.deep.equal(['receiver.test']);
    });
  });
});

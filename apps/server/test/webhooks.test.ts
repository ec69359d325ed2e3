// docs/rules.md §15 ("Webhooks") through the composition root, with real receivers on loopback
// (allowed through PETSTORE_WEBHOOK_ALLOW_HOSTS): the seven operations for admin keys only (a client
// key gets 403 before anything is looked up), the secret shown once, every delivery verified by the
// `standardwebhooks` package's own `Webhook.verify` (also during a rotation), a 410 pausing the
// subscription and a resume sending the same event again, the deliveries log, the metrics, URLs
// refused at creation, PETSTORE_WEBHOOKS=off, and 100 subscriptions of which one hangs.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { silentLogger } from '@petstore/adapters-http';
import { parseSettings } from '../src/settings.js';
import { startServer, type StartedServer } from '../src/server.js';
import { sleep, waitFor } from './hardening/support.js';

const ADMIN = 'webhooks-admin-key-0123456789';
const CLIENT = 'webhooks-client-key-0123456789';

interface Delivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** `Date.now()` when it arrived. */
  readonly at: number;
}

interface Receiver {
  readonly url: string;
  readonly host: string;
  readonly deliveries: Delivery[];
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1: records every request and answers `answer(n)` (n: 0 for the first request). */
const startReceiver = async (
  answer: (n: number) => number | 'hang' = () => 204,
  path = '/hooks',
): Promise<Receiver> => {
  const deliveries: Delivery[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const n = deliveries.length;
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const status = answer(n);
      if (status === 'hang') hanging.add(res);
      else res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    host: `127.0.0.1:${port}`,
    deliveries,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

const start = (allowHosts: readonly string[], extra: Record<string, string> = {}): Promise<StartedServer> =>
  startServer(
    parseSettings({
      HOST: '127.0.0.1',
      PORT: '0',
      PETSTORE_API_KEYS: `${CLIENT}:pro`,
      PETSTORE_ADMIN_KEYS: ADMIN,
      PETSTORE_WEBHOOK_ALLOW_HOSTS: allowHosts.join(','),
      ...extra,
    }),
    { logger: silentLogger },
  );

const call = async (url: string, method: string, path: string, options: { key?: string; body?: unknown } = {}) => {
  const headers: Record<string, string> = { Authorization: `Bearer ${options.key ?? ADMIN}` };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? null : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
};

/** Checks a delivery with the `standardwebhooks` package, as a receiver would; answers the event. */
const verified = (delivery: Delivery, secret: string): Record<string, unknown> => {
  const headers = {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  };
  return new StandardWebhook(secret).verify(delivery.body, headers) as Record<string, unknown>;
};

/** Reads until `done` holds (at most 10 s). */
const poll = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
};

const createPet = async (url: string, name: string, categoryId: unknown): Promise<Record<string, unknown>> => {
  const res = await call(url, 'POST', '/v1/pets', { key: CLIENT, body: { name, categoryId } });
  expect(res.status, res.text).to.equal(201);
  return res.json();
};

describe('webhooks through the server (docs/rules.md §15)', function () {
  this.timeout(120_000);
  let server: StartedServer | undefined;
  const receivers: Receiver[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>): Promise<Receiver> => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    for (const r of receivers.splice(0)) await r.close();
  });

  it('a client key gets 403 on every operation, before any lookup or body (an id that does not exist, no body)', async () => {
    server = await start([]);
    const id = 'wh_000000000000000000000000';
    for (const [method, path] of [
      ['POST', '/v1/webhooks'],
      ['GET', '/v1/webhooks'],
      ['GET', `/v1/webhooks/${id}`],
      ['PATCH', `/v1/webhooks/${id}`],
      ['DELETE', `/v1/webhooks/${id}`],
      ['POST', `/v1/webhooks/${id}/rotate-secret`],
      ['GET', `/v1/webhooks/${id}/deliveries`],
    ] as const) {
      const res = await call(server.url, method, path, { key: CLIENT });
      expect(res.status, `${method} ${path}: ${res.text}`).to.equal(403);
      expect(res.json()['code']).to.equal('forbidden');
    }
    // An admin key on the same id: 404, so the 403 above came first.
    expect((await call(server.url, 'GET', `/v1/webhooks/${id}`)).status).to.equal(404);
  });

  it('creates a subscription (its secret shown once), delivers a new pet signed as Standard Webhooks says, and logs the attempt', async () => {
    const hooks = await receiver();
    server = await start([hooks.host]);
    const { url } = server;
    const category = (await call(url, 'POST', '/v1/categories', { body: { name: 'Dogs' } })).json();
    const created = await call(url, 'POST', '/v1/webhooks', {
      body: { url: hooks.url, types: ['pet.created'], description: 'the shelter' },
    });
    expect(created.status, created.text).to.equal(201);
    const webhook = created.json();
    expect(webhook['id']).to.match(/^wh_[0-9a-f]{24}$/);
    expect(created.headers.get('location')).to.equal(`/v1/webhooks/${String(webhook['id'])}`);
    expect(created.headers.get('cache-control')).to.equal('no-store');
    const secret = String(webhook['secret']);
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhook).to.include({ url: hooks.url, description: 'the shelter', enabled: true, pausedReason: null });
    // Never shown again: not by a read, not by the list.
    const read = await call(url, 'GET', `/v1/webhooks/${String(webhook['id'])}`);
    expect(read.status).to.equal(200);
    expect(read.json()).to.not.have.property('secret');
    expect(read.text).to.not.include(secret.slice(6));
    const listed = await call(url, 'GET', '/v1/webhooks');
    expect(listed.text).to.not.include(secret.slice(6));
    expect((JSON.parse(listed.text) as unknown[]).length).to.equal(1);

    // The category created before the subscription is not delivered (it starts at the end of the feed).
    const pet = await createPet(url, 'Rex', category['id']);
    await waitFor(() => hooks.deliveries.length >= 1, 'the delivery of pet.created');
    const [delivery] = hooks.deliveries;
    const event = verified(delivery!, secret);
    expect(event).to.include({ type: 'pet.created' });
    expect(event['data']).to.deep.equal(pet);
    expect(delivery!.headers['webhook-id']).to.equal(event['id']);
    expect(delivery!.headers['content-type']).to.equal('application/json');
    expect(delivery!.headers['user-agent']).to.match(/^petstore-webhooks\/\d+\.\d+\.\d+$/);
    // The body is the event exactly as the feed serves it.
    const feed = await call(url, 'GET', `/v1/events?after=${Number(event['sequence']) - 1}&limit=1`);
    expect(delivery!.body).to.equal(feed.text.slice(1, -1));

    const log = await poll(
      async () =>
        JSON.parse((await call(url, 'GET', `/v1/webhooks/${String(webhook['id'])}/deliveries`)).text) as Record<
          string,
          unknown
        >[],
      (items) => items.length > 0,
      'the attempt in the deliveries log',
    );
    expect(log[0]).to.include({
      eventId: event['id'],
      sequence: event['sequence'],
      attempt: 1,
      status: 204,
      outcome: 'delivered',
    });
    expect(log[0]!['durationMs']).to.be.a('number');
  });

  it('refuses, with 400 saying why, URLs that are not https or whose host is loopback, private, link-local, multicast or unspecified', async () => {
    server = await start([]);
    for (const [target, why] of [
      ['http://shelter.example/hooks', /https/],
      ['ftp://shelter.example/hooks', /https/],
      ['https://user:pass@shelter.example/hooks', /user/],
      ['https://127.0.0.1/hooks', /loopback/],
      ['https://[::1]/hooks', /loopback/],
      ['https://10.1.2.3/hooks', /private/],
      ['https://192.168.0.10/hooks', /private/],
      ['https://169.254.169.254/latest/meta-data', /link-local/],
      ['https://[fe80::1]/hooks', /link-local/],
      ['https://224.0.0.1/hooks', /multicast/],
      ['https://0.0.0.0/hooks', /unspecified/],
      ['https://[::ffff:127.0.0.1]/hooks', /loopback/],
      ['https://localhost/hooks', /loopback/],
      [`https://shelter.example/${'a'.repeat(2048)}`, /2048|2,048/],
    ] as const) {
      const res = await call(server.url, 'POST', '/v1/webhooks', { body: { url: target } });
      expect(res.status, `${target}: ${res.text}`).to.equal(400);
      expect(res.json()['message'], target).to.match(why);
    }
    expect(JSON.parse((await call(server.url, 'GET', '/v1/webhooks')).text)).to.deep.equal([]);
  });

  it('after a rotation both secrets verify every delivery; the new secret is shown once', async () => {
    const hooks = await receiver();
    server = await start([hooks.host]);
    const { url } = server;
    const category = (await call(url, 'POST', '/v1/categories', { body: { name: 'Cats' } })).json();
    const webhook = (
      await call(url, 'POST', '/v1/webhooks', { body: { url: hooks.url, types: ['pet.created'] } })
    ).json();
    const rotated = await call(url, 'POST', `/v1/webhooks/${String(webhook['id'])}/rotate-secret`);
    expect(rotated.status, rotated.text).to.equal(200);
    expect(rotated.headers.get('cache-control')).to.equal('no-store');
    const newSecret = String(rotated.json()['secret']);
    expect(newSecret).to.not.equal(webhook['secret']);
    await createPet(url, 'Tom', category['id']);
    await waitFor(() => hooks.deliveries.length >= 1, 'a delivery after the rotation');
    const delivery = hooks.deliveries[0]!;
    expect(String(delivery.headers['webhook-signature']).split(' ')).to.have.length(2);
    expect(verified(delivery, String(webhook['secret']))['type']).to.equal('pet.created');
    expect(verified(delivery, newSecret)['type']).to.equal('pet.created');
  });

  it('a 410 pauses the subscription with its reason; PATCH {"enabled": true} resumes at the same event, with the same webhook-id', async () => {
    let gone = true;
    const hooks = await receiver(() => (gone ? 410 : 204));
    server = await start([hooks.host]);
    const { url } = server;
    const category = (await call(url, 'POST', '/v1/categories', { body: { name: 'Birds' } })).json();
    const webhook = (
      await call(url, 'POST', '/v1/webhooks', { body: { url: hooks.url, types: ['pet.created'] } })
    ).json();
    const path = `/v1/webhooks/${String(webhook['id'])}`;
    await createPet(url, 'Tweety', category['id']);
    const paused = await poll(
      async () => (await call(url, 'GET', path)).json(),
      (read) => read['enabled'] === false,
      'the pause after a 410',
    );
    expect(String(paused['pausedReason'])).to.match(/410/);
    expect(hooks.deliveries).to.have.length(1);
    // Paused: a new event is not delivered.
    await createPet(url, 'Polly', category['id']);
    await sleep(300);
    expect(hooks.deliveries).to.have.length(1);

    gone = false;
    const resumed = await call(url, 'PATCH', path, { body: { enabled: true } });
    expect(resumed.status, resumed.text).to.equal(200);
    expect(resumed.json()).to.include({ enabled: true, pausedReason: null });
    await waitFor(() => hooks.deliveries.length >= 3, 'both events after the resume');
    const ids = hooks.deliveries.map((d) => d.headers['webhook-id']);
    expect(ids[1]).to.equal(ids[0]);
    expect(ids[2]).to.not.equal(ids[0]);
    const names = hooks.deliveries.map(
      (d) => (verified(d, String(webhook['secret']))['data'] as { name: string }).name,
    );
    expect(names).to.deep.equal(['Tweety', 'Tweety', 'Polly']);
  });

  it('PETSTORE_WEBHOOKS=off keeps the process from delivering; the API still answers', async () => {
    const hooks = await receiver();
    server = await start([hooks.host], { PETSTORE_WEBHOOKS: 'off' });
    const { url } = server;
    const category = (await call(url, 'POST', '/v1/categories', { body: { name: 'Fish' } })).json();
    const created = await call(url, 'POST', '/v1/webhooks', { body: { url: hooks.url } });
    expect(created.status, created.text).to.equal(201);
    await createPet(url, 'Nemo', category['id']);
    // The pet's event is in the feed, and a dispatcher would have looked for work several times by now.
    const feed = await call(url, 'GET', '/v1/events?types=pet.created&wait=5');
    expect(JSON.parse(feed.text)).to.have.length(1);
    await sleep(2_500);
    expect(hooks.deliveries).to.deep.equal([]);
    const log = await call(url, 'GET', `/v1/webhooks/${String(created.json()['id'])}/deliveries`);
    expect(JSON.parse(log.text)).to.deep.equal([]);
  });

  it('100 subscriptions, one of whose receivers hangs: the other 99 receive each event within 1 s of its 201', async () => {
    const fast = await receiver();
    const stuck = await receiver(() => 'hang');
    server = await start([fast.host, stuck.host]);
    const { url } = server;
    const category = (await call(url, 'POST', '/v1/categories', { body: { name: 'Horses' } })).json();
    const hangingHook = await call(url, 'POST', '/v1/webhooks', {
      body: { url: stuck.url, types: ['pet.created'] },
    });
    expect(hangingHook.status).to.equal(201);
    for (let i = 0; i < 99; i++) {
      const res = await call(url, 'POST', '/v1/webhooks', {
        body: { url: `${fast.url}?n=${i}`, types: ['pet.created'] },
      });
      expect(res.status, res.text).to.equal(201);
    }
    const answeredAt: number[] = [];
    for (const name of ['Spirit', 'Shadowfax', 'Epona']) {
      await createPet(url, name, category['id']);
      answeredAt.push(Date.now());
      await waitFor(() => fast.deliveries.length >= 99 * answeredAt.length, `the 99 deliveries of ${name}`, 15_000);
    }
    expect(stuck.deliveries.length).to.equal(1);
    for (let n = 0; n < answeredAt.length; n++) {
      const batch = fast.deliveries.slice(99 * n, 99 * (n + 1));
      const latest = Math.max(...batch.map((d) => d.at));
      expect(latest - answeredAt[n]!, `event ${n + 1}: the last of the 99 deliveries after the 201`).to.be.at.most(
        1_000,
      );
    }
  });

  it('counts deliveries by outcome in petstore_webhook_deliveries_total; petstore_webhook_lag_seconds starts at 0', async () => {
    const hooks = await receiver((n) => (n === 0 ? 500 : 204));
    server = await startServer(
      parseSettings({
        HOST: '127.0.0.1',
        PORT: '0',
        PETSTORE_API_KEYS: `${CLIENT}:pro`,
        PETSTORE_ADMIN_KEYS: ADMIN,
        PETSTORE_WEBHOOK_ALLOW_HOSTS: hooks.host,
        PETSTORE_METRICS_PORT: '0',
      }),
      { logger: silentLogger },
    );
    const scrape = async () => (await fetch(`${server!.metricsUrl!}/metrics`)).text();
    const before = await scrape();
    for (const outcome of ['delivered', 'failed', 'timeout', 'unreachable', 'refused'])
      expect(before).to.include(`petstore_webhook_deliveries_total{outcome="${outcome}"} 0`);
    expect(before).to.match(/^petstore_webhook_lag_seconds 0$/m);
    const category = (await call(server.url, 'POST', '/v1/categories', { body: { name: 'Goats' } })).json();
    await call(server.url, 'POST', '/v1/webhooks', { body: { url: hooks.url, types: ['pet.created'] } });
    await createPet(server.url, 'Billy', category['id']);
    await waitFor(() => hooks.deliveries.length >= 1, 'the first (failed) attempt');
    await sleep(100);
    const after = await scrape();
    expect(after).to.include('petstore_webhook_deliveries_total{outcome="failed"} 1');
    // The event waits for its retry (5 s): the lag is its age, above 0.
    const lag = Number(/^petstore_webhook_lag_seconds (\S+)$/m.exec(after)![1]);
    expect(lag).to.be.greaterThan(0);
  });
});

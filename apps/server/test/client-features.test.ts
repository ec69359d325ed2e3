// The composition root wires the features of issue 13 from the settings: metrics on a second
// listener (docs/rules.md §11), CORS, and idempotent creates on the store the settings pick.
import { expect } from 'chai';
import { publicKeyId } from '@petstore/domain';
import { ManualClock, nodeDigests } from '@petstore/domain/testing';
import { STORE_CIRCUIT_OPEN_MS } from '../src/store-circuit.js';
import { send, startHarness, type Answer, type Harness } from './hardening/support.js';

const KEY = 'metrics-key-0123456789';
const FREE = 'metrics-free-key-0123';
const ADMIN = 'metrics-admin-key-0123456789';
const auth = { Authorization: `Bearer ${KEY}` };

/** Parses the Prometheus text format: sample name + labels → value. */
const parseMetrics = (text: string): { samples: Map<string, number>; labelValues: string[] } => {
  const samples = new Map<string, number>();
  const labelValues: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
    for (const m of line.matchAll(/[a-z_]+="((?:[^"\\]|\\.)*)"/g)) labelValues.push(m[1]!);
  }
  return { samples, labelValues };
};

const scrape = async (h: Harness): Promise<{ text: string; samples: Map<string, number>; labelValues: string[] }> => {
  const url = new URL(`${h.server.metricsUrl!}/metrics`);
  const res = await send(Number(url.port), { path: '/metrics' });
  expect(res.status).to.equal(200);
  expect(res.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4/);
  return { text: res.text, ...parseMetrics(res.text) };
};

describe('metrics on PETSTORE_METRICS_PORT (docs/rules.md §11)', function () {
  this.timeout(30_000);
  let h: Harness;
  // A clock that stands still: the free key's 61st request is over its minute, whatever the wall clock does.
  const clock = new ManualClock(Date.UTC(2027, 0, 1, 12));
  before(async () => {
    h = await startHarness({
      clock,
      env: {
        PETSTORE_API_KEYS: `${KEY}:enterprise:100000:1000000,${FREE}:free`,
        PETSTORE_ADMIN_KEYS: ADMIN,
        PETSTORE_METRICS_PORT: '0',
      },
    });
  });
  after(() => h.stop());

  it('a session moves every series; route labels are templates; no key, key hash or address appears in any label', async () => {
    const before = await scrape(h);
    const get = (path: string, headers: Record<string, string> = auth): Promise<Answer> =>
      send(h.port, { path, headers });
    expect(
      (
        await send(h.port, {
          method: 'POST',
          path: '/v1/pets',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: '{"name":"Rex","categoryId":1}',
        })
      ).status,
    ).to.equal(201);
    expect((await get('/v1/pets')).status).to.equal(200);
    expect((await get('/v1/pets/1')).status).to.equal(200);
    expect((await get('/v1/pets/987654')).status).to.equal(404);
    expect((await get('/v1/no/such/path')).status).to.equal(404);
    expect((await get('/v1/pets', { Authorization: 'Bearer wrong-key' })).status).to.equal(401);
    expect((await get('/healthz', {})).status).to.equal(200);
    for (let i = 0; i < 61; i++) await get('/v1/pets?limit=1', { Authorization: `Bearer ${FREE}` });
    h.faults.use((call) => (call.port === 'PetRepository' ? 'fail' : undefined));
    expect((await get('/v1/pets')).status).to.equal(503);
    h.faults.use(undefined);
    clock.advance(STORE_CIRCUIT_OPEN_MS); // the store circuit lets the next request probe, and close it

    const after = await scrape(h);
    const moved = (sample: string, by = 1): void => {
      expect((after.samples.get(sample) ?? 0) - (before.samples.get(sample) ?? 0), sample).to.be.at.least(by);
    };
    moved('http_requests_total{method="POST",route="/v1/pets",status="201"}');
    moved('http_requests_total{method="GET",route="/v1/pets",status="200"}', 61);
    moved('http_requests_total{method="GET",route="/v1/pets/:petId",status="200"}');
    moved('http_requests_total{method="GET",route="/v1/pets/:petId",status="404"}');
    moved('http_requests_total{method="GET",route="unmatched",status="404"}');
    moved('http_requests_total{method="GET",route="/v1/pets",status="401"}');
    moved('http_requests_total{method="GET",route="/v1/pets",status="429"}');
    moved('http_requests_total{method="GET",route="/v1/pets",status="503"}');
    moved('http_requests_total{method="GET",route="/healthz",status="200"}');
    moved('http_request_duration_seconds_count{method="GET",route="/v1/pets"}', 63);
    moved('http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/v1/pets"}', 63);
    moved('petstore_rate_limit_decisions_total{outcome="admitted"}', 65);
    moved('petstore_rate_limit_decisions_total{outcome="rate_limited"}');
    moved('petstore_store_failures_total{port="PetRepository"}');
    // The order-transition counter is declared (the order routes count into it) and the process's own metrics are there.
    for (const name of [
      'petstore_order_transitions_total',
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds',
    ]) {
      expect(after.text, name).to.match(new RegExp(`^# TYPE ${name} `, 'm'));
    }
    // Route labels are templates: never a raw path with an id or an unknown path.
    const routes = after.labelValues.filter((v) => v.startsWith('/') || v === 'unmatched');
    expect(routes).not.to.include.members(['/v1/pets/1', '/v1/pets/987654', '/v1/no/such/path']);
    // No key, key hash, public key id or address in any label.
    const hash = nodeDigests.sha256Hex(KEY);
    for (const value of after.labelValues) {
      for (const secret of [
        KEY,
        FREE,
        'wrong-key',
        hash,
        nodeDigests.sha256Hex(FREE),
        publicKeyId(hash),
        '127.0.0.1',
        '::1',
      ]) {
        expect(value, `label value ${value}`).not.to.include(secret);
      }
      expect(value, 'no hex run that could be a hash').not.to.match(/[0-9a-f]{12}/);
    }
  });

  it('the routes of §7–§9 and /docs are counted by template; order transitions move once per change, never on a repeat; no key id in a label', async () => {
    const before = await scrape(h);
    const admin = { Authorization: `Bearer ${ADMIN}` };
    const call = async (
      method: string,
      path: string,
      headers: Record<string, string> = auth,
      body?: string,
    ): Promise<Answer> =>
      send(h.port, {
        method,
        path,
        headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body }),
      });
    const json = <T>(answer: Answer, status: number): T => {
      expect(answer.status, answer.text).to.equal(status);
      return JSON.parse(answer.text) as T;
    };
    const category = json<{ id: number }>(await call('POST', '/v1/categories', auth, '{"name":"Metrics birds"}'), 201);
    json(await call('GET', `/v1/categories/${category.id}`), 200);
    json(await call('GET', '/v1/categories'), 200);
    const pets = [];
    for (let i = 0; i < 2; i++)
      pets.push(
        json<{ id: number }>(
          await call('POST', '/v1/pets', auth, JSON.stringify({ name: `m${i}`, categoryId: category.id })),
          201,
        ),
      );
    const first = json<{ id: number }>(
      await call('POST', '/v1/store/orders', auth, JSON.stringify({ petId: pets[0]!.id })),
      201,
    );
    const second = json<{ id: number }>(
      await call('POST', '/v1/store/orders', auth, JSON.stringify({ petId: pets[1]!.id })),
      201,
    );
    for (let i = 0; i < 2; i++) json(await call('POST', `/v1/store/orders/${first.id}/approve`, admin), 200);
    for (let i = 0; i < 2; i++) json(await call('POST', `/v1/store/orders/${first.id}/deliver`, admin), 200);
    for (let i = 0; i < 2; i++) json(await call('POST', `/v1/store/orders/${second.id}/cancel`, auth), 200);
    json(await call('POST', `/v1/store/orders/${first.id}/cancel`, admin), 409);
    json(await call('GET', `/v1/store/orders/${first.id}`), 200);
    json(await call('GET', '/v1/store/orders'), 200);
    json(await call('GET', '/v1/store/inventory'), 200);
    const issued = json<{ id: string; key: string }>(
      await call('POST', '/v1/admin/keys', admin, '{"plan":"free"}'),
      201,
    );
    json(await call('GET', `/v1/admin/keys/${issued.id}`, admin), 200);
    json(await call('PATCH', `/v1/admin/keys/${issued.id}`, admin, '{"plan":"pro"}'), 200);
    json(await call('GET', '/v1/admin/keys', admin), 200);
    expect((await call('DELETE', `/v1/admin/keys/${issued.id}`, admin)).status).to.equal(204);
    expect((await call('GET', '/docs', {})).status).to.equal(200);

    const after = await scrape(h);
    const delta = (sample: string): number => (after.samples.get(sample) ?? 0) - (before.samples.get(sample) ?? 0);
    for (const [sample, by] of [
      ['http_requests_total{method="POST",route="/v1/categories",status="201"}', 1],
      ['http_requests_total{method="GET",route="/v1/categories/:categoryId",status="200"}', 1],
      ['http_requests_total{method="GET",route="/v1/categories",status="200"}', 1],
      ['http_requests_total{method="POST",route="/v1/store/orders",status="201"}', 2],
      ['http_requests_total{method="POST",route="/v1/store/orders/:orderId/approve",status="200"}', 2],
      ['http_requests_total{method="POST",route="/v1/store/orders/:orderId/deliver",status="200"}', 2],
      ['http_requests_total{method="POST",route="/v1/store/orders/:orderId/cancel",status="200"}', 2],
      ['http_requests_total{method="POST",route="/v1/store/orders/:orderId/cancel",status="409"}', 1],
      ['http_requests_total{method="GET",route="/v1/store/orders/:orderId",status="200"}', 1],
      ['http_requests_total{method="GET",route="/v1/store/orders",status="200"}', 1],
      ['http_requests_total{method="GET",route="/v1/store/inventory",status="200"}', 1],
      ['http_requests_total{method="POST",route="/v1/admin/keys",status="201"}', 1],
      ['http_requests_total{method="GET",route="/v1/admin/keys/:keyId",status="200"}', 1],
      ['http_requests_total{method="PATCH",route="/v1/admin/keys/:keyId",status="200"}', 1],
      ['http_requests_total{method="GET",route="/v1/admin/keys",status="200"}', 1],
      ['http_requests_total{method="DELETE",route="/v1/admin/keys/:keyId",status="204"}', 1],
      ['http_requests_total{method="GET",route="/docs",status="200"}', 1],
      // One per change: the repeats answered 200 unchanged and the refused cancel changed nothing.
      ['petstore_order_transitions_total{action="approve"}', 1],
      ['petstore_order_transitions_total{action="deliver"}', 1],
      ['petstore_order_transitions_total{action="cancel"}', 1],
    ] as const) {
      expect(delta(sample), sample).to.equal(by);
    }
    const secrets = [
      ADMIN,
      nodeDigests.sha256Hex(ADMIN),
      publicKeyId(nodeDigests.sha256Hex(ADMIN)),
      issued.key,
      issued.id,
      publicKeyId(nodeDigests.sha256Hex(KEY)),
    ];
    for (const value of after.labelValues) {
      for (const secret of secrets) expect(value, `label value ${value}`).not.to.include(secret);
      expect(value, 'no raw path with an id').not.to.match(/\/(?:\d+|key_[0-9a-f]{12})(?:\/|$)/);
    }
  });

  it('the metrics listener serves GET /metrics only (Error bodies otherwise), with no credential', async () => {
    const port = Number(new URL(h.server.metricsUrl!).port);
    expect(port).not.to.equal(h.port);
    const other = await send(port, { path: '/v1/pets', headers: auth });
    expect(other.status).to.equal(404);
    expect(JSON.parse(other.text)).to.deep.include({ code: 'not_found', status: 404 });
    const post = await send(port, { method: 'POST', path: '/metrics' });
    expect(post.status).to.equal(405);
    expect(post.headers['allow']).to.equal('GET, HEAD');
    // And the API does not serve /metrics.
    expect((await send(h.port, { path: '/metrics', headers: auth })).status).to.equal(404);
  });

  it('without PETSTORE_METRICS_PORT there is no metrics listener', async () => {
    const plain = await startHarness({ env: { PETSTORE_API_KEYS: `${KEY}:pro` } });
    try {
      expect(plain.server.metricsUrl).to.equal(undefined);
    } finally {
      await plain.stop();
    }
  });
});

describe('the server wires CORS and idempotent creates from its settings', function () {
  this.timeout(30_000);

  it('PETSTORE_CORS_ORIGINS reaches the app; an Idempotency-Key replays through the composed server', async () => {
    const h = await startHarness({
      env: { PETSTORE_API_KEYS: `${KEY}:pro`, PETSTORE_CORS_ORIGINS: 'https://app.example.com' },
    });
    try {
      const res = await send(h.port, { path: '/v1/pets', headers: { ...auth, Origin: 'https://app.example.com' } });
      expect(res.headers['access-control-allow-origin']).to.equal('https://app.example.com');
      const create = () =>
        send(h.port, {
          method: 'POST',
          path: '/v1/pets',
          headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': 'once' },
          body: '{"name":"Rex","categoryId":1}',
        });
      const first = await create();
      const again = await create();
      expect([first.status, again.status]).to.deep.equal([201, 201]);
      expect(again.headers['idempotent-replayed']).to.equal('true');
      expect(h.pets.size).to.equal(1);
    } finally {
      await h.stop();
    }
  });
});

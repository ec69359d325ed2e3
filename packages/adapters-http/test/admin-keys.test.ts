// docs/rules.md §9 over HTTP: the five operations under /v1/admin/keys, every rule, 403 vs 401,
// settings keys read-only (409), a new key works at once and stops at once, plan changes apply
// from the next request with the window counts kept.
import { expect } from 'chai';
import { ISSUED_KEY_PATTERN, PLAN_QUOTAS, publicKeyId } from '@petstore/domain';
import { expectError, KEYS, rateLimitOf, startServer, type RawResponse, type TestServer } from './support/server.js';
import { nodeDigests } from '@petstore/domain/testing';

interface ApiKeyBody {
  id: string;
  key?: string;
  role: string;
  plan: string;
  quota: { perMinute: number; perDay: number };
  label?: string;
  source: string;
  createdAt: string;
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('API keys and plans over HTTP (docs/rules.md §9)', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await startServer();
  });
  afterEach(() => s.close());

  const create = (body: unknown, key: string = KEYS.admin): Promise<RawResponse> =>
    s.request({
      method: 'POST',
      path: '/v1/admin/keys',
      key,
      headers: JSON_TYPE,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const patch = (id: string, body: unknown, key: string = KEYS.admin): Promise<RawResponse> =>
    s.request({
      method: 'PATCH',
      path: `/v1/admin/keys/${id}`,
      key,
      headers: JSON_TYPE,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const remove = (id: string, key: string = KEYS.admin): Promise<RawResponse> =>
    s.request({ method: 'DELETE', path: `/v1/admin/keys/${id}`, key });
  const get = (path: string, key: string = KEYS.admin): Promise<RawResponse> => s.request({ path, key });
  const issue = async (body: unknown): Promise<ApiKeyBody & { key: string }> => {
    const res = await create(body);
    expect(res.status, res.text).to.equal(201);
    return res.json() as ApiKeyBody & { key: string };
  };

  it('POST issues a key: 201, the key once (pet_ + 43 base64url), no-store, Location, and the key works at once', async () => {
    const res = await create({ plan: 'pro', label: 'CI runner' });
    expect(res.status).to.equal(201);
    expect(res.header('cache-control')).to.equal('no-store');
    expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
    const body = res.json() as ApiKeyBody & { key: string };
    expect(body.key)
      .to.match(ISSUED_KEY_PATTERN)
      .and.to.match(/^pet_[A-Za-z0-9_-]{43}$/);
    expect(body).to.deep.equal({
      id: publicKeyId(nodeDigests.sha256Hex(body.key)),
      key: body.key,
      role: 'client',
      plan: 'pro',
      quota: PLAN_QUOTAS.pro,
      label: 'CI runner',
      source: 'api',
      createdAt: new Date(s.clock.now()).toISOString(),
    });
    expect(body.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.header('location')).to.equal(`/v1/admin/keys/${body.id}`);
    rateLimitOf(res);

    const used = await get('/v1/pets', body.key);
    expect(used.status).to.equal(200);
    expect(used.header('ratelimit-policy')).to.equal('"minute";q=300;w=60, "day";q=10000;w=86400');
    // Shown once: reading the key back never shows it.
    const again = await get(`/v1/admin/keys/${body.id}`);
    expect(again.status).to.equal(200);
    expect(again.text).not.to.contain(body.key);
    expect(again.header('cache-control')).to.equal('');
    const { key: _, ...view } = body;
    expect(again.json()).to.deep.equal(view);
  });

  it('issues enterprise keys with their own numbers, 1 ≤ perMinute ≤ perDay ≤ 2^53 − 1, and refuses every other shape with 400', async () => {
    const big = await issue({ plan: 'enterprise', perMinute: 2, perDay: 9007199254740991, label: '🐕'.repeat(100) });
    expect(big.quota).to.deep.equal({ perMinute: 2, perDay: 9007199254740991 });
    const twice = await get('/v1/pets', big.key);
    expect(rateLimitOf(twice).limit).to.equal(2);
    const refused: Array<[string, RegExp]> = [
      ['{"plan":"enterprise"}', /perMinute/],
      ['{"plan":"enterprise","perMinute":5}', /perDay|together/],
      ['{"plan":"enterprise","perMinute":6,"perDay":5}', /perMinute/],
      ['{"plan":"enterprise","perMinute":0,"perDay":5}', /perMinute/],
      ['{"plan":"enterprise","perMinute":1,"perDay":9007199254740992}', /perDay/],
      ['{"plan":"enterprise","perMinute":1.5,"perDay":5}', /perMinute/],
      ['{"plan":"enterprise","perMinute":"1","perDay":5}', /perMinute/],
      ['{"plan":"free","perMinute":1,"perDay":5}', /enterprise/],
      ['{"plan":"gold"}', /plan/],
      ['{"plan":"FREE"}', /plan/],
      ['{"plan":null}', /plan/],
      ['{}', /plan/],
      ['{"plan":"free","label":""}', /label/],
      [`{"plan":"free","label":"${'x'.repeat(101)}"}`, /label/],
      ['{"plan":"free","label":"\\ud800"}', /label/],
      ['{"plan":"free","role":"admin"}', /role admin is not issued through this API/],
      ['{"plan":"free","role":"owner"}', /role must be one of client, publishable/],
      ['{"plan":"free","__proto__":{"admin":true}}', /unknown property '__proto__'/],
      [`{"plan":"free","${'p'.repeat(5000)}":1}`, /unknown property 'p{64}…'/],
      ['[]', /object/],
      ['"free"', /object/],
    ];
    for (const [body, message] of refused) {
      const res = await create(body);
      const error = expectError(res, 400, 'validation_failed');
      expect(error.message, body.slice(0, 80)).to.match(message);
      expect(res.bytes.length).to.be.below(2048);
    }
    expectError(await create('{"plan":'), 400, 'malformed_json');
    expectError(await s.request({ method: 'POST', path: '/v1/admin/keys', key: KEYS.admin }), 400, 'validation_failed');
    expectError(
      await s.request({
        method: 'POST',
        path: '/v1/admin/keys',
        key: KEYS.admin,
        headers: { 'content-type': 'text/plain' },
        body: '{"plan":"free"}',
      }),
      415,
      'unsupported_media_type',
    );
    const listed = (await get('/v1/admin/keys?limit=100')).json() as ApiKeyBody[];
    expect(listed.filter((k) => k.source === 'api')).to.have.length(1);
  });

  it('GET lists every key in creation order, settings keys first, paged as §2, never a key or a hash', async () => {
    const issued: Array<ApiKeyBody & { key: string }> = [];
    for (let i = 0; i < 5; i++) issued.push(await issue({ plan: 'free', label: `k${i}` }));
    const seen: ApiKeyBody[] = [];
    let path: string | undefined = '/v1/admin/keys?limit=3';
    const texts: string[] = [];
    while (path !== undefined) {
      const res = await get(path);
      expect(res.status).to.equal(200);
      texts.push(res.text);
      const page = res.json() as ApiKeyBody[];
      expect(page).to.be.an('array');
      seen.push(...page);
      const next = /^<([^>]+)>; rel="next"$/.exec(res.header('link'));
      if (next) expect(page).to.have.length(3);
      path = next?.[1];
    }
    const settings = seen.filter((k) => k.source === 'settings');
    expect(seen.slice(0, settings.length)).to.deep.equal(settings);
    expect(settings.map((k) => k.id).sort()).to.deep.equal(
      Object.values(KEYS)
        .map((k) => publicKeyId(nodeDigests.sha256Hex(k)))
        .sort(),
    );
    expect(settings.find((k) => k.role === 'admin')).to.deep.include({ plan: 'business', quota: PLAN_QUOTAS.business });
    expect(seen.slice(settings.length).map((k) => k.label)).to.deep.equal(['k0', 'k1', 'k2', 'k3', 'k4']);
    const all = texts.join('');
    expect(all).not.to.match(/[0-9a-f]{64}/);
    for (const k of [...issued.map((i) => i.key), ...Object.values(KEYS)]) expect(all).not.to.contain(k);
    for (const k of seen) expect(Object.keys(k)).not.to.include.members(['key', 'keyHash', 'hash']);

    expectError(await get('/v1/admin/keys?limit=0'), 400, 'validation_failed');
    expectError(await get('/v1/admin/keys?limit=101'), 400, 'validation_failed');
    expectError(await get('/v1/admin/keys?limit=1&limit=2'), 400, 'validation_failed');
    const petsPage = await get('/v1/pets?limit=1');
    expect(petsPage.status).to.equal(200);
    await s.postJson('{"name":"a","categoryId":1}');
    await s.postJson('{"name":"b","categoryId":1}');
    const petCursor = /cursor=([^>&]+)/.exec((await get('/v1/pets?limit=1')).header('link'))![1]!;
    const foreign = expectError(await get(`/v1/admin/keys?cursor=${petCursor}`), 400, 'validation_failed');
    expect(foreign.message).to.contain('cursor');
    expect((await get('/v1/admin/keys?status=sold&unknown=1')).status, 'unknown parameters are ignored').to.equal(200);
  });

  it('GET one: 200 with the key, 404 for an id no key has, 400 for a malformed id', async () => {
    const made = await issue({ plan: 'business' });
    expect((await get(`/v1/admin/keys/${made.id}`)).json()).to.deep.include({ id: made.id, plan: 'business' });
    const none = expectError(await get('/v1/admin/keys/key_abcdefabcdef'), 404, 'not_found');
    expect(none.message).to.contain('key_abcdefabcdef');
    for (const bad of ['key_ABCDEFABCDEF', 'abc', 'key_abc', `key_${'a'.repeat(300)}`, '%6Bey_abcdefabcdef']) {
      const res = await get(`/v1/admin/keys/${bad}`);
      const error = expectError(res, 400, 'validation_failed');
      expect(error.message).to.contain('keyId');
      expect(res.bytes.length).to.be.below(400);
    }
  });

  it('PATCH changes plan, numbers and label (200), refuses what breaks a rule (400), and unknown keys are 404', async () => {
    const made = await issue({ plan: 'free', label: 'before' });
    const toPro = await patch(made.id, { plan: 'pro' });
    expect(toPro.status).to.equal(200);
    expect(toPro.json()).to.deep.equal({
      id: made.id,
      role: 'client',
      plan: 'pro',
      quota: PLAN_QUOTAS.pro,
      label: 'before',
      source: 'api',
      createdAt: made.createdAt,
    });
    expect((await patch(made.id, { label: 'after' })).json()).to.deep.include({ plan: 'pro', label: 'after' });
    expect((await patch(made.id, { plan: 'enterprise', perMinute: 3, perDay: 30 })).json()).to.deep.include({
      plan: 'enterprise',
      quota: { perMinute: 3, perDay: 30 },
    });
    expect((await patch(made.id, { perMinute: 4, perDay: 40 })).json()).to.deep.include({
      quota: { perMinute: 4, perDay: 40 },
    });
    for (const body of [
      '{}',
      '{"perDay":3}',
      '{"perMinute":41}',
      '{"plan":"pro","perMinute":1,"perDay":2}',
      '{"perMinute":9,"perDay":8}',
      '{"plan":"platinum"}',
      '{"label":""}',
      '{"role":"admin"}',
      '{"source":"settings"}',
      '[]',
    ]) {
      expectError(await patch(made.id, body), 400, 'validation_failed');
    }
    expect((await get(`/v1/admin/keys/${made.id}`)).json(), 'nothing changed by a refused patch').to.deep.include({
      quota: { perMinute: 4, perDay: 40 },
      label: 'after',
    });
    const downgraded = await patch(made.id, { plan: 'free' });
    expect(downgraded.json()).to.deep.include({ plan: 'free', quota: PLAN_QUOTAS.free });
    expectError(await patch(made.id, { plan: 'enterprise' }), 400, 'validation_failed');
    expectError(await patch('key_abcdefabcdef', { plan: 'pro' }), 404, 'not_found');
    expectError(await patch('nope', { plan: 'pro' }), 400, 'validation_failed');
  });

  it('PATCH with perMinute or perDay alone: kept on an enterprise key (the other number stays), 400 naming the rule when the result breaks it, 400 on a fixed plan', async () => {
    const big = await issue({ plan: 'enterprise', perMinute: 10, perDay: 1000 });
    const day = await patch(big.id, { perDay: 5000 });
    expect(day.status).to.equal(200);
    expect(day.json()).to.deep.include({ plan: 'enterprise', quota: { perMinute: 10, perDay: 5000 } });
    expect((await patch(big.id, { perMinute: 5000 })).json()).to.deep.include({
      quota: { perMinute: 5000, perDay: 5000 },
    });
    const used = await s.request({ path: '/v1/pets', key: big.key });
    expect(used.header('ratelimit-policy'), "the key's next request is limited by the new numbers").to.equal(
      '"minute";q=5000;w=60, "day";q=5000;w=86400',
    );
    const broken = expectError(await patch(big.id, { perDay: 4999 }), 400, 'validation_failed');
    expect(broken.message).to.contain('perMinute must not be greater than perDay');
    expect(broken.message).to.contain('1 ≤ perMinute ≤ perDay ≤ 9007199254740991');
    expectError(await patch(big.id, { perMinute: 9007199254740992 }), 400, 'validation_failed');
    expect((await get(`/v1/admin/keys/${big.id}`)).json(), 'nothing changed by a refused patch').to.deep.include({
      quota: { perMinute: 5000, perDay: 5000 },
    });

    const small = await issue({ plan: 'pro' });
    for (const body of [
      { perDay: 20000 },
      { perMinute: 5 },
      { plan: 'enterprise', perDay: 20000 },
      { plan: 'enterprise', perMinute: 5 },
      { plan: 'free', perDay: 5 },
    ]) {
      expectError(await patch(small.id, body), 400, 'validation_failed');
    }
    expect((await get(`/v1/admin/keys/${small.id}`)).json()).to.deep.include({ plan: 'pro', quota: PLAN_QUOTAS.pro });
    expect((await patch(small.id, { plan: 'enterprise', perMinute: 5, perDay: 20000 })).json()).to.deep.include({
      plan: 'enterprise',
      quota: { perMinute: 5, perDay: 20000 },
    });
  });

  it('DELETE revokes: 204 with no body, the key is refused with 401 at once, and the key is gone from get, list and patch', async () => {
    const made = await issue({ plan: 'pro' });
    expect((await get('/v1/pets', made.key)).status).to.equal(200);
    const res = await remove(made.id);
    expect(res.status).to.equal(204);
    expect(res.bytes.length).to.equal(0);
    const refused = await get('/v1/pets', made.key);
    expectError(refused, 401, 'unauthorized');
    expect(refused.header('www-authenticate')).to.equal('Bearer realm="petstore", error="invalid_token"');
    expectError(await get(`/v1/admin/keys/${made.id}`), 404, 'not_found');
    expectError(await remove(made.id), 404, 'not_found');
    expectError(await patch(made.id, { plan: 'business' }), 404, 'not_found');
    expect(((await get('/v1/admin/keys?limit=100')).json() as ApiKeyBody[]).map((k) => k.id)).not.to.include(made.id);
    expect((await get('/v1/pets', made.key)).status, 'still refused later').to.equal(401);
  });

  it("DELETE keeps the revoked key's orders: an admin key still gets and lists them", async () => {
    const made = await issue({ plan: 'pro' });
    const pet = await s.request({
      method: 'POST',
      path: '/v1/pets',
      key: made.key,
      headers: JSON_TYPE,
      body: '{"name":"Kept","categoryId":1}',
    });
    expect(pet.status, pet.text).to.equal(201);
    const petId = (pet.json() as { id: number }).id;
    const placed = await s.request({
      method: 'POST',
      path: '/v1/store/orders',
      key: made.key,
      headers: JSON_TYPE,
      body: JSON.stringify({ petId }),
    });
    expect(placed.status, placed.text).to.equal(201);
    const order = placed.json() as { id: number; status: string };
    expect((await remove(made.id)).status).to.equal(204);
    const seen = await get(`/v1/store/orders/${order.id}`);
    expect(seen.status, seen.text).to.equal(200);
    expect(seen.json()).to.deep.include({ id: order.id, petId, status: 'placed' });
    const listed = (await get('/v1/store/orders?limit=100')).json() as { id: number }[];
    expect(listed.map((o) => o.id)).to.include(order.id);
  });

  it('keys from the settings are listed but read-only: PATCH and DELETE answer 409 conflict, and the key keeps working', async () => {
    for (const key of [KEYS.free, KEYS.admin]) {
      const id = publicKeyId(nodeDigests.sha256Hex(key));
      expect((await get(`/v1/admin/keys/${id}`)).json()).to.deep.include({ source: 'settings' });
      const p = expectError(await patch(id, { plan: 'pro' }), 409, 'conflict');
      expect(p.message).to.contain("is managed by the server's configuration");
      expectError(await remove(id), 409, 'conflict');
    }
    expect(rateLimitOf(await get('/v1/pets', KEYS.free)).limit).to.equal(60);
    expect((await get('/v1/admin/keys')).status).to.equal(200);
  });

  it('403 forbidden to a client key on every admin operation, whatever the request; 401 to no key or an invalid one', async () => {
    const made = await issue({ plan: 'free' });
    const attempts = (key: string | undefined): Array<Promise<RawResponse>> => {
      const k = key === undefined ? {} : { key };
      return [
        s.request({ method: 'POST', path: '/v1/admin/keys', ...k, headers: JSON_TYPE, body: '{"plan":"business"}' }),
        s.request({ method: 'POST', path: '/v1/admin/keys', ...k, headers: JSON_TYPE, body: '{not json' }),
        s.request({ path: '/v1/admin/keys', ...k }),
        s.request({ path: '/v1/admin/keys?limit=0', ...k }),
        s.request({ path: `/v1/admin/keys/${made.id}`, ...k }),
        s.request({ path: '/v1/admin/keys/not-an-id', ...k }),
        s.request({
          method: 'PATCH',
          path: `/v1/admin/keys/${made.id}`,
          ...k,
          headers: JSON_TYPE,
          body: '{"plan":"business"}',
        }),
        s.request({ method: 'PATCH', path: '/v1/admin/keys/key_abcdefabcdef', ...k, headers: JSON_TYPE, body: '{}' }),
        s.request({ method: 'DELETE', path: `/v1/admin/keys/${made.id}`, ...k }),
        s.request({ method: 'DELETE', path: `/v1/admin/keys/${publicKeyId(nodeDigests.sha256Hex(KEYS.admin))}`, ...k }),
      ];
    };
    for (const key of [KEYS.free, KEYS.pro, KEYS.huge, made.key]) {
      for (const res of await Promise.all(attempts(key))) {
        const error = expectError(res, 403, 'forbidden');
        expect(error.message).to.contain('admin key');
        rateLimitOf(res);
      }
    }
    for (const res of await Promise.all(attempts(undefined))) expectError(res, 401, 'unauthorized');
    s.clock.advance(60_000);
    for (const res of await Promise.all(attempts('pet_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'))) {
      expectError(res, 401, 'unauthorized');
      expect(res.header('www-authenticate')).to.contain('invalid_token');
    }
    // Nothing changed: the client key is still free, and still valid.
    expect((await get(`/v1/admin/keys/${made.id}`)).json()).to.deep.include({ plan: 'free' });
    expect((await get('/v1/pets', made.key)).status).to.equal(200);
  });

  it('an admin key is limited with the business numbers, and may use every client operation', async () => {
    const res = await get('/v1/admin/keys');
    expect(res.header('ratelimit-policy')).to.equal(
      `"minute";q=${PLAN_QUOTAS.business.perMinute};w=60, "day";q=${PLAN_QUOTAS.business.perDay};w=86400`,
    );
    expect((await s.postJson('{"name":"Rex","categoryId":1}', KEYS.admin)).status).to.equal(201);
    expect((await get('/v1/pets', KEYS.admin)).status).to.equal(200);
  });

  it('an upgrade applies from the next request with the counts kept: a free key at 60/60, upgraded to pro, is admitted again in the same minute', async () => {
    const made = await issue({ plan: 'free' });
    for (let i = 0; i < 60; i++) expect((await get('/v1/pets?limit=1', made.key)).status).to.equal(200);
    const over = await get('/v1/pets?limit=1', made.key);
    expectError(over, 429, 'rate_limited');
    expect((await patch(made.id, { plan: 'pro' })).status).to.equal(200);
    const again = await get('/v1/pets?limit=1', made.key);
    expect(again.status, 'same minute, after the upgrade').to.equal(200);
    const rl = rateLimitOf(again);
    // 61 of the minute used (60 before, this one; the 429 consumed nothing), 61 of the day.
    expect([rl.limit, rl.remaining, rl.name]).to.deep.equal([300, 300 - 61, 'minute']);
    expect(again.header('ratelimit-policy')).to.equal('"minute";q=300;w=60, "day";q=10000;w=86400');
  });

  it('a downgrade applies from the next request with the counts kept: a pro key at 100 this minute, made free, is refused', async () => {
    const made = await issue({ plan: 'pro' });
    for (let i = 0; i < 100; i++) expect((await get('/v1/pets?limit=1', made.key)).status).to.equal(200);
    expect((await patch(made.id, { plan: 'free' })).status).to.equal(200);
    const refused = await get('/v1/pets?limit=1', made.key);
    expectError(refused, 429, 'rate_limited');
    expect(rateLimitOf(refused)).to.deep.include({ limit: 60, remaining: 0 });
    s.clock.advance(60_000);
    const next = await get('/v1/pets?limit=1', made.key);
    expect(next.status, 'the next minute, on the free numbers').to.equal(200);
    expect(rateLimitOf(next)).to.deep.include({ limit: 60, remaining: 59 });
  });

  it('the paths answer 405 with Allow for other methods, and OPTIONS with 204', async () => {
    const put = await s.request({ method: 'PUT', path: '/v1/admin/keys/key_abcdefabcdef', key: KEYS.admin });
    expectError(put, 405, 'method_not_allowed');
    expect(put.header('allow'))
      .to.match(/GET/)
      .and.match(/PATCH/)
      .and.match(/DELETE/);
    const del = await s.request({ method: 'DELETE', path: '/v1/admin/keys', key: KEYS.admin });
    expectError(del, 405, 'method_not_allowed');
    expect(del.header('allow')).to.match(/GET/).and.match(/POST/);
    expect((await s.request({ method: 'OPTIONS', path: '/v1/admin/keys', key: KEYS.admin })).status).to.equal(204);
  });
});

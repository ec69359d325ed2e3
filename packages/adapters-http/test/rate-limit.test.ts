// docs/rules.md §5 over HTTP, with the ManualClock: windows, headers, bans, anonymous limiting,
// X-Forwarded-For, and exact admission under concurrency.
import { expect } from 'chai';
import { ManualClock } from '@petstore/domain/testing';
import {
  dayEnd,
  expectError,
  KEYS,
  minuteEnd,
  rateLimitOf,
  sequential,
  startServer,
  T0,
  type KeySpec,
  type RawResponse,
  type TestServer,
  type TestServerOptions,
} from './support/server.js';

const FREE_POLICY = '"minute";q=60;w=60, "day";q=1000;w=86400';
const NOW = T0 + 15_500; // 44.5 s before the minute ends: Retry-After and t round up to 45

describe('rate limits and bans (docs/rules.md §5)', () => {
  let s: TestServer;
  let clock: ManualClock;
  const start = async (options: TestServerOptions = {}): Promise<void> => {
    clock = new ManualClock(NOW);
    s = await startServer({ clock, ...options });
  };
  afterEach(() => s.close());
  const get = (key?: string, path = '/v1/pets', headers: Record<string, string> = {}): Promise<RawResponse> =>
    s.request({ path, headers, ...(key === undefined ? {} : { key }) });
  const small = (perMinute: number, perDay: number): KeySpec[] => [
    { key: 'small', plan: 'enterprise', quota: { perMinute, perDay } },
  ];

  it('free key: 60 admitted in the minute, the 61st is 429 rate_limited with Retry-After to the minute end and Remaining 0; the next UTC minute admits again', async () => {
    await start();
    const admitted = await sequential(60, () => get(KEYS.free));
    admitted.forEach((res, i) => {
      expect(res.status).to.equal(200);
      const rl = rateLimitOf(res);
      expect(rl).to.include({
        limit: 60,
        remaining: 59 - i,
        reset: minuteEnd(NOW),
        name: 'minute',
        t: 45,
        policy: FREE_POLICY,
      });
    });
    const refused = await get(KEYS.free);
    expectError(refused, 429, 'rate_limited');
    expect(refused.header('retry-after')).to.equal('45');
    expect(rateLimitOf(refused)).to.include({ limit: 60, remaining: 0, reset: minuteEnd(NOW), name: 'minute', t: 45 });

    clock.set(T0 + 59_999); // still the same minute
    const last = await get(KEYS.free);
    expectError(last, 429, 'rate_limited');
    expect(last.header('retry-after')).to.equal('1');

    clock.set(T0 + 60_000); // the next UTC minute
    const again = await get(KEYS.free);
    expect(again.status).to.equal(200);
    expect(rateLimitOf(again)).to.include({ limit: 60, remaining: 59, reset: minuteEnd(T0 + 60_000), t: 60 });
  });

  it('the headers are on 200, 201, 204, 400, 401, 404, 405, 415 and 429, and each admitted answer (400 and 404 included) consumes one unit', async () => {
    await start({ keys: small(10, 1000) });
    const key = 'small';
    const responses = [
      await get(key), // 200
      await s.postJson('{"name":"a","categoryId":1}', key), // 201
      await get(key, '/v1/pets?limit=0'), // 400
      await s.postJson('{', key), // 400 malformed
      await get(key, '/v1/pets/99'), // 404
      await get(key, '/nowhere'), // 404
      await s.request({ method: 'PUT', path: '/v1/pets', key }), // 405
      await s.postJson('{}', key, { 'content-type': 'text/plain' }), // 415
      await s.request({ method: 'OPTIONS', path: '/v1/pets', key }), // 204
      await get(key, '/v1/pets/1'), // 200
      await get(key), // 429
    ];
    expect(responses.map((r) => r.status)).to.deep.equal([200, 201, 400, 400, 404, 404, 405, 415, 204, 200, 429]);
    responses.forEach((res, i) => {
      const rl = rateLimitOf(res);
      expect(rl.limit).to.equal(10);
      expect(rl.remaining, `answer ${i} (${res.status})`).to.equal(Math.max(0, 9 - i));
      expect(rl.policy).to.equal('"minute";q=10;w=60, "day";q=1000;w=86400');
    });
    const anonymous = await get();
    expectError(anonymous, 401, 'unauthorized');
    expect(rateLimitOf(anonymous)).to.include({ limit: 60, remaining: 59, policy: FREE_POLICY });
  });

  it('the day window binds when it has fewer left; on a tie the later-resetting day is reported; 429 waits for the day end', async () => {
    await start({ keys: small(5, 8) });
    // Minute 1: 3 requests. Minute left 2, day left 5: the minute binds.
    const first = await sequential(3, () => get('small'));
    expect(rateLimitOf(first[2]!)).to.include({ name: 'minute', limit: 5, remaining: 2, reset: minuteEnd(NOW) });

    // Minute 2: minute and day have equal remaining all along (4/4 … 0/0): the day is reported.
    const m2 = T0 + 60_000 + 30_000;
    clock.set(m2);
    const second = await sequential(5, () => get('small'));
    second.forEach((res, i) => {
      expect(res.status).to.equal(200);
      expect(rateLimitOf(res)).to.include({
        name: 'day',
        limit: 8,
        remaining: 4 - i,
        reset: dayEnd(m2),
        t: dayEnd(m2) - Math.floor(m2 / 1000),
      });
    });
    const refused = await get('small');
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.header('retry-after'))).to.equal(dayEnd(m2) - Math.floor(m2 / 1000));
    expect(rateLimitOf(refused)).to.include({ name: 'day', limit: 8, remaining: 0, reset: dayEnd(m2) });

    // A fresh minute does not help: the day is spent.
    clock.set(T0 + 10 * 60_000);
    expectError(await get('small'), 429, 'rate_limited');
    // The next UTC day admits again; then the minute binds (4 left of 5 < 7 left of 8).
    clock.set(T0 + 86_400_000);
    const nextDay = await get('small');
    expect(nextDay.status).to.equal(200);
    expect(rateLimitOf(nextDay)).to.include({ name: 'minute', limit: 5, remaining: 4 });
  });

  it('a rejected (429) request consumes nothing', async () => {
    await start({ keys: small(5, 9) });
    await sequential(5, () => get('small'));
    const refused = await sequential(3, () => get('small'));
    for (const res of refused) expectError(res, 429, 'rate_limited');
    clock.set(T0 + 60_000);
    // 5 of 9 used for the day (the 3 refusals did not count): 4 left, shown as the day binds.
    const next = await sequential(5, () => get('small'));
    expect(next.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 429]);
    expect(rateLimitOf(next[0]!)).to.include({ name: 'day', remaining: 3 });
  });

  it('ban: the 10th refusal within the minute bans for 900 s (temporarily_banned, Retry-After = time left), past window resets, until it ends', async () => {
    await start();
    await sequential(60, () => get(KEYS.free));
    const refusals = await sequential(9, () => get(KEYS.free));
    for (const res of refusals) expectError(res, 429, 'rate_limited');
    const banned = await get(KEYS.free);
    expectError(banned, 429, 'temporarily_banned');
    expect(banned.header('retry-after')).to.equal('900');
    expect(rateLimitOf(banned).remaining).to.equal(0);

    const end = NOW + 900_000;
    for (const [at, retry] of [
      [T0 + 60_000, Math.ceil((end - T0 - 60_000) / 1000)], // next minute: the minute window has reset
      [T0 + 5 * 60_000 + 1, Math.ceil((end - T0 - 5 * 60_000 - 1) / 1000)],
      [end - 1_000, 1],
      [end - 1, 1],
    ] as const) {
      clock.set(at);
      const res = await get(KEYS.free);
      expectError(res, 429, 'temporarily_banned');
      expect(Number(res.header('retry-after')), `at +${at - NOW} ms`).to.equal(retry);
      expect(rateLimitOf(res).remaining).to.equal(0);
    }
    clock.set(end);
    const free = await get(KEYS.free);
    expect(free.status).to.equal(200);
    expect(rateLimitOf(free)).to.include({ limit: 60, remaining: 59 });
  });

  it('ban: 9 refusals in a minute do not ban, and refusals are counted per minute window', async () => {
    await start();
    await sequential(60, () => get(KEYS.free));
    for (const res of await sequential(9, () => get(KEYS.free))) expectError(res, 429, 'rate_limited');
    clock.set(T0 + 60_000);
    // The next minute starts a new count of refusals: 9 more do not ban either (18 in all).
    for (const res of await sequential(60, () => get(KEYS.free))) expect(res.status).to.equal(200);
    for (const res of await sequential(9, () => get(KEYS.free))) expectError(res, 429, 'rate_limited');
    clock.set(T0 + 120_000);
    expect((await get(KEYS.free)).status).to.equal(200);
  });

  it('ban rule is the configured one (threshold 3, 120 s)', async () => {
    await start({ ban: { threshold: 3, seconds: 120 }, keys: small(2, 100) });
    const statuses = await sequential(5, () => get('small'));
    expect(statuses.map((r) => r.status)).to.deep.equal([200, 200, 429, 429, 429]);
    expectError(statuses[3]!, 429, 'rate_limited');
    expectError(statuses[4]!, 429, 'temporarily_banned');
    expect(statuses[4]!.header('retry-after')).to.equal('120');
    clock.advance(119_999);
    expectError(await get('small'), 429, 'temporarily_banned');
    clock.advance(1);
    expect((await get('small')).status).to.equal(200);
  });

  describe('callers without a valid credential', () => {
    const junk = (i: number): Record<string, string> =>
      [{}, { authorization: `Bearer guess-${i}` }, { authorization: 'Basic eA==' }, { authorization: 'Bearer' }][
        i % 4
      ]!;

    it('are counted together per client address on the free numbers; past 60 they get 429 instead of 401, whatever key they try', async () => {
      await start();
      const tries = await sequential(60, (i) => get(undefined, '/v1/pets', junk(i)));
      tries.forEach((res, i) => {
        expectError(res, 401, 'unauthorized');
        expect(rateLimitOf(res)).to.include({ limit: 60, remaining: 59 - i, policy: FREE_POLICY });
      });
      for (let i = 0; i < 8; i++) {
        const res = await get(undefined, i % 2 === 0 ? '/v1/pets' : '/v1/pets/1', junk(i));
        expectError(res, 429, 'rate_limited');
      }
      // A valid key from the same address has its own count.
      const keyed = await get(KEYS.free);
      expect(keyed.status).to.equal(200);
      expect(rateLimitOf(keyed).remaining).to.equal(59);
    });

    it('are banned by the same rule, and a banned address gets 429 whatever key it tries, a valid key excepted', async () => {
      await start();
      await sequential(60, (i) => get(undefined, '/v1/pets', junk(i)));
      await sequential(9, (i) => get(undefined, '/v1/pets', junk(i)));
      expectError(await get(undefined, '/v1/pets', junk(1)), 429, 'temporarily_banned');
      clock.set(T0 + 120_000);
      for (let i = 0; i < 4; i++) expectError(await get(undefined, '/v1/pets', junk(i)), 429, 'temporarily_banned');
      expect((await get(KEYS.pro)).status).to.equal(200);
      clock.set(NOW + 900_000);
      expectError(await get(undefined, '/v1/pets', junk(1)), 401, 'unauthorized');
    });

    it('X-Forwarded-For is ignored unless the proxy is trusted', async () => {
      await start();
      await sequential(60, (i) => get(undefined, '/v1/pets', { 'x-forwarded-for': `198.51.100.${i}` }));
      expectError(await get(undefined, '/v1/pets', { 'x-forwarded-for': '198.51.100.200' }), 429, 'rate_limited');
    });

    it('with trustProxy, the address is the one X-Forwarded-For gives', async () => {
      await start({ trustProxy: true });
      await sequential(60, () => get(undefined, '/v1/pets', { 'x-forwarded-for': '203.0.113.7' }));
      expectError(await get(undefined, '/v1/pets', { 'x-forwarded-for': '203.0.113.7' }), 429, 'rate_limited');
      expectError(await get(undefined, '/v1/pets', { 'x-forwarded-for': '203.0.113.8' }), 401, 'unauthorized');
      expectError(await get(undefined), 401, 'unauthorized');
    });
  });

  describe('exact counting under concurrency', () => {
    it('350 simultaneous requests with a pro key (300/minute): exactly 300 are admitted and 50 are 429', async () => {
      await start();
      const responses = await Promise.all(Array.from({ length: 350 }, () => get(KEYS.pro)));
      const admitted = responses.filter((r) => r.status === 200);
      const refused = responses.filter((r) => r.status === 429);
      expect(admitted).to.have.length(300);
      expect(refused).to.have.length(50);
      // Each admitted request took its own unit: remaining 299 … 0, each once.
      const remaining = admitted.map((r) => rateLimitOf(r).remaining).sort((a, b) => a - b);
      expect(remaining).to.deep.equal(Array.from({ length: 300 }, (_, i) => i));
      for (const res of refused) expect(rateLimitOf(res).remaining).to.equal(0);
    });

    it('100 simultaneous anonymous requests from one address: exactly 60 are 401 and 40 are 429', async () => {
      await start();
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, i) => get(undefined, '/v1/pets', { authorization: `Bearer guess-${i}` })),
      );
      expect(responses.filter((r) => r.status === 401)).to.have.length(60);
      expect(responses.filter((r) => r.status === 429)).to.have.length(40);
    });
  });
});

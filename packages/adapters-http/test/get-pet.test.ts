// docs/rules.md §2 GET /v1/pets/{petId}: the id rules, the deprecation headers on every response
// of the operation, and 410 gone from the sunset instant on (by the injected clock).
import { expect } from 'chai';
import { GET_PET_DEPRECATION } from '@petstore/domain';
import { ManualClock } from '@petstore/domain/testing';
import { expectError, KEYS, startServer, type RawResponse, type TestServer } from './support/server.js';

const SUNSET = Date.UTC(2030, 11, 5);

/** The three headers of a deprecated operation, with their exact values. */
const expectDeprecation = (res: RawResponse): void => {
  const deprecation = res.header('deprecation');
  expect(deprecation, `Deprecation on a ${res.status}`).to.match(/^@\d+$/);
  const deprecatedAt = Number(deprecation.slice(1));
  expect(deprecatedAt).to.equal(GET_PET_DEPRECATION.deprecatedAt / 1000);
  expect(deprecatedAt * 1000, 'deprecated before the sunset').to.be.below(SUNSET);
  expect(res.header('sunset'), `Sunset on a ${res.status}`).to.equal('Thu, 05 Dec 2030 00:00:00 GMT');
  expect(res.header('link'), `Link on a ${res.status}`).to.equal('</v1/pets>; rel="successor-version"');
};

describe('GET /v1/pets/{petId} (docs/rules.md §2, deprecated)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({
      keys: [
        { key: KEYS.huge, plan: 'enterprise', quota: { perMinute: 1e8, perDay: 1e9 } },
        { key: 'tiny', plan: 'enterprise', quota: { perMinute: 1, perDay: 100 } },
      ],
    });
    for (const name of ['Rex', 'Kit', 'Bo'])
      expect((await s.postJson(JSON.stringify({ name, categoryId: 2, status: 'pending' }))).status).to.equal(201);
  });
  after(() => s.close());
  beforeEach(() => s.clock.advance(60_000));
  const get = (segment: string, key: string = KEYS.huge): Promise<RawResponse> =>
    s.request({ path: `/v1/pets/${segment}`, key });

  it('answers 200 with the Pet', async () => {
    const res = await get('2');
    expect(res.status).to.equal(200);
    expect(res.json()).to.deep.equal({ id: 2, name: 'Kit', categoryId: 2, status: 'pending' });
    expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
    expectDeprecation(res);
  });

  it('refuses an id that is not a canonical positive decimal within int64: 400 validation_failed naming petId', async () => {
    for (const segment of [
      'abc',
      '0',
      '-1',
      '1.5',
      '1.0',
      '007',
      '01',
      '%31',
      '+1',
      '1e3',
      '0x1',
      '%201',
      '1%20',
      '%EF%BC%91',
      '9223372036854775808',
      '99999999999999999999',
      '18446744073709551616',
      '00',
      '-0',
      'Infinity',
      'NaN',
      '1,2',
      '%',
      '%zz',
      '..',
    ]) {
      const res = await get(segment);
      const { message } = expectError(res, 400, 'validation_failed');
      expect(message, segment).to.include('petId');
      expectDeprecation(res);
    }
  });

  it('a valid int64 that names no pet is 404 not_found, up to 9223372036854775807', async () => {
    for (const segment of [
      '4',
      '1000',
      '9007199254740991',
      '9007199254740992',
      '9007199254740993',
      '1000000000000000000',
      '9223372036854775807',
    ]) {
      const res = await get(segment);
      expectError(res, 404, 'not_found');
      expectDeprecation(res);
    }
  });

  it('carries Deprecation, Sunset and the successor Link on every response: 200, 400, 401, 404, 429 and HEAD', async () => {
    const responses = [
      await get('1'),
      await get('abc'),
      await s.request({ path: '/v1/pets/1' }),
      await get('1', 'unknown-key'),
      await get('77'),
      await s.request({ method: 'HEAD', path: '/v1/pets/1', key: KEYS.huge }),
      await get('1', 'tiny'),
      await get('1', 'tiny'), // over 1/minute
    ];
    expect(responses.map((r) => r.status)).to.deep.equal([200, 400, 401, 401, 404, 200, 200, 429]);
    for (const res of responses) expectDeprecation(res);
    expectError(responses[7]!, 429, 'rate_limited');
  });

  it('also on 429 temporarily_banned', async () => {
    const banned = await startServer({
      ban: { threshold: 2, seconds: 600 },
      keys: [{ key: 'tiny', plan: 'enterprise', quota: { perMinute: 1, perDay: 100 } }],
    });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await banned.request({ path: '/v1/pets/1', key: 'tiny' }));
      expect(statuses.map((r) => r.status)).to.deep.equal([404, 429, 429]);
      expectError(statuses[2]!, 429, 'temporarily_banned');
      for (const res of statuses) expectDeprecation(res);
    } finally {
      await banned.close();
    }
  });

  describe('after the sunset (Thu, 05 Dec 2030 00:00:00 GMT, by the service clock)', () => {
    it('answers 410 gone from the sunset instant on, with the same deprecation headers; 200 one millisecond before', async () => {
      const clock = new ManualClock(SUNSET - 1);
      const late = await startServer({ clock });
      try {
        expect((await late.postJson('{"name":"Old","categoryId":1}')).status).to.equal(201);
        const before = await late.request({ path: '/v1/pets/1', key: KEYS.huge });
        expect(before.status).to.equal(200);
        expectDeprecation(before);
        clock.set(SUNSET);
        for (const segment of ['1', '2', 'abc', '9223372036854775807']) {
          const res = await late.request({ path: `/v1/pets/${segment}`, key: KEYS.huge });
          const { message } = expectError(res, 410, 'gone');
          expect(message).to.include('/v1/pets');
          expectDeprecation(res);
        }
        // Without a credential it is still 401, and still deprecated.
        const anonymous = await late.request({ path: '/v1/pets/1' });
        expectError(anonymous, 401, 'unauthorized');
        expectDeprecation(anonymous);
        // The successor and creation keep working.
        expect((await late.request({ path: '/v1/pets', key: KEYS.huge })).status).to.equal(200);
        expect((await late.postJson('{"name":"New","categoryId":1}')).status).to.equal(201);
      } finally {
        await late.close();
      }
    });

    it('a service started at 2030-12-05T00:00:00Z answers 410 at once, and later too', async () => {
      const clock = new ManualClock(Date.parse('2030-12-05T00:00:00Z'));
      const late = await startServer({ clock });
      try {
        expectError(await late.request({ path: '/v1/pets/1', key: KEYS.huge }), 410, 'gone');
        clock.set(Date.UTC(2031, 5, 1));
        const res = await late.request({ path: '/v1/pets/1', key: KEYS.huge });
        expectError(res, 410, 'gone');
        expectDeprecation(res);
      } finally {
        await late.close();
      }
    });
  });
});

import { expect } from 'chai';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { pino } from 'pino';
import { send, startHarness, type Answer } from './support.js';
import { nodeDigests } from '@petstore/domain/testing';

// Several configured keys on different plans, and keys nobody configured.
const FREE = 'sEcReT-free-4f1c9a';
const PRO = 'sEcReT-pro-77b2e0';
const TINY = 'sEcReT-tiny-0d93aa'; // enterprise 3/minute: reaches 429 and the ban quickly
const UNUSED = 'sEcReT-unused-5e6f71';
const GUESSES = ['sEcReT-guess-1', 'sEcReT-guess-2', 'sEcReT-guess-3'];
const ALL = [FREE, PRO, TINY, UNUSED, ...GUESSES];

/** Every place a raw key could leak: its text, its base64 and hex spellings. */
const spellings = (key: string): string[] => [
  key,
  Buffer.from(key).toString('base64'),
  Buffer.from(key).toString('hex'),
];

describe('hardening: secrets (no raw key in any store, log line or response)', function () {
  this.timeout(30_000);

  it('a full session through the real pino logger (valid, invalid, 401, 429, ban, 404, 400, 503) leaves no key in logs, answers or stores', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = pino({ level: 'trace', base: { service: 'petstore' } }, sink);
    const h = await startHarness({
      env: {
        PETSTORE_API_KEYS: `${FREE}:free,${PRO}:pro,${TINY}:enterprise:3:100,${UNUSED}:business`,
        PETSTORE_BAN_THRESHOLD: '2',
        PETSTORE_LOG_LEVEL: 'trace',
      },
      logger,
      storeDeadlineMs: 200,
    });
    const answers: Answer[] = [];
    const go = async (
      path: string,
      key: string | undefined,
      extra: { method?: string; body?: string; scheme?: string } = {},
    ) => {
      const headers: Record<string, string> = {};
      if (key !== undefined) headers['Authorization'] = `${extra.scheme ?? 'Bearer'} ${key}`;
      if (extra.body !== undefined) headers['Content-Type'] = 'application/json';
      const a = await send(h.port, {
        method: extra.method ?? 'GET',
        path,
        headers,
        ...(extra.body === undefined ? {} : { body: extra.body }),
      });
      answers.push(a);
      return a;
    };
    try {
      expect((await go('/v1/pets', FREE, { method: 'POST', body: '{"name":"Rex","categoryId":1}' })).status).to.equal(
        201,
      );
      expect((await go('/v1/pets', PRO)).status).to.equal(200);
      expect((await go('/v1/pets/1', PRO, { scheme: 'bEaReR' })).status).to.equal(200);
      expect((await go('/v1/pets/999', FREE)).status).to.equal(404);
      expect((await go('/v1/pets?limit=0', FREE)).status).to.equal(400);
      expect(
        (await go('/v1/pets', FREE, { method: 'POST', body: `{"name":"x","categoryId":1,"key":"${FREE}"}` })).status,
      ).to.equal(400);
      expect((await go('/nowhere', PRO)).status).to.equal(404);
      expect((await go('/v1/pets', PRO, { method: 'DELETE' })).status).to.equal(405);
      for (const g of GUESSES) expect((await go('/v1/pets', g)).status).to.equal(401);
      expect((await go('/v1/pets', `${FREE}x`)).status).to.equal(401);
      expect((await go('/v1/pets', FREE, { scheme: 'Basic' })).status).to.equal(401);
      expect((await go('/v1/pets', `${FREE} ${PRO}`)).status).to.equal(401);
      const tiny = [];
      for (let i = 0; i < 7; i++) tiny.push((await go('/v1/pets', TINY)).status);
      expect(tiny).to.deep.equal([200, 200, 200, 429, 429, 429, 429]); // the 5th is the 2nd rejection: banned
      expect(answers.at(-1)!.text).to.contain('temporarily_banned');
      h.faults.set('fail');
      expect((await go('/v1/pets', PRO)).status).to.equal(503);
      h.faults.set('hang');
      expect((await go('/v1/pets', FREE)).status).to.equal(503);
      h.faults.reset();
    } finally {
      await h.stop();
    }
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    const logs = lines.join('');
    expect(logs.split('\n').filter((l) => l.includes('"msg":"request"')).length, 'one log line per request').to.equal(
      answers.length,
    );
    expect(logs).to.contain('store unavailable');
    const exposed = answers.map((a) => `${a.status} ${JSON.stringify(a.headers)}\n${a.text}`).join('\n');
    // The store's memory, as a debugger would print it.
    const stores = inspect([h.keys, h.quotas, h.pets], {
      depth: 20,
      showHidden: true,
      maxArrayLength: null,
      maxStringLength: null,
    });
    // Every argument any port received: only hashes (the key store is asked by SHA-256, never by key).
    const portArgs = JSON.stringify(h.faults.calls.map((c) => c.args));
    for (const key of ALL) {
      for (const s of spellings(key)) {
        expect(logs, `log lines hold ${key}`).not.to.contain(s);
        expect(exposed, `answers hold ${key}`).not.to.contain(s);
        expect(stores, `stores hold ${key}`).not.to.contain(s);
        expect(portArgs, `port calls carry ${key}`).not.to.contain(s);
      }
    }
    for (const c of h.faults.calls.filter((c) => c.port === 'ApiKeyStore' && c.method === 'findByHash')) {
      expect(c.args[0]).to.match(/^[0-9a-f]{64}$/);
    }
  });

  it('a full admin session (issue, use, list, get, change, refuse, revoke) leaves no raw key but in its one creation answer, and no full hash, in logs or answers', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = pino({ level: 'trace', base: { service: 'petstore' } }, sink);
    const ADMIN = 'sEcReT-admin-9a7c31';
    const h = await startHarness({
      env: { PETSTORE_API_KEYS: `${FREE}:free`, PETSTORE_ADMIN_KEYS: ADMIN, PETSTORE_LOG_LEVEL: 'trace' },
      logger,
    });
    const answers: Answer[] = [];
    const go = async (method: string, path: string, key: string, body?: string) => {
      const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      const a = await send(h.port, { method, path, headers, ...(body === undefined ? {} : { body }) });
      answers.push(a);
      return a;
    };
    const issued: string[] = [];
    const creations: Answer[] = [];
    try {
      for (const body of ['{"plan":"pro","label":"session"}', '{"plan":"enterprise","perMinute":5,"perDay":50}']) {
        const a = await go('POST', '/v1/admin/keys', ADMIN, body);
        expect(a.status).to.equal(201);
        creations.push(a);
        issued.push((JSON.parse(a.text) as { key: string }).key);
      }
      const ids = creations.map((a) => (JSON.parse(a.text) as { id: string }).id);
      expect((await go('GET', '/v1/pets', issued[0]!)).status).to.equal(200);
      expect(
        (await go('POST', '/v1/pets', issued[1]!, `{"name":"Rex","categoryId":1,"key":"${issued[0]}"}`)).status,
      ).to.equal(400);
      expect((await go('GET', '/v1/admin/keys?limit=2', ADMIN)).status).to.equal(200);
      expect((await go('GET', '/v1/admin/keys', ADMIN)).status).to.equal(200);
      expect((await go('GET', `/v1/admin/keys/${ids[0]}`, ADMIN)).status).to.equal(200);
      expect((await go('PATCH', `/v1/admin/keys/${ids[0]}`, ADMIN, '{"plan":"business"}')).status).to.equal(200);
      expect(
        (await go('PATCH', `/v1/admin/keys/${ids[0]}`, ADMIN, `{"label":"${issued[1]}","oops":"${ADMIN}"}`)).status,
      ).to.equal(400);
      expect((await go('GET', '/v1/admin/keys', FREE)).status).to.equal(403);
      expect((await go('POST', '/v1/admin/keys', issued[0]!, '{"plan":"business"}')).status).to.equal(403);
      expect((await go('GET', '/v1/admin/keys', `${ADMIN}x`)).status).to.equal(401);
      expect((await go('DELETE', `/v1/admin/keys/${ids[1]}`, ADMIN)).status).to.equal(204);
      expect((await go('GET', '/v1/pets', issued[1]!)).status).to.equal(401);
      const settingsId = `key_${nodeDigests.sha256Hex(FREE).slice(0, 12)}`;
      expect((await go('DELETE', `/v1/admin/keys/${settingsId}`, ADMIN)).status).to.equal(409);
      expect((await go('GET', `/v1/admin/keys/${issued[0]}`, ADMIN)).status, 'a key where an id belongs').to.equal(400);
    } finally {
      await h.stop();
    }
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    const logs = lines.join('');
    expect(logs.split('\n').filter((l) => l.includes('"msg":"request"')).length, 'one log line per request').to.equal(
      answers.length,
    );
    expect(logs, 'logs name keys by public id').to.contain('"subject":"key_');
    const exposedExceptCreations = answers
      .filter((a) => !creations.includes(a))
      .map((a) => `${a.status} ${JSON.stringify(a.headers)}\n${a.text}`)
      .join('\n');
    const stores = inspect([h.keys], { depth: 20, showHidden: true, maxArrayLength: null, maxStringLength: null });
    for (const key of [ADMIN, FREE, ...issued]) {
      for (const sp of spellings(key)) {
        expect(logs, 'log lines hold a key').not.to.contain(sp);
        expect(stores, 'the key store holds a key').not.to.contain(sp);
      }
      const at = exposedExceptCreations.indexOf(key.slice(0, 20));
      expect(
        exposedExceptCreations,
        `an answer other than its creation holds a key: ${exposedExceptCreations.slice(Math.max(0, at - 300), at + 60)}`,
      ).not.to.contain(key.slice(0, 20));
      expect(logs + exposedExceptCreations, 'a full hash appears').not.to.contain(nodeDigests.sha256Hex(key));
    }
    expect(logs + answers.map((a) => a.text).join(''), 'no 64-hex string at all').not.to.match(/[0-9a-f]{64}/);
    issued.forEach((key, i) => {
      expect(creations[i]!.text.split(key).length - 1, 'the key appears once, in its creation answer').to.equal(1);
      expect(creations[i]!.headers['cache-control']).to.equal('no-store');
    });
  });
});

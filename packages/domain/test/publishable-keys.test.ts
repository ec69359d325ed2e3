import { expect } from 'chai';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Caller } from '../src/index.js';
import {
  Authenticator,
  CreatedApiKeySchema,
  ISSUED_KEY_PATTERN,
  KeyAdmin,
  NewApiKeySchema,
  PUBLISHABLE_KEY_PATTERN,
  PUBLISHABLE_ORIGINS_MAX_AGE_MS,
  PublishableOrigins,
  publicKeyId,
  visitorSubject,
} from '../src/index.js';
import { ManualClock, SeededRandom, nodeDigests } from '../test-support/index.js';
import { ApiKeyStoreModel } from './support/api-key-store-model.js';

const ADMIN: Caller = { keyId: 'key_000000000000', role: 'admin' };
const T0 = Date.UTC(2027, 0, 1, 12);

const ajv = new Ajv2020({ strict: true, allErrors: false });
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
ajv.addFormat('date-time', { type: 'string', validate: (s: string) => !Number.isNaN(Date.parse(s)) });
const createAccepts = ajv.compile(NewApiKeySchema);
const createdShape = ajv.compile(CreatedApiKeySchema);

const setup = () => {
  const store = new ApiKeyStoreModel();
  const admin = new KeyAdmin(store, new SeededRandom('publishable'), new ManualClock(T0), T0, nodeDigests);
  return { store, admin, authenticator: new Authenticator(store, nodeDigests) };
};

describe('publishable keys in the admin API (docs/rules.md §9, §16)', () => {
  it('issues a pk_ key with its origins normalised; the view and the lookup carry role and origins', async () => {
    const { admin, authenticator } = setup();
    const made = await admin.create(ADMIN, {
      plan: 'free',
      role: 'publishable',
      origins: ['https://Shelter.Example:443/', 'http://localhost:5173'],
    });
    if (!made.ok) throw new Error(made.error.message);
    expect(createdShape(made.value), JSON.stringify(createdShape.errors)).to.equal(true);
    const { key, ...view } = made.value;
    expect(key).to.match(PUBLISHABLE_KEY_PATTERN).and.not.match(ISSUED_KEY_PATTERN);
    expect(view).to.deep.include({
      id: publicKeyId(nodeDigests.sha256Hex(key)),
      role: 'publishable',
      origins: ['https://shelter.example', 'http://localhost:5173'],
    });
    expect(await admin.get(ADMIN, view.id)).to.deep.equal({ ok: true, value: view });
    const subject = await authenticator.authenticate(`Bearer ${key}`);
    expect(subject.ok && subject.value.caller).to.deep.equal({
      keyId: view.id,
      role: 'publishable',
      origins: ['https://shelter.example', 'http://localhost:5173'],
    });
    const client = await admin.create(ADMIN, { plan: 'free' });
    expect(client.ok && client.value.key).to.match(ISSUED_KEY_PATTERN);
    expect(client.ok && 'origins' in client.value).to.equal(false);
  });

  it('refuses role admin, unknown roles, origins without role publishable and a publishable key without origins, saying why', async () => {
    const { admin, store } = setup();
    const refusals: [unknown, string, RegExp][] = [
      [{ plan: 'free', role: 'admin' }, 'role', /admin keys come only from the server's settings/],
      [{ plan: 'free', role: 'owner' }, 'role', /role must be one of client, publishable/],
      [{ plan: 'free', origins: ['https://a.example'] }, 'origins', /only for a publishable key/],
      [{ plan: 'free', role: 'client', origins: ['https://a.example'] }, 'origins', /only for a publishable key/],
      [{ plan: 'free', role: 'publishable' }, 'origins', /needs origins/],
      [{ plan: 'free', role: 'publishable', origins: [] }, 'origins', /1 to 20/],
      [{ plan: 'free', role: 'publishable', origins: ['http://shelter.example'] }, 'origins', /https/],
    ];
    for (const [body, field, message] of refusals) {
      const answer = await admin.create(ADMIN, body);
      expect(answer.ok, JSON.stringify(body)).to.equal(false);
      if (answer.ok) continue;
      expect(answer.error).to.deep.include({ code: 'validation_failed', field });
      expect(answer.error.message).to.match(message);
    }
    expect(store.rows()).to.deep.equal([]);
  });

  it('property: the schema takes every body the domain takes (role and origins included)', async () => {
    const { admin } = setup();
    const body = fc.record(
      {
        plan: fc.constantFrom('free', 'pro'),
        role: fc.constantFrom('client', 'publishable', 'admin', 'x'),
        origins: fc.oneof(
          fc.uniqueArray(fc.constantFrom('https://a.example', 'http://localhost:1', 'https://b.example:8443'), {
            minLength: 1,
          }),
          fc.array(fc.string(), { maxLength: 3 }),
        ),
      },
      { requiredKeys: ['plan'] },
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const domain = await admin.create(ADMIN, b);
        const expected = b.role === 'publishable' ? b.origins !== undefined : b.role !== 'admin' && b.role !== 'x';
        if (domain.ok) expect(createAccepts(b), JSON.stringify(b)).to.equal(true);
        if (!expected) expect(domain.ok, JSON.stringify(b)).to.equal(false);
        if (b.role === 'client' || b.role === undefined) expect(domain.ok).to.equal(b.origins === undefined);
      }),
    );
  });

  it('PATCH changes the origins of a publishable key only; the same origins again change nothing', async () => {
    const { admin, store } = setup();
    const pk = await admin.create(ADMIN, { plan: 'free', role: 'publishable', origins: ['https://a.example'] });
    const client = await admin.create(ADMIN, { plan: 'free' });
    if (!pk.ok || !client.ok) throw new Error('setup');
    const moved = await admin.patch(ADMIN, pk.value.id, { origins: ['https://b.example', 'https://c.example'] });
    expect(moved.ok && moved.value.origins).to.deep.equal(['https://b.example', 'https://c.example']);
    const calls = store.calls;
    const again = await admin.patch(ADMIN, pk.value.id, { origins: ['https://B.example/', 'https://c.example'] });
    expect(again.ok).to.equal(true);
    expect(store.calls - calls, 'a find, no update').to.equal(1);
    const refused = await admin.patch(ADMIN, client.value.id, { origins: ['https://a.example'] });
    expect(!refused.ok && refused.error).to.deep.include({ code: 'validation_failed', field: 'origins' });
    const planned = await admin.patch(ADMIN, pk.value.id, { plan: 'pro', label: 'site' });
    expect(planned.ok && planned.value).to.deep.include({ plan: 'pro', label: 'site', role: 'publishable' });
  });
});

describe('the visitors of a publishable key (docs/rules.md §16)', () => {
  it('property: a visitor subject keeps the key’s plan and quota, and two visitors, or a visitor and the key, never share a bucket', () => {
    const key = { id: 'k:ab12', plan: 'free', quota: { perMinute: 60, perDay: 1000 } } as const;
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const va = visitorSubject(key, a);
        expect(va).to.deep.include({ plan: 'free', quota: key.quota });
        expect(va.id).to.not.equal(key.id);
        expect(va.id === visitorSubject(key, b).id).to.equal(a === b);
        expect(va.id).to.not.equal(visitorSubject({ ...key, id: 'k:ab13' }, a).id);
      }),
    );
  });
});

describe('PublishableOrigins: the origins a CORS preflight is answered for (docs/rules.md §16)', () => {
  const counting = (origins: () => readonly string[]) => {
    const source = { reads: 0, listPublishableOrigins: async () => (source.reads++, origins()) };
    return source;
  };

  it('a flood of preflights from random origins costs one store read per 500 ms, however many origins', async () => {
    const clock = new ManualClock(T0);
    const source = counting(() => ['https://shelter.example']);
    const cache = new PublishableOrigins(source, clock);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constant('https://shelter.example'), fc.string()), { minLength: 1, maxLength: 200 }),
        fc.nat(2000),
        async (origins, ms) => {
          const before = source.reads;
          const answers = await Promise.all(origins.map((origin) => cache.has(origin)));
          clock.advance(ms);
          await cache.has('https://shelter.example');
          expect(answers.every((a, i) => a === (origins[i] === 'https://shelter.example'))).to.equal(true);
          // At most one read for the burst (all at one instant), and one more after the clock moved on.
          expect(source.reads - before).to.be.at.most(ms >= PUBLISHABLE_ORIGINS_MAX_AGE_MS ? 2 : 1);
        },
      ),
    );
  });

  it('answers from a set at most 500 ms old: an origin added or removed in the store is heard of after that', async () => {
    const clock = new ManualClock(T0);
    let live = ['https://a.example'];
    const source = counting(() => live);
    const cache = new PublishableOrigins(source, clock);
    expect(await cache.has('https://a.example')).to.equal(true);
    live = ['https://b.example'];
    clock.advance(PUBLISHABLE_ORIGINS_MAX_AGE_MS - 1);
    expect(await cache.has('https://a.example'), 'still the set read 499 ms ago').to.equal(true);
    clock.advance(1);
    expect(await cache.has('https://a.example')).to.equal(false);
    expect(await cache.has('https://b.example')).to.equal(true);
    expect(source.reads).to.equal(2);
  });

  it('concurrent lookups on a stale set share one read; a failed read is not kept', async () => {
    const clock = new ManualClock(T0);
    let fail = true;
    const source = {
      reads: 0,
      listPublishableOrigins: async () => {
        source.reads++;
        if (fail) throw new Error('store down');
        return ['https://a.example'];
      },
    };
    const cache = new PublishableOrigins(source, clock);
    const failed = await Promise.allSettled([cache.has('https://a.example'), cache.has('https://x.example')]);
    expect(failed.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
    expect(source.reads).to.equal(1);
    fail = false;
    expect(await cache.has('https://a.example')).to.equal(true);
    expect(source.reads).to.equal(2);
  });
});

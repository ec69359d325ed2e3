import { expect } from 'chai';
import fc from 'fast-check';
import type { ApiKeyRecord, KeyLookup, StoredApiKey } from '../src/index.js';
import {
  API_KEY_POSITION_BASE,
  ApiKeyLookupCache,
  apiKeyRecord,
  Authenticator,
  generateApiKey,
  ISSUED_KEY_PATTERN,
  KEY_CACHE_MAX_AGE_MS,
  publicKeyId,
  settingsKeyPosition,
} from '../src/index.js';
import { ManualClock, SeededRandom, nodeDigests } from '../test-support/index.js';
import { ApiKeyStoreModel } from './support/api-key-store-model.js';

const T0 = Date.UTC(2027, 5, 1, 8);

describe('Authorization: Bearer <key> (docs/rules.md §4): the whole header, nothing before or after', () => {
  const KEY = 'S3cret-Key_1';
  const record = apiKeyRecord(nodeDigests, KEY, 'pro') as ApiKeyRecord;
  const keys: KeyLookup = { findByHash: async (h) => (h === record.keyHash ? record : undefined) };
  const auth = new Authenticator(keys, nodeDigests);
  const reason = async (header: string | undefined) => {
    const r = await auth.authenticate(header);
    return r.ok ? 'accepted' : r.error.reason;
  };

  it('accepts exactly "Bearer <key>" (the scheme in any case, spaces after the key allowed)', async () => {
    for (const header of [`Bearer ${KEY}`, `bEaReR ${KEY}`, `Bearer  ${KEY}  `])
      expect(await reason(header), header).to.equal('accepted');
  });

  it('refuses a header with text after the key, even when the key is a prefix of it', async () => {
    for (const header of [
      `Bearer ${KEY} extra`,
      `Bearer ${KEY}ä`,
      `Bearer ${KEY} ${KEY}`,
      `Bearer ${KEY}\u00a0`,
      `Bearer ${KEY};`,
    ]) {
      expect(await reason(header), header).to.equal('invalid');
    }
  });

  it('refuses a header with text before the scheme: no bearer credential at all (missing, no invalid_token challenge)', async () => {
    for (const header of [`x Bearer ${KEY}`, ` Bearer ${KEY}`, `Token Bearer ${KEY}`, `Basic Bearer ${KEY}`]) {
      expect(await reason(header), header).to.equal('missing');
    }
  });

  it('refuses a bearer header whose credential only ends with "Bearer <key>"', async () => {
    for (const header of [`Bearer x Bearer ${KEY}`, `Bearer Bearer ${KEY}`])
      expect(await reason(header), header).to.equal('invalid');
  });

  it('says what to send when no credential came, and that the key is not valid when one did; both 401 unauthorized', async () => {
    const missing = await auth.authenticate(undefined);
    expect(!missing.ok && missing.error).to.deep.include({ code: 'unauthorized', reason: 'missing' });
    expect(!missing.ok && missing.error.message).to.include('Authorization: Bearer');
    const invalid = await auth.authenticate('Bearer nope');
    expect(!invalid.ok && invalid.error).to.deep.include({ code: 'unauthorized', reason: 'invalid' });
    expect(!invalid.ok && invalid.error.message).to.match(/API key is not valid/);
  });

  it('refuses a store answer for another hash (the hashes are compared, never trusted)', async () => {
    const liar: KeyLookup = {
      findByHash: async () => apiKeyRecord(nodeDigests, 'someone-else', 'business') as ApiKeyRecord,
    };
    const r = await new Authenticator(liar, nodeDigests).authenticate(`Bearer ${KEY}`);
    expect(!r.ok && r.error.reason).to.equal('invalid');
  });
});

describe('key records (docs/rules.md §4, §5, §9)', () => {
  it('a key is a client key unless said otherwise', () => {
    expect(apiKeyRecord(nodeDigests, 'k', 'free')).to.deep.include({ role: 'client' });
    expect(apiKeyRecord(nodeDigests, 'k', 'free', undefined, 'admin')).to.deep.include({ role: 'admin' });
  });

  it('refusals of a settings key say what is wrong with it, naming the plan', () => {
    expect(apiKeyRecord(nodeDigests, '', 'free')).to.match(/must not be empty/);
    expect(apiKeyRecord(nodeDigests, 'k', 'enterprise')).to.match(/enterprise.*per-minute and per-day/);
    expect(apiKeyRecord(nodeDigests, 'k', 'enterprise', { perMinute: 9, perDay: 8 })).to.match(/per minute ≤ per day/);
    expect(apiKeyRecord(nodeDigests, 'k', 'pro', { perMinute: 9, perDay: 80 })).to.match(
      /the pro plan has fixed quotas/,
    );
  });

  it('property: every settings key sits within the first page (position > 0) and below every key made through the API', () => {
    const listFrom = 0; // the first page lists the keys after position 0
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), (hash) => {
        const position = settingsKeyPosition(hash);
        expect(position).to.be.above(listFrom);
        expect(position).to.be.below(API_KEY_POSITION_BASE);
      }),
    );
    for (const hash of ['0'.repeat(64), 'f'.repeat(64)]) {
      expect(settingsKeyPosition(hash), hash).to.be.above(listFrom).and.below(API_KEY_POSITION_BASE);
    }
    expect(settingsKeyPosition(`000000000001${'f'.repeat(52)}`)).to.be.below(
      settingsKeyPosition(`000000000002${'0'.repeat(52)}`),
    );
  });

  it('an issued key is the whole text: the key pattern refuses anything before or after one', () => {
    const key = generateApiKey(new SeededRandom('anchors'));
    expect(key).to.match(ISSUED_KEY_PATTERN);
    for (const text of [`x${key}`, ` ${key}`, `${key}x`, `${key} `, `${key}\n`])
      expect(ISSUED_KEY_PATTERN.test(text), JSON.stringify(text)).to.equal(false);
  });
});

describe('ApiKeyLookupCache: the age check and writes (docs/rules.md §9)', () => {
  const stored = (key: string): StoredApiKey => ({
    ...(apiKeyRecord(nodeDigests, key, 'pro') as ApiKeyRecord),
    source: 'settings',
    position: 1,
  });

  /** A store that counts lookups and answers each one only when told to. */
  class HeldStore extends ApiKeyStoreModel {
    lookups = 0;
    private readonly waiting: Array<() => void> = [];
    hold = false;
    override async findByHash(keyHash: string) {
      this.lookups++;
      if (this.hold) await new Promise<void>((resolve) => this.waiting.push(resolve));
      return super.findByHash(keyHash);
    }
    releaseAll(): void {
      for (const resolve of this.waiting.splice(0)) resolve();
    }
  }

  it(`a lookup is kept for less than its max age (${KEY_CACHE_MAX_AGE_MS} ms): at exactly that age it is looked up again`, async () => {
    const inner = new HeldStore();
    const clock = new ManualClock(T0);
    const cache = new ApiKeyLookupCache(inner, clock, 200);
    await inner.save(stored('a'));
    const hash = nodeDigests.sha256Hex('a');
    await cache.findByHash(hash);
    clock.advance(199);
    await cache.findByHash(hash);
    expect(inner.lookups, 'younger than 200 ms: from memory').to.equal(1);
    clock.advance(1);
    await cache.findByHash(hash);
    expect(inner.lookups, 'exactly 200 ms old: looked up again').to.equal(2);
  });

  it('a lookup is not kept across a clock that went back (its age cannot be told)', async () => {
    const inner = new HeldStore();
    const clock = new ManualClock(T0);
    const cache = new ApiKeyLookupCache(inner, clock);
    await inner.save(stored('a'));
    const hash = nodeDigests.sha256Hex('a');
    await cache.findByHash(hash);
    clock.set(T0 - 1);
    await cache.findByHash(hash);
    expect(inner.lookups).to.equal(2);
  });

  it('a lookup under way while a write finished is answered but not kept: the write takes effect at once', async () => {
    const inner = new HeldStore();
    const cache = new ApiKeyLookupCache(inner, new ManualClock(T0));
    await inner.save(stored('a'));
    const hash = nodeDigests.sha256Hex('a');
    inner.hold = true;
    const racing = cache.findByHash(hash);
    inner.hold = false;
    await inner.revokeBehindTheBack(hash);
    await cache.retainSettingsKeys([hash]); // a write through the cache, finished while the lookup runs
    inner.releaseAll();
    expect(await racing, 'read after the revocation behind the back').to.equal(undefined);
    await inner.save(stored('a'));
    expect(await cache.findByHash(hash), 'the racing answer was not kept').to.not.equal(undefined);
    expect(inner.lookups).to.equal(2);
  });

  it('keeping the settings keys goes through to the store and forgets every lookup', async () => {
    const inner = new HeldStore();
    const cache = new ApiKeyLookupCache(inner, new ManualClock(T0));
    await inner.save(stored('a'));
    await inner.save(stored('b'));
    const [a, b] = [nodeDigests.sha256Hex('a'), nodeDigests.sha256Hex('b')];
    expect(await cache.findByHash(b)).to.not.equal(undefined);
    await cache.retainSettingsKeys([a]);
    expect(inner.rows().map((r) => publicKeyId(r.keyHash))).to.deep.equal([publicKeyId(a)]);
    expect(await cache.findByHash(b), 'dropped at once, not served from memory').to.equal(undefined);
  });
});

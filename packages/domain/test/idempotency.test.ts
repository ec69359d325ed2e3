import { expect } from 'chai';
import fc from 'fast-check';
import {
  checkIdempotencyKey,
  decideReplay,
  IDEMPOTENCY_TTL_MS,
  IdempotentRequests,
  IN_PROGRESS_LEASE_MS,
  isKeptStatus,
  settleClaim,
  takeOver,
  type ClaimOutcome,
  type CompletedRecord,
  type IdempotencyRecord,
  type IdempotencyStore,
  type InProgressRecord,
} from '../src/index.js';
import { claimEndFor, oversizedRequestFingerprint, requestFingerprint } from '../src/idempotency/idempotency.js';
import { ManualClock, nodeDigests } from '../test-support/index.js';

/** A store as small as the rule needs: a Map, no expiry sweep. */
class MapStore implements IdempotencyStore {
  readonly records = new Map<string, IdempotencyRecord>();
  async claim(id: string, claim: InProgressRecord, now: number): Promise<ClaimOutcome> {
    const outcome = settleClaim(this.records.get(id), claim, now);
    if (outcome.claimed) this.records.set(id, outcome.record);
    return outcome;
  }
  async complete(id: string, _claim: InProgressRecord, record: CompletedRecord): Promise<void> {
    this.records.set(id, record);
  }
  async release(id: string, claim: InProgressRecord): Promise<void> {
    this.records.set(id, { ...claim, leaseUntil: 0 });
  }
  async discard(id: string): Promise<void> {
    this.records.delete(id);
  }
}

describe('idempotent creation rules (docs/rules.md §10)', () => {
  it('Idempotency-Key: absent is fine; 1–255 printable ASCII characters, else validation_failed', () => {
    expect(checkIdempotencyKey(undefined)).to.deep.equal({ ok: true, value: undefined });
    for (const good of ['a', ' x ', '~'.repeat(255), '8e0f-4c1a', '"quoted"'])
      expect(checkIdempotencyKey(good).ok, good).to.equal(true);
    for (const bad of ['', 'a'.repeat(256), 'é', 'tab\there', 'new\nline', '\u007f', '😀']) {
      const result = checkIdempotencyKey(bad);
      expect(result.ok, JSON.stringify(bad)).to.equal(false);
      if (!result.ok) expect(result.error).to.deep.include({ code: 'validation_failed', field: 'Idempotency-Key' });
    }
  });

  it('property: a key is accepted exactly when it is 1–255 characters from U+0020 to U+007E', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (key) => {
        const printable = key.length >= 1 && key.length <= 255 && [...key].every((c) => c >= ' ' && c <= '~');
        expect(checkIdempotencyKey(key).ok).to.equal(printable);
      }),
    );
  });

  it('the fingerprint covers method, path and body, and has a fixed size', () => {
    const base = requestFingerprint(nodeDigests, 'POST', '/v1/pets', 'a'.repeat(64));
    expect(base).to.match(/^[0-9a-f]{64}$/);
    expect(requestFingerprint(nodeDigests, 'POST', '/v1/pets', 'a'.repeat(64))).to.equal(base);
    expect(requestFingerprint(nodeDigests, 'PUT', '/v1/pets', 'a'.repeat(64))).not.to.equal(base);
    expect(requestFingerprint(nodeDigests, 'POST', '/v1/categories', 'a'.repeat(64))).not.to.equal(base);
    expect(requestFingerprint(nodeDigests, 'POST', '/v1/pets', 'b'.repeat(64))).not.to.equal(base);
    expect(requestFingerprint(nodeDigests, 'POST', `/v1/${'x'.repeat(10_000)}`, 'a'.repeat(64))).to.have.length(64);
  });

  it('a body over the limit has a fingerprint of its own: method and path, no bytes; never equal to one of a body that was read', () => {
    const oversized = oversizedRequestFingerprint(nodeDigests, 'POST', '/v1/pets');
    expect(oversized).to.match(/^[0-9a-f]{64}$/);
    expect(oversizedRequestFingerprint(nodeDigests, 'POST', '/v1/pets')).to.equal(oversized);
    expect(oversizedRequestFingerprint(nodeDigests, 'POST', '/v1/categories')).not.to.equal(oversized);
    expect(oversizedRequestFingerprint(nodeDigests, 'PUT', '/v1/pets')).not.to.equal(oversized);
    fc.assert(
      fc.property(
        fc.constantFrom('POST', 'PUT'),
        fc.constantFrom('/v1/pets', '/v1/categories', '/v1/store/orders'),
        fc.stringMatching(/^[0-9a-f]{64}$/),
        (method, path, digest) => {
          expect(requestFingerprint(nodeDigests, method, path, digest)).not.to.equal(
            oversizedRequestFingerprint(nodeDigests, method, path),
          );
        },
      ),
    );
  });

  it('keeps every answer below 500 except 401, 403, 408 and 429; never a 5xx', () => {
    for (let status = 100; status < 600; status++) {
      expect(isKeptStatus(status), String(status)).to.equal(status < 500 && ![401, 403, 408, 429].includes(status));
    }
  });

  it('decides: another request → idempotency_key_reused; the same one in progress → conflict; done → its answer', () => {
    const answer = { status: 201, body: '{"id":1}', location: '/v1/pets/1' };
    const running: IdempotencyRecord = {
      state: 'in_progress',
      fingerprint: 'f',
      token: 't',
      leaseUntil: 1,
      expiresAt: 1,
    };
    const completed: IdempotencyRecord = { state: 'completed', fingerprint: 'f', expiresAt: 1, answer };
    expect(decideReplay(running, 'g')).to.deep.include({ kind: 'refused' });
    expect(decideReplay(completed, 'g').kind === 'refused' && decideReplay(completed, 'g')).to.deep.nested.include({
      'error.code': 'idempotency_key_reused',
    });
    expect(decideReplay(running, 'g')).to.deep.nested.include({ 'error.code': 'idempotency_key_reused' });
    expect(decideReplay(running, 'f')).to.deep.nested.include({ 'error.code': 'conflict' });
    expect(decideReplay(completed, 'f')).to.deep.equal({ kind: 'replay', answer });
  });

  it('the lease takeover: the same request takes over a claim whose lease has ended (leaseUntil <= now), keeping its token and expiry, with its own lease; anything else holds the key', () => {
    const held: InProgressRecord = {
      state: 'in_progress',
      fingerprint: 'fp',
      token: 'first',
      leaseUntil: 1_000,
      expiresAt: 9_000,
    };
    const claim: InProgressRecord = {
      state: 'in_progress',
      fingerprint: 'fp',
      token: 'second',
      leaseUntil: 2_000,
      expiresAt: 10_000,
    };
    expect(takeOver(held, claim, 999), 'the lease still runs').to.equal(undefined);
    expect(takeOver(held, claim, 1_000), 'the lease has just ended').to.deep.equal({ ...held, leaseUntil: 2_000 });
    expect(takeOver(held, claim, 1_001)).to.deep.equal({
      state: 'in_progress',
      fingerprint: 'fp',
      token: 'first',
      leaseUntil: 2_000,
      expiresAt: 9_000,
    });
    expect(takeOver(held, { ...claim, fingerprint: 'other' }, 1_001), 'another request').to.equal(undefined);
    const completed: CompletedRecord = {
      state: 'completed',
      fingerprint: 'fp',
      expiresAt: 9_000,
      answer: { status: 201, body: '{}' },
    };
    expect(takeOver(completed, claim, 1_001), 'a kept answer').to.equal(undefined);
  });

  it('a claim (as a store running one call at a time settles it): free when absent or expired (at expiresAt), taken over when its lease is over, else held', () => {
    const claim: InProgressRecord = {
      state: 'in_progress',
      fingerprint: 'fp',
      token: 'second',
      leaseUntil: 2_000,
      expiresAt: 10_000,
    };
    const held: InProgressRecord = {
      state: 'in_progress',
      fingerprint: 'fp',
      token: 'first',
      leaseUntil: 1_000,
      expiresAt: 9_000,
    };
    expect(settleClaim(undefined, claim, 500)).to.deep.equal({ claimed: true, record: claim, resumed: false });
    expect(settleClaim(held, claim, 9_000), 'expired: a new request').to.deep.equal({
      claimed: true,
      record: claim,
      resumed: false,
    });
    expect(settleClaim(held, claim, 8_999)).to.deep.equal({
      claimed: true,
      record: { ...held, leaseUntil: 2_000 },
      resumed: true,
    });
    expect(settleClaim(held, claim, 999)).to.deep.equal({ claimed: false, held });
  });

  it('property: a claim takes a record over exactly when it is an in-progress one of the same request whose lease is over, and never changes its token, fingerprint or expiry', () => {
    const fingerprint = fc.constantFrom('f', 'g');
    const time = fc.integer({ min: 0, max: 20 });
    const inProgress = fc.record({
      state: fc.constant('in_progress' as const),
      fingerprint,
      token: fc.constantFrom('s', 't'),
      leaseUntil: time,
      expiresAt: time,
    });
    const completed = fc.record({
      state: fc.constant('completed' as const),
      fingerprint,
      expiresAt: time,
      answer: fc.constant({ status: 201, body: '{}' }),
    });
    fc.assert(
      fc.property(fc.oneof(inProgress, completed), inProgress, time, (held: IdempotencyRecord, claim, now) => {
        const taken = takeOver(held, claim, now);
        const lapsed = held.state === 'in_progress' && held.leaseUntil <= now && held.fingerprint === claim.fingerprint;
        expect(taken === undefined).to.equal(!lapsed);
        if (taken !== undefined)
          expect(taken).to.deep.equal({
            state: 'in_progress',
            fingerprint: held.fingerprint,
            token: (held as InProgressRecord).token,
            leaseUntil: claim.leaseUntil,
            expiresAt: held.expiresAt,
          });
      }),
    );
  });

  it('IdempotentRequests: claims with a 60 s lease and a creation token, keeps a kept answer for 24 h, refuses the others', async () => {
    const clock = new ManualClock(Date.UTC(2027, 0, 1));
    const store = new MapStore();
    const requests = new IdempotentRequests(store, clock, nodeDigests);
    const first = await requests.start('key_a', 'k', 'fp');
    expect(first.kind).to.equal('process');
    if (first.kind !== 'process') return;
    const token = nodeDigests.sha256Hex(`key_a:k\n${clock.now()}`);
    const claim = {
      state: 'in_progress',
      fingerprint: 'fp',
      token,
      leaseUntil: clock.now() + IN_PROGRESS_LEASE_MS,
      expiresAt: clock.now() + IDEMPOTENCY_TTL_MS,
    };
    expect(store.records.get('key_a:k')).to.deep.equal(claim);
    expect(first.ticket).to.deep.equal({ id: 'key_a:k', claim, creation: { token, resumed: false } });
    expect(await requests.start('key_a', 'k', 'fp')).to.deep.nested.include({ 'error.code': 'conflict' });
    const elsewhere = await requests.start('key_b', 'k', 'fp');
    expect(elsewhere.kind, 'another API key: its own scope').to.equal('process');
    expect(elsewhere.kind === 'process' && elsewhere.ticket.creation.token, 'and its own token').not.to.equal(token);
    clock.advance(5);
    await requests.finish(first.ticket, { status: 201, body: '{}', location: '/v1/pets/1' });
    expect(store.records.get('key_a:k')).to.deep.include({
      state: 'completed',
      expiresAt: clock.now() + IDEMPOTENCY_TTL_MS,
    });
    expect(await requests.start('key_a', 'k', 'fp')).to.deep.equal({
      kind: 'replay',
      answer: { status: 201, body: '{}', location: '/v1/pets/1' },
    });
    // A 413 and a 415 say something about the request: kept (docs/rules.md §10).
    for (const status of [413, 415]) {
      const fingerprint = status === 413 ? oversizedRequestFingerprint(nodeDigests, 'POST', '/v1/pets') : 'fp';
      const started = await requests.start('key_c', `k${status}`, fingerprint);
      if (started.kind !== 'process') throw new Error('expected a claim');
      await requests.finish(started.ticket, { status, body: '{}' });
      expect(await requests.start('key_c', `k${status}`, fingerprint), String(status)).to.deep.equal({
        kind: 'replay',
        answer: { status, body: '{}' },
      });
      expect(await requests.start('key_c', `k${status}`, 'another'), String(status)).to.deep.nested.include({
        'error.code': 'idempotency_key_reused',
      });
    }
  });

  it('how a claim ends: a kept answer is kept; a 5xx, or any answer not kept on a resumed claim, releases it; a 401, 403, 408 or 429 on a claim of its own discards it', () => {
    for (let status = 100; status < 600; status++) {
      for (const resumed of [false, true]) {
        const expected = isKeptStatus(status) ? 'keep' : status >= 500 || resumed ? 'release' : 'discard';
        expect(claimEndFor(status, resumed), `${status}${resumed ? ' resumed' : ''}`).to.equal(expected);
      }
    }
    expect([401, 403, 408, 429, 499, 500].map((s) => claimEndFor(s, false))).to.deep.equal([
      'discard',
      'discard',
      'discard',
      'discard',
      'keep',
      'release',
    ]);
  });

  it('IdempotentRequests: a 401, 403, 408 or 429 leaves the key free, as if unused: any request may take it, with a new token (issue 26 #11)', async () => {
    const clock = new ManualClock(Date.UTC(2027, 0, 1));
    const store = new MapStore();
    const requests = new IdempotentRequests(store, clock, nodeDigests);
    for (const status of [401, 403, 408, 429]) {
      const started = await requests.start('key_c', `s${status}`, 'fp');
      if (started.kind !== 'process') throw new Error('expected a claim');
      await requests.finish(started.ticket, { status, body: '{}' });
      expect(store.records.has(`key_c:s${status}`), String(status)).to.equal(false);
      clock.advance(1);
      const other = await requests.start('key_c', `s${status}`, 'another');
      expect(other.kind === 'process' && other.ticket.creation, String(status)).to.deep.equal({
        token: nodeDigests.sha256Hex(`key_c:s${status}\n${clock.now()}`),
        resumed: false,
      });
    }
  });

  it('IdempotentRequests: a 5xx or an abandoned request ends the claim (so does any answer not kept on a resumed claim): the same request runs again at once, resumed under the same token; another request with the key is refused', async () => {
    const clock = new ManualClock(Date.UTC(2027, 0, 1));
    const store = new MapStore();
    const requests = new IdempotentRequests(store, clock, nodeDigests);
    const end = async (key: string, how: number | 'abandon') => {
      const started = await requests.start('key_c', key, 'fp');
      if (started.kind !== 'process') throw new Error('expected a claim');
      if (how === 'abandon') await requests.abandon(started.ticket);
      else await requests.finish(started.ticket, { status: how, body: '{}' });
      return started.ticket;
    };
    // A resumed claim (its first attempt ended 5xx) answered 403: the token of the first attempt stays.
    const first = await end('r403', 503);
    const resumed = await requests.start('key_c', 'r403', 'fp');
    if (resumed.kind !== 'process') throw new Error('expected a takeover');
    await requests.finish(resumed.ticket, { status: 403, body: '{}' });
    expect(store.records.get('key_c:r403')).to.deep.equal({ ...resumed.ticket.claim, leaseUntil: 0 });
    expect(await requests.start('key_c', 'r403', 'another')).to.deep.nested.include({
      'error.code': 'idempotency_key_reused',
    });
    const again = await requests.start('key_c', 'r403', 'fp');
    expect(again.kind === 'process' && again.ticket.creation).to.deep.equal({
      token: first.creation.token,
      resumed: true,
    });
    for (const how of [500, 503, 'abandon'] as const) {
      const ended = await end(`s${how}`, how);
      expect(store.records.get(`key_c:s${how}`), String(how)).to.deep.equal({ ...ended.claim, leaseUntil: 0 });
      clock.advance(1);
      expect(await requests.start('key_c', `s${how}`, 'another'), String(how)).to.deep.nested.include({
        'error.code': 'idempotency_key_reused',
      });
      const again = await requests.start('key_c', `s${how}`, 'fp');
      expect(again.kind === 'process' && again.ticket.creation, String(how)).to.deep.equal({
        token: ended.creation.token,
        resumed: true,
      });
      expect(again.kind === 'process' && again.ticket.claim, String(how)).to.deep.equal({
        ...ended.claim,
        leaseUntil: clock.now() + IN_PROGRESS_LEASE_MS,
      });
    }
  });

  it('IdempotentRequests: a claim left behind is resumed by the same request once its lease is over (60 s), under its token, until the record expires (24 h after the first claim); then a new request with a new token', async () => {
    const clock = new ManualClock(Date.UTC(2027, 0, 1));
    const requests = new IdempotentRequests(new MapStore(), clock, nodeDigests);
    const first = await requests.start('key_a', 'k', 'fp');
    if (first.kind !== 'process') throw new Error('expected a claim');
    clock.advance(IN_PROGRESS_LEASE_MS - 1);
    expect(await requests.start('key_a', 'k', 'fp')).to.deep.nested.include({ 'error.code': 'conflict' });
    clock.advance(1);
    const resumed = await requests.start('key_a', 'k', 'fp');
    expect(resumed.kind === 'process' && resumed.ticket.creation).to.deep.equal({
      token: first.ticket.creation.token,
      resumed: true,
    });
    clock.set(first.ticket.claim.expiresAt);
    const renewed = await requests.start('key_a', 'k', 'fp');
    expect(renewed.kind === 'process' && renewed.ticket.creation).to.deep.equal({
      token: nodeDigests.sha256Hex(`key_a:k\n${clock.now()}`),
      resumed: false,
    });
  });
});

describe('idempotency times and refusals, to the millisecond (docs/rules.md §10)', () => {
  it('a claim holds for 60 s and a record for 24 h', () => {
    expect(IN_PROGRESS_LEASE_MS).to.equal(60_000);
    expect(IDEMPOTENCY_TTL_MS).to.equal(86_400_000);
  });

  it('a repeat 59.999 s after the claim is still refused as in progress; at 60 s it takes the claim over', async () => {
    const start = Date.UTC(2027, 0, 1);
    const clock = new ManualClock(start);
    const requests = new IdempotentRequests(new MapStore(), clock, nodeDigests);
    const first = await requests.start('key_a', 'k', 'fp');
    if (first.kind !== 'process') throw new Error('expected a claim');
    expect(first.ticket.claim).to.deep.include({ leaseUntil: start + 60_000, expiresAt: start + 86_400_000 });
    clock.set(start + 59_999);
    expect(await requests.start('key_a', 'k', 'fp')).to.deep.nested.include({ 'error.code': 'conflict' });
    clock.set(start + 60_000);
    const resumed = await requests.start('key_a', 'k', 'fp');
    expect(resumed.kind === 'process' && resumed.ticket.creation.resumed).to.equal(true);
  });

  it('a kept answer is replayed until 24 h after it was given, not a millisecond longer', async () => {
    const start = Date.UTC(2027, 0, 1);
    const clock = new ManualClock(start);
    const requests = new IdempotentRequests(new MapStore(), clock, nodeDigests);
    const first = await requests.start('key_a', 'k', 'fp');
    if (first.kind !== 'process') throw new Error('expected a claim');
    await requests.finish(first.ticket, { status: 201, body: '{}' });
    clock.set(start + 86_400_000 - 1);
    expect(await requests.start('key_a', 'k', 'fp')).to.deep.equal({
      kind: 'replay',
      answer: { status: 201, body: '{}' },
    });
    clock.set(start + 86_400_000);
    expect((await requests.start('key_a', 'k', 'fp')).kind, 'a new request').to.equal('process');
  });

  it('refusals say what is wrong and what to do: name the Idempotency-Key and its rule', () => {
    const bad = checkIdempotencyKey('');
    expect(!bad.ok && bad.error.message)
      .to.include('Idempotency-Key')
      .and.to.include('1 to 255 printable ASCII');
    const running: IdempotencyRecord = {
      state: 'in_progress',
      fingerprint: 'f',
      token: 't',
      leaseUntil: 1,
      expiresAt: 1,
    };
    const reused = decideReplay(running, 'g');
    expect(reused.kind === 'refused' && reused.error.message).to.match(
      /Idempotency-Key was used with a different request.*new key/,
    );
    const conflict = decideReplay(running, 'f');
    expect(conflict.kind === 'refused' && conflict.error.message).to.match(
      /Idempotency-Key is still being processed; retry/,
    );
  });

  it('fingerprints are kept across processes and versions: their formulas are fixed (these digests)', () => {
    // A record lives 24 h in a shared store: every process, of any version, must fingerprint a request alike.
    expect(requestFingerprint(nodeDigests, 'POST', '/v1/pets', 'a'.repeat(64))).to.equal(
      nodeDigests.sha256Hex(`POST\n/v1/pets\n${'a'.repeat(64)}`),
    );
    expect(oversizedRequestFingerprint(nodeDigests, 'POST', '/v1/pets')).to.equal(
      '7b8d1033f24e186ca2a4d7b6e5672a2db0301768685b18345fd9ba9575c3c431',
    );
    // The transport asks the use case, which fingerprints by the same formulas.
    const requests = new IdempotentRequests(new MapStore(), new ManualClock(), nodeDigests);
    expect(requests.fingerprint('POST', '/v1/pets', 'a'.repeat(64))).to.equal(
      requestFingerprint(nodeDigests, 'POST', '/v1/pets', 'a'.repeat(64)),
    );
    expect(requests.oversizedFingerprint('POST', '/v1/pets')).to.equal(
      '7b8d1033f24e186ca2a4d7b6e5672a2db0301768685b18345fd9ba9575c3c431',
    );
  });
});

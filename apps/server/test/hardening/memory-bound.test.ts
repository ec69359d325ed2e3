import { expect } from 'chai';
import { Admission, anonymousSubject, Authenticator, DAY_MS, MINUTE_MS, windowStart } from '@petstore/domain';
import { ManualClock, nodeDigests } from '@petstore/domain/testing';
import { ApiKeyStoreInMemory, QuotaStoreInMemory } from '@petstore/adapters-memory';
import { send, startHarness } from './support.js';

const DAY0 = Date.UTC(2027, 6, 1);

describe('hardening: memory stays bounded under hostile traffic (rotating keys and addresses)', function () {
  this.timeout(60_000);

  it('100,000 rotating client addresses: state is one entry per address of the day, and all of it is dropped after the day', async () => {
    const clock = new ManualClock(DAY0);
    const quotas = new QuotaStoreInMemory();
    const admission = new Admission(quotas, clock);
    for (let i = 0; i < 100_000; i++) {
      clock.set(DAY0 + Math.floor((i * DAY_MS) / 100_000)); // spread over the whole UTC day
      const decision = await admission.admit(anonymousSubject(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`));
      expect(decision.outcome).to.equal('admitted');
    }
    expect(quotas.size, 'bounded by the subjects seen in one day').to.equal(100_000);
    // The next UTC day: every window of yesterday has ended and no ban runs, so the state is swept.
    clock.set(DAY0 + DAY_MS);
    await admission.admit(anonymousSubject('192.0.2.1'));
    expect(quotas.size, 'expired windows are dropped').to.equal(1);
  });

  it('a ban outlives its day only as long as the ban itself, then its state is dropped too', async () => {
    const clock = new ManualClock(DAY0 + DAY_MS - 5 * MINUTE_MS);
    const quotas = new QuotaStoreInMemory();
    const admission = new Admission(quotas, clock, { threshold: 2, seconds: 3_600 });
    const subject = { id: 'a:203.0.113.9', plan: 'free' as const, quota: { perMinute: 1, perDay: 10 } };
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push((await admission.admit(subject)).outcome);
    expect(outcomes).to.deep.equal(['admitted', 'rate_limited', 'temporarily_banned']);
    clock.set(DAY0 + DAY_MS + 1); // next day, the ban (1 h) still runs
    await admission.admit(anonymousSubject('198.51.100.1'));
    expect(quotas.size).to.equal(2);
    expect((await admission.admit(subject)).outcome).to.equal('temporarily_banned');
    clock.set(DAY0 + 2 * DAY_MS); // the day after: the ban is over, its day is over
    await admission.admit(anonymousSubject('198.51.100.2'));
    expect(quotas.size).to.equal(1);
  });

  it('100,000 rotating invalid keys from one address create one quota entry (the address) and nothing in the key store', async () => {
    const clock = new ManualClock(DAY0 + 12 * 3_600_000);
    const quotas = new QuotaStoreInMemory();
    const keys = new ApiKeyStoreInMemory();
    const authenticator = new Authenticator(keys, nodeDigests);
    const admission = new Admission(quotas, clock);
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 100_000; i++) {
      if (i % 1_000 === 0) clock.advance(MINUTE_MS); // a fresh minute window now and then
      // What the HTTP gate does: an invalid credential makes the caller its address.
      const auth = await authenticator.authenticate(`Bearer guess-${i.toString(36)}`);
      expect(auth.ok).to.equal(false);
      const decision = await admission.admit(anonymousSubject('198.51.100.77'));
      outcomes.set(decision.outcome, (outcomes.get(decision.outcome) ?? 0) + 1);
    }
    expect(quotas.size).to.equal(1);
    // Guessing at speed is limited: the address is banned after its tenth 429 in a minute.
    expect(outcomes.get('admitted')).to.be.at.most(1_000);
    expect(outcomes.get('temporarily_banned')).to.be.greaterThan(90_000);
    expect(windowStart(clock.now(), DAY_MS)).to.equal(DAY0);
  });

  it('over HTTP with a trusted proxy: 3,000 rotating X-Forwarded-For addresses and 2,000 rotating keys stay one entry per address, dropped after the day', async () => {
    const clock = new ManualClock(DAY0 + 3_600_000);
    const h = await startHarness({ env: { PETSTORE_API_KEYS: 'mem-key:pro', PETSTORE_TRUST_PROXY: 'true' }, clock });
    try {
      const batch = async (n: number, make: (i: number) => Record<string, string>) => {
        const statuses = new Map<number, number>();
        for (let start = 0; start < n; start += 100) {
          const answers = await Promise.all(
            Array.from({ length: Math.min(100, n - start) }, (_, j) =>
              send(h.port, { path: '/v1/pets', headers: make(start + j) }),
            ),
          );
          for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        }
        return statuses;
      };
      const rotating = await batch(3_000, (i) => ({
        'X-Forwarded-For': `10.9.${i >> 8}.${i & 255}`,
        Authorization: `Bearer wrong-${i}`,
      }));
      expect([...rotating.keys()]).to.deep.equal([401]);
      expect(h.quotas.size).to.equal(3_000);
      const oneAddress = await batch(2_000, (i) => ({
        'X-Forwarded-For': '10.8.0.1',
        Authorization: `Bearer wrong-${i}`,
      }));
      expect(oneAddress.get(401)).to.equal(60); // the free plan's minute, then 429 whatever the key
      expect(oneAddress.get(429)).to.equal(1_940);
      expect(h.quotas.size, 'rotating keys added one entry: the address').to.equal(3_001);
      expect(
        h.faults.count({ port: 'ApiKeyStore', method: 'save' }),
        'only the configured key was ever saved',
      ).to.equal(1);
      clock.advance(DAY_MS);
      expect((await send(h.port, { path: '/v1/pets', headers: { Authorization: 'Bearer mem-key' } })).status).to.equal(
        200,
      );
      expect(h.quotas.size, 'yesterday is gone').to.equal(1);
    } finally {
      await h.stop();
    }
  });
});

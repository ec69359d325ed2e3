import { expect } from 'chai';
import {
  DELIVERY_OUTCOMES,
  WEBHOOK_DELIVERIES_KEPT,
  WEBHOOK_LEASE_MS,
  WEBHOOK_MAX_ANSWER_BYTES,
  WEBHOOK_ROTATION_OVERLAP_MS,
  WEBHOOK_SECRET_BYTES,
  WEBHOOK_SECRET_PREFIX,
  WEBHOOK_TIMEOUT_MS,
  WEBHOOK_URL_MAX_LENGTH,
} from '../src/index.js';

describe('the numbers of webhooks (docs/rules.md §15, "Webhooks")', () => {
  it('a URL of at most 2,048 characters; a secret of whsec_ and 32 random bytes', () => {
    expect(WEBHOOK_URL_MAX_LENGTH).to.equal(2048);
    expect(WEBHOOK_SECRET_BYTES).to.equal(32);
    expect(WEBHOOK_SECRET_PREFIX).to.equal('whsec_');
  });

  it('a replaced secret signs for 24 hours after a rotation', () => {
    expect(WEBHOOK_ROTATION_OVERLAP_MS).to.equal(24 * 3_600_000);
  });

  it('a delivery succeeds with a 2xx within 10 seconds; at most 64 KiB of the answer is read', () => {
    expect(WEBHOOK_TIMEOUT_MS).to.equal(10_000);
    expect(WEBHOOK_MAX_ANSWER_BYTES).to.equal(65_536);
  });

  it('the deliveries log keeps the last 1,000 attempts; a lease is taken for 30 seconds', () => {
    expect(WEBHOOK_DELIVERIES_KEPT).to.equal(1000);
    expect(WEBHOOK_LEASE_MS).to.equal(30_000);
  });

  it('an attempt comes to one of five outcomes, in the order of the rules’ table', () => {
    expect(DELIVERY_OUTCOMES).to.deep.equal(['delivered', 'failed', 'timeout', 'unreachable', 'refused']);
  });
});

import { expect } from 'chai';
import fc from 'fast-check';
import {
  ANONYMOUS_QUOTA,
  anonymousSubject,
  apiKeyRecord,
  decideAdmission,
  deprecationHeaders,
  GET_PET_DEPRECATION,
  httpDate,
  isSunset,
  PLAN_QUOTAS,
  QUOTE_LIMIT,
  quoteInput,
} from '../src/index.js';
import { nodeDigests } from '../test-support/index.js';

describe('plan table (docs/rules.md §5)', () => {
  it('holds the published numbers; anonymous callers get the free plan', () => {
    expect(PLAN_QUOTAS).to.deep.equal({
      free: { perMinute: 60, perDay: 1000 },
      pro: { perMinute: 300, perDay: 10000 },
      business: { perMinute: 1000, perDay: 100000 },
    });
    expect(ANONYMOUS_QUOTA).to.deep.equal(PLAN_QUOTAS.free);
    expect(anonymousSubject('10.0.0.1')).to.deep.equal({ id: 'a:10.0.0.1', plan: 'free', quota: PLAN_QUOTAS.free });
  });

  it('gives enterprise keys their own quota and refuses custom numbers elsewhere', () => {
    expect(apiKeyRecord(nodeDigests, 'k', 'enterprise', { perMinute: 5, perDay: 50 })).to.deep.include({
      plan: 'enterprise',
      quota: { perMinute: 5, perDay: 50 },
    });
    expect(apiKeyRecord(nodeDigests, 'k', 'enterprise')).to.be.a('string');
    expect(apiKeyRecord(nodeDigests, 'k', 'enterprise', { perMinute: 0, perDay: 50 })).to.be.a('string');
    expect(apiKeyRecord(nodeDigests, 'k', 'enterprise', { perMinute: 60, perDay: 50 })).to.be.a('string');
    expect(apiKeyRecord(nodeDigests, 'k', 'free', { perMinute: 5, perDay: 50 })).to.be.a('string');
    expect(apiKeyRecord(nodeDigests, '', 'free')).to.be.a('string');
  });
});

describe('admission decision numbers', () => {
  const now = Date.UTC(2027, 0, 1, 12, 30, 15, 500);
  const quota = { perMinute: 60, perDay: 1000 };

  it('reports the binding window: the one with fewer remaining', () => {
    const d = decideAdmission({ outcome: 'admitted', minuteCount: 10, dayCount: 100, bannedUntil: 0 }, quota, now);
    expect(d.binding).to.deep.equal({
      name: 'minute',
      limit: 60,
      seconds: 60,
      remaining: 50,
      resetAt: Date.UTC(2027, 0, 1, 12, 31) / 1000,
      resetIn: 45,
    });
    const dayBound = decideAdmission(
      { outcome: 'admitted', minuteCount: 1, dayCount: 990, bannedUntil: 0 },
      quota,
      now,
    );
    expect(dayBound.binding.name).to.equal('day');
    expect(dayBound.binding.remaining).to.equal(10);
  });

  it('on a tie, reports the window that resets later (the day)', () => {
    const d = decideAdmission({ outcome: 'rejected', minuteCount: 60, dayCount: 1000, bannedUntil: 0 }, quota, now);
    expect(d.binding.name).to.equal('day');
    expect(d.outcome).to.equal('rate_limited');
    expect(d.retryAfter).to.equal(d.binding.resetIn);
    expect(d.binding.resetAt).to.equal(Date.UTC(2027, 0, 2) / 1000);
  });

  it('gives Retry-After of at least one second, and the ban time left when banned', () => {
    const justBefore = Date.UTC(2027, 0, 1, 12, 30, 59, 999);
    const d = decideAdmission(
      { outcome: 'rejected', minuteCount: 60, dayCount: 61, bannedUntil: 0 },
      quota,
      justBefore,
    );
    expect(d.retryAfter).to.equal(1);
    const banned = decideAdmission(
      { outcome: 'banned', minuteCount: 3, dayCount: 3, bannedUntil: now + 899_001 },
      quota,
      now,
    );
    expect(banned.outcome).to.equal('temporarily_banned');
    expect(banned.retryAfter).to.equal(900);
    expect(banned.binding.remaining).to.equal(0);
  });
});

describe('deprecation of getPet', () => {
  it('sunsets at 2030-12-05T00:00:00Z and was deprecated earlier', () => {
    expect(GET_PET_DEPRECATION.sunsetAt).to.equal(Date.parse('2030-12-05T00:00:00Z'));
    expect(GET_PET_DEPRECATION.deprecatedAt).to.be.below(GET_PET_DEPRECATION.sunsetAt);
    expect(isSunset(GET_PET_DEPRECATION, GET_PET_DEPRECATION.sunsetAt - 1)).to.equal(false);
    expect(isSunset(GET_PET_DEPRECATION, GET_PET_DEPRECATION.sunsetAt)).to.equal(true);
  });

  it('gives the Deprecation, Sunset and Link header values', () => {
    expect(deprecationHeaders(GET_PET_DEPRECATION)).to.deep.equal({
      Deprecation: `@${GET_PET_DEPRECATION.deprecatedAt / 1000}`,
      Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
      Link: '</v1/pets>; rel="successor-version"',
    });
    expect(httpDate(Date.UTC(1994, 10, 6, 8, 49, 37))).to.equal('Sun, 06 Nov 1994 08:49:37 GMT');
  });
});

describe('quoting client input in messages', () => {
  it('property: at most 64 code points of the input, cut with …, and short input unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        const quoted = quoteInput(text);
        const points = Array.from(text);
        if (points.length <= QUOTE_LIMIT) expect(quoted).to.equal(text);
        else expect(quoted).to.equal(`${points.slice(0, QUOTE_LIMIT).join('')}…`);
      }),
    );
    expect(quoteInput('x'.repeat(200_000))).to.equal(`${'x'.repeat(64)}…`);
  });
});

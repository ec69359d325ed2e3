// docs/rules.md §14: the answer of GET /v1/me as its JSON Schema (the one the OpenAPI document
// shows) describes it: the key, its plan and quota, the minute window then the day window, the ban.
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { OwnStatusSchema, QUOTA_MAX } from '../src/index.js';

const ajv = new Ajv2020({ strict: true, validateFormats: false });
ajv.addFormat('int64', true);
ajv.addFormat('date-time', true);
const accepts = ajv.compile(OwnStatusSchema);

const window = (name: string, limit: number, remaining: number, resetAt: string) => ({
  name,
  limit,
  remaining,
  resetAt,
});
const status = (windows: unknown[], bannedUntil: string | null = null) => ({
  keyId: 'key_0123456789ab',
  role: 'client',
  plan: 'free',
  quota: { perMinute: 10, perDay: 1000 },
  windows,
  bannedUntil,
});

describe('the OwnStatus schema (docs/rules.md §14)', () => {
  it('takes the minute window, then the day window, each with its limit, what is left and its reset', () => {
    const minute = window('minute', 10, 3, '2027-03-03T10:16:00.000Z');
    const day = window('day', 1000, 993, '2027-03-04T00:00:00.000Z');
    expect(accepts(status([minute, day])), JSON.stringify(accepts.errors)).to.equal(true);
    expect(
      accepts(
        status(
          [window('minute', 10, 0, minute.resetAt), window('day', 1000, 0, day.resetAt)],
          '2027-03-03T10:30:00.000Z',
        ),
      ),
    ).to.equal(true);
    for (const windows of [
      [day, minute],
      [minute],
      [minute, day, day],
      [minute, { ...day, extra: 1 }],
      [minute, window('day', 1000, -1, day.resetAt)],
      [minute, window('day', 1000, QUOTA_MAX + 1, day.resetAt)],
      [{ name: 'minute', limit: 10, remaining: 3 }, day],
    ]) {
      expect(accepts(status(windows)), JSON.stringify(windows)).to.equal(false);
    }
  });
});

// The one table from error code to HTTP status (docs/rules.md §3), and the way back for statuses Koa or Node raise.
import { expect } from 'chai';
import { codeForStatus, ERROR_STATUS } from '../src/errors.js';

describe('the error table (docs/rules.md §3)', () => {
  it('gives every code of §3 its status', () => {
    expect(ERROR_STATUS).to.deep.equal({
      validation_failed: 400,
      malformed_json: 400,
      unauthorized: 401,
      forbidden: 403,
      not_found: 404,
      method_not_allowed: 405,
      request_timeout: 408,
      conflict: 409,
      gone: 410,
      precondition_failed: 412,
      payload_too_large: 413,
      unsupported_media_type: 415,
      idempotency_key_reused: 422,
      rate_limited: 429,
      temporarily_banned: 429,
      headers_too_large: 431,
      internal_error: 500,
      unavailable: 503,
      insufficient_storage: 507,
    });
  });

  it('answers a status raised outside our code with a code of that status (the first in the table), else internal_error', () => {
    for (const status of new Set(Object.values(ERROR_STATUS)))
      expect(ERROR_STATUS[codeForStatus(status)], String(status)).to.equal(status);
    expect(codeForStatus(400)).to.equal('validation_failed');
    expect(codeForStatus(429)).to.equal('rate_limited');
    for (const status of [402, 418, 451, 502, 504]) expect(codeForStatus(status)).to.equal('internal_error');
  });
});

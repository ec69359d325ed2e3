import type { ApiKeyStore } from '../ports/api-key-store.port.js';
import type { Unauthorized } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import type { Subject } from '../auth/api-key.js';
import { constantTimeEqual, sha256Hex } from '../auth/sha256.js';

// RFC 6750 §2.1: the scheme is case-insensitive; the credential is a token68.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const SCHEME = /^bearer(?: |$)/i;

const missing: Unauthorized = {
  code: 'unauthorized',
  reason: 'missing',
  message: 'send your API key as "Authorization: Bearer <API_KEY>"',
};
const invalid: Unauthorized = {
  code: 'unauthorized',
  reason: 'invalid',
  message: 'the API key is not valid',
};

/** Length of the key-hash prefix used as a log-safe tag. */
const TAG_LENGTH = 12;

/** Resolves an `Authorization` header to the key's subject (plan and quota), or `unauthorized`. */
export class Authenticator {
  constructor(private readonly keys: ApiKeyStore) {}

  async authenticate(authorization: string | undefined): Promise<Result<Subject, Unauthorized>> {
    if (authorization === undefined || !SCHEME.test(authorization)) return fail(missing);
    const match = BEARER.exec(authorization);
    if (!match) return fail(invalid);
    const keyHash = sha256Hex(match[1]!);
    const record = await this.keys.findByHash(keyHash);
    if (!record || !constantTimeEqual(record.keyHash, keyHash)) return fail(invalid);
    return ok({ id: `k:${keyHash}`, plan: record.plan, quota: record.quota, keyTag: keyHash.slice(0, TAG_LENGTH) });
  }
}

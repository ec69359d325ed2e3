import type { Unauthorized } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import { publicKeyId, type ApiKeyRecord, type Subject } from '../auth/api-key.js';
import type { Digests } from '../ports/digests.port.js';

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

/** What authentication needs of a key store (an `ApiKeyStore` is one). */
export interface KeyLookup {
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
}

/**
 * Resolves an `Authorization` header to the key's subject (plan and quota), or `unauthorized`: the
 * key is looked up by its SHA-256, and the record found must carry that very hash.
 */
export class Authenticator {
  constructor(
    private readonly keys: KeyLookup,
    private readonly digests: Digests,
  ) {}

  async authenticate(authorization: string | undefined): Promise<Result<Subject, Unauthorized>> {
    if (authorization === undefined || !SCHEME.test(authorization)) return fail(missing);
    const match = BEARER.exec(authorization);
    if (!match) return fail(invalid);
    const keyHash = this.digests.sha256Hex(match[1]!);
    const record = await this.keys.findByHash(keyHash);
    if (!record || !this.digests.equal(record.keyHash, keyHash)) return fail(invalid);
    return ok({
      id: `k:${keyHash}`,
      plan: record.plan,
      quota: record.quota,
      caller:
        record.origins === undefined
          ? { keyId: publicKeyId(keyHash), role: record.role }
          : { keyId: publicKeyId(keyHash), role: record.role, origins: record.origins },
    });
  }
}

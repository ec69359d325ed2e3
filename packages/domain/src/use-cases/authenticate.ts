import { andThen, type Answer } from '../ports/answer.js';
import type { Unauthorized } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import { publicKeyId, type ApiKeyRecord, type Subject } from '../auth/api-key.js';
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

/** What authentication needs of a key store (an `ApiKeyStore` is one). */
export interface KeyLookup {
  findByHash(keyHash: string): Answer<ApiKeyRecord | undefined>;
}

/** SHA-256 of a key's UTF-8 bytes as lowercase hex (a lone surrogate encoded as U+FFFD). */
export type KeyHasher = (key: string) => string;

/**
 * Resolves an `Authorization` header to the key's subject (plan and quota), or `unauthorized`.
 * `hashKey` defaults to the domain's own SHA-256; a platform's native one (Node's `crypto.hash`)
 * gives the same hex, faster.
 */
export class Authenticator {
  constructor(
    private readonly keys: KeyLookup,
    private readonly hashKey: KeyHasher = sha256Hex,
  ) {}

  /** A value at once when the key store answers at once (in process), else a promise (`Answer`). */
  authenticate(authorization: string | undefined): Answer<Result<Subject, Unauthorized>> {
    if (authorization === undefined || !SCHEME.test(authorization)) return fail(missing);
    const match = BEARER.exec(authorization);
    if (!match) return fail(invalid);
    const keyHash = this.hashKey(match[1]!);
    return andThen(this.keys.findByHash(keyHash), (record): Result<Subject, Unauthorized> => {
      if (!record || !constantTimeEqual(record.keyHash, keyHash)) return fail(invalid);
      return ok({
        id: `k:${keyHash}`,
        plan: record.plan,
        quota: record.quota,
        caller: { keyId: publicKeyId(keyHash), role: record.role },
      });
    });
  }
}

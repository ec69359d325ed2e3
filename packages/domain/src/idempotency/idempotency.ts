import { fail, ok, type Result } from '../result.js';
import { validationFailed, type Conflict, type IdempotencyKeyReused, type ValidationFailed } from '../errors.js';
import type { Digests } from '../ports/digests.port.js';

/**
 * Idempotent creation (docs/rules.md §10): the rules, as plain functions. The store is a port
 * (`IdempotencyStore`), the use case `IdempotentRequests` ties them together.
 */

/** How long a kept answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a claim of a request still being processed holds. Longer than any request can take
 * (30 s to arrive, 5 s per store call), so a live request never loses it; short enough that a
 * claim left by a process that died mid-request is taken over by a repeat within a minute (which
 * answers what that process created, if anything: the creation token stays with the record).
 */
export const IN_PROGRESS_LEASE_MS = 60 * 1000;

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** 1–255 printable ASCII characters: the rule, as the source of a regular expression (shared with the JSON Schema). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x20-\\x7E]{1,255}$';
const PRINTABLE_ASCII = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/**
 * The `Idempotency-Key` header: absent (undefined), or 1–255 printable ASCII characters
 * (draft-ietf-httpapi-idempotency-key-header); anything else is a `validation_failed`.
 */
export const checkIdempotencyKey = (raw: string | undefined): Result<string | undefined, ValidationFailed> => {
  if (raw === undefined) return ok(undefined);
  if (PRINTABLE_ASCII.test(raw)) return ok(raw);
  return fail(
    validationFailed(
      'Idempotency-Key',
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters`,
    ),
  );
};

/**
 * What makes two requests "the same request": the method, the path and the body's bytes. The
 * caller hashes the body (SHA-256, hex); the result is a fixed-size digest (SHA-256 by `digests`),
 * whatever the size of the request. Records outlive a process: the formula never changes.
 */
export const requestFingerprint = (digests: Digests, method: string, path: string, bodySha256Hex: string): string =>
  digests.sha256Hex(`${method}\n${path}\n${bodySha256Hex}`);

/** Stands in the fingerprint where the body's SHA-256 would be, for a body over the limit. */
const OVERSIZED_BODY = 'body-over-limit';

/**
 * The fingerprint of a request whose body is over the size limit (docs/rules.md §1: 1 MiB), which
 * is refused with 413 and never read whole: it stands for "this method and path with a body over
 * the limit", as far as the request was seen. Its answer (the 413) is kept like any other (§10):
 * the same oversized request repeated gets it again, whatever its bytes; the same key with a body
 * within the limit is another request (`idempotency_key_reused`). It can never equal the
 * fingerprint of a body that was read: the marker in the body's place is not a SHA-256 in hex.
 */
export const oversizedRequestFingerprint = (digests: Digests, method: string, path: string): string =>
  digests.sha256Hex(`${method}\n${path}\n${OVERSIZED_BODY}`);

/** Where a key is kept: keys are scoped per API key (its public id), across all paths. */
export const idempotencyId = (scope: string, key: string): string => `${scope}:${key}`;

/**
 * The creation token of a key's first claim at `claimedAt`: a SHA-256 (hex) of the record's id (the
 * API key's public id and the `Idempotency-Key`) and that instant. Every create run under the key
 * writes it into the created resource's own document, in the same single-document write, under a
 * unique index: one resource per token, whichever attempt, process or late write stored it. The
 * instant makes the same key used again after its record expired (24 h) a new request with a new token.
 */
export const creationToken = (digests: Digests, id: string, claimedAt: number): string =>
  digests.sha256Hex(`${id}\n${claimedAt}`);

/**
 * A create run under an `Idempotency-Key`, as the use case that creates sees it (docs/rules.md §10):
 * the token to write into what it creates, and whether an earlier attempt of the same request may
 * have created already (its claim was taken over: it ended 5xx or its lease ran out), in which case
 * the resource created under the token, if any, is the answer.
 */
export interface IdempotentCreation {
  readonly token: string;
  readonly resumed: boolean;
}

/** The part of an answer that is kept and replayed. */
export interface KeptAnswer {
  readonly status: number;
  /** The body exactly as sent (JSON text). */
  readonly body: string;
  readonly location?: string;
}

/**
 * A key claimed by a request being processed, or by one that ended without an answer worth keeping
 * (a 5xx: it may or may not have created): the request's fingerprint and its creation token, kept
 * until `expiresAt`; the claim itself holds until `leaseUntil`.
 */
export interface InProgressRecord {
  readonly state: 'in_progress';
  readonly fingerprint: string;
  /**
   * The creation token (`creationToken`): fixed by the key's first claim and kept by every claim that
   * takes the record over, so that every attempt of the request writes the same token into what it
   * creates, and a repeat finds what an earlier attempt created (docs/rules.md §10).
   */
  readonly token: string;
  /**
   * Milliseconds since the epoch: until then the claim holds (a repeat is 409); from then on a repeat
   * of the same request takes it over, token and all. A request that ends without an answer worth
   * keeping ends its lease at once (0).
   */
  readonly leaseUntil: number;
  /** Milliseconds since the epoch (24 h after the key's first claim); from then on the record counts as absent. */
  readonly expiresAt: number;
}

/** A key whose answer is kept, until `expiresAt` (24 h after the answer). */
export interface CompletedRecord {
  readonly state: 'completed';
  readonly fingerprint: string;
  readonly expiresAt: number;
  readonly answer: KeptAnswer;
}

export type IdempotencyRecord = InProgressRecord | CompletedRecord;

/**
 * The lease takeover (docs/rules.md §10): what a claim (`claim`, at `now`) makes of the record `held`
 * for its key (not expired). Only an in-progress record of the same request (the same fingerprint)
 * whose lease has ended (`leaseUntil <= now`: its request ended 5xx, or its process died) is taken
 * over: the answer is the record to store, the held claim with its creation token and `expiresAt`
 * (every attempt of the request writes the same token) and the new claim's lease. Anything else (a
 * kept answer, another request, a lease still running) holds the key: `undefined`. Every
 * `IdempotencyStore` decides by it.
 */
export const takeOver = (
  held: IdempotencyRecord,
  claim: InProgressRecord,
  now: number,
): InProgressRecord | undefined =>
  held.state === 'in_progress' && held.leaseUntil <= now && held.fingerprint === claim.fingerprint
    ? { ...held, leaseUntil: claim.leaseUntil }
    : undefined;

/**
 * The outcome of a claim: the key is now this request's (`record`: the claim as stored), or the record
 * that holds it. `resumed`: the claim took over an earlier claim of the same request (whose attempt
 * may have created), keeping that one's `token` and `expiresAt`, with a `leaseUntil` of its own.
 */
export type ClaimOutcome =
  | { readonly claimed: true; readonly record: InProgressRecord; readonly resumed: boolean }
  | { readonly claimed: false; readonly held: IdempotencyRecord };

/**
 * A claim of a key (docs/rules.md §10) against the record held for it, if any, as a store that runs
 * one call at a time decides it: an absent or expired record is free (`claim` is stored as given);
 * else the lease takeover (`takeOver`); else the record holds the key. A store shared by processes
 * decides the same with atomic writes of its own.
 */
export const settleClaim = (
  held: IdempotencyRecord | undefined,
  claim: InProgressRecord,
  now: number,
): ClaimOutcome => {
  if (held === undefined || held.expiresAt <= now) return { claimed: true, record: claim, resumed: false };
  const record = takeOver(held, claim, now);
  return record === undefined ? { claimed: false, held } : { claimed: true, record, resumed: true };
};

/** Statuses that say nothing about the request itself, and so are never kept (besides every 5xx). */
const NOT_KEPT = new Set([401, 403, 408, 429]);

/**
 * Which answers are kept: every answer below 500 except 401, 403, 408 and 429. (The 409 that
 * says "still in progress" is never an answer of the request's own processing, so it never
 * reaches this rule.) A 5xx is not kept: a retry runs again. A 413 (body over the limit) and a
 * 415 (body not JSON) are kept too: they say something about the request itself; the transport
 * fingerprints them as far as it saw the request (`oversizedRequestFingerprint` for a 413).
 */
export const isKeptStatus = (status: number): boolean => status < 500 && !NOT_KEPT.has(status);

/**
 * How a claim ends once its request was answered with `status` (docs/rules.md §10):
 * - `keep`: the answer is kept (`isKeptStatus`) and replayed to the same request;
 * - `release`: a 5xx may have created (a write that landed before the failure), and so may the
 *   earlier attempt a `resumed` claim took over: the record stays with its fingerprint and token,
 *   its lease ended, so that only the same request runs again, and finds what was created;
 * - `discard`: a 401, 403, 408 or 429 on a claim of its own says nothing about the request and
 *   comes before anything is written: the record goes, and the key is free for any request.
 */
export type ClaimEnd = 'keep' | 'release' | 'discard';

export const claimEndFor = (status: number, resumed: boolean): ClaimEnd => {
  if (isKeptStatus(status)) return 'keep';
  return status >= 500 || resumed ? 'release' : 'discard';
};

/** What a request with a key already held gets. */
export type ReplayDecision =
  | { readonly kind: 'replay'; readonly answer: KeptAnswer }
  | { readonly kind: 'refused'; readonly error: IdempotencyKeyReused | Conflict };

/**
 * The decision for a request whose key is already held (and not expired): another request with
 * the same key → `idempotency_key_reused` (whether or not the first is done); the same request
 * while the first runs → `conflict`; the same request once answered → that answer again.
 */
export const decideReplay = (held: IdempotencyRecord, fingerprint: string): ReplayDecision => {
  if (held.fingerprint !== fingerprint) {
    return {
      kind: 'refused',
      error: {
        code: 'idempotency_key_reused',
        message:
          'this Idempotency-Key was used with a different request (method, path or body); use a new key for a new request',
      },
    };
  }
  if (held.state === 'in_progress') {
    return {
      kind: 'refused',
      error: {
        code: 'conflict',
        message: 'a request with this Idempotency-Key is still being processed; retry in a moment',
      },
    };
  }
  return { kind: 'replay', answer: held.answer };
};

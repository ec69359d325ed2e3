import type { Clock } from '../ports/clock.port.js';
import type { Digests } from '../ports/digests.port.js';
import type { IdempotencyStore } from '../ports/idempotency-store.port.js';
import type { Conflict, IdempotencyKeyReused } from '../errors.js';
import {
  creationToken,
  decideReplay,
  oversizedRequestFingerprint,
  requestFingerprint,
  IDEMPOTENCY_TTL_MS,
  idempotencyId,
  IN_PROGRESS_LEASE_MS,
  claimEndFor,
  type IdempotentCreation,
  type InProgressRecord,
  type KeptAnswer,
} from '../idempotency/idempotency.js';

/** A claim this process holds while it processes the request; hand it back to `finish` or `abandon`. */
export interface IdempotencyTicket {
  readonly id: string;
  /** The claim as the store holds it. */
  readonly claim: InProgressRecord;
  /** What the create run under this claim writes, and whether to look for an earlier attempt's resource first. */
  readonly creation: IdempotentCreation;
}

/** How a request with an `Idempotency-Key` starts: processed (with a ticket), replayed, or refused. */
export type IdempotentStart =
  | { readonly kind: 'process'; readonly ticket: IdempotencyTicket }
  | { readonly kind: 'replay'; readonly answer: KeptAnswer }
  | { readonly kind: 'refused'; readonly error: IdempotencyKeyReused | Conflict };

/**
 * Idempotent creation (docs/rules.md §10): the first request with a key claims it, is processed,
 * and its answer is kept for 24 h when the rule keeps it; a repeat gets that answer again, a
 * different request with the key is refused, and so is a repeat while the first still runs.
 * A request answered 401, 403, 408 or 429 leaves the key free, as if it had never been sent.
 * A request that ends without an answer worth keeping (a 5xx) ends its claim's lease but leaves
 * the record, and with it the creation token: a repeat takes the claim over (`resumed`) and answers
 * what an earlier attempt created under that token, if anything, instead of creating again. So
 * does a repeat after the lease of a claim whose process died or could not keep its answer.
 * Only a store outage throws (`StoreUnavailableError`).
 */
export class IdempotentRequests {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: Clock,
    /** The SHA-256 of fingerprints and creation tokens. */
    private readonly digests: Digests,
    private readonly ttlMs = IDEMPOTENCY_TTL_MS,
    private readonly leaseMs = IN_PROGRESS_LEASE_MS,
  ) {}

  /** The fingerprint of a request (`requestFingerprint`): its method, its path and the SHA-256 (hex) of its body. */
  fingerprint(method: string, path: string, bodySha256Hex: string): string {
    return requestFingerprint(this.digests, method, path, bodySha256Hex);
  }

  /** The fingerprint of a request whose body is over the size limit (`oversizedRequestFingerprint`). */
  oversizedFingerprint(method: string, path: string): string {
    return oversizedRequestFingerprint(this.digests, method, path);
  }

  /** `scope`: the API key's public id; `fingerprint`: the request's (`fingerprint`, `oversizedFingerprint`). */
  async start(scope: string, key: string, fingerprint: string): Promise<IdempotentStart> {
    const id = idempotencyId(scope, key);
    const now = this.clock.now();
    const claim: InProgressRecord = {
      state: 'in_progress',
      fingerprint,
      token: creationToken(this.digests, id, now),
      leaseUntil: now + this.leaseMs,
      expiresAt: now + this.ttlMs,
    };
    const outcome = await this.store.claim(id, claim, now);
    if (!outcome.claimed) return decideReplay(outcome.held, fingerprint);
    const { record, resumed } = outcome;
    return { kind: 'process', ticket: { id, claim: record, creation: { token: record.token, resumed } } };
  }

  /**
   * The request was answered: keep the answer when the rule keeps it; else end the claim, keeping
   * the record for a 5xx (a repeat of the same request runs again, under the same token) and
   * dropping it for an answer that says nothing about the request (the key is free): `claimEndFor`.
   */
  async finish(ticket: IdempotencyTicket, answer: KeptAnswer): Promise<void> {
    const end = claimEndFor(answer.status, ticket.creation.resumed);
    if (end === 'release') return this.store.release(ticket.id, ticket.claim);
    if (end === 'discard') return this.store.discard(ticket.id, ticket.claim);
    const kept: KeptAnswer = answer.location === undefined ? { status: answer.status, body: answer.body } : answer;
    return this.store.complete(ticket.id, ticket.claim, {
      state: 'completed',
      fingerprint: ticket.claim.fingerprint,
      expiresAt: this.clock.now() + this.ttlMs,
      answer: kept,
    });
  }

  /**
   * The request failed with no answer worth keeping (a 5xx, an outage): end the claim, so that a
   * repeat runs again at once, under the same creation token (what this attempt may have created is
   * found, never created twice).
   */
  abandon(ticket: IdempotencyTicket): Promise<void> {
    return this.store.release(ticket.id, ticket.claim);
  }
}

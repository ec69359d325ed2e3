import { expect } from 'chai';
import fc from 'fast-check';
import type { CompletedRecord, IdempotencyRecord, IdempotencyStore, InProgressRecord } from '../src/index.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';

const T0 = Date.UTC(2027, 0, 1);
const LEASE = 60_000;
const TTL = 86_400_000;

/** A first claim at `now`: its own token, a lease of a minute, kept a day. */
const claimAt = (fingerprint: string, now: number, token = `tok-${fingerprint}-${now}`): InProgressRecord => ({
  state: 'in_progress',
  fingerprint,
  token,
  leaseUntil: now + LEASE,
  expiresAt: now + TTL,
});
const done = (
  claim: InProgressRecord,
  now: number,
  status = 201,
  location: string | null = '/v1/pets/1',
): CompletedRecord => ({
  state: 'completed',
  fingerprint: claim.fingerprint,
  expiresAt: now + TTL,
  answer: location === null ? { status, body: `{"status":${status}}` } : { status, body: '{"id":1}', location },
});
/** What a claim that takes `held` over at `now` holds: `held`'s token and expiry, a lease of its own. */
const takenOver = (held: InProgressRecord, now: number): InProgressRecord => ({ ...held, leaseUntil: now + LEASE });

/** The model: a plain Map of what each id holds, plus every claim a caller was given (stale ones included). */
interface Model {
  now: number;
  readonly held: Map<string, IdempotencyRecord>;
  readonly claims: { id: string; claim: InProgressRecord }[];
}
type Real = IdempotencyStore;

const live = (m: Model, id: string): IdempotencyRecord | undefined => {
  const held = m.held.get(id);
  return held !== undefined && held.expiresAt > m.now ? held : undefined;
};
const isSame = (a: IdempotencyRecord | undefined, b: InProgressRecord): boolean =>
  a !== undefined &&
  a.state === 'in_progress' &&
  a.fingerprint === b.fingerprint &&
  a.token === b.token &&
  a.leaseUntil === b.leaseUntil;

/**
 * Completing or releasing a claim whose lease has passed is left to the adapter (another claim may
 * have taken it over; a live request never outlives its lease): the model only does it before the
 * lease ends. A stale claim meeting a later claim is checked on its own above.
 */
const unexpiredPick = (m: Readonly<Model>, pick: number): boolean =>
  m.claims.length > 0 && m.claims[pick % m.claims.length]!.claim.leaseUntil > m.now;

class ClaimCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly id: string,
    readonly fingerprint: string,
    readonly advance: number,
  ) {}
  check = () => true;
  async run(m: Model, store: Real): Promise<void> {
    m.now += this.advance;
    const claim = claimAt(this.fingerprint, m.now);
    const outcome = await store.claim(this.id, claim, m.now);
    const held = live(m, this.id);
    let granted: InProgressRecord | undefined;
    if (held === undefined) granted = claim;
    else if (held.state === 'in_progress' && held.leaseUntil <= m.now && held.fingerprint === this.fingerprint)
      granted = takenOver(held, m.now);
    if (granted === undefined) {
      expect(outcome, `${this.toString()}: the id is held`).to.deep.equal({ claimed: false, held });
    } else {
      expect(outcome, `${this.toString()}: the id is ${held === undefined ? 'free' : 'taken over'}`).to.deep.equal({
        claimed: true,
        record: granted,
        resumed: held !== undefined,
      });
      m.held.set(this.id, granted);
      m.claims.push({ id: this.id, claim: granted });
    }
  }
  toString = () => `claim(${this.id}, ${this.fingerprint}, +${this.advance})`;
}

class CompleteCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly status: number,
  ) {}
  check = (m: Readonly<Model>) => unexpiredPick(m, this.pick);
  async run(m: Model, store: Real): Promise<void> {
    const { id, claim } = m.claims[this.pick % m.claims.length]!;
    const record = done(claim, m.now, this.status, this.status === 201 ? '/v1/pets/7' : null);
    await store.complete(id, claim, record);
    if (isSame(m.held.get(id), claim)) m.held.set(id, record);
  }
  toString = () => `complete(#${this.pick}, ${this.status})`;
}

class ReleaseCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => unexpiredPick(m, this.pick);
  async run(m: Model, store: Real): Promise<void> {
    const { id, claim } = m.claims[this.pick % m.claims.length]!;
    await store.release(id, claim);
    if (isSame(m.held.get(id), claim)) m.held.set(id, { ...claim, leaseUntil: 0 });
  }
  toString = () => `release(#${this.pick})`;
}

class DiscardCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => unexpiredPick(m, this.pick);
  async run(m: Model, store: Real): Promise<void> {
    const { id, claim } = m.claims[this.pick % m.claims.length]!;
    await store.discard(id, claim);
    if (isSame(m.held.get(id), claim)) m.held.delete(id);
  }
  toString = () => `discard(#${this.pick})`;
}

const idArb = fc.constantFrom('key_a:k1', 'key_a:k2', 'key_b:k1');
const advanceArb = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 5_000 }),
  fc.constantFrom(LEASE - 1, LEASE, TTL - 1, TTL),
);

/**
 * The `IdempotencyStore` contract: every adapter runs this same suite. `make` gives a fresh,
 * empty store each time it is called.
 */
export const idempotencyStoreContract = (
  name: string,
  make: MakeFixture<IdempotencyStore>,
  options: ContractOptions = {},
): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };

  describe(`IdempotencyStore contract: ${name}`, function () {
    it('a claim takes a free id, stored as given; the next claim gets the record held', () =>
      withFixture(make, async (store) => {
        const first = claimAt('fp1', T0);
        expect(await store.claim('key_a:k', first, T0)).to.deep.equal({ claimed: true, record: first, resumed: false });
        expect(await store.claim('key_a:k', claimAt('fp2', T0 + 1), T0 + 1)).to.deep.equal({
          claimed: false,
          held: first,
        });
        expect(
          await store.claim('key_a:k', claimAt('fp1', T0 + LEASE - 1), T0 + LEASE - 1),
          'the same request within the lease',
        ).to.deep.equal({ claimed: false, held: first });
        // Another scope, or another key: independent.
        const other = claimAt('fp1', T0);
        expect(await store.claim('key_b:k', other, T0)).to.deep.equal({ claimed: true, record: other, resumed: false });
        expect(await store.claim('key_a:k2', other, T0)).to.deep.equal({
          claimed: true,
          record: other,
          resumed: false,
        });
      }));

    it('keeps a completed answer (status, body, Location) until it expires, then the id is free again', () =>
      withFixture(make, async (store) => {
        const claim = claimAt('fp', T0);
        await store.claim('key_a:k', claim, T0);
        const record = done(claim, T0 + 10);
        await store.complete('key_a:k', claim, record);
        expect(await store.claim('key_a:k', claimAt('fp', T0 + 20), T0 + 20)).to.deep.equal({
          claimed: false,
          held: record,
        });
        expect(
          await store.claim('key_a:k', claimAt('fp', T0 + LEASE + 1), T0 + LEASE + 1),
          'a kept answer is never taken over',
        ).to.deep.equal({ claimed: false, held: record });
        expect(await store.claim('key_a:k', claimAt('fp', record.expiresAt - 1), record.expiresAt - 1)).to.deep.equal({
          claimed: false,
          held: record,
        });
        const fresh = claimAt('fp', record.expiresAt);
        expect(
          await store.claim('key_a:k', fresh, record.expiresAt),
          'expired: a new claim with its own token',
        ).to.deep.equal({ claimed: true, record: fresh, resumed: false });
        // An answer without Location is kept without one.
        const other = claimAt('fp', T0);
        await store.claim('key_a:n', other, T0);
        const noLocation = done(other, T0, 400, null);
        await store.complete('key_a:n', other, noLocation);
        const held = await store.claim('key_a:n', claimAt('fp', T0 + 1), T0 + 1);
        expect(held).to.deep.equal({ claimed: false, held: noLocation });
        expect(
          held.claimed === false && Object.keys(held.held.state === 'completed' ? held.held.answer : {}),
        ).to.deep.equal(['status', 'body']);
      }));

    it('a release ends the lease and keeps the record: the same request takes it over at once, token and expiry kept; another request with the key is held', () =>
      withFixture(make, async (store) => {
        const claim = claimAt('fp', T0);
        await store.claim('key_a:k', claim, T0);
        await store.release('key_a:k', claim);
        const released = { ...claim, leaseUntil: 0 };
        expect(await store.claim('key_a:k', claimAt('other', T0 + 1), T0 + 1), 'another request').to.deep.equal({
          claimed: false,
          held: released,
        });
        const resumed = takenOver(claim, T0 + 1);
        expect(await store.claim('key_a:k', claimAt('fp', T0 + 1), T0 + 1)).to.deep.equal({
          claimed: true,
          record: resumed,
          resumed: true,
        });
        expect(
          await store.claim('key_a:k', claimAt('fp', T0 + 2), T0 + 2),
          'held by the takeover for its lease',
        ).to.deep.equal({ claimed: false, held: resumed });
        // Released again and taken over again: still the first claim's token, until the first claim's expiry.
        await store.release('key_a:k', resumed);
        expect(await store.claim('key_a:k', claimAt('fp', claim.expiresAt - 1), claim.expiresAt - 1)).to.deep.equal({
          claimed: true,
          record: takenOver(claim, claim.expiresAt - 1),
          resumed: true,
        });
        const fresh = claimAt('other', claim.expiresAt);
        expect(
          await store.claim('key_a:k', fresh, claim.expiresAt),
          'expired: a new request with its own token',
        ).to.deep.equal({ claimed: true, record: fresh, resumed: false });
      }));

    it('a discard removes the record: the key is free for any request, with a token of its own (docs/rules.md §10: a 401, 403, 408 or 429 is not kept)', () =>
      withFixture(make, async (store) => {
        const claim = claimAt('fp', T0);
        await store.claim('key_a:k', claim, T0);
        await store.discard('key_a:k', claim);
        const other = claimAt('other', T0 + 1);
        expect(await store.claim('key_a:k', other, T0 + 1), 'another request').to.deep.equal({
          claimed: true,
          record: other,
          resumed: false,
        });
        await store.discard('key_a:k', other);
        const same = claimAt('fp', T0 + 2);
        expect(
          await store.claim('key_a:k', same, T0 + 2),
          'the same request: a new claim, not a takeover',
        ).to.deep.equal({ claimed: true, record: same, resumed: false });
      }));

    it('a claim left behind (its request died or could not keep its answer) is taken over by the same request once its lease ends, never before', () =>
      withFixture(make, async (store) => {
        const claim = claimAt('fp', T0);
        await store.claim('key_a:k', claim, T0);
        expect(await store.claim('key_a:k', claimAt('fp', T0 + LEASE - 1), T0 + LEASE - 1)).to.deep.equal({
          claimed: false,
          held: claim,
        });
        expect(
          await store.claim('key_a:k', claimAt('other', T0 + LEASE), T0 + LEASE),
          'another request, after the lease',
        ).to.deep.equal({ claimed: false, held: claim });
        expect(await store.claim('key_a:k', claimAt('fp', T0 + LEASE), T0 + LEASE)).to.deep.equal({
          claimed: true,
          record: takenOver(claim, T0 + LEASE),
          resumed: true,
        });
      }));

    it('complete, release and discard act only on their own claim, never on a later claim of the same id, nor on one that took it over', () =>
      withFixture(make, async (store) => {
        const stale = claimAt('fp', T0);
        await store.claim('key_a:k', stale, T0);
        const later = takenOver(stale, T0 + LEASE);
        expect(await store.claim('key_a:k', claimAt('fp', T0 + LEASE), T0 + LEASE)).to.deep.equal({
          claimed: true,
          record: later,
          resumed: true,
        });
        await store.complete('key_a:k', stale, done(stale, T0 + LEASE));
        await store.release('key_a:k', stale);
        await store.discard('key_a:k', stale);
        expect(await store.claim('key_a:k', claimAt('fp', T0 + LEASE + 1), T0 + LEASE + 1)).to.deep.equal({
          claimed: false,
          held: later,
        });
        // And a new claim after the expiry: the old claims touch it no more.
        const fresh = claimAt('fp', stale.expiresAt);
        expect(await store.claim('key_a:k', fresh, stale.expiresAt)).to.deep.equal({
          claimed: true,
          record: fresh,
          resumed: false,
        });
        await store.complete('key_a:k', later, done(later, stale.expiresAt));
        await store.release('key_a:k', later);
        await store.discard('key_a:k', later);
        expect(await store.claim('key_a:k', claimAt('fp', stale.expiresAt + 1), stale.expiresAt + 1)).to.deep.equal({
          claimed: false,
          held: fresh,
        });
      }));

    it('of 20 simultaneous claims of one id, exactly one is granted', () =>
      withFixture(make, async (store) => {
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.claim('key_a:race', claimAt(`fp${i}`, T0), T0)),
        );
        expect(outcomes.filter((o) => o.claimed)).to.have.length(1);
        const winner = outcomes.findIndex((o) => o.claimed);
        for (const o of outcomes) if (!o.claimed) expect(o.held.fingerprint).to.equal(`fp${winner}`);
      }));

    it("of 20 simultaneous takeovers of a claim whose lease ended, exactly one is granted, with the first claim's token", () =>
      withFixture(make, async (store) => {
        const first = claimAt('fp', T0);
        await store.claim('key_a:race', first, T0);
        await store.release('key_a:race', first);
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.claim('key_a:race', claimAt('fp', T0 + 1 + i), T0 + 1 + i)),
        );
        const granted = outcomes.flatMap((o) => (o.claimed ? [o.record] : []));
        expect(granted).to.have.length(1);
        expect(outcomes.find((o) => o.claimed)).to.deep.include({ resumed: true });
        expect(granted[0]).to.deep.include({ token: first.token, expiresAt: first.expiresAt });
        for (const o of outcomes) if (!o.claimed) expect(o.held).to.deep.equal(granted[0]);
      }));

    it('property (model-based): claims, takeovers, completions, releases, discards and time behave as a plain map of unexpired records', () =>
      fc.assert(
        fc.asyncProperty(
          fc.commands(
            [
              fc
                .tuple(idArb, fc.constantFrom('fp1', 'fp2'), advanceArb)
                .map(([id, fp, advance]) => new ClaimCommand(id, fp, advance)),
              fc
                .tuple(fc.nat(), fc.constantFrom(201, 400, 409))
                .map(([pick, status]) => new CompleteCommand(pick, status)),
              fc.nat().map((pick) => new ReleaseCommand(pick)),
              fc.nat().map((pick) => new DiscardCommand(pick)),
            ],
            { maxCommands: 30 },
          ),
          (commands) =>
            withFixture(make, (store) =>
              fc.asyncModelRun(
                () => ({ model: { now: T0, held: new Map(), claims: [] } satisfies Model, real: store }),
                commands,
              ),
            ),
        ),
        runs,
      ));
  });
};

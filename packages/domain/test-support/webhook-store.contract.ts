import { expect } from 'chai';
import fc from 'fast-check';
import type { StoredWebhook, WebhookStore } from '../src/index.js';
import { WEBHOOK_DELIVERIES_KEPT } from '../src/index.js';
import { afterArb, afterFrom, expectListAnswer } from './exact-page.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import {
  attemptArb,
  attemptOf,
  cursorOf,
  idOf,
  inserted,
  modelBasedRun,
  newWebhook,
  plain,
  storedOf,
  T0,
  wholeLog,
} from './webhook-store.operations.js';

// ---------------------------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------------------------

/**
 * Holds an adapter of `WebhookStore` to every sentence of the port's doc comments
 * (ports/webhook-store.port.ts, docs/rules.md §15 "Webhooks"): positions, `taken`, paging, the
 * changes an update makes, removal with its log, leases (one winner of simultaneous takes, renewal,
 * takeover once run out), the conditional delivery writes, the log's numbering and its bound (also
 * under concurrent callers), and a model-based run of the whole port. `make` gives a fresh, empty store.
 */
export const webhookStoreContract = (make: MakeFixture<WebhookStore>, options: ContractOptions = {}): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };

  describe('WebhookStore contract (docs/rules.md §15, webhooks)', () => {
    it('stores a new subscription as given at positions 1, 2, 3, … with revision 1 and no lease; finds it by id', () =>
      withFixture(make, async (store) => {
        const first = newWebhook(1);
        const second = newWebhook(2, {
          types: ['pet.created', 'order.placed'],
          enabled: false,
          pausedReason: 'gone (410)',
          secrets: [{ secret: 'whsec_new' }, { secret: 'whsec_old', expiresAt: T0 + 99 }],
          delivered: 17,
          failures: 2,
          retryAt: T0 + 5000,
          description: '',
        });
        const third = newWebhook(3);
        expect(plain(await store.insert(first))).to.deep.equal(plain(storedOf(first, 1)));
        expect(plain(await store.insert(second))).to.deep.equal(plain(storedOf(second, 2)));
        expect(plain(await store.insert(third))).to.deep.equal(plain(storedOf(third, 3)));
        const found = await store.findById(second.id);
        expect(plain(found)).to.deep.equal(plain(storedOf(second, 2)));
        expect(found, 'no lease').not.to.have.property('lease');
        expect(await store.findById(first.id), 'every type: no `types`').not.to.have.property('types');
        expect(await store.findById(idOf(99))).to.equal(undefined);
      }));

    it('answers taken for an id that exists or existed (ids are never reused), and the refusal changes nothing; positions stay above every one given before', () =>
      withFixture(make, async (store) => {
        const a = await inserted(store, newWebhook(1));
        expect(await store.insert(newWebhook(1, { url: 'https://other.example/' }))).to.equal('taken');
        expect(plain(await store.findById(a.id))).to.deep.equal(plain(a));
        const b = await inserted(store, newWebhook(2));
        expect(b.position).to.equal(2);
        expect(await store.remove(b.id)).to.equal(true);
        expect(await store.insert(newWebhook(2)), 'a removed id').to.equal('taken');
        expect(await store.findById(b.id), 'the refused insert stored nothing').to.equal(undefined);
        expect(await store.remove(a.id)).to.equal(true);
        expect(await store.insert(newWebhook(1))).to.equal('taken');
        const c = await inserted(store, newWebhook(3));
        expect(c.position, 'above the removed newest').to.equal(3);
        expect((await store.list(0, 10)).map((w) => w.id)).to.deep.equal([c.id]);
      }));

    it('gives subscriptions inserted at once distinct positions, each listed once in ascending order; of simultaneous inserts of one id exactly one wins', () =>
      withFixture(make, async (store) => {
        const made = await Promise.all(Array.from({ length: 16 }, (_, i) => inserted(store, newWebhook(i + 1))));
        const positions = made.map((w) => w.position);
        expect(new Set(positions).size, `distinct positions ${JSON.stringify(positions)}`).to.equal(16);
        const listed = [...(await store.list(0, 7)), ...(await store.list((await store.list(0, 7))[6]!.position, 100))];
        expect(listed.map((w) => w.position)).to.deep.equal([...positions].sort((x, y) => x - y));
        expect(plain(listed.map((w) => made.find((m) => m.id === w.id)))).to.deep.equal(plain(listed));
        const later = await inserted(store, newWebhook(50));
        expect(later.position, 'above every position given before').to.be.greaterThan(Math.max(...positions));
        const race = await Promise.all(
          Array.from({ length: 8 }, (_, i) => store.insert(newWebhook(60, { url: `https://race.example/${i}` }))),
        );
        const winners = race.filter((r) => r !== 'taken');
        expect(winners, 'one insert of the id wins').to.have.length(1);
        expect(plain(await store.findById(idOf(60)))).to.deep.equal(plain(winners[0]));
        expect(winners[0]!.position).to.be.greaterThan(later.position);
      }));

    it('property: list answers exactly the first min(limit, remaining) subscriptions after a position, ascending, none removed', () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(fc.boolean(), { maxLength: 20 }),
          fc.array(fc.tuple(afterArb, fc.integer({ min: 1, max: 8 })), { minLength: 1, maxLength: 8 }),
          (kept, queries) =>
            withFixture(make, async (store) => {
              const held: StoredWebhook[] = [];
              for (const [i, keep] of kept.entries()) {
                const made = await inserted(store, newWebhook(i + 1, { enabled: i % 3 !== 0 }));
                if (keep) held.push(made);
                else expect(await store.remove(made.id)).to.equal(true);
              }
              const positions = held.map((w) => w.position);
              for (const [after, limit] of queries) {
                const at = afterFrom(after, positions);
                expectListAnswer(
                  'WebhookStore.list',
                  (await store.list(at, limit)).map(plain),
                  held.map(plain),
                  { afterId: at, limit },
                  (w) => w.position,
                );
              }
              expect(plain(await store.enabled()), 'enabled: the enabled ones in list order').to.deep.equal(
                plain(held.filter((w) => w.enabled)),
              );
            }),
        ),
        runs,
      ));

    it('update applies the changes and bumps the revision; enabled true clears failures, retryAt and pausedReason and keeps delivered; enabled false sets pausedReason null; types null means every type', () =>
      withFixture(make, async (store) => {
        const paused = await inserted(
          store,
          newWebhook(1, {
            enabled: false,
            pausedReason: 'retries ran out',
            delivered: 41,
            failures: 3,
            retryAt: T0 + 9000,
            types: ['pet.created'],
          }),
        );
        const renamed = await store.update(paused.id, { description: 'renamed', url: 'https://new.example/hook' });
        expect(plain(renamed)).to.deep.equal(
          plain({ ...paused, description: 'renamed', url: 'https://new.example/hook', revision: 2 }),
        );
        const resumed = await store.update(paused.id, { enabled: true });
        expect(plain(resumed)).to.deep.equal(
          plain({
            ...renamed!,
            enabled: true,
            pausedReason: null,
            failures: 0,
            retryAt: 0,
            delivered: 41,
            revision: 3,
          }),
        );
        const everyType = await store.update(paused.id, { types: null });
        expect(everyType).not.to.have.property('types');
        expect(plain(everyType)).to.deep.equal(plain({ ...resumed!, types: undefined, revision: 4 }));
        const typed = await store.update(paused.id, {
          types: ['order.placed', 'key.revoked'],
          secrets: [{ secret: 'whsec_x' }, { secret: 'whsec_y', expiresAt: T0 + 1 }],
        });
        expect(plain(typed)).to.deep.equal(
          plain({
            ...everyType!,
            types: ['order.placed', 'key.revoked'],
            secrets: [{ secret: 'whsec_x' }, { secret: 'whsec_y', expiresAt: T0 + 1 }],
            revision: 5,
          }),
        );
        // A subscription paused by a delivery, then disabled by an admin: no reason any more, the cursor kept.
        const other = await inserted(
          store,
          newWebhook(2, { enabled: false, pausedReason: 'gone (410)', delivered: 5, failures: 1, retryAt: 7 }),
        );
        const disabled = await store.update(other.id, { enabled: false });
        expect(plain(disabled)).to.deep.equal(plain({ ...other, pausedReason: null, revision: 2 }));
        expect(plain(await store.findById(other.id))).to.deep.equal(plain(disabled));
        expect(plain(await store.findById(paused.id))).to.deep.equal(plain(typed));
        expect(await store.update(idOf(9), { description: 'x' })).to.equal(undefined);
        expect(await store.findById(idOf(9))).to.equal(undefined);
      }));

    it('remove: the subscription is found by nothing, its log and lease go with it, false the second time', () =>
      withFixture(make, async (store) => {
        const gone = await inserted(store, newWebhook(1));
        const stays = await inserted(store, newWebhook(2));
        expect(await store.lease(gone.id, 'one', T0, T0 + 100)).not.to.equal(undefined);
        for (let i = 1; i <= 3; i++) {
          await store.log(gone.id, attemptOf(i));
          await store.log(stays.id, attemptOf(i));
        }
        expect(await store.remove(gone.id)).to.equal(true);
        expect(await store.findById(gone.id)).to.equal(undefined);
        expect((await store.list(0, 10)).map((w) => w.id)).to.deep.equal([stays.id]);
        expect((await store.enabled()).map((w) => w.id)).to.deep.equal([stays.id]);
        expect(await store.deliveries(gone.id, undefined, 10), 'its log is gone').to.deep.equal([]);
        expect(await store.update(gone.id, { description: 'x' })).to.equal(undefined);
        expect(await store.lease(gone.id, 'one', T0 + 1000, T0 + 2000)).to.equal(undefined);
        expect(await store.lease(gone.id, 'two', T0 + 1000, T0 + 2000)).to.equal(undefined);
        const from = cursorOf(gone);
        expect(await store.advance(gone.id, 'one', from, { ...from, delivered: 1 })).to.equal(undefined);
        expect(await store.pause(gone.id, 'one', from, { reason: 'x', delivered: 0 })).to.equal(undefined);
        await store.log(gone.id, attemptOf(4));
        expect(await store.deliveries(gone.id, undefined, 10), 'nothing logged for a removed one').to.deep.equal([]);
        await store.release(gone.id, 'one');
        expect(await store.findById(gone.id)).to.equal(undefined);
        expect(await store.remove(gone.id)).to.equal(false);
        expect(await store.remove(idOf(7))).to.equal(false);
        expect(
          (await store.deliveries(stays.id, undefined, 10)).map((d) => d.number),
          'the others keep theirs',
        ).to.deep.equal([3, 2, 1]);
      }));

    it('enabled lists every enabled subscription and only those, in list order', () =>
      withFixture(make, async (store) => {
        const made: StoredWebhook[] = [];
        for (let i = 1; i <= 6; i++) made.push(await inserted(store, newWebhook(i, { enabled: i % 2 === 0 })));
        expect((await store.enabled()).map((w) => w.id)).to.deep.equal([idOf(2), idOf(4), idOf(6)]);
        await store.update(idOf(1), { enabled: true });
        await store.update(idOf(4), { enabled: false });
        await store.remove(idOf(6));
        const listed = await store.enabled();
        expect(listed.map((w) => w.id)).to.deep.equal([idOf(1), idOf(2)]);
        expect(plain(listed[0])).to.deep.equal(plain(await store.findById(idOf(1))));
      }));

    it('lease: of simultaneous takes of a free lease exactly one wins; its holder renews it; another takes it over only once it ran out (until <= now); release frees it at once; no revision bump', () =>
      withFixture(make, async (store) => {
        const w = await inserted(store, newWebhook(1));
        const holders = Array.from({ length: 10 }, (_, i) => `process-${i}`);
        const takes = await Promise.all(holders.map((h) => store.lease(w.id, h, T0, T0 + 1000)));
        const won = takes.filter((t) => t !== undefined);
        expect(won, 'exactly one take wins').to.have.length(1);
        const holder = won[0]!.lease!.holder;
        expect(plain(won[0])).to.deep.equal(plain({ ...w, lease: { holder, until: T0 + 1000 } }));
        expect(plain(await store.findById(w.id))).to.deep.equal(plain(won[0]));
        const other = holders.find((h) => h !== holder)!;
        expect(await store.lease(w.id, other, T0 + 999, T0 + 5000), 'while it runs').to.equal(undefined);
        const renewed = await store.lease(w.id, holder, T0 + 500, T0 + 3000);
        expect(plain(renewed), 'renewed by its holder').to.deep.equal(
          plain({ ...w, lease: { holder, until: T0 + 3000 } }),
        );
        expect(await store.lease(w.id, other, T0 + 2999, T0 + 5000), 'renewed: still runs').to.equal(undefined);
        expect(plain(await store.findById(w.id))).to.deep.equal(plain(renewed));
        // Run out (until = now): simultaneous takeovers by the others, one wins.
        const takeovers = await Promise.all(
          holders.filter((h) => h !== holder).map((h) => store.lease(w.id, h, T0 + 3000, T0 + 4000)),
        );
        const next = takeovers.filter((t) => t !== undefined);
        expect(next, 'one takeover of a lapsed lease wins').to.have.length(1);
        const successor = next[0]!.lease!.holder;
        expect(next[0]!.lease!.until).to.equal(T0 + 4000);
        expect(await store.lease(w.id, holder, T0 + 3001, T0 + 9000), 'the old holder lost it').to.equal(undefined);
        // A lapsed lease nobody took yet is still its holder's to renew.
        expect((await store.lease(w.id, successor, T0 + 10_000, T0 + 11_000))?.lease).to.deep.equal({
          holder: successor,
          until: T0 + 11_000,
        });
        const stranger = holders.find((h) => h !== successor)!;
        await store.release(w.id, stranger);
        expect((await store.findById(w.id))?.lease, 'a release by another holder does nothing').to.deep.equal({
          holder: successor,
          until: T0 + 11_000,
        });
        await store.release(w.id, successor);
        const freed = await store.findById(w.id);
        expect(freed, 'released: no lease').not.to.have.property('lease');
        expect(plain(freed)).to.deep.equal(plain(w));
        expect((await store.lease(w.id, stranger, T0 + 10_001, T0 + 12_000))?.lease, 'free at once').to.deep.equal({
          holder: stranger,
          until: T0 + 12_000,
        });
        expect((await store.findById(w.id))?.revision, 'leases do not bump the revision').to.equal(1);
        expect(await store.lease(idOf(5), 'x', T0, T0 + 1)).to.equal(undefined);
      }));

    it('lease: a disabled subscription cannot be leased, not even renewed by its holder', () =>
      withFixture(make, async (store) => {
        const off = await inserted(store, newWebhook(1, { enabled: false }));
        expect(await store.lease(off.id, 'one', T0, T0 + 100)).to.equal(undefined);
        expect(plain(await store.findById(off.id))).to.deep.equal(plain(off));
        const on = await inserted(store, newWebhook(2));
        expect(await store.lease(on.id, 'one', T0, T0 + 100)).not.to.equal(undefined);
        const disabled = await store.update(on.id, { enabled: false });
        expect(await store.lease(on.id, 'one', T0 + 1, T0 + 200)).to.equal(undefined);
        expect(await store.lease(on.id, 'two', T0 + 500, T0 + 600)).to.equal(undefined);
        expect(plain(await store.findById(on.id))).to.deep.equal(plain(disabled));
      }));

    it('advance moves the cursor only when enabled, held by the holder and at `from` (delivered and failures); otherwise undefined and nothing written', () =>
      withFixture(make, async (store) => {
        const w = await inserted(store, newWebhook(1, { delivered: 10, failures: 1, retryAt: T0 + 50 }));
        const from = cursorOf(w);
        const next = { delivered: 12, failures: 0, retryAt: 0 };
        const refused = async (why: string, call: Promise<StoredWebhook | undefined>): Promise<void> => {
          const before = plain(await store.findById(w.id));
          expect(await call, why).to.equal(undefined);
          expect(plain(await store.findById(w.id)), `${why}: nothing written`).to.deep.equal(before);
        };
        await refused('no lease', store.advance(w.id, 'one', from, next));
        const leased = await store.lease(w.id, 'one', T0, T0 + 100);
        await refused('another holder', store.advance(w.id, 'two', from, next));
        await refused('delivered differs', store.advance(w.id, 'one', { ...from, delivered: 9 }, next));
        await refused('failures differ', store.advance(w.id, 'one', { ...from, failures: 2 }, next));
        await refused('no such subscription', store.advance(idOf(9), 'one', from, next));
        const moved = await store.advance(w.id, 'one', { ...from, retryAt: 0 }, next);
        expect(plain(moved), 'retryAt is not part of the condition').to.deep.equal(
          plain({ ...leased!, ...next, revision: 2 }),
        );
        expect(plain(await store.findById(w.id))).to.deep.equal(plain(moved));
        await refused('the cursor moved on', store.advance(w.id, 'one', from, next));
        // Simultaneous advances from one cursor (a process that lost its lease and the one that took it): one lands.
        const racing = await Promise.all(
          [13, 14, 15, 16].map((d) => store.advance(w.id, 'one', next, { delivered: d, failures: 0, retryAt: 0 })),
        );
        const landed = racing.filter((r) => r !== undefined);
        expect(landed, 'one conditional write lands').to.have.length(1);
        expect(plain(await store.findById(w.id))).to.deep.equal(plain(landed[0]));
        expect(landed[0]!.revision).to.equal(3);
        // Taken over after it ran out: the old holder's write is refused.
        const current = cursorOf(landed[0]!);
        expect(await store.lease(w.id, 'two', T0 + 100, T0 + 200)).not.to.equal(undefined);
        await refused('a lapsed holder after the takeover', store.advance(w.id, 'one', current, next));
        expect(await store.advance(w.id, 'two', current, { ...current, failures: 1, retryAt: T0 + 9 })).to.deep.include(
          { failures: 1, retryAt: T0 + 9, delivered: current.delivered, revision: 4 },
        );
        await store.update(w.id, { enabled: false });
        const disabledFrom = cursorOf((await store.findById(w.id))!);
        await refused('disabled', store.advance(w.id, 'two', disabledFrom, next));
        await store.release(w.id, 'two');
      }));

    it('pause, under the conditions of advance: enabled false, pausedReason and delivered as given, failures and retryAt 0', () =>
      withFixture(make, async (store) => {
        const w = await inserted(store, newWebhook(1, { delivered: 30, failures: 4, retryAt: T0 + 70 }));
        const from = cursorOf(w);
        const gaveUp = { reason: 'retries ran out', delivered: 30 };
        expect(await store.pause(w.id, 'one', from, gaveUp), 'no lease').to.equal(undefined);
        const leased = await store.lease(w.id, 'one', T0, T0 + 100);
        expect(await store.pause(w.id, 'two', from, gaveUp), 'another holder').to.equal(undefined);
        expect(await store.pause(w.id, 'one', { ...from, failures: 3 }, gaveUp), 'failures differ').to.equal(undefined);
        expect(await store.pause(w.id, 'one', { ...from, delivered: 31 }, gaveUp), 'delivered differs').to.equal(
          undefined,
        );
        expect(plain(await store.findById(w.id)), 'nothing written').to.deep.equal(plain(leased));
        const paused = await store.pause(w.id, 'one', from, gaveUp);
        expect(plain(paused)).to.deep.equal(
          plain({
            ...leased!,
            enabled: false,
            pausedReason: 'retries ran out',
            failures: 0,
            retryAt: 0,
            delivered: 30,
            revision: 2,
          }),
        );
        expect(plain(await store.findById(w.id))).to.deep.equal(plain(paused));
        expect(
          await store.pause(w.id, 'one', cursorOf(paused!), { reason: 'again', delivered: 30 }),
          'a paused subscription is not enabled',
        ).to.equal(undefined);
        expect((await store.enabled()).map((x) => x.id)).to.deep.equal([]);
        const resumed = await store.update(w.id, { enabled: true });
        expect(resumed).to.deep.include({ enabled: true, pausedReason: null, delivered: 30, failures: 0, retryAt: 0 });
        // A pause that moves the cursor (past events that left the feed): a resume starts after it.
        await store.lease(w.id, 'one', T0 + 1, T0 + 100);
        const behind = await store.pause(w.id, 'one', cursorOf(resumed!), { reason: 'events left', delivered: 45 });
        expect(behind).to.deep.include({ enabled: false, pausedReason: 'events left', delivered: 45, revision: 4 });
        const again = await store.update(w.id, { enabled: true });
        expect(again).to.deep.include({ enabled: true, pausedReason: null, delivered: 45, failures: 0, retryAt: 0 });
        // Simultaneous pauses from one cursor: one lands.
        await store.lease(w.id, 'one', T0 + 2, T0 + 100);
        const racing = await Promise.all(
          ['a', 'b', 'c'].map((r) => store.pause(w.id, 'one', cursorOf(again!), { reason: r, delivered: 45 })),
        );
        expect(racing.filter((r) => r !== undefined)).to.have.length(1);
      }));

    it('log numbers attempts 1, 2, 3, … per subscription; deliveries answers them newest first, before a number, at most limit', () =>
      withFixture(make, async (store) => {
        const a = await inserted(store, newWebhook(1));
        const b = await inserted(store, newWebhook(2));
        const attempts = [
          attemptOf(1),
          attemptOf(1, { attempt: 2, status: null, outcome: 'timeout', error: 'no answer within 10 s' }),
          attemptOf(2, { status: 500, outcome: 'failed', error: 'status 500' }),
          attemptOf(3, { status: null, outcome: 'refused', error: 'a private address' }),
          attemptOf(4),
        ];
        for (const attempt of attempts) await store.log(a.id, attempt);
        await store.log(b.id, attemptOf(9));
        const all = attempts.map((attempt, i) => ({ ...attempt, number: i + 1 })).reverse();
        expect(plain(await store.deliveries(a.id, undefined, 10))).to.deep.equal(plain(all));
        expect(plain(await store.deliveries(a.id, undefined, 2))).to.deep.equal(plain(all.slice(0, 2)));
        expect(plain(await store.deliveries(a.id, 4, 2))).to.deep.equal(plain(all.slice(2, 4)));
        expect(plain(await store.deliveries(a.id, 2, 10))).to.deep.equal(plain(all.slice(4)));
        expect(await store.deliveries(a.id, 1, 10)).to.deep.equal([]);
        expect(plain(await store.deliveries(a.id, 100, 1))).to.deep.equal(plain(all.slice(0, 1)));
        expect(plain(await store.deliveries(b.id, undefined, 10))).to.deep.equal(
          plain([{ ...attemptOf(9), number: 1 }]),
        );
        // Nothing for a subscription that does not exist, and nothing kept for it when it comes.
        await store.log(idOf(3), attemptOf(5));
        expect(await store.deliveries(idOf(3), undefined, 10)).to.deep.equal([]);
        await inserted(store, newWebhook(3));
        expect(await store.deliveries(idOf(3), undefined, 10)).to.deep.equal([]);
        await store.log(idOf(3), attemptOf(6));
        expect((await store.deliveries(idOf(3), undefined, 10)).map((d) => d.number)).to.deep.equal([1]);
        expect((await store.findById(a.id))?.revision, 'logging changes no field').to.equal(1);
      }));

    it(`log keeps only the newest ${WEBHOOK_DELIVERIES_KEPT}, each number once, also under concurrent logging`, () =>
      withFixture(make, async (store) => {
        const w = await inserted(store, newWebhook(1));
        const other = await inserted(store, newWebhook(2));
        await store.log(other.id, attemptOf(0));
        const batch = 50;
        const total = WEBHOOK_DELIVERIES_KEPT + 2 * batch + 7;
        for (let start = 0; start < total; start += batch)
          await Promise.all(
            Array.from({ length: Math.min(batch, total - start) }, (_, i) => store.log(w.id, attemptOf(start + i))),
          );
        const log = await wholeLog(store, w.id);
        const numbers = log.map((d) => d.number);
        expect(numbers.length, `kept ${numbers.length}`).to.equal(WEBHOOK_DELIVERIES_KEPT);
        expect(numbers, 'the newest, newest first, each once').to.deep.equal(
          Array.from({ length: WEBHOOK_DELIVERIES_KEPT }, (_, i) => total - i),
        );
        // Each kept entry is one of the attempts logged, none twice (the numbers were handed out in any order).
        const sequences = log.map((d) => d.sequence);
        expect(new Set(sequences).size).to.equal(sequences.length);
        for (const d of log) expect(plain(d)).to.deep.equal(plain({ ...attemptOf(d.sequence), number: d.number }));
        expect(sequences.every((s) => s >= 0 && s < total)).to.equal(true);
        await store.log(w.id, attemptOf(total));
        const after = await store.deliveries(w.id, undefined, WEBHOOK_DELIVERIES_KEPT + 10);
        expect(after).to.have.length(WEBHOOK_DELIVERIES_KEPT);
        expect(after[0]!.number).to.equal(total + 1);
        expect(after[after.length - 1]!.number).to.equal(total + 2 - WEBHOOK_DELIVERIES_KEPT);
        expect((await store.deliveries(other.id, undefined, 10)).map((d) => d.number)).to.deep.equal([1]);
      }));

    it('property: deliveries answers exactly the logged attempts with number < before, newest first, at most limit', () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(attemptArb, { maxLength: 25 }),
          fc.array(fc.tuple(fc.option(fc.nat(30), { nil: undefined }), fc.integer({ min: 1, max: 10 })), {
            minLength: 1,
            maxLength: 6,
          }),
          (attempts, queries) =>
            withFixture(make, async (store) => {
              const w = await inserted(store, newWebhook(1));
              for (const attempt of attempts) await store.log(w.id, attempt);
              const logged = attempts.map((attempt, i) => ({ ...attempt, number: i + 1 }));
              for (const [before, limit] of queries) {
                const expected = logged
                  .filter((d) => before === undefined || d.number < before)
                  .reverse()
                  .slice(0, limit);
                expect(
                  plain(await store.deliveries(w.id, before, limit)),
                  `before ${before}, limit ${limit}`,
                ).to.deep.equal(plain(expected));
              }
            }),
        ),
        runs,
      ));

    modelBasedRun(make, runs);
  });
};

import type { DeliveryCursor, StoredDelivery, StoredWebhook, WebhookStore } from '@petstore/domain';
import { leaseAllows, WEBHOOK_DELIVERIES_KEPT } from '@petstore/domain';
import { forwardingWebhooks } from '@petstore/domain/testing';
import { WebhookStoreInMemory } from '../../src/index.js';

/**
 * Webhook stores that each break one sentence of the `WebhookStore` port (docs/rules.md §15) the
 * way a real adapter could, for the strength test (webhooks-contract-strength.test.ts): the
 * exported contract suite must fail for each. Each is the memory store, right, behind a wrapper
 * that bends one method through the store's own port.
 */
export const WEBHOOK_DEFECTS = [
  {
    name: 'gives a lease to two holders:',
    why: 'lease reads the subscription, then writes its lease a moment later without looking again (a read and a write, not one conditional write)',
  },
  {
    name: 'keeps a lease that ran out:',
    why: 'another holder takes a lease over only once until < now, not at until = now',
  },
  {
    name: 'moves a cursor whose failures changed:',
    why: 'advance and pause compare delivered only, not failures',
  },
  {
    name: 'advances a disabled subscription:',
    why: 'advance and pause do not look at enabled (they enable the subscription for their write, then disable it again)',
  },
  {
    name: 'resumes with its wait:',
    why: 'enabled: true clears failures and pausedReason but keeps retryAt',
  },
  {
    name: 'gives an id again:',
    why: 'remove forgets the id, so an insert of it is stored again',
  },
  {
    name: 'gives a position again:',
    why: 'a position is the number of subscriptions + 1, so after a removal one is given twice',
  },
  {
    name: 'keeps the log of a removed subscription:',
    why: 'remove leaves its deliveries behind',
  },
  {
    name: 'gives a log number twice:',
    why: 'log numbers an attempt one above the newest kept, read a moment before its insert',
  },
  {
    name: 'keeps one attempt too many:',
    why: `the log is trimmed to ${WEBHOOK_DELIVERIES_KEPT} before the insert, not after it`,
  },
] as const;
export type WebhookDefect = (typeof WEBHOOK_DEFECTS)[number]['name'];

const aMoment = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

const cursorOf = (w: DeliveryCursor): DeliveryCursor => ({
  delivered: w.delivered,
  failures: w.failures,
  retryAt: w.retryAt,
});

/** The holder a wrapper writes under when it bends a write (never one of a test's). */
const WRAPPER = '\u0000wrapper';

/** The memory store, right but for its one `defect`. */
export const brokenWebhooks = (defect: WebhookDefect): WebhookStore => {
  const inner = new WebhookStoreInMemory();
  const store = forwardingWebhooks(inner);
  switch (defect) {
    case 'gives a lease to two holders:':
      return {
        ...store,
        lease: async (id, holder, now, until) => {
          const row = await inner.findById(id);
          if (row === undefined || !row.enabled || !leaseAllows(row.lease, holder, now)) return undefined;
          await aMoment();
          // Written whatever the lease is by now (any lease has run out at Infinity).
          return inner.lease(id, holder, Number.POSITIVE_INFINITY, until);
        },
      };
    case 'keeps a lease that ran out:':
      return { ...store, lease: (id, holder, now, until) => inner.lease(id, holder, now - 1, until) };
    case 'moves a cursor whose failures changed:': {
      /** `from` with the subscription's own failures when its `delivered` is the one read. */
      const deliveredOnly = async (id: string, from: DeliveryCursor): Promise<DeliveryCursor> => {
        const row = await inner.findById(id);
        return row !== undefined && row.delivered === from.delivered ? cursorOf(row) : from;
      };
      return {
        ...store,
        advance: async (id, holder, from, next) => inner.advance(id, holder, await deliveredOnly(id, from), next),
        pause: async (id, holder, from, pause) => inner.pause(id, holder, await deliveredOnly(id, from), pause),
      };
    }
    case 'advances a disabled subscription:': {
      /** `write` on the subscription enabled for it when it was disabled (the cursor it then has as `from`). */
      const anyway = async (
        id: string,
        from: DeliveryCursor,
        write: (from: DeliveryCursor) => Promise<StoredWebhook | undefined>,
      ): Promise<StoredWebhook | undefined> => {
        const row = await inner.findById(id);
        if (row === undefined || row.enabled || row.delivered !== from.delivered || row.failures !== from.failures)
          return write(from);
        const enabled = await inner.update(id, { enabled: true });
        const written = await write(cursorOf(enabled!));
        return written === undefined || !written.enabled ? written : inner.update(id, { enabled: false });
      };
      return {
        ...store,
        advance: (id, holder, from, next) => anyway(id, from, (at) => inner.advance(id, holder, at, next)),
        pause: (id, holder, from, pause) => anyway(id, from, (at) => inner.pause(id, holder, at, pause)),
      };
    }
    case 'resumes with its wait:':
      return {
        ...store,
        update: async (id, changes) => {
          const before = await inner.findById(id);
          const after = await inner.update(id, changes);
          if (changes.enabled !== true || before === undefined || after === undefined || before.retryAt === 0)
            return after;
          // The wait put back, under a lease of the wrapper's own; then the lease as it was.
          await inner.lease(id, WRAPPER, Number.POSITIVE_INFINITY, 0);
          await inner.advance(id, WRAPPER, cursorOf(after), { ...cursorOf(after), retryAt: before.retryAt });
          await inner.release(id, WRAPPER);
          const lease = after.lease;
          if (lease !== undefined) await inner.lease(id, lease.holder, Number.POSITIVE_INFINITY, lease.until);
          return inner.findById(id);
        },
      };
    case 'gives an id again:': {
      // An id inserted again after its removal is kept under an alias of the next generation.
      const generation = new Map<string, number>();
      const removed = new Set<string>();
      const inId = (id: string): string => (generation.has(id) ? `${id}#${generation.get(id)}` : id);
      const out = (row: StoredWebhook): StoredWebhook => ({ ...row, id: row.id.split('#')[0]! });
      const outRow = (row: StoredWebhook | undefined) => (row === undefined ? undefined : out(row));
      return {
        insert: async (webhook) => {
          if (removed.delete(webhook.id)) generation.set(webhook.id, (generation.get(webhook.id) ?? 0) + 1);
          const made = await inner.insert({ ...webhook, id: inId(webhook.id) });
          return made === 'taken' ? made : out(made);
        },
        findById: async (id) => outRow(await inner.findById(inId(id))),
        list: async (after, limit) => (await inner.list(after, limit)).map(out),
        update: async (id, changes) => outRow(await inner.update(inId(id), changes)),
        remove: async (id) => {
          const gone = await inner.remove(inId(id));
          if (gone) removed.add(id);
          return gone;
        },
        enabled: async () => (await inner.enabled()).map(out),
        lease: async (id, holder, now, until) => outRow(await inner.lease(inId(id), holder, now, until)),
        release: (id, holder) => inner.release(inId(id), holder),
        advance: async (id, holder, from, next) => outRow(await inner.advance(inId(id), holder, from, next)),
        pause: async (id, holder, from, pause) => outRow(await inner.pause(inId(id), holder, from, pause)),
        log: (id, attempt) => inner.log(inId(id), attempt),
        deliveries: (id, before, limit) => inner.deliveries(inId(id), before, limit),
      };
    }
    case 'gives a position again:': {
      // Its own positions: the number of subscriptions at the insert, plus one.
      const positions = new Map<string, number>();
      const out = (row: StoredWebhook): StoredWebhook => ({ ...row, position: positions.get(row.id)! });
      const outRow = (row: StoredWebhook | undefined) => (row === undefined ? undefined : out(row));
      const all = async () => (await inner.list(0, Number.MAX_SAFE_INTEGER)).map(out);
      return {
        ...store,
        insert: async (webhook) => {
          const position = (await all()).length + 1;
          const made = await inner.insert(webhook);
          if (made === 'taken') return made;
          positions.set(made.id, position);
          return out(made);
        },
        findById: async (id) => outRow(await inner.findById(id)),
        list: async (after, limit) =>
          (await all())
            .filter((row) => row.position > after)
            .sort((a, b) => a.position - b.position)
            .slice(0, limit),
        update: async (id, changes) => outRow(await inner.update(id, changes)),
        enabled: async () => (await inner.enabled()).map(out),
        lease: async (id, holder, now, until) => outRow(await inner.lease(id, holder, now, until)),
        advance: async (id, holder, from, next) => outRow(await inner.advance(id, holder, from, next)),
        pause: async (id, holder, from, pause) => outRow(await inner.pause(id, holder, from, pause)),
      };
    }
    case 'keeps the log of a removed subscription:': {
      const orphans = new Map<string, readonly StoredDelivery[]>();
      return {
        ...store,
        remove: async (id) => {
          const log = await inner.deliveries(id, undefined, WEBHOOK_DELIVERIES_KEPT);
          const gone = await inner.remove(id);
          if (gone) orphans.set(id, log);
          return gone;
        },
        deliveries: async (id, before, limit) =>
          (await inner.findById(id)) !== undefined
            ? inner.deliveries(id, before, limit)
            : (orphans.get(id) ?? []).filter((d) => before === undefined || d.number < before).slice(0, limit),
      };
    }
    case 'gives a log number twice:': {
      // Its own numbers: one above the newest it shows, read a moment before the insert.
      const shown = new Map<string, number>();
      const key = (id: string, number: number) => `${id}:${number}`;
      const numbered = async (id: string): Promise<StoredDelivery[]> =>
        (await inner.deliveries(id, undefined, WEBHOOK_DELIVERIES_KEPT))
          .map((d) => ({ ...d, number: shown.get(key(id, d.number))! }))
          .sort((a, b) => b.number - a.number);
      let logging = Promise.resolve();
      return {
        ...store,
        log: async (id, attempt) => {
          const number = ((await numbered(id))[0]?.number ?? 0) + 1;
          await aMoment();
          // The insert and the read of its inner number, one at a time.
          const done = logging.then(async () => {
            await inner.log(id, attempt);
            const [newest] = await inner.deliveries(id, undefined, 1);
            if (newest !== undefined) shown.set(key(id, newest.number), number);
          });
          logging = done;
          await done;
        },
        deliveries: async (id, before, limit) =>
          (await numbered(id)).filter((d) => before === undefined || d.number < before).slice(0, limit),
      };
    }
    case 'keeps one attempt too many:': {
      // The oldest attempt a log at its bound drops, kept on.
      const extra = new Map<string, StoredDelivery>();
      return {
        ...store,
        remove: async (id) => {
          extra.delete(id);
          return inner.remove(id);
        },
        log: async (id, attempt) => {
          const kept = await inner.deliveries(id, undefined, WEBHOOK_DELIVERIES_KEPT);
          const oldest = kept.at(-1);
          await inner.log(id, attempt);
          if (kept.length === WEBHOOK_DELIVERIES_KEPT && oldest !== undefined) extra.set(id, oldest);
        },
        deliveries: async (id, before, limit) => {
          const oldest = extra.get(id);
          const rows = [...(await inner.deliveries(id, before, limit)), ...(oldest === undefined ? [] : [oldest])];
          return rows.filter((d) => before === undefined || d.number < before).slice(0, limit);
        },
      };
    }
  }
};

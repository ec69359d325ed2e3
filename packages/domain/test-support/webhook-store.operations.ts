import { expect } from 'chai';
import fc from 'fast-check';
import type {
  DeliveryAttempt,
  DeliveryCursor,
  EventType,
  NewWebhook,
  StoredDelivery,
  StoredWebhook,
  WebhookChanges,
  WebhookStore,
} from '../src/index.js';
import { DELIVERY_OUTCOMES, EVENT_TYPES, WEBHOOK_DELIVERIES_KEPT } from '../src/index.js';
import { expectListAnswer } from './exact-page.js';
import { withFixture, type MakeFixture } from './fixture.js';
import { WebhookStoreModel } from './webhook-store-model.js';

// The webhook store contract's fixtures, and its model-based property: every call of the port, made
// on the adapter and on the model alike (webhook-store.contract.ts holds the examples).

export const T0 = Date.UTC(2027, 0, 1, 9);

/** The id of the `n`th subscription of a test: `wh_` + 24 lowercase hex. */
export const idOf = (n: number): string => `wh_${n.toString(16).padStart(24, '0')}`;

export const newWebhook = (n: number, extra: Partial<NewWebhook> = {}): NewWebhook => ({
  id: idOf(n),
  url: `https://hooks.example/${n}`,
  description: `subscription ${n}`,
  enabled: true,
  pausedReason: null,
  createdAt: T0 + n,
  secrets: [{ secret: `whsec_${'A'.repeat(42)}${n}=` }],
  delivered: 0,
  failures: 0,
  retryAt: 0,
  ...extra,
});

export const attemptOf = (sequence: number, extra: Partial<DeliveryAttempt> = {}): DeliveryAttempt => ({
  eventId: `evt_${sequence}`,
  sequence,
  attempt: 1,
  at: T0 + sequence,
  status: 200,
  outcome: 'delivered',
  durationMs: 12,
  ...extra,
});

/** A plain copy (no frozen or class objects): what deep equality compares. */
export const plain = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

export const inserted = async (store: WebhookStore, webhook: NewWebhook): Promise<StoredWebhook> => {
  const made = await store.insert(webhook);
  if (made === 'taken') throw new Error(`${webhook.id} taken`);
  return made;
};

/** What a subscription is after `insert(webhook)` at `position`. */
export const storedOf = (webhook: NewWebhook, position: number): StoredWebhook => ({
  ...webhook,
  position,
  revision: 1,
});

export const cursorOf = (w: DeliveryCursor): DeliveryCursor => ({
  delivered: w.delivered,
  failures: w.failures,
  retryAt: w.retryAt,
});

/** Every attempt logged for `id`, newest first, read a page at a time. */
export const wholeLog = async (store: WebhookStore, id: string): Promise<readonly StoredDelivery[]> => {
  const out: StoredDelivery[] = [];
  for (let before: number | undefined; ;) {
    const page = await store.deliveries(id, before, 300);
    if (page.length === 0) return out;
    out.push(...page);
    before = page[page.length - 1]!.number;
    expect(out.length, 'a walk of a log ends').to.be.at.most(10 * WEBHOOK_DELIVERIES_KEPT);
  }
};

/** One call of the port, made on the store and on the model alike; their answers must be equal. */
type Op =
  | { readonly kind: 'insert'; readonly n: number; readonly webhook: Partial<NewWebhook> }
  | { readonly kind: 'findById'; readonly n: number }
  | { readonly kind: 'list'; readonly after: number; readonly limit: number }
  | { readonly kind: 'update'; readonly n: number; readonly changes: WebhookChanges }
  | { readonly kind: 'remove'; readonly n: number }
  | { readonly kind: 'enabled' }
  | { readonly kind: 'tick'; readonly ms: number }
  | { readonly kind: 'lease'; readonly n: number; readonly holder: string; readonly ms: number }
  | { readonly kind: 'release'; readonly n: number; readonly holder: string }
  | {
      readonly kind: 'advance';
      readonly n: number;
      readonly holder: string;
      readonly from: FromPick;
      readonly next: DeliveryCursor;
    }
  | {
      readonly kind: 'pause';
      readonly n: number;
      readonly holder: string;
      readonly from: FromPick;
      readonly reason: string;
      /** How far past `from.delivered` the pause puts the cursor (0: where it stands). */
      readonly ahead: number;
    }
  | { readonly kind: 'log'; readonly n: number; readonly attempt: DeliveryAttempt }
  | { readonly kind: 'deliveries'; readonly n: number; readonly before: number | undefined; readonly limit: number };

/** The cursor a delivery write says it read, against the subscription's: offsets of `delivered` and `failures` (0: the same), and a `retryAt` of its own (not part of the condition). */
type FromPick = { readonly delivered: number; readonly failures: number; readonly retryAt: number };

/** Few subscriptions and holders, so that calls meet. */
const SUBSCRIPTIONS = 3;
const HOLDERS = ['one', 'two'] as const;

const nArb = fc.integer({ min: 1, max: SUBSCRIPTIONS });
const holderArb = fc.constantFrom(...HOLDERS);
const typesArb: fc.Arbitrary<readonly EventType[]> = fc.uniqueArray(fc.constantFrom(...EVENT_TYPES), {
  minLength: 1,
  maxLength: 3,
});
const textArb = fc.string({ maxLength: 12 }).filter((s) => !/[\uD800-\uDFFF]/.test(s));
const secretsArb = fc.array(
  fc.record(
    {
      secret: fc.constantFrom('whsec_AAAA', 'whsec_BBBB', 'whsec_CCCC'),
      expiresAt: fc.integer({ min: T0, max: T0 * 2 }),
    },
    { requiredKeys: ['secret'] },
  ),
  { minLength: 1, maxLength: 2 },
);
const cursorArb: fc.Arbitrary<DeliveryCursor> = fc.record({
  delivered: fc.nat(20),
  failures: fc.nat(3),
  retryAt: fc.constantFrom(0, T0 + 1000),
});
/** Offsets of a `from` against the cursor: mostly none (a write that should land). */
const offsetArb = fc.constantFrom(0, 0, 0, 0, 1, -1);
const fromArb = fc.record({ delivered: offsetArb, failures: offsetArb, retryAt: fc.constantFrom(0, 0, 7) });
export const attemptArb: fc.Arbitrary<DeliveryAttempt> = fc.record(
  {
    eventId: fc.nat(99).map((i) => `evt_${i}`),
    sequence: fc.nat(99),
    attempt: fc.integer({ min: 1, max: 5 }),
    at: fc.integer({ min: T0, max: T0 + 10_000 }),
    status: fc.option(fc.constantFrom(200, 204, 410, 500), { nil: null }),
    outcome: fc.constantFrom(...DELIVERY_OUTCOMES),
    durationMs: fc.nat(10_000),
    error: fc.constantFrom('connection refused', 'status 500'),
  },
  { requiredKeys: ['eventId', 'sequence', 'attempt', 'at', 'status', 'outcome', 'durationMs'] },
);
const changesArb: fc.Arbitrary<WebhookChanges> = fc.record(
  {
    url: fc.nat(9).map((i) => `https://hooks.example/changed/${i}`),
    types: fc.option(typesArb, { nil: null }),
    description: textArb,
    enabled: fc.boolean(),
    secrets: secretsArb,
  },
  { requiredKeys: [] },
);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      n: nArb,
      webhook: fc.record(
        {
          types: typesArb,
          enabled: fc.boolean(),
          pausedReason: fc.constantFrom('gone (410)', 'retries ran out'),
          delivered: fc.nat(20),
          failures: fc.nat(3),
          retryAt: fc.constantFrom(0, T0 + 500),
          secrets: secretsArb,
        },
        { requiredKeys: [] },
      ),
    }),
    weight: 3,
  },
  fc.record({ kind: fc.constant('findById' as const), n: nArb }),
  fc.record({
    kind: fc.constant('list' as const),
    after: fc.nat(SUBSCRIPTIONS + 1),
    limit: fc.integer({ min: 1, max: 5 }),
  }),
  { arbitrary: fc.record({ kind: fc.constant('update' as const), n: nArb, changes: changesArb }), weight: 2 },
  fc.record({ kind: fc.constant('remove' as const), n: nArb }),
  fc.record({ kind: fc.constant('enabled' as const) }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.constantFrom(1, 1, 2) }),
  {
    arbitrary: fc.record({
      kind: fc.constant('lease' as const),
      n: nArb,
      holder: holderArb,
      ms: fc.constantFrom(0, 1, 1, 2, 5),
    }),
    weight: 4,
  },
  fc.record({ kind: fc.constant('release' as const), n: nArb, holder: holderArb }),
  {
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      n: nArb,
      holder: holderArb,
      from: fromArb,
      next: cursorArb,
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('pause' as const),
      n: nArb,
      holder: holderArb,
      from: fromArb,
      reason: fc.constantFrom('gone (410)', 'retries ran out'),
      ahead: fc.constantFrom(0, 0, 3),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('log' as const), n: nArb, attempt: attemptArb }), weight: 5 },
  {
    arbitrary: fc.record({
      kind: fc.constant('deliveries' as const),
      n: nArb,
      before: fc.option(fc.nat(8), { nil: undefined }),
      limit: fc.integer({ min: 1, max: 4 }),
    }),
    weight: 3,
  },
);

/** The cursor `pick` names: the subscription's own moved by its offsets (0 when there is none). */
const fromOf = (model: ModelState, id: string, pick: FromPick): DeliveryCursor => {
  const current = model.port.rows.get(id) ?? { delivered: 0, failures: 0 };
  return {
    delivered: Math.max(0, current.delivered + pick.delivered),
    failures: Math.max(0, current.failures + pick.failures),
    retryAt: pick.retryAt,
  };
};

/** The model of a run: the port as the model has it, and the clock the lease calls read. */
interface ModelState {
  readonly port: WebhookStoreModel;
  now: number;
}

class PortCall implements fc.AsyncCommand<ModelState, WebhookStore> {
  constructor(readonly op: Op) {}
  check = () => true;
  async run(model: ModelState, store: WebhookStore): Promise<void> {
    const op = this.op;
    const what = JSON.stringify(op);
    const same = (real: unknown, expected: unknown): void => {
      expect(plain(real), `${what}: the answer`).to.deep.equal(plain(expected));
    };
    switch (op.kind) {
      case 'insert': {
        const webhook = newWebhook(op.n, op.webhook);
        same(await store.insert(webhook), await model.port.insert(webhook));
        break;
      }
      case 'findById':
        same(await store.findById(idOf(op.n)), await model.port.findById(idOf(op.n)));
        break;
      case 'list': {
        const answer = await store.list(op.after, op.limit);
        expectListAnswer(
          `list (${what})`,
          answer.map(plain),
          (await model.port.list(0, Number.MAX_SAFE_INTEGER)).map(plain),
          { afterId: op.after, limit: op.limit },
          (w) => w.position,
        );
        break;
      }
      case 'update':
        same(await store.update(idOf(op.n), op.changes), await model.port.update(idOf(op.n), op.changes));
        break;
      case 'remove':
        same(await store.remove(idOf(op.n)), await model.port.remove(idOf(op.n)));
        break;
      case 'enabled':
        same(await store.enabled(), await model.port.enabled());
        break;
      case 'tick':
        model.now += op.ms;
        break;
      case 'lease': {
        const until = model.now + op.ms;
        same(
          await store.lease(idOf(op.n), op.holder, model.now, until),
          await model.port.lease(idOf(op.n), op.holder, model.now, until),
        );
        break;
      }
      case 'release':
        await store.release(idOf(op.n), op.holder);
        await model.port.release(idOf(op.n), op.holder);
        break;
      case 'advance': {
        const from = fromOf(model, idOf(op.n), op.from);
        same(
          await store.advance(idOf(op.n), op.holder, from, op.next),
          await model.port.advance(idOf(op.n), op.holder, from, op.next),
        );
        break;
      }
      case 'pause': {
        const from = fromOf(model, idOf(op.n), op.from);
        const pause = { reason: op.reason, delivered: from.delivered + op.ahead };
        same(
          await store.pause(idOf(op.n), op.holder, from, pause),
          await model.port.pause(idOf(op.n), op.holder, from, pause),
        );
        break;
      }
      case 'log':
        await store.log(idOf(op.n), op.attempt);
        await model.port.log(idOf(op.n), op.attempt);
        break;
      case 'deliveries':
        same(
          await store.deliveries(idOf(op.n), op.before, op.limit),
          await model.port.deliveries(idOf(op.n), op.before, op.limit),
        );
        break;
    }
    // Whatever the call, the subscription it named is as the model says (a write that answered
    // `undefined` wrote nothing; a read changed nothing).
    if ('n' in op)
      expect(plain(await store.findById(idOf(op.n))), `${what}: the subscription after it`).to.deep.equal(
        plain(await model.port.findById(idOf(op.n))),
      );
  }
  toString = () => JSON.stringify(this.op);
}

/**
 * The contract's model-based property: any sequence of calls of the whole port, on the store and on
 * the model (`WebhookStoreModel`) alike, answers as the model does, call by call.
 */
export const modelBasedRun = (make: MakeFixture<WebhookStore>, runs: { readonly numRuns?: number }): void => {
  it('property (model-based): any sequence of calls of the whole port answers as the port says, call by call', () =>
    fc.assert(
      fc.asyncProperty(
        fc.commands(
          [opArb.map((op) => new PortCall(op))],
          // 'medium': sequences up to maxCommands long (the default size stops at about 10 commands).
          { maxCommands: 60, size: 'medium' },
        ),
        (commands) =>
          withFixture(make, async (store) => {
            const model: ModelState = { port: new WebhookStoreModel(), now: T0 };
            await fc.asyncModelRun(() => ({ model, real: store }), commands);
            // At the end, the whole store as the model has it.
            expect(plain(await store.list(0, 1000))).to.deep.equal(plain(await model.port.list(0, 1000)));
            for (const id of model.port.rows.keys())
              expect(plain(await store.deliveries(id, undefined, 1000))).to.deep.equal(
                plain(await model.port.deliveries(id, undefined, 1000)),
              );
          }),
      ),
      runs,
    ));
};

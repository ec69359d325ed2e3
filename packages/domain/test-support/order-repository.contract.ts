import { expect } from 'chai';
import fc from 'fast-check';
import type { OrderDraft, OrderListQuery, OrderRecord, OrderRepository, OrderState } from '../src/index.js';
import { LISTED_STATES, ORDER_STATES, timestamp } from '../src/index.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { orderCreationTokenCases } from './creation-token.contract.js';
import { afterArb, afterFrom, expectListAnswer, type AfterPick } from './exact-page.js';

interface Model {
  readonly orders: OrderRecord[];
}

const OWNERS = ['key_000000000001', 'key_000000000002', 'key_000000000003'] as const;
const T = Date.UTC(2027, 0, 1);
const plain = (rows: readonly OrderRecord[]) => rows.map((r) => ({ ...r }));
const byId = (r: OrderRecord): number => r.id;
/** The records of `orders` a list query's filters (owner or all, states) select. */
const matching = (orders: readonly OrderRecord[], query: OrderListQuery): OrderRecord[] =>
  orders.filter((o) => (query.owner === undefined || o.owner === query.owner) && query.states.includes(o.state));
const listQuery = (
  owner: string | undefined,
  states: readonly OrderState[],
  afterId: number,
  limit: number,
): OrderListQuery => (owner === undefined ? { states, afterId, limit } : { owner, states, afterId, limit });

const draftArb: fc.Arbitrary<OrderDraft> = fc.record({
  petId: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constant(Number.MAX_SAFE_INTEGER)),
  owner: fc.constantFrom(...OWNERS),
  state: fc.constantFrom<OrderState>('placing', 'placed'),
  placedAt: fc.integer({ min: 0, max: 10_000 }).map((ms) => timestamp(T + ms)),
  updatedAt: fc.integer({ min: 0, max: 10_000 }).map((ms) => timestamp(T + ms)),
});

const pickId = (model: Model, pick: number, offset: number): number =>
  (model.orders.length === 0 ? 1 : model.orders[pick % model.orders.length]!.id) + offset;

class CreateCommand implements fc.AsyncCommand<Model, OrderRepository> {
  constructor(readonly draft: OrderDraft) {}
  check = () => true;
  async run(model: Model, repo: OrderRepository): Promise<void> {
    const record = await repo.create(this.draft);
    expect(record.id)
      .to.be.a('number')
      .and.greaterThan(model.orders[model.orders.length - 1]?.id ?? 0);
    expect({ ...record }).to.deep.equal({ id: record.id, ...this.draft });
    model.orders.push({ id: record.id, ...this.draft });
  }
  toString = () => `create(${JSON.stringify(this.draft)})`;
}

class UpdateCommand implements fc.AsyncCommand<Model, OrderRepository> {
  constructor(
    readonly pick: number,
    readonly offset: number,
    readonly expected: OrderState | 'current',
    readonly next: OrderState,
    readonly at: number,
  ) {}
  check = () => true;
  async run(model: Model, repo: OrderRepository): Promise<void> {
    const id = pickId(model, this.pick, this.offset);
    const index = model.orders.findIndex((o) => o.id === id);
    const before = model.orders[index];
    const expected = this.expected === 'current' ? (before?.state ?? 'placed') : this.expected;
    const updatedAt = timestamp(T + this.at);
    const swapped = await repo.updateState(id, expected, this.next, updatedAt);
    expect(swapped).to.equal(before !== undefined && before.state === expected);
    if (swapped) model.orders[index] = { ...before!, state: this.next, updatedAt };
    const found = await repo.findById(id);
    expect(found === undefined ? undefined : { ...found }).to.deep.equal(model.orders[index]);
  }
  toString = () => `update(pick=${this.pick}+${this.offset}, ${this.expected} → ${this.next})`;
}

class ListCommand implements fc.AsyncCommand<Model, OrderRepository> {
  constructor(
    readonly owner: string | undefined,
    readonly states: readonly OrderState[],
    readonly after: AfterPick,
    readonly limit: number,
  ) {}
  check = () => true;
  async run(model: Model, repo: OrderRepository): Promise<void> {
    const query = listQuery(this.owner, this.states, afterFrom(this.after, model.orders.map(byId)), this.limit);
    expectListAnswer('list', await repo.list(query), matching(model.orders, query), query, byId);
  }
  toString = () =>
    `list(owner=${this.owner ?? '*'}, states=${this.states.join('|')}, after ${JSON.stringify(this.after)}, limit=${this.limit})`;
}

const ownerOrAll = fc.option(fc.constantFrom(...OWNERS), { nil: undefined });
const statesArb = fc.subarray([...ORDER_STATES], { minLength: 1 });

const commandsArb = fc.commands(
  [
    // Creates twice as often as the rest: lists need more rows than their limit to show a page's bound.
    draftArb.map((d) => new CreateCommand(d)),
    draftArb.map((d) => new CreateCommand(d)),
    fc
      .tuple(
        fc.nat(),
        fc.integer({ min: -1, max: 1 }),
        fc.oneof(fc.constant<'current'>('current'), fc.constantFrom(...ORDER_STATES)),
        fc.constantFrom(...ORDER_STATES),
        fc.nat(100_000),
      )
      .map(([p, o, e, n, at]) => new UpdateCommand(p, o, e, n, at)),
    fc
      .tuple(ownerOrAll, statesArb, afterArb, fc.integer({ min: 1, max: 8 }))
      .map(([owner, states, after, limit]) => new ListCommand(owner, states, after, limit)),
  ],
  // 'medium': sequences up to maxCommands long (the default size stops at about 10 commands).
  { maxCommands: 40, size: 'medium' },
);

/** The `OrderRepository` contract: every adapter runs this same suite on a fresh, empty repository. */
export const orderRepositoryContract = (
  name: string,
  make: MakeFixture<OrderRepository>,
  options: ContractOptions = {},
): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };

  describe(`OrderRepository contract: ${name}`, function () {
    const draft = (owner: string, petId = 1): OrderDraft => ({
      petId,
      owner,
      state: 'placing',
      placedAt: timestamp(T),
      updatedAt: timestamp(T),
    });

    it('assigns positive, increasing ids, stores the fields as given, and finds nothing for other ids', () =>
      withFixture(make, async (repo) => {
        expect(await repo.findById(1)).to.equal(undefined);
        const a = await repo.create(draft(OWNERS[0]));
        const b = await repo.create({
          ...draft(OWNERS[1], Number.MAX_SAFE_INTEGER),
          state: 'placed',
          updatedAt: timestamp(T + 5),
        });
        expect(a.id).to.be.greaterThan(0);
        expect(b.id).to.be.greaterThan(a.id);
        expect({ ...(await repo.findById(b.id)) }).to.deep.equal({
          id: b.id,
          ...draft(OWNERS[1], Number.MAX_SAFE_INTEGER),
          state: 'placed',
          updatedAt: timestamp(T + 5),
        });
        expect(await repo.findById(b.id + 1)).to.equal(undefined);
        expect(await repo.findById(Number.MAX_SAFE_INTEGER)).to.equal(undefined);
      }));

    it('compare-and-sets the state: only from the expected state, with the new updatedAt', () =>
      withFixture(make, async (repo) => {
        const a = await repo.create(draft(OWNERS[0]));
        expect(await repo.updateState(a.id, 'placed', 'approved', timestamp(T + 1))).to.equal(false);
        expect(await repo.updateState(a.id + 1, 'placing', 'placed', timestamp(T + 1))).to.equal(false);
        expect(await repo.updateState(a.id, 'placing', 'placed', timestamp(T + 2))).to.equal(true);
        expect({ ...(await repo.findById(a.id)) }).to.deep.equal({
          ...a,
          state: 'placed',
          updatedAt: timestamp(T + 2),
        });
      }));

    it('of many concurrent compare-and-sets from the same state, exactly one wins; concurrent creates get distinct ids', () =>
      withFixture(make, async (repo) => {
        const created = await Promise.all(Array.from({ length: 30 }, (_, i) => repo.create(draft(OWNERS[i % 3]!))));
        expect(new Set(created.map((r) => r.id)).size).to.equal(30);
        const target = created[0]!.id;
        const next: OrderState[] = ['placed', 'abandoned', 'cancelling'];
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, i) => repo.updateState(target, 'placing', next[i % 3]!, timestamp(T + i))),
        );
        expect(results.filter(Boolean)).to.have.length(1);
        expect((await repo.findById(target))?.state).to.equal(next[results.indexOf(true) % 3]);
      }));

    it('lists by owner or all, by states, after a position, in ascending id order, at most limit rows', () =>
      withFixture(make, async (repo) => {
        const all: OrderRecord[] = [];
        for (let i = 0; i < 12; i++)
          all.push(
            await repo.create({ ...draft(OWNERS[i % 3]!, i + 1), state: LISTED_STATES[i % LISTED_STATES.length]! }),
          );
        expect(plain(await repo.list({ states: ORDER_STATES, afterId: 0, limit: 100 }))).to.deep.equal(plain(all));
        expect(
          plain(await repo.list({ owner: OWNERS[1], states: ORDER_STATES, afterId: 0, limit: 100 })),
        ).to.deep.equal(plain(all.filter((o) => o.owner === OWNERS[1])));
        expect(
          plain(await repo.list({ owner: OWNERS[0], states: ORDER_STATES, afterId: all[3]!.id, limit: 1 })),
        ).to.deep.equal(plain([all[6]!]));
        expect(plain(await repo.list({ states: ['placed', 'cancelled'], afterId: 0, limit: 100 }))).to.deep.equal(
          plain(all.filter((o) => o.state === 'placed' || o.state === 'cancelled')),
        );
        expect(await repo.list({ owner: 'key_nobody', states: ORDER_STATES, afterId: 0, limit: 100 })).to.have.length(
          0,
        );
      }));

    it('property: agrees with a plain array model over any sequence of creates, compare-and-sets and lists', () =>
      fc.assert(
        fc.asyncProperty(commandsArb, (commands) =>
          withFixture(make, (repo) => fc.asyncModelRun(() => ({ model: { orders: [] }, real: repo }), commands)),
        ),
        { ...runs },
      ));

    it('property: every list answers exactly the first min(limit, remaining) matching records after afterId, in ascending id order', () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(draftArb, fc.constantFrom(...ORDER_STATES)), { maxLength: 40, size: 'medium' }),
          fc.array(fc.tuple(ownerOrAll, statesArb, afterArb, fc.integer({ min: 1, max: 12 })), {
            minLength: 1,
            maxLength: 10,
          }),
          (drafts, queries) =>
            withFixture(make, async (repo) => {
              const orders: OrderRecord[] = [];
              // Records in every state: created, then moved by the compare-and-set (a draft is placing or placed).
              for (const [draft, state] of drafts) {
                const record = await repo.create(draft);
                const moved =
                  state !== draft.state && (await repo.updateState(record.id, draft.state, state, draft.updatedAt));
                orders.push({ ...record, state: moved ? state : draft.state });
              }
              for (const [owner, states, after, limit] of queries) {
                const query = listQuery(owner, states, afterFrom(after, orders.map(byId)), limit);
                expectListAnswer(
                  `list(${JSON.stringify(query)})`,
                  await repo.list(query),
                  matching(orders, query),
                  query,
                  byId,
                );
              }
            }),
        ),
        { ...runs },
      ));

    orderCreationTokenCases(make, options);
  });
};

import { expect } from 'chai';
import fc from 'fast-check';
import type {
  Caller,
  Order,
  OrderRecord,
  OrderRepository,
  OrderStatus,
  PetHold,
  PetRecord,
  PetRepository,
  PetStatus,
} from '../src/index.js';
import {
  Adoption,
  deliveryBindsStatus,
  entityTag,
  PET_STATUSES,
  PetMaintenance,
  StoreUnavailableError,
  timestamp,
} from '../src/index.js';
import { allOrders, checkStoredInvariants, MANY, type AdoptionStores } from './adoption-invariants.js';
import { FaultInjector, type FaultMode } from './fault-injection.js';
import { forwardingOrders, forwardingPets } from './forwarding.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { adoptionCreationTokenCases } from './creation-token.contract.js';
import { expectExactPage, expectListAnswer, MAX_WALK_PAGES } from './exact-page.js';
import { ManualClock } from './manual-clock.js';
import { serialOrderOf, type RaceRequest } from './serial-race.js';
import { entryOf } from './pet-entries.js';

const CLIENTS: readonly Caller[] = ['a', 'b', 'c'].map((c) => ({ keyId: `key_${c.repeat(12)}`, role: 'client' }));
const ADMIN: Caller = { keyId: 'key_ad00000000ad', role: 'admin' };
const CALLERS: readonly Caller[] = [...CLIENTS, ADMIN];
const ACTIONS = ['approve', 'deliver', 'cancel'] as const;
type Action = (typeof ACTIONS)[number];
const T0 = Date.UTC(2027, 0, 1);

// ---------------------------------------------------------------------------------------------
// The plain model: docs/rules.md §8 written out again, independently of the domain's table.
// ---------------------------------------------------------------------------------------------

interface ModelOrder {
  petId: number;
  owner: string;
  status: OrderStatus;
  placedAt: string;
  updatedAt: string;
}
interface ModelPet {
  status: PetStatus;
  name: string;
  categoryId: number;
  withdrawn: boolean;
  statusPatchedAt: string | null;
  /** Entity tags seen for the pet, in order; the last is current unless `changed`. */
  readonly tags: string[];
  /** The pet changed since its tag was last seen (docs/rules.md §12: its revision must be a new one). */
  changed: boolean;
}
interface FlowModel {
  readonly pets: Map<number, ModelPet>;
  readonly orders: Map<number, ModelOrder>;
  lastOrderId: number;
}
interface FlowReal extends AdoptionStores {
  readonly adoption: Adoption;
  readonly maintenance: PetMaintenance;
  readonly clock: ManualClock;
}

/** Categories 1…3 exist (for `PATCH` of `categoryId`); 9 names none. */
const CATEGORIES = {
  findById: async (id: number) => (id >= 1 && id <= 3 ? { id, name: `Category ${id}` } : undefined),
};
const newModelPet = (status: PetStatus): ModelPet => ({
  status,
  name: 'Rex',
  categoryId: 1,
  withdrawn: false,
  statusPatchedAt: null,
  tags: [],
  changed: false,
});
/** The id of the open order of a pet in the model, or null. */
const openOrderOf = (model: FlowModel, petId: number): number | null => {
  for (const [id, order] of model.orders)
    if (order.petId === petId && (order.status === 'placed' || order.status === 'approved')) return id;
  return null;
};
/** The revision rule (docs/rules.md §12), checked on what the store shows: a new tag when the pet changed, the same one otherwise. */
const observeTag = (petId: number, pet: ModelPet, tag: string): void => {
  const last = pet.tags[pet.tags.length - 1];
  if (pet.changed) expect(pet.tags, `pet ${petId} changed: a revision it never had`).not.to.include(tag);
  else if (last !== undefined) expect(tag, `pet ${petId} did not change: the same revision`).to.equal(last);
  if (tag !== last) pet.tags.push(tag);
  pet.changed = false;
};
/** The stored pet against the model (revision aside). */
const expectPet = (petId: number, model: FlowModel, pet: ModelPet, found: PetRecord | undefined): void => {
  if (pet.withdrawn) return void expect(found, `pet ${petId} is withdrawn`).to.equal(undefined);
  expect(
    found && {
      name: found.name,
      categoryId: found.categoryId,
      status: found.status,
      orderId: found.orderId,
      statusPatchedAt: found.statusPatchedAt,
    },
    `pet ${petId}`,
  ).to.deep.equal({
    name: pet.name,
    categoryId: pet.categoryId,
    status: pet.status,
    orderId: openOrderOf(model, petId),
    statusPatchedAt: pet.statusPatchedAt,
  });
};

const RULES: Record<Action, { from: OrderStatus[]; to: OrderStatus; pet: PetStatus; adminOnly: boolean }> = {
  approve: { from: ['placed'], to: 'approved', pet: 'pending', adminOnly: true },
  deliver: { from: ['approved'], to: 'delivered', pet: 'sold', adminOnly: true },
  cancel: { from: ['placed', 'approved'], to: 'cancelled', pet: 'available', adminOnly: false },
};

type Outcome<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };
/** Who sees an order (docs/rules.md §8): an admin key every one, a client key its own. */
const sees = (caller: Caller, order: ModelOrder): boolean => caller.role === 'admin' || order.owner === caller.keyId;
const codeOf = (outcome: Outcome<unknown>): string => (outcome.ok ? 'ok' : outcome.error.code);
const asOrder = (id: number, o: ModelOrder): Order => ({
  id,
  petId: o.petId,
  status: o.status,
  placedAt: o.placedAt,
  updatedAt: o.updatedAt,
});
const idAt = (ids: readonly number[], pick: number, offset: number): number =>
  (ids.length === 0 ? 1 : ids[pick % ids.length]!) + offset;

/** §8's invariants on what clients see: every order (as an admin lists them), and the pets read afterwards. */
export const checkVisibleInvariants = async (adoption: Adoption, pets: PetRepository): Promise<readonly Order[]> => {
  const seen: Order[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    expect(pages++, 'a walk of the order list ends').to.be.below(MAX_WALK_PAGES);
    const page = await adoption.listOrders(ADMIN, cursor === undefined ? { limit: 100 } : { limit: 100, cursor });
    if (!page.ok) throw new Error(page.error.message);
    for (const order of page.value.items)
      expect(order.id, 'the order list ascends, across pages too').to.be.greaterThan(seen[seen.length - 1]?.id ?? 0);
    seen.push(...page.value.items);
    cursor = page.value.nextCursor;
  } while (cursor !== undefined);
  const openByPet = new Map<number, number>();
  for (const order of seen) {
    const hold = await pets.findHold(order.petId);
    const what = `order ${order.id} (${order.status}) and pet ${order.petId} ${JSON.stringify(hold)}`;
    if (order.status === 'placed' || order.status === 'approved') {
      expect(openByPet.has(order.petId), `pet ${order.petId} has at most one open order`).to.equal(false);
      openByPet.set(order.petId, order.id);
      expect(hold, `a pet with an open order is pending: ${what}`).to.deep.equal({
        status: 'pending',
        orderId: order.id,
      });
    }
    if (order.status === 'delivered') {
      // Unless a PATCH set the pet's status after the delivery (a returned adoption), or the pet was withdrawn.
      const pet = await pets.findById(order.petId);
      if (pet !== undefined && deliveryBindsStatus(pet, order.updatedAt))
        expect(pet.status, `a pet with a delivered order is sold: ${what}`).to.equal('sold');
    }
    if (order.status === 'cancelled') expect(hold?.orderId, what).not.to.equal(order.id);
  }
  return seen;
};

abstract class FlowCommand implements fc.AsyncCommand<FlowModel, FlowReal> {
  check(): boolean {
    return true;
  }
  async run(model: FlowModel, real: FlowReal): Promise<void> {
    real.clock.advance(1);
    await this.step(model, real);
    await checkStoredInvariants(real);
    // The store agrees with the model, pet by pet, and each revision moved exactly when its pet changed (§12).
    for (const [id, pet] of model.pets) {
      const found = await real.pets.findById(id);
      expectPet(id, model, pet, found);
      if (found !== undefined) observeTag(id, pet, entityTag(found.revision));
    }
    // Withdrawn pets are in no list and no count.
    const listed = (await real.pets.list({ order: { sort: 'id' }, limit: MANY })).pets.map((p) => p.id);
    expect(listed, 'the pets listed').to.deep.equal([...model.pets].filter(([, p]) => !p.withdrawn).map(([id]) => id));
  }
  abstract step(model: FlowModel, real: FlowReal): Promise<void>;
  abstract toString(): string;
}

class CreatePet extends FlowCommand {
  constructor(readonly status: PetStatus) {
    super();
  }
  async step(model: FlowModel, real: FlowReal): Promise<void> {
    const pet = await real.pets.create(entryOf({ name: 'Rex', categoryId: 1, status: this.status }));
    model.pets.set(pet.id, newModelPet(this.status));
  }
  toString = () => `createPet(${this.status})`;
}

class Place extends FlowCommand {
  constructor(
    readonly caller: number,
    readonly pick: number,
    readonly offset: number,
  ) {
    super();
  }
  async step(model: FlowModel, real: FlowReal): Promise<void> {
    const caller = CALLERS[this.caller]!;
    const petId = idAt([...model.pets.keys()], this.pick, this.offset);
    const outcome = await real.adoption.place(caller, { petId });
    const pet = model.pets.get(petId);
    const status = pet?.status;
    if (pet === undefined || pet.withdrawn) {
      expect(codeOf(outcome), 'no pet, or a withdrawn one').to.equal('validation_failed');
      return;
    }
    if (status !== 'available') {
      expect(codeOf(outcome)).to.equal('conflict');
      expect(outcome.ok || outcome.error.message).to.include(status);
      return;
    }
    expect(codeOf(outcome), JSON.stringify(outcome)).to.equal('ok');
    const order = (outcome as { value: Order }).value;
    expect(order.id).to.be.greaterThan(model.lastOrderId);
    const now = timestamp(real.clock.now());
    expect(order).to.deep.equal({ id: order.id, petId, status: 'placed', placedAt: now, updatedAt: now });
    model.lastOrderId = order.id;
    model.orders.set(order.id, { petId, owner: caller.keyId, status: 'placed', placedAt: now, updatedAt: now });
    pet.status = 'pending';
    pet.changed = true;
  }
  toString = () => `place(caller ${this.caller}, pet #${this.pick}+${this.offset})`;
}

class Act extends FlowCommand {
  constructor(
    readonly action: Action,
    readonly caller: number,
    readonly pick: number,
    readonly offset: number,
  ) {
    super();
  }
  async step(model: FlowModel, real: FlowReal): Promise<void> {
    const caller = CALLERS[this.caller]!;
    const id = idAt([...model.orders.keys()], this.pick, this.offset);
    const outcome = await real.adoption.act(caller, this.action, id);
    const rule = RULES[this.action];
    const order = model.orders.get(id);
    if (rule.adminOnly && caller.role !== 'admin') return void expect(codeOf(outcome)).to.equal('forbidden');
    if (order === undefined || !sees(caller, order)) return void expect(codeOf(outcome)).to.equal('not_found');
    if (order.status === rule.to) return void expect(outcome).to.deep.equal({ ok: true, value: asOrder(id, order) });
    if (!rule.from.includes(order.status)) {
      expect(codeOf(outcome)).to.equal('conflict');
      expect(outcome.ok || outcome.error.message).to.include(order.status);
      return;
    }
    order.status = rule.to;
    order.updatedAt = timestamp(real.clock.now());
    const pet = model.pets.get(order.petId)!;
    if (pet.status !== rule.pet) {
      pet.status = rule.pet;
      pet.changed = true;
    }
    expect(outcome).to.deep.equal({ ok: true, value: asOrder(id, order) });
  }
  toString = () => `${this.action}(caller ${this.caller}, order #${this.pick}+${this.offset})`;
}

class Get extends FlowCommand {
  constructor(
    readonly caller: number,
    readonly pick: number,
    readonly offset: number,
  ) {
    super();
  }
  async step(model: FlowModel, real: FlowReal): Promise<void> {
    const caller = CALLERS[this.caller]!;
    const id = idAt([...model.orders.keys()], this.pick, this.offset);
    const order = model.orders.get(id);
    const outcome = await real.adoption.getOrder(caller, id);
    if (order === undefined || !sees(caller, order)) expect(codeOf(outcome)).to.equal('not_found');
    else expect(outcome).to.deep.equal({ ok: true, value: asOrder(id, order) });
  }
  toString = () => `get(caller ${this.caller}, order #${this.pick}+${this.offset})`;
}

class List extends FlowCommand {
  constructor(
    readonly caller: number,
    readonly status: OrderStatus | undefined,
    readonly limit: number,
  ) {
    super();
  }
  async step(model: FlowModel, real: FlowReal): Promise<void> {
    const caller = CALLERS[this.caller]!;
    // Each page exactly: the next min(limit, remaining) of the caller's orders, a next cursor exactly when more remain.
    let owed: readonly Order[] = [...model.orders]
      .filter(([, o]) => sees(caller, o) && (this.status === undefined || o.status === this.status))
      .sort(([a], [b]) => a - b)
      .map(([id, o]) => asOrder(id, o));
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      expect(page, 'a walk ends').to.be.below(MAX_WALK_PAGES);
      const input = {
        limit: this.limit,
        ...(this.status === undefined ? {} : { status: this.status }),
        ...(cursor === undefined ? {} : { cursor }),
      };
      const listed = await real.adoption.listOrders(caller, input);
      if (!listed.ok) throw new Error(listed.error.message);
      owed = expectExactPage(`page ${page}`, listed.value, owed, this.limit, (o) => o.id);
      cursor = listed.value.nextCursor;
      if (cursor === undefined) break;
    }
  }
  toString = () => `list(caller ${this.caller}, status ${this.status ?? '*'}, limit ${this.limit})`;
}

class Inventory extends FlowCommand {
  async step(model: FlowModel, real: FlowReal): Promise<void> {
    const expected: Record<PetStatus, number> = { available: 0, pending: 0, sold: 0 };
    for (const pet of model.pets.values()) if (!pet.withdrawn) expected[pet.status]++;
    expect(await real.adoption.inventory()).to.deep.equal(expected);
  }
  toString = () => 'inventory()';
}

/** How a maintenance request names the revision it expects (docs/rules.md §12, RFC 9110 §13.1.1). */
type IfMatchChoice = 'none' | '*' | 'current' | 'stale' | 'weak' | 'list' | 'unknown';
const ifMatchArb = fc.constantFrom<IfMatchChoice>(
  'none',
  'none',
  '*',
  'current',
  'current',
  'stale',
  'weak',
  'list',
  'unknown',
);

/** The `If-Match` value for `choice` on the pet as stored now (read first), and whether it matches. */
const ifMatchFor = async (
  real: FlowReal,
  petId: number,
  pet: ModelPet | undefined,
  choice: IfMatchChoice,
): Promise<{ header: string | undefined; matches: boolean }> => {
  const found = await real.pets.findById(petId);
  const current = found === undefined ? '"0"' : entityTag(found.revision);
  if (found !== undefined && pet !== undefined) observeTag(petId, pet, current);
  const stale = pet?.tags.find((t) => t !== current) ?? '"999999"';
  switch (choice) {
    case 'none':
      return { header: undefined, matches: true };
    case '*':
      return { header: '*', matches: true };
    case 'current':
      return { header: current, matches: true };
    case 'list':
      return { header: `${stale}, ${current}`, matches: true };
    case 'stale':
      return { header: stale, matches: false };
    case 'weak':
      return { header: `W/${current}`, matches: false };
    case 'unknown':
      return { header: '"999999"', matches: false };
  }
};

interface PatchBody {
  readonly name?: string;
  readonly categoryId?: number;
  readonly status?: PetStatus;
}

class Patch extends FlowCommand {
  constructor(
    readonly caller: number,
    readonly pick: number,
    readonly offset: number,
    readonly ifMatch: IfMatchChoice,
    readonly body: PatchBody,
  ) {
    super();
  }
  async step(model: FlowModel, real: FlowReal): Promise<void> {
    const caller = CALLERS[this.caller]!;
    const petId = idAt([...model.pets.keys()], this.pick, this.offset);
    const pet = model.pets.get(petId);
    const { header, matches } = await ifMatchFor(real, petId, pet, this.ifMatch);
    const outcome = await real.maintenance.patch(caller, petId, this.body, header);
    if (caller.role !== 'admin')
      return void expect(codeOf(outcome), 'client keys: before anything').to.equal('forbidden');
    if (Object.keys(this.body).length === 0 || (this.body.categoryId !== undefined && this.body.categoryId > 3)) {
      return void expect(codeOf(outcome), 'an empty body, or a category that is not there').to.equal(
        'validation_failed',
      );
    }
    if (pet === undefined || pet.withdrawn) return void expect(codeOf(outcome)).to.equal('not_found');
    if (!matches) return void expect(codeOf(outcome)).to.equal('precondition_failed');
    const changesStatus = this.body.status !== undefined && this.body.status !== pet.status;
    const changes =
      changesStatus ||
      (this.body.name !== undefined && this.body.name !== pet.name) ||
      (this.body.categoryId !== undefined && this.body.categoryId !== pet.categoryId);
    if (changes && changesStatus && openOrderOf(model, petId) !== null) {
      expect(codeOf(outcome)).to.equal('conflict');
      return void expect(outcome.ok || outcome.error.message).to.include('reserved');
    }
    expect(codeOf(outcome), JSON.stringify(outcome)).to.equal('ok');
    if (changes) {
      pet.name = this.body.name ?? pet.name;
      pet.categoryId = this.body.categoryId ?? pet.categoryId;
      if (changesStatus) {
        pet.status = this.body.status!;
        pet.statusPatchedAt = timestamp(real.clock.now());
      }
      pet.changed = true;
    }
    const after = (outcome as { value: PetRecord }).value;
    expectPet(petId, model, pet, after);
    observeTag(petId, pet, entityTag(after.revision));
  }
  toString = () =>
    `patch(caller ${this.caller}, pet #${this.pick}+${this.offset}, If-Match ${this.ifMatch}, ${JSON.stringify(this.body)})`;
}

class Withdraw extends FlowCommand {
  constructor(
    readonly caller: number,
    readonly pick: number,
    readonly offset: number,
    readonly ifMatch: IfMatchChoice,
  ) {
    super();
  }
  async step(model: FlowModel, real: FlowReal): Promise<void> {
    const caller = CALLERS[this.caller]!;
    const petId = idAt([...model.pets.keys()], this.pick, this.offset);
    const pet = model.pets.get(petId);
    const { header, matches } = await ifMatchFor(real, petId, pet, this.ifMatch);
    const outcome = await real.maintenance.withdraw(caller, petId, header);
    if (caller.role !== 'admin') return void expect(codeOf(outcome)).to.equal('forbidden');
    if (pet === undefined || pet.withdrawn) return void expect(codeOf(outcome)).to.equal('not_found');
    if (!matches) return void expect(codeOf(outcome)).to.equal('precondition_failed');
    if (openOrderOf(model, petId) !== null) {
      expect(codeOf(outcome)).to.equal('conflict');
      return void expect(outcome.ok || outcome.error.message).to.include('reserved');
    }
    expect(codeOf(outcome), JSON.stringify(outcome)).to.equal('ok');
    pet.withdrawn = true;
  }
  toString = () => `withdraw(caller ${this.caller}, pet #${this.pick}+${this.offset}, If-Match ${this.ifMatch})`;
}

const callerArb = fc.nat(CALLERS.length - 1);
const offsetArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
);
const orderStatusArb = fc.constantFrom<OrderStatus>('placed', 'approved', 'delivered', 'cancelled');

const flowCommandsArb = fc.commands(
  [
    // Pets and placements three times as often as the rest: lists need more orders than their limit to show a page's bound.
    ...[1, 2, 3].map(() =>
      fc
        .oneof(
          { weight: 4, arbitrary: fc.constant<PetStatus>('available') },
          { weight: 1, arbitrary: fc.constantFrom(...PET_STATUSES) },
        )
        .map((s) => new CreatePet(s)),
    ),
    ...[1, 2, 3].map(() => fc.tuple(callerArb, fc.nat(), offsetArb).map(([c, p, o]) => new Place(c, p, o))),
    fc.tuple(fc.constantFrom(...ACTIONS), callerArb, fc.nat(), offsetArb).map(([a, c, p, o]) => new Act(a, c, p, o)),
    fc.tuple(fc.constantFrom(...ACTIONS), fc.nat(), fc.nat()).map(([a, p]) => new Act(a, CALLERS.length - 1, p, 0)),
    fc.tuple(callerArb, fc.nat(), offsetArb).map(([c, p, o]) => new Get(c, p, o)),
    fc
      .tuple(callerArb, fc.option(orderStatusArb, { nil: undefined }), fc.integer({ min: 1, max: 3 }))
      .map(([c, s, l]) => new List(c, s, l)),
    // Every order, one a page, by an admin: the list that most often has more orders than its page holds.
    fc.constant(new List(CALLERS.length - 1, undefined, 1)),
    fc.constant(new Inventory()),
    // Maintenance (docs/rules.md §12): mostly by admins, with every kind of If-Match.
    fc
      .tuple(
        fc.oneof({ weight: 4, arbitrary: fc.constant(CALLERS.length - 1) }, { weight: 1, arbitrary: callerArb }),
        fc.nat(),
        offsetArb,
        ifMatchArb,
        fc.record(
          {
            name: fc.constantFrom('Rex', 'Max'),
            categoryId: fc.constantFrom(1, 1, 2, 9),
            status: fc.constantFrom(...PET_STATUSES),
          },
          { requiredKeys: [] },
        ),
      )
      .map(([c, p, o, i, b]) => new Patch(c, p, o, i, b)),
    fc
      .tuple(
        fc.oneof({ weight: 4, arbitrary: fc.constant(CALLERS.length - 1) }, { weight: 1, arbitrary: callerArb }),
        fc.nat(),
        offsetArb,
        ifMatchArb,
      )
      .map(([c, p, o, i]) => new Withdraw(c, p, o, i)),
  ],
  // Long runs: the interesting states (an order approved, then cancelled twice) take a few steps to reach.
  { maxCommands: 60, size: 'medium' },
);

// ---------------------------------------------------------------------------------------------
// The same flow with a fault injected into one store call of each command.
// ---------------------------------------------------------------------------------------------

interface FaultPlan {
  /** Which store call of the command (0 = the first) meets the fault. */
  readonly at: number;
  readonly mode: FaultMode;
}
interface FaultyReal {
  /** The use cases over the fault-injected stores. */
  readonly adoption: Adoption;
  readonly maintenance: PetMaintenance;
  /** The stores themselves, for checks. */
  readonly stores: AdoptionStores;
  readonly faults: FaultInjector;
  readonly clock: ManualClock;
  readonly petIds: number[];
}
type Op =
  | { readonly kind: 'place'; readonly caller: number; readonly pick: number }
  | { readonly kind: 'act'; readonly action: Action; readonly caller: number; readonly pick: number }
  | { readonly kind: 'get' | 'list'; readonly caller: number; readonly pick: number }
  | {
      readonly kind: 'patch';
      readonly caller: number;
      readonly pick: number;
      readonly body: PatchBody;
      readonly ifMatch: 'none' | '*' | 'current';
    }
  | {
      readonly kind: 'withdraw';
      readonly caller: number;
      readonly pick: number;
      readonly ifMatch: 'none' | '*' | 'current';
    };

class Faulty implements fc.AsyncCommand<object, FaultyReal> {
  constructor(
    readonly op: Op,
    readonly plan: FaultPlan,
  ) {}
  check = () => true;
  async run(_: object, real: FaultyReal): Promise<void> {
    real.clock.advance(1);
    if (real.petIds.length === 0 || this.op.pick % 4 === 0) {
      real.petIds.push(
        (await real.stores.pets.create(entryOf({ name: 'Rex', categoryId: 1, status: 'available' }))).id,
      );
    }
    const orderIds = (await allOrders(real.stores.orders)).map((r) => r.id);
    const caller = CALLERS[this.op.caller]!;
    let call = 0;
    real.faults.use(() => (call++ === this.plan.at ? this.plan.mode : 'pass'));
    try {
      const { op } = this;
      if (op.kind === 'place') await real.adoption.place(caller, { petId: idAt(real.petIds, op.pick, 0) });
      else if (op.kind === 'act') await real.adoption.act(caller, op.action, idAt(orderIds, op.pick, 0));
      else if (op.kind === 'get') await real.adoption.getOrder(caller, idAt(orderIds, op.pick, 0));
      else if (op.kind === 'list') await real.adoption.listOrders(caller, { limit: 3 });
      else if (op.kind === 'patch' || op.kind === 'withdraw') {
        const petId = idAt(real.petIds, op.pick, 0);
        const stored = op.ifMatch === 'current' ? await real.stores.pets.findById(petId) : undefined;
        const ifMatch = op.ifMatch === 'none' ? undefined : op.ifMatch === '*' ? '*' : entityTag(stored?.revision ?? 0);
        if (op.kind === 'patch') await real.maintenance.patch(caller, petId, op.body, ifMatch);
        else await real.maintenance.withdraw(caller, petId, ifMatch);
      }
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
    } finally {
      real.faults.use(undefined);
    }
    // At every moment, whatever was cut short: the stored state keeps its invariants ...
    await checkStoredInvariants(real.stores);
    // ... and an observation made now (a request without faults) sees only what §8 allows.
    if (this.op.pick % 3 === 0)
      await checkVisibleInvariants(new Adoption(real.stores.pets, real.stores.orders, real.clock), real.stores.pets);
  }
  toString = () => `${JSON.stringify(this.op)} with ${this.plan.mode} at call ${this.plan.at}`;
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('place' as const), caller: callerArb, pick: fc.nat() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      action: fc.constantFrom(...ACTIONS),
      caller: fc.constant(CALLERS.length - 1),
      pick: fc.nat(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      action: fc.constant('cancel' as const),
      caller: callerArb,
      pick: fc.nat(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constantFrom('get' as const, 'list' as const), caller: callerArb, pick: fc.nat() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('patch' as const),
      caller: fc.constant(CALLERS.length - 1),
      pick: fc.nat(),
      body: fc.record(
        { name: fc.constantFrom('Rex', 'Max'), status: fc.constantFrom(...PET_STATUSES) },
        { requiredKeys: [] },
      ),
      ifMatch: fc.constantFrom('none' as const, '*' as const, 'current' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('withdraw' as const),
      caller: fc.constant(CALLERS.length - 1),
      pick: fc.nat(),
      ifMatch: fc.constantFrom('none' as const, '*' as const, 'current' as const),
    }),
  },
);
const planArb: fc.Arbitrary<FaultPlan> = fc.record({
  at: fc.nat(7),
  mode: fc.constantFrom<FaultMode>('fail', 'hang', 'fail-after-write', 'hang-after-write', 'pass'),
});
const faultyCommandsArb = fc.commands([fc.tuple(opArb, planArb).map(([op, plan]) => new Faulty(op, plan))], {
  maxCommands: 40,
  size: 'medium',
});

/**
 * The order store with every `list` answer checked exactly against the flow's model. One command
 * runs at a time and leaves every record settled (its state is its status), so the records the store
 * holds are the model's orders.
 */
const checkedOrderLists = (orders: OrderRepository, model: FlowModel): OrderRepository => ({
  ...forwardingOrders(orders),
  list: async (query) => {
    const rows = await orders.list(query);
    const records: OrderRecord[] = [...model.orders]
      .filter(([, o]) => (query.owner === undefined || o.owner === query.owner) && query.states.includes(o.status))
      .map(([id, o]) => ({
        id,
        petId: o.petId,
        owner: o.owner,
        state: o.status,
        placedAt: o.placedAt,
        updatedAt: o.updatedAt,
      }));
    expectListAnswer('OrderRepository.list', rows, records, query, (r) => r.id);
    return rows;
  },
});

/**
 * The adoption flow (docs/rules.md §8) on an adapter's pet and order stores: a model-based property
 * of the whole flow, the same with faults injected into every store call, and races.
 */
/** A pet repository whose swap from `available` for one chosen pet waits until `release()`: a placement stalled before its linearization point. */
const stallingSwaps = (inner: PetRepository) => {
  let stalledPet: number | undefined;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const reachedSwap = new Promise<void>((resolve) => (reached = resolve));
  const pets: PetRepository = {
    ...forwardingPets(inner),
    swapHold: async (id, expected, next) => {
      if (id === stalledPet && expected.status === 'available') {
        reached();
        await released;
      }
      return inner.swapHold(id, expected, next);
    },
  };
  return { pets, stall: (petId: number) => (stalledPet = petId), reachedSwap, release };
};

/** The stores with every call released by a fast-check scheduler: it picks the interleaving of concurrent requests' store calls. */
const scheduledStores = (s: fc.Scheduler, stores: AdoptionStores): AdoptionStores => {
  const { pets, orders } = stores;
  return {
    pets: {
      create: s.scheduleFunction(async (draft: Parameters<PetRepository['create']>[0]) => pets.create(draft)),
      findByCreationToken: s.scheduleFunction(async (token: string) => pets.findByCreationToken(token)),
      findById: s.scheduleFunction(async (id: number) => pets.findById(id)),
      list: s.scheduleFunction(async (query: Parameters<PetRepository['list']>[0]) => pets.list(query)),
      findHold: s.scheduleFunction(async (id: number) => pets.findHold(id)),
      swapHold: s.scheduleFunction(async (id: number, expected: PetHold, next: PetHold) =>
        pets.swapHold(id, expected, next),
      ),
      countByStatus: s.scheduleFunction(async () => pets.countByStatus()),
      update: s.scheduleFunction(async (...args: Parameters<PetRepository['update']>) => pets.update(...args)),
      withdraw: s.scheduleFunction(async (id: number, revision: number) => pets.withdraw(id, revision)),
    },
    orders: {
      create: s.scheduleFunction(async (draft: Parameters<OrderRepository['create']>[0]) => orders.create(draft)),
      findByCreationToken: s.scheduleFunction(async (token: string) => orders.findByCreationToken(token)),
      findById: s.scheduleFunction(async (id: number) => orders.findById(id)),
      updateState: s.scheduleFunction(async (...args: Parameters<OrderRepository['updateState']>) =>
        orders.updateState(...args),
      ),
      list: s.scheduleFunction(async (query: Parameters<OrderRepository['list']>[0]) => orders.list(query)),
    },
  };
};

const raceIfMatchArb = fc.constantFrom('none' as const, '*' as const, 'initial' as const);

export const adoptionContract = (
  name: string,
  make: MakeFixture<AdoptionStores>,
  options: ContractOptions = {},
): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };

  describe(`adoption flow (docs/rules.md §8) and pet maintenance (§12): ${name}`, function () {
    it('property: agrees with a plain model over any sequence of places, approvals, deliveries, cancellations, gets, lists, patches and withdrawals (random callers, random If-Match) by owners and admins (each page exact, and each list the flow asks the order store for); §8 and §12 invariants after every command', () =>
      fc.assert(
        fc.asyncProperty(flowCommandsArb, (commands) =>
          withFixture(make, (stores) => {
            const clock = new ManualClock(T0);
            const model: FlowModel = { pets: new Map(), orders: new Map(), lastOrderId: 0 };
            const orders = checkedOrderLists(stores.orders, model);
            const real: FlowReal = {
              ...stores,
              clock,
              adoption: new Adoption(stores.pets, orders, clock),
              maintenance: new PetMaintenance(stores.pets, orders, CATEGORIES, clock),
            };
            return fc.asyncModelRun(() => ({ model, real }), commands);
          }),
        ),
        { ...runs },
      ));

    it('property: with a fault (fail, hang, fail or hang after the write) in any store call of any command (patches and withdrawals included), the invariants hold at every moment, and the next requests finish what was half done', () =>
      fc.assert(
        fc.asyncProperty(faultyCommandsArb, (commands) =>
          withFixture(make, async (stores) => {
            const clock = new ManualClock(T0);
            const faults = new FaultInjector({ hangMs: 1 });
            const [pets, orders] = [faults.petRepository(stores.pets), faults.orderRepository(stores.orders)];
            const adoption = new Adoption(pets, orders, clock);
            const real: FaultyReal = {
              adoption,
              maintenance: new PetMaintenance(pets, orders, CATEGORIES, clock),
              stores,
              faults,
              clock,
              petIds: [],
            };
            await fc.asyncModelRun(() => ({ model: {}, real }), commands);
            // The next request touching each order (an admin reading it) settles it; then nothing is left half done.
            const healthy = new Adoption(stores.pets, stores.orders, clock);
            for (const record of await allOrders(stores.orders)) await healthy.getOrder(ADMIN, record.id);
            await checkVisibleInvariants(healthy, stores.pets);
            for (const record of await allOrders(stores.orders)) {
              expect(['cancelling', 'delivering'], `order ${record.id} is settled`).not.to.include(record.state);
              if (record.state === 'placing')
                expect((await stores.pets.findHold(record.petId))?.orderId, `order ${record.id}`).not.to.equal(
                  record.id,
                );
            }
            // And the flow goes on: every pet can still be ordered, approved, delivered or released.
            for (const petId of real.petIds) {
              const hold = await stores.pets.findHold(petId);
              if (hold?.status === 'available') expect((await healthy.place(CLIENTS[0]!, { petId })).ok).to.equal(true);
            }
            await checkStoredInvariants(stores);
          }),
        ),
        { ...runs },
      ));

    it('of 50 simultaneous orders for one available pet exactly one succeeds; the others get 409 saying the pet is pending', () =>
      withFixture(make, async (stores) => {
        const clock = new ManualClock(T0);
        const adoption = new Adoption(stores.pets, stores.orders, clock);
        const pet = await stores.pets.create(entryOf({ name: 'Rex', categoryId: 1, status: 'available' }));
        const outcomes = await Promise.all(
          Array.from({ length: 50 }, (_, i) => adoption.place(CALLERS[i % CALLERS.length]!, { petId: pet.id })),
        );
        const won = outcomes.filter((o) => o.ok);
        expect(won).to.have.length(1);
        for (const o of outcomes)
          if (!o.ok)
            expect(o.error).to.deep.include({ code: 'conflict' }).and.property('message').that.includes('pending');
        const order = (won[0] as { value: Order }).value;
        expect(await stores.pets.findHold(pet.id)).to.deep.equal({ status: 'pending', orderId: order.id });
        expect((await checkVisibleInvariants(adoption, stores.pets)).map((o) => o.id)).to.deep.equal([order.id]);
        await checkStoredInvariants(stores);
      }));

    it('a racing cancel and delivery of one order: exactly one wins, and the pet follows the winner', () =>
      withFixture(make, async (stores) => {
        const clock = new ManualClock(T0);
        const adoption = new Adoption(stores.pets, stores.orders, clock);
        const owner = CLIENTS[1]!;
        const ids: number[] = [];
        for (let i = 0; i < 10; i++) {
          const pet = await stores.pets.create(entryOf({ name: `p${i}`, categoryId: 1, status: 'available' }));
          const placed = await adoption.place(owner, { petId: pet.id });
          if (!placed.ok) throw new Error(placed.error.message);
          expect((await adoption.approve(ADMIN, placed.value.id)).ok).to.equal(true);
          ids.push(placed.value.id);
        }
        const results = await Promise.all(
          ids.map((id) =>
            Promise.all([
              adoption.cancel(owner, id),
              adoption.deliver(ADMIN, id),
              adoption.cancel(ADMIN, id),
              adoption.getOrder(owner, id),
            ]),
          ),
        );
        for (const [i, [cancel, deliver, adminCancel]] of results.entries()) {
          const final = await adoption.getOrder(ADMIN, ids[i]!);
          if (!final.ok) throw new Error(final.error.message);
          const wins = [cancel, deliver, adminCancel].filter((o) => o.ok);
          if (final.value.status === 'delivered') {
            expect(deliver.ok).to.equal(true);
            expect(cancel.ok || adminCancel.ok).to.equal(false);
          } else {
            expect(final.value.status).to.equal('cancelled');
            expect(deliver.ok).to.equal(false);
            expect(wins.length).to.be.at.least(1);
          }
        }
        await checkVisibleInvariants(adoption, stores.pets);
        await checkStoredInvariants(stores);
      }));

    it('the transition listener (metrics) hears each order that moved once, also when a fault cut the action short and the next request finished it', () =>
      withFixture(make, async (stores) => {
        const clock = new ManualClock(T0);
        const faults = new FaultInjector({ hangMs: 1 });
        const heard: string[] = [];
        const adoption = new Adoption(
          faults.petRepository(stores.pets),
          faults.orderRepository(stores.orders),
          clock,
          (action) => heard.push(action),
        );
        const owner = CLIENTS[0]!;
        const placeOne = async (name: string): Promise<number> => {
          const pet = await stores.pets.create(entryOf({ name, categoryId: 1, status: 'available' }));
          const placed = await adoption.place(owner, { petId: pet.id });
          if (!placed.ok) throw new Error(placed.error.message);
          return placed.value.id;
        };
        const count = (action: string): number => heard.filter((a) => a === action).length;

        // Delivery: the decision lands, the pet's swap fails; the next read finishes it.
        const first = await placeOne('p1');
        expect((await adoption.approve(ADMIN, first)).ok).to.equal(true);
        faults.use((call) => (call.method === 'swapHold' ? 'fail' : undefined));
        let failed: unknown;
        await adoption.deliver(ADMIN, first).catch((error: unknown) => (failed = error));
        expect(failed).to.be.instanceOf(StoreUnavailableError);
        faults.use(undefined);
        const delivered = await adoption.getOrder(ADMIN, first);
        expect(delivered.ok && delivered.value.status).to.equal('delivered');
        expect((await adoption.deliver(ADMIN, first)).ok, 'a repeat').to.equal(true);
        expect(count('deliver'), 'deliveries heard').to.equal(1);

        // Cancellation: the last write hangs; the owner's repeat finishes it.
        const second = await placeOne('p2');
        faults.use((call) => (call.method === 'updateState' && call.args[2] === 'cancelled' ? 'hang' : undefined));
        failed = undefined;
        await adoption.cancel(owner, second).catch((error: unknown) => (failed = error));
        expect(failed).to.be.instanceOf(StoreUnavailableError);
        faults.use(undefined);
        const cancelled = await adoption.cancel(owner, second);
        expect(cancelled.ok && cancelled.value.status).to.equal('cancelled');
        expect((await adoption.cancel(ADMIN, second)).ok, 'a repeat').to.equal(true);
        expect(count('cancel'), 'cancellations heard').to.equal(1);
        expect(count('approve'), 'approvals heard').to.equal(1);
        faults.reset();
      }));

    it('a walk of the order list visits every order that existed when it started exactly once, in order, while a placement holding a lower id is stalled before its pet swap and others complete', () =>
      withFixture(make, async (stores) => {
        const clock = new ManualClock(T0);
        const { pets, stall, reachedSwap, release } = stallingSwaps(stores.pets);
        const adoption = new Adoption(pets, stores.orders, clock);
        const petIds: number[] = [];
        for (let i = 0; i < 30; i++)
          petIds.push((await stores.pets.create(entryOf({ name: `p${i}`, categoryId: 1, status: 'available' }))).id);
        const existing: number[] = [];
        for (const petId of petIds.slice(0, 10)) {
          const placed = await adoption.place(CLIENTS[0]!, { petId });
          if (!placed.ok) throw new Error(placed.error.message);
          existing.push(placed.value.id);
        }
        // A placement takes the next id and stalls before its swap; later placements complete with higher ids.
        stall(petIds[10]!);
        const slow = adoption.place(CLIENTS[0]!, { petId: petIds[10]! });
        await reachedSwap;
        const walk = async (between: (page: number) => Promise<void>): Promise<number[]> => {
          const ids: number[] = [];
          let cursor: string | undefined;
          for (let page = 0; ; page++) {
            expect(page, 'a walk ends').to.be.below(MAX_WALK_PAGES);
            await between(page);
            const listed = await adoption.listOrders(
              CLIENTS[0]!,
              cursor === undefined ? { limit: 3 } : { limit: 3, cursor },
            );
            if (!listed.ok) throw new Error(listed.error.message);
            if (listed.value.nextCursor !== undefined)
              expect(listed.value.items, 'a page with a next one is full').to.have.length(3);
            ids.push(...listed.value.items.map((o) => o.id));
            cursor = listed.value.nextCursor;
            if (cursor === undefined) return ids;
          }
        };
        let next = 11;
        const seen = await walk(async (page) => {
          // Between pages: another placement completes (a higher id), and midway the stalled one wins its pet.
          if (next < petIds.length)
            expect((await adoption.place(CLIENTS[0]!, { petId: petIds[next++]! })).ok).to.equal(true);
          if (page === 3) {
            release();
            expect((await slow).ok, 'the stalled placement won its pet').to.equal(true);
          }
        });
        expect(seen, 'ascending, each once').to.deep.equal([...new Set(seen)].sort((a, b) => a - b));
        for (const id of existing)
          expect(
            seen.filter((s) => s === id),
            `order ${id} (there before the walk)`,
          ).to.have.length(1);
        // A walk started afterwards sees the stalled order too (it became visible late, under its lower id).
        const stalledOrder = await slow;
        if (!stalledOrder.ok) throw new Error(stalledOrder.error.message);
        expect(await walk(async () => {})).to.include(stalledOrder.value.id);
      }));

    it('a placement stalled before its pet swap for a day still ends placed when it resumes: readers meanwhile show no order and never abandon it', () =>
      withFixture(make, async (stores) => {
        const clock = new ManualClock(T0);
        const { pets, stall, reachedSwap, release } = stallingSwaps(stores.pets);
        const adoption = new Adoption(pets, stores.orders, clock);
        const petId = (await stores.pets.create(entryOf({ name: 'Slow', categoryId: 1, status: 'available' }))).id;
        stall(petId);
        const slow = adoption.place(CLIENTS[0]!, { petId });
        await reachedSwap;
        // Far past any store deadline or lease a reader could use to give the placement up.
        clock.advance(24 * 60 * 60 * 1000);
        for (const caller of [CLIENTS[0]!, ADMIN]) {
          const listed = await adoption.listOrders(caller);
          expect(listed.ok && listed.value.items, 'a placement its pet does not hold is not shown').to.deep.equal([]);
        }
        expect((await stores.pets.findHold(petId))?.status).to.equal('available');
        release();
        const placed = await slow;
        expect(placed.ok && placed.value.status, 'the record was left placing, so the placement completes').to.equal(
          'placed',
        );
        expect(await stores.pets.findHold(petId)).to.deep.equal({
          status: 'pending',
          orderId: placed.ok ? placed.value.id : null,
        });
        await checkStoredInvariants(stores);
        expect(await checkVisibleInvariants(adoption, stores.pets)).to.have.length(1);
      }));

    it('property: random actions by many callers at the same time keep every invariant', () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.array(fc.tuple(fc.constantFrom('place', ...ACTIONS, 'get'), callerArb, fc.nat(5)), {
              minLength: 1,
              maxLength: 12,
            }),
            { minLength: 1, maxLength: 6 },
          ),
          (rounds) =>
            withFixture(make, async (stores) => {
              const clock = new ManualClock(T0);
              const adoption = new Adoption(stores.pets, stores.orders, clock);
              const petIds: number[] = [];
              for (let i = 0; i < 3; i++)
                petIds.push(
                  (await stores.pets.create(entryOf({ name: `p${i}`, categoryId: 1, status: 'available' }))).id,
                );
              for (const round of rounds) {
                const orderIds = (await allOrders(stores.orders)).map((r) => r.id);
                await Promise.all(
                  round.map(([kind, c, pick]) => {
                    const caller = kind === 'approve' || kind === 'deliver' ? ADMIN : CALLERS[c]!;
                    if (kind === 'place') return adoption.place(caller, { petId: petIds[pick % petIds.length]! });
                    if (kind === 'get') return adoption.getOrder(caller, idAt(orderIds, pick, 0));
                    return adoption.act(caller, kind as Action, idAt(orderIds, pick, 0));
                  }),
                );
                await checkStoredInvariants(stores);
                await checkVisibleInvariants(adoption, stores.pets);
              }
            }),
        ),
        { ...runs, numRuns: Math.min(runs.numRuns ?? 50, 50) },
      ));

    it('a returned adoption (docs/rules.md §12): a sold pet set back to available by PATCH can be ordered and delivered again; only deliveries after the PATCH bind its status', () =>
      withFixture(make, async (stores) => {
        const clock = new ManualClock(T0);
        const adoption = new Adoption(stores.pets, stores.orders, clock);
        const maintenance = new PetMaintenance(stores.pets, stores.orders, CATEGORIES, clock);
        const petId = (await stores.pets.create(entryOf({ name: 'Boomerang', categoryId: 1, status: 'available' }))).id;
        const adopt = async (): Promise<Order> => {
          clock.advance(1);
          const placed = await adoption.place(CLIENTS[0]!, { petId });
          if (!placed.ok) throw new Error(placed.error.message);
          clock.advance(1);
          expect((await adoption.approve(ADMIN, placed.value.id)).ok).to.equal(true);
          clock.advance(1);
          const delivered = await adoption.deliver(ADMIN, placed.value.id);
          if (!delivered.ok) throw new Error(delivered.error.message);
          return delivered.value;
        };
        const first = await adopt();
        expect((await stores.pets.findById(petId))?.status).to.equal('sold');
        clock.advance(1);
        const returned = await maintenance.patch(ADMIN, petId, { status: 'available' });
        expect(returned.ok && returned.value).to.deep.include({
          status: 'available',
          statusPatchedAt: timestamp(clock.now()),
        });
        const pet = (await stores.pets.findById(petId))!;
        expect(deliveryBindsStatus(pet, first.updatedAt), 'the delivery before the return binds no more').to.equal(
          false,
        );
        await checkVisibleInvariants(adoption, stores.pets);
        await checkStoredInvariants(stores);
        const second = await adopt();
        expect(
          deliveryBindsStatus((await stores.pets.findById(petId))!, second.updatedAt),
          'a delivery after it binds',
        ).to.equal(true);
        expect((await stores.pets.findById(petId))?.status).to.equal('sold');
        expect((await checkVisibleInvariants(adoption, stores.pets)).map((o) => o.status)).to.deep.equal([
          'delivered',
          'delivered',
        ]);
      }));

    it('a withdrawn pet (docs/rules.md §12): its delivered and cancelled orders stay readable and listed, an order for it is 400 as for no pet, a second DELETE and a PATCH are 404', () =>
      withFixture(make, async (stores) => {
        const clock = new ManualClock(T0);
        const adoption = new Adoption(stores.pets, stores.orders, clock);
        const maintenance = new PetMaintenance(stores.pets, stores.orders, CATEGORIES, clock);
        const petId = (await stores.pets.create(entryOf({ name: 'Leaving', categoryId: 1, status: 'available' }))).id;
        const cancelled = await adoption.place(CLIENTS[1]!, { petId });
        if (!cancelled.ok) throw new Error(cancelled.error.message);
        expect((await adoption.cancel(CLIENTS[1]!, cancelled.value.id)).ok).to.equal(true);
        const delivered = await adoption.place(CLIENTS[0]!, { petId });
        if (!delivered.ok) throw new Error(delivered.error.message);
        const held = await maintenance.withdraw(ADMIN, petId);
        expect(!held.ok && held.error)
          .to.deep.include({ code: 'conflict' })
          .and.property('message')
          .that.includes('reserved');
        await adoption.approve(ADMIN, delivered.value.id);
        await adoption.deliver(ADMIN, delivered.value.id);
        const before = await checkVisibleInvariants(adoption, stores.pets);
        expect(await maintenance.withdraw(ADMIN, petId)).to.deep.equal({ ok: true, value: undefined });
        expect(await stores.pets.findById(petId)).to.equal(undefined);
        for (const order of before) {
          expect(await adoption.getOrder(ADMIN, order.id)).to.deep.equal({ ok: true, value: order });
        }
        expect(await adoption.getOrder(CLIENTS[1]!, cancelled.value.id)).to.deep.nested.include({
          'value.status': 'cancelled',
        });
        expect(await checkVisibleInvariants(adoption, stores.pets)).to.deep.equal(before);
        const listed = await adoption.listOrders(CLIENTS[0]!, { status: 'delivered' });
        expect(listed.ok && listed.value.items.map((o) => o.id)).to.deep.equal([delivered.value.id]);
        expect(await adoption.place(CLIENTS[2]!, { petId })).to.deep.equal({
          ok: false,
          error: { code: 'validation_failed', field: 'petId', message: `petId ${petId} names no pet` },
        });
        expect(codeOf(await maintenance.withdraw(ADMIN, petId))).to.equal('not_found');
        expect(codeOf(await maintenance.patch(ADMIN, petId, { name: 'Back' }))).to.equal('not_found');
        expect(await adoption.inventory()).to.deep.equal({ available: 0, pending: 0, sold: 0 });
        await checkStoredInvariants(stores);
      }));

    it('maintenance finishes what an order left half done on the pet first (docs/rules.md §8): a cancel cut short before its pet followed is completed, then the status PATCH applies', () =>
      withFixture(make, async (stores) => {
        const clock = new ManualClock(T0);
        const faults = new FaultInjector({ hangMs: 1 });
        const adoption = new Adoption(faults.petRepository(stores.pets), faults.orderRepository(stores.orders), clock);
        const maintenance = new PetMaintenance(stores.pets, stores.orders, CATEGORIES, clock);
        const petId = (await stores.pets.create(entryOf({ name: 'Half', categoryId: 1, status: 'available' }))).id;
        const placed = await adoption.place(CLIENTS[0]!, { petId });
        if (!placed.ok) throw new Error(placed.error.message);
        faults.use((call) => (call.method === 'swapHold' ? 'fail' : undefined));
        const cut = await adoption.cancel(CLIENTS[0]!, placed.value.id).catch((error: unknown) => error);
        expect(cut).to.be.instanceOf(StoreUnavailableError);
        faults.use(undefined);
        expect(await stores.pets.findHold(petId), 'the pet still holds the order').to.deep.equal({
          status: 'pending',
          orderId: placed.value.id,
        });
        clock.advance(1);
        const patched = await maintenance.patch(ADMIN, petId, { status: 'sold' });
        expect(patched.ok && patched.value).to.deep.include({ status: 'sold', orderId: null });
        expect(await adoption.getOrder(ADMIN, placed.value.id)).to.deep.nested.include({ 'value.status': 'cancelled' });
        await checkStoredInvariants(stores);
        await checkVisibleInvariants(adoption, stores.pets);
      }));

    it('property (docs/rules.md §12): of a withdrawal, a status patch and N order placements arriving together for one available pet, in any interleaving of their store calls, the outcomes are those of some serial order of them; the invariants hold after', () =>
      fc.assert(
        fc.asyncProperty(
          fc.scheduler(),
          fc.integer({ min: 1, max: 5 }),
          fc.constantFrom(...PET_STATUSES),
          raceIfMatchArb,
          raceIfMatchArb,
          fc.nat(),
          fc.nat(),
          (s, n, status, withdrawIfMatch, patchIfMatch, withdrawAt, patchAt) =>
            withFixture(make, async (stores) => {
              const clock = new ManualClock(T0);
              const pet = await stores.pets.create(entryOf({ name: 'Raced', categoryId: 1, status: 'available' }));
              const tag = entityTag((await stores.pets.findById(pet.id))!.revision);
              const raced = scheduledStores(s, stores);
              const adoption = new Adoption(raced.pets, raced.orders, clock);
              const maintenance = new PetMaintenance(raced.pets, raced.orders, CATEGORIES, clock);
              const requests: RaceRequest[] = Array.from({ length: n }, () => ({ kind: 'place' }) as const);
              requests.splice(withdrawAt % (requests.length + 1), 0, { kind: 'withdraw', ifMatch: withdrawIfMatch });
              requests.splice(patchAt % (requests.length + 1), 0, { kind: 'patch', status, ifMatch: patchIfMatch });
              const header = (ifMatch: 'none' | '*' | 'initial') =>
                ifMatch === 'none' ? undefined : ifMatch === '*' ? '*' : tag;
              const outcomes = await s.waitFor(
                Promise.all(
                  requests.map(async (request, i) => {
                    const outcome =
                      request.kind === 'place'
                        ? await adoption.place(CLIENTS[i % CLIENTS.length]!, { petId: pet.id })
                        : request.kind === 'withdraw'
                          ? await maintenance.withdraw(ADMIN, pet.id, header(request.ifMatch))
                          : await maintenance.patch(ADMIN, pet.id, { status: request.status }, header(request.ifMatch));
                    return codeOf(outcome);
                  }),
                ),
              );
              const after = await stores.pets.findById(pet.id);
              const end =
                after === undefined
                  ? ({ withdrawn: true } as const)
                  : ({ withdrawn: false, status: after.status } as const);
              const order = serialOrderOf('available', requests, outcomes, end);
              expect(
                order,
                `${JSON.stringify(requests)} got ${JSON.stringify(outcomes)}, ending ${JSON.stringify(end)}: no serial order gives that`,
              ).not.to.equal(undefined);
              expect(
                outcomes.filter((o, i) => o === 'ok' && requests[i]!.kind === 'place').length,
                'at most one placement succeeds',
              ).to.be.at.most(1);
              await checkStoredInvariants(stores);
              await checkVisibleInvariants(new Adoption(stores.pets, stores.orders, clock), stores.pets);
            }),
        ),
        { ...runs },
      ));

    adoptionCreationTokenCases(make, options);
  });
};

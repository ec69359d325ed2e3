import { expect } from 'chai';
import fc from 'fast-check';
import type { Caller, IdempotentCreation, OrderAction, OrderState } from '../src/index.js';
import {
  Adoption,
  encodeCursor,
  LISTED_STATES,
  pageScope,
  STATES_OF_STATUS,
  StoreUnavailableError,
  timestamp,
} from '../src/index.js';
import { MAX_ROUNDS } from '../src/use-cases/order-repair.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { OrderStoreModel, PetStoreModel } from './support/flow-stores.js';
import { expectRefusal } from './support/refusals.js';

// The adoption use case's own rules (docs/rules.md §8, §10, §12) on plain stores, including the paths
// the contract suites cannot reach with a healthy store: lost races, failing writes, records that
// keep changing or vanish, half-done actions, and how a listing reads past records it does not show.

const A: Caller = { keyId: 'key_aaaaaaaaaaaa', role: 'client' };
const B: Caller = { keyId: 'key_bbbbbbbbbbbb', role: 'client' };
const ADMIN: Caller = { keyId: 'key_ad00000000ad', role: 'admin' };
const T0 = Date.UTC(2027, 0, 1);
const LATER = T0 + 60_000;
const OPEN: readonly OrderState[] = ['placing', 'placed', 'approved', 'cancelling', 'delivering'];

const setup = () => {
  const pets = new PetStoreModel();
  const orders = new OrderStoreModel();
  const clock = new ManualClock(T0);
  const heard: OrderAction[] = [];
  const adoption = new Adoption(pets, orders, clock, (action) => heard.push(action));
  /**
   * An order of `owner` in `state` for a new pet. An open one is held by its pet (`held: false`
   * stages a placement before its swap: its pet available and not holding it).
   */
  const order = (
    owner: Caller,
    state: OrderState,
    { held = OPEN.includes(state), token }: { held?: boolean; token?: string } = {},
  ): number => {
    const petId = pets.add(held ? 'pending' : state === 'delivered' ? 'sold' : 'available');
    const id = orders.add(
      { petId, owner: owner.keyId, state, placedAt: timestamp(T0), updatedAt: timestamp(T0) },
      token,
    );
    if (held) pets.pet(petId).orderId = id;
    return id;
  };
  const petOf = (orderId: number) => pets.pet(orders.order(orderId).petId);
  clock.set(LATER);
  return { pets, orders, adoption, order, petOf, heard };
};

const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const resumed = (token: string): IdempotentCreation => ({ token, resumed: true });

/** The answer of `placedUnder` when it has one (a test that expects one fails otherwise). */
const answered = async <T>(answer: Promise<T | undefined>): Promise<T> => {
  const value = await answer;
  if (value === undefined) throw new Error('placedUnder found no earlier placement');
  return value;
};

describe('Adoption: placing (docs/rules.md §8)', () => {
  it('a body that breaks the rules, or names no pet or a withdrawn one, is refused on petId naming it, and stores nothing', async () => {
    const { adoption, orders, pets } = setup();
    expectRefusal(await adoption.place(A, {}), 'validation_failed', 'petId', 'no petId');
    expectRefusal(await adoption.place(A, { petId: 'one' }), 'validation_failed', 'petId', 'a string');
    expect(
      expectRefusal(await adoption.place(A, { petId: 99 }), 'validation_failed', 'petId', 'no such pet'),
    ).to.include('99');
    const withdrawn = pets.add('available');
    pets.pet(withdrawn).withdrawn = true;
    expect(
      expectRefusal(await adoption.place(A, { petId: withdrawn }), 'validation_failed', 'petId', 'a withdrawn pet'),
    ).to.include(`petId ${withdrawn}`);
    expect(orders.orders.size).to.equal(0);
  });

  it('a pet that is not available is refused with 409 naming the pet and its status, and no order is created', async () => {
    const { adoption, pets, orders } = setup();
    for (const status of ['pending', 'sold'] as const) {
      const petId = pets.add(status);
      const message = expectRefusal(await adoption.place(A, { petId }), 'conflict', undefined, status);
      expect(message).to.include(`pet ${petId}`).and.to.include(status).and.to.include('available');
    }
    expect(orders.calls).to.deep.equal([]);
  });

  it('an available pet is reserved for the caller: the order is placed at the clock’s time, its pet pending and holding it', async () => {
    const { adoption, pets, orders } = setup();
    const petId = pets.add('available');
    const placed = await adoption.place(A, { petId });
    const at = timestamp(LATER);
    expect(placed).to.deep.equal({ ok: true, value: { id: 1, petId, status: 'placed', placedAt: at, updatedAt: at } });
    expect(orders.order(1)).to.deep.include({ owner: A.keyId, state: 'placed' });
    // The write sequence of transitions.ts: (1) the record, placing; (2) the pet's swap; (3) placing → placed. A free pet: read once, nothing to settle.
    expect(orders.calls).to.deep.equal(['create', 'updateState 1 placing→placed']);
    expect(pets.calls).to.deep.equal([`findHold ${petId}`, `swapHold ${petId} available/null→pending/1`]);
    expect(await pets.findHold(petId)).to.deep.equal({ status: 'pending', orderId: 1 });
  });

  it('a placement that loses its pet between the look and the swap answers 409 with the status the pet has now; its record is abandoned, never shown', async () => {
    const { adoption, pets, orders } = setup();
    const sold = pets.add('available');
    pets.swapHold = async (id) => ((pets.pet(id).status = 'sold'), false);
    expect(expectRefusal(await adoption.place(A, { petId: sold }), 'conflict')).to.include('sold');
    expect([...orders.orders.values()].map((o) => o.state)).to.deep.equal(['abandoned']);
    const listed = await adoption.listOrders(ADMIN);
    expect(listed.ok && listed.value.items).to.deep.equal([]);
  });

  it('a placement whose pet is withdrawn between the look and the swap is refused as for no pet (docs/rules.md §12)', async () => {
    const { adoption, pets } = setup();
    const petId = pets.add('available');
    pets.swapHold = async (id) => ((pets.pet(id).withdrawn = true), false);
    expect(expectRefusal(await adoption.place(A, { petId }), 'validation_failed', 'petId')).to.include(String(petId));
  });

  it('a lost placement whose abandon write meets an outage still answers 409; any other failure is not swallowed', async () => {
    const { adoption, pets, orders } = setup();
    pets.swapHold = async () => false;
    orders.updateState = async () => {
      throw new StoreUnavailableError('down');
    };
    expectRefusal(await adoption.place(A, { petId: pets.add('available') }), 'conflict');
    const bug = new TypeError('a bug');
    orders.updateState = async () => {
      throw bug;
    };
    expect(await rejection(adoption.place(A, { petId: pets.add('available') }))).to.equal(bug);
  });

  it('when another request finished the placement first, the answer is the order as it is now; a record that vanished meanwhile is an outage (503) naming the order', async () => {
    const { adoption, pets, orders } = setup();
    const updateState = orders.updateState;
    // Another request settles the record and approves it just before this one's own compare-and-set.
    orders.updateState = async (id, expected, next, at) => {
      if (expected === 'placing') await updateState(id, 'placing', 'approved', 'elsewhere');
      return updateState(id, expected, next, at);
    };
    const placed = await adoption.place(A, { petId: pets.add('available') });
    expect(placed.ok && placed.value).to.deep.include({ id: 1, status: 'approved', updatedAt: 'elsewhere' });
    orders.updateState = async (id, expected) => (expected === 'placing' ? (orders.orders.delete(id), false) : false);
    const error = await rejection(adoption.place(A, { petId: pets.add('available') }));
    expect(error).to.be.instanceOf(StoreUnavailableError);
    expect((error as Error).message).to.include('order 2 ');
  });

  it('a pet held by an order whose cancellation was decided but not finished is freed first, then placed; a pet held by a live order is not, and is read once', async () => {
    const { adoption, pets, orders, order, petOf } = setup();
    const cancelling = order(A, 'cancelling');
    const petId = petOf(cancelling).id;
    const placed = await adoption.place(B, { petId });
    expect(placed.ok && placed.value.status).to.equal('placed');
    expect(orders.order(cancelling).state).to.equal('cancelled');
    expect(await pets.findHold(petId)).to.deep.equal({ status: 'pending', orderId: placed.ok ? placed.value.id : -1 });
    const approved = order(A, 'approved');
    pets.calls.length = 0;
    const refused = expectRefusal(await adoption.place(B, { petId: petOf(approved).id }), 'conflict');
    expect(refused).to.include('pending');
    expect(pets.calls, 'nothing to finish: the pet is not read again').to.deep.equal([
      `findHold ${petOf(approved).id}`,
    ]);
    // A free pet: no order is read before the new one is created.
    orders.calls.length = 0;
    await adoption.place(B, { petId: pets.add('available') });
    expect(orders.calls[0]).to.equal('create');
  });
});

describe('Adoption: a placement under an Idempotency-Key (docs/rules.md §10)', () => {
  it('writes its creation token into the record; a first claim looks nothing up and abandons the record it loses', async () => {
    const { adoption, pets, orders } = setup();
    const first: IdempotentCreation = { token: 't1', resumed: false };
    expect(await adoption.placedUnder(first)).to.equal(undefined);
    expect(orders.calls).to.deep.equal([]);
    const placed = await adoption.place(A, { petId: pets.add('available') }, first);
    expect(placed.ok && placed.value.status).to.equal('placed');
    expect(orders.calls[0]).to.equal('create t1');
    expect(orders.tokens.get('t1')).to.equal(1);
    pets.swapHold = async () => false;
    expectRefusal(
      await adoption.place(A, { petId: pets.add('available') }, { token: 't2', resumed: false }),
      'conflict',
    );
    expect(orders.order(orders.tokens.get('t2')!).state).to.equal('abandoned');
  });

  it('a resumed claim with no record under its token is answered undefined: the placement runs as new', async () => {
    const { adoption } = setup();
    expect(await adoption.placedUnder(resumed('none'))).to.equal(undefined);
  });

  it('a resumed claim answers the order its earlier attempt created as it is now, settled on the way', async () => {
    const { adoption, orders, order } = setup();
    for (const state of ['placed', 'approved', 'cancelled', 'delivered'] as const) {
      const id = order(A, state, { token: state });
      expect(await adoption.placedUnder(resumed(state)), state).to.deep.equal({
        ok: true,
        value: { id, petId: orders.order(id).petId, status: state, placedAt: timestamp(T0), updatedAt: timestamp(T0) },
      });
    }
    const cancelling = order(A, 'cancelling', { token: 'cancelling' });
    const answer = await adoption.placedUnder(resumed('cancelling'));
    expect(answer?.ok && answer.value.status).to.equal('cancelled');
    expect(orders.order(cancelling).state).to.equal('cancelled');
  });

  it('an earlier attempt that swapped its pet but stopped before its last write: settled, placed', async () => {
    const { adoption, orders, order } = setup();
    const id = order(A, 'placing', { token: 't' });
    const answer = await adoption.placedUnder(resumed('t'));
    expect(answer?.ok && answer.value).to.deep.include({ id, status: 'placed' });
    expect(orders.order(id).state).to.equal('placed');
  });

  it('an earlier attempt that stopped before its swap: the placement goes on with that record (no second record)', async () => {
    const { adoption, orders, order, petOf } = setup();
    const id = order(A, 'placing', { held: false, token: 't' });
    const answer = await adoption.placedUnder(resumed('t'));
    expect(answer?.ok && answer.value).to.deep.include({ id, status: 'placed' });
    expect(petOf(id)).to.deep.include({ status: 'pending', orderId: id });
    expect(orders.orders.size).to.equal(1);
  });

  it('an earlier attempt that stopped before its swap, its pet now taken: 409 naming the status, the record left placing (its swap may still land), never abandoned', async () => {
    const { adoption, pets, orders, order, petOf } = setup();
    const id = order(A, 'placing', { held: false, token: 't' });
    pets.pet(petOf(id).id).status = 'sold';
    expect(expectRefusal(await answered(adoption.placedUnder(resumed('t'))), 'conflict')).to.include('sold');
    expect(orders.order(id).state).to.equal('placing');
    expect(
      pets.calls.filter((call) => call.startsWith('swapHold')),
      'a pet seen taken is not tried',
    ).to.deep.equal([]);
    // Taken between the look and the swap: still not abandoned.
    const racing = order(A, 'placing', { held: false, token: 'r' });
    pets.swapHold = async (petId) => ((pets.pet(petId).status = 'sold'), false);
    expect(expectRefusal(await answered(adoption.placedUnder(resumed('r'))), 'conflict')).to.include('sold');
    expect(orders.order(racing).state).to.equal('placing');
  });

  it('an earlier attempt whose pet was withdrawn is refused as for no pet (docs/rules.md §12)', async () => {
    const { adoption, order, petOf } = setup();
    const id = order(A, 'placing', { held: false, token: 't' });
    petOf(id).withdrawn = true;
    expect(expectRefusal(await answered(adoption.placedUnder(resumed('t'))), 'validation_failed', 'petId')).to.include(
      String(petOf(id).id),
    );
  });

  it('an earlier attempt that lost its pet: 409 telling to send a new key; a pet that holds the abandoned record all the same is handed back', async () => {
    const { adoption, order, petOf } = setup();
    const lost = order(A, 'abandoned', { token: 'lost' });
    const message = expectRefusal(await answered(adoption.placedUnder(resumed('lost'))), 'conflict');
    expect(message)
      .to.include(`pet ${petOf(lost).id}`)
      .and.to.include('Idempotency-Key');
    const late = order(A, 'abandoned', { held: true, token: 'late' });
    expectRefusal(await answered(adoption.placedUnder(resumed('late'))), 'conflict');
    expect(petOf(late)).to.deep.include({ status: 'available', orderId: null });
  });

  it('a resumed placement whose earlier attempt holds the pet already answers that order instead of 409', async () => {
    const { adoption, order, petOf, orders } = setup();
    const id = order(A, 'placing', { token: 't' });
    // placedUnder looked before the earlier attempt's record landed; the repeat now finds its pet held by it.
    const placed = await adoption.place(A, { petId: petOf(id).id }, resumed('t'));
    expect(placed.ok && placed.value).to.deep.include({ id, status: 'placed' });
    expect(orders.orders.size).to.equal(1);
    // Without a resumed claim the same pet is simply taken.
    expectRefusal(await adoption.place(A, { petId: petOf(id).id }, { token: 'u', resumed: false }), 'conflict');
  });

  it('a resumed placement that meets an earlier attempt’s late record never abandons it; if its pet holds it, that order is the answer', async () => {
    const { adoption, pets, orders, order, petOf } = setup();
    // The earlier attempt's record lands between this attempt's look at the pet and its create.
    const petId = pets.add('available');
    const create = orders.create;
    orders.create = async (draft, token) => {
      const earlier = orders.add({ ...draft, state: 'placing' }, token);
      pets.pet(petId).status = 'pending';
      pets.pet(petId).orderId = earlier;
      return create(draft, token);
    };
    const placed = await adoption.place(A, { petId }, resumed('t'));
    expect(placed.ok && placed.value).to.deep.include({ id: 1, status: 'placed' });
    // Its pet taken by another order: 409, the record stays placing.
    orders.create = create;
    const other = order(B, 'placing', { held: false, token: 'o' });
    const otherPet = petOf(other).id;
    pets.swapHold = async (id) => ((pets.pet(id).status = 'sold'), false);
    expect(expectRefusal(await adoption.place(B, { petId: otherPet }, resumed('o')), 'conflict')).to.include('sold');
    expect(orders.order(other).state).to.equal('placing');
  });

  it('a resumed placement whose pet is withdrawn between the look and the swap is refused as for no pet (docs/rules.md §12)', async () => {
    const { adoption, pets } = setup();
    const petId = pets.add('available');
    pets.swapHold = async (id) => ((pets.pet(id).withdrawn = true), false);
    expect(expectRefusal(await adoption.place(A, { petId }, resumed('t')), 'validation_failed', 'petId')).to.include(
      String(petId),
    );
  });

  it('a resumed placement whose create answers the earlier attempt’s record, finished and cancelled since, answers it as it is and leaves the pet alone', async () => {
    const { adoption, pets, orders } = setup();
    const petId = pets.add('available');
    const create = orders.create;
    // The earlier attempt's record lands, is placed and cancelled, all after this attempt looked at the pet.
    orders.create = async (draft, token) => {
      orders.add({ ...draft, state: 'cancelled' }, token);
      return create(draft, token);
    };
    const answer = await adoption.place(A, { petId }, resumed('t'));
    expect(answer.ok && answer.value).to.deep.include({ id: 1, status: 'cancelled' });
    expect(pets.pet(petId)).to.deep.include({ status: 'available', orderId: null });
  });

  it('a repeat whose last write finds its record abandoned (the earlier attempt’s abandon landed late) hands the pet back and answers 409', async () => {
    const { adoption, orders, order, petOf } = setup();
    const id = order(A, 'placing', { held: false, token: 't' });
    const updateState = orders.updateState;
    orders.updateState = async (orderId, expected, next, at) => {
      if (expected === 'placing' && next === 'placed') await updateState(orderId, 'placing', 'abandoned', at);
      return updateState(orderId, expected, next, at);
    };
    expect(expectRefusal(await answered(adoption.placedUnder(resumed('t'))), 'conflict')).to.include('Idempotency-Key');
    expect(petOf(id)).to.deep.include({ status: 'available', orderId: null });
  });
});

describe('Adoption: reading and acting on one order (docs/rules.md §8)', () => {
  it('an id that is not canonical is refused on orderId; one beyond 2^53 − 1 is not found without asking the store; not_found names the id', async () => {
    const { adoption, orders, order } = setup();
    const id = order(A, 'placed');
    for (const raw of ['abc', '01', '-1', '1.0'])
      expectRefusal(await adoption.getOrder(A, raw), 'validation_failed', 'orderId', raw);
    orders.calls.length = 0;
    expect(expectRefusal(await adoption.getOrder(ADMIN, '9007199254740993'), 'not_found')).to.include(
      '9007199254740993',
    );
    expect(orders.calls).to.deep.equal([]);
    expect(expectRefusal(await adoption.getOrder(B, id), 'not_found'), "another key's order").to.include(`id ${id}`);
    expect(expectRefusal(await adoption.cancel(B, id), 'not_found')).to.include(`id ${id}`);
    expect(await adoption.getOrder(A, String(id))).to.deep.include({ ok: true });
    expect(await adoption.getOrder(ADMIN, id)).to.deep.include({ ok: true });
  });

  it('approve and deliver need an admin key: forbidden before any lookup, naming the action', async () => {
    const { adoption, orders, order } = setup();
    const id = order(A, 'placed');
    orders.calls.length = 0;
    for (const action of ['approve', 'deliver'] as const) {
      expect(expectRefusal(await adoption.act(A, action, id), 'forbidden')).to.include(action);
    }
    expect(orders.calls).to.deep.equal([]);
  });

  it('an action not allowed from the order’s status is refused with 409 naming the order, its status and the ones it may start from', async () => {
    const { adoption, order } = setup();
    const delivered = order(A, 'delivered');
    const message = expectRefusal(await adoption.cancel(A, delivered), 'conflict');
    expect(message)
      .to.include(`order ${delivered}`)
      .and.to.include('delivered')
      .and.to.include('placed or approved')
      .and.to.include('cancelled');
    expect(expectRefusal(await adoption.deliver(ADMIN, order(A, 'placed')), 'conflict')).to.include('approved');
  });

  it('each action moves the order and its pet as the table says, at the clock’s time; a repeat is answered unchanged and heard once', async () => {
    const { adoption, order, petOf, heard, orders } = setup();
    const at = timestamp(LATER);
    const id = order(A, 'placed');
    expect(await adoption.approve(ADMIN, id)).to.deep.equal({
      ok: true,
      value: { id, petId: petOf(id).id, status: 'approved', placedAt: timestamp(T0), updatedAt: at },
    });
    expect(petOf(id)).to.deep.include({ status: 'pending', orderId: id });
    expect(await adoption.deliver(ADMIN, id)).to.deep.include({
      ok: true,
      value: { id, petId: petOf(id).id, status: 'delivered', placedAt: timestamp(T0), updatedAt: at },
    });
    expect(petOf(id)).to.deep.include({ status: 'sold', orderId: null });
    expect(orders.order(id).state).to.equal('delivered');
    const cancelled = order(A, 'approved');
    expect((await adoption.cancel(A, cancelled)).ok).to.equal(true);
    expect(petOf(cancelled)).to.deep.include({ status: 'available', orderId: null });
    orders.calls.length = 0;
    expect(await adoption.deliver(ADMIN, id)).to.deep.include({ ok: true });
    expect(await adoption.cancel(A, cancelled)).to.deep.include({ ok: true });
    expect(
      orders.calls.filter((call) => call.startsWith('updateState')),
      'a repeat writes nothing',
    ).to.deep.equal([]);
    expect(heard).to.deep.equal(['approve', 'deliver', 'cancel']);
  });

  it('a compare-and-set lost to another request is retried on the record as it is now', async () => {
    for (const action of ['approve', 'cancel'] as const) {
      const { adoption, orders, order, heard } = setup();
      const id = order(A, 'placed');
      const updateState = orders.updateState;
      let lost = false;
      orders.updateState = async (orderId, expected, next, at) => {
        if (!lost) {
          lost = true;
          return false;
        }
        return updateState(orderId, expected, next, at);
      };
      const done = await adoption.act(ADMIN, action, id);
      expect(done.ok && done.value.status, action).to.equal(TRANSITION_TO[action]);
      expect(heard, action).to.deep.equal([action]);
    }
  });

  it(`gives up after ${MAX_ROUNDS} compare-and-sets lost in a row (503 naming the order, retry), for one-write and two-write actions alike`, async () => {
    for (const action of ['approve', 'cancel'] as const) {
      const { adoption, orders, order, heard } = setup();
      const id = order(A, 'placed');
      let attempts = 0;
      orders.updateState = async () => (attempts++, false);
      const error = await rejection(adoption.act(ADMIN, action, id));
      expect(error, action).to.be.instanceOf(StoreUnavailableError);
      expect((error as Error).message)
        .to.include(`order ${id} `)
        .and.to.include('retry');
      expect(attempts, action).to.equal(MAX_ROUNDS);
      expect(heard).to.deep.equal([]);
    }
  });

  it('the inventory is the pet store’s count by status', async () => {
    const { adoption, pets } = setup();
    pets.add('available');
    pets.add('sold');
    pets.add('sold');
    expect(await adoption.inventory()).to.deep.equal({ available: 1, pending: 0, sold: 2 });
  });
});

const TRANSITION_TO = { approve: 'approved', cancel: 'cancelled', deliver: 'delivered' } as const;

describe('OrderRepair: records left half done are settled before anyone sees them (docs/rules.md §8)', () => {
  it('a decided cancel or delivery is finished (the pet follows, then the record), keeping its time', async () => {
    const { adoption, order, petOf, orders } = setup();
    for (const [state, status, pet] of [
      ['cancelling', 'cancelled', 'available'],
      ['delivering', 'delivered', 'sold'],
    ] as const) {
      const id = order(A, state);
      const got = await adoption.getOrder(A, id);
      expect(got, state).to.deep.equal({
        ok: true,
        value: { id, petId: petOf(id).id, status, placedAt: timestamp(T0), updatedAt: timestamp(T0) },
      });
      expect(petOf(id)).to.deep.include({ status: pet, orderId: null });
      expect(orders.order(id).state).to.equal(status);
    }
  });

  it('a placement record its pet does not hold stays invisible (also when its pet is gone); one it holds is placed', async () => {
    const { adoption, orders, order, petOf } = setup();
    const gone = orders.add({
      petId: 999,
      owner: A.keyId,
      state: 'placing',
      placedAt: timestamp(T0),
      updatedAt: timestamp(T0),
    });
    expectRefusal(await adoption.getOrder(ADMIN, gone), 'not_found');
    const unheld = order(A, 'placing', { held: false });
    expectRefusal(await adoption.getOrder(A, unheld), 'not_found');
    expect(orders.order(unheld).state, 'a reader never abandons it').to.equal('placing');
    const abandoned = order(A, 'abandoned');
    expectRefusal(await adoption.getOrder(A, abandoned), 'not_found');
    const held = order(A, 'placing');
    expect((await adoption.getOrder(A, held)).ok).to.equal(true);
    expect(petOf(held).orderId).to.equal(held);
  });

  it('a record changed by another request while it is settled is settled as it is now', async () => {
    const { adoption, orders, order } = setup();
    const id = order(A, 'cancelling');
    const updateState = orders.updateState;
    // Another reader finished it first.
    orders.updateState = async (orderId, expected, next, at) => {
      await updateState(orderId, expected, next, at);
      return false;
    };
    const got = await adoption.getOrder(A, id);
    expect(got.ok && got.value.status).to.equal('cancelled');
  });

  it(`a record that keeps changing under the reader makes it give up after ${MAX_ROUNDS} rounds (503 naming the order); one that vanishes is not found`, async () => {
    const { adoption, orders, order } = setup();
    const id = order(A, 'cancelling');
    let attempts = 0;
    orders.updateState = async () => (attempts++, false);
    const error = await rejection(adoption.getOrder(ADMIN, id));
    expect(error).to.be.instanceOf(StoreUnavailableError);
    expect((error as Error).message)
      .to.include(`order ${id} `)
      .and.to.include('retry');
    expect(attempts).to.equal(MAX_ROUNDS);
    const findById = orders.findById;
    let reads = 0;
    orders.findById = async (wanted) => (reads++ === 0 ? findById(wanted) : undefined);
    expectRefusal(await adoption.getOrder(ADMIN, id), 'not_found');
  });
});

describe('Adoption: listing orders (docs/rules.md §2, §8)', () => {
  it('status must be one of the four, and limit and cursor follow the pager', async () => {
    const { adoption } = setup();
    const message = expectRefusal(await adoption.listOrders(A, { status: 'bogus' }), 'validation_failed', 'status');
    expect(message).to.include('placed, approved, delivered, cancelled');
    expectRefusal(await adoption.listOrders(A, { status: 3 }), 'validation_failed', 'status');
    expectRefusal(await adoption.listOrders(A, { limit: 0 }), 'validation_failed', 'limit');
    expectRefusal(await adoption.listOrders(A, { cursor: 'nope' }), 'validation_failed', 'cursor');
    for (const status of ['placed', 'approved', 'delivered', 'cancelled'])
      expect((await adoption.listOrders(A, { status })).ok, status).to.equal(true);
  });

  it('the next cursor belongs to the listing: the order list, its owner and its status filter; refused in any other', async () => {
    const { adoption, order } = setup();
    for (let i = 0; i < 3; i++) order(A, 'placed');
    order(B, 'placed');
    const first = await adoption.listOrders(A, { limit: 1, status: 'placed' });
    if (!first.ok) throw new Error(first.error.message);
    const cursor = first.value.nextCursor;
    expect(cursor).to.equal(encodeCursor(1, pageScope('orders', { owner: A.keyId, status: 'placed' })));
    const next = await adoption.listOrders(A, { limit: 1, status: 'placed', cursor });
    expect(next.ok && next.value.items.map((o) => o.id)).to.deep.equal([2]);
    for (const [caller, status] of [
      [B, 'placed'],
      [ADMIN, 'placed'],
      [A, undefined],
      [A, 'approved'],
    ] as const) {
      const other = await adoption.listOrders(caller, {
        limit: 1,
        cursor,
        ...(status === undefined ? {} : { status }),
      });
      expectRefusal(other, 'validation_failed', 'cursor', `${caller.keyId} ${status}`);
    }
    const mine = await adoption.listOrders(A, { limit: 1 });
    const mineCursor = mine.ok ? mine.value.nextCursor : undefined;
    expect(mineCursor).to.equal(encodeCursor(1, pageScope('orders', { owner: A.keyId })));
    expectRefusal(
      await adoption.listOrders(B, { limit: 1, cursor: mineCursor }),
      'validation_failed',
      'cursor',
      "another key's unfiltered listing",
    );
    expectRefusal(
      await adoption.listOrders(ADMIN, { limit: 1, cursor: mineCursor }),
      'validation_failed',
      'cursor',
      "a client's cursor at an admin",
    );
    const admin = await adoption.listOrders(ADMIN, { limit: 1 });
    const adminCursor = admin.ok ? admin.value.nextCursor : undefined;
    expect(adminCursor).to.equal(encodeCursor(1, pageScope('orders')));
    expectRefusal(
      await adoption.listOrders(A, { limit: 1, cursor: adminCursor }),
      'validation_failed',
      'cursor',
      "an admin's cursor at a client",
    );
    expectRefusal(
      await adoption.listOrders(ADMIN, { cursor: encodeCursor(1, pageScope('pets')) }),
      'validation_failed',
      'cursor',
      'a cursor of the pet list',
    );
  });

  it('property: a cursor is accepted exactly in the listing it came from: the same owner (every admin key lists all orders) and the same status filter', async () => {
    const { adoption, order } = setup();
    const ADMIN2: Caller = { keyId: 'key_ad11111111ad', role: 'admin' };
    for (const owner of [A, B])
      for (const state of ['placed', 'approved', 'delivered', 'cancelled'] as const)
        for (let i = 0; i < 2; i++) order(owner, state);
    const listing = fc.record({
      caller: fc.constantFrom(A, B, ADMIN, ADMIN2),
      status: fc.constantFrom(undefined, 'placed', 'approved', 'delivered', 'cancelled'),
    });
    const filters = ({ status }: { status: string | undefined }) => (status === undefined ? {} : { status });
    const scope = ({ caller, status }: { caller: Caller; status: string | undefined }) =>
      `${caller.role === 'admin' ? '*' : caller.keyId} ${status}`;
    await fc.assert(
      fc.asyncProperty(listing, listing, async (from, at) => {
        const first = await adoption.listOrders(from.caller, { limit: 1, ...filters(from) });
        const cursor = first.ok ? first.value.nextCursor : undefined;
        expect(cursor, 'every listing here has a next page').to.be.a('string');
        const next = await adoption.listOrders(at.caller, { limit: 1, cursor, ...filters(at) });
        if (scope(from) === scope(at)) expect(next.ok).to.equal(true);
        else expectRefusal(next, 'validation_failed', 'cursor', `${scope(from)} at ${scope(at)}`);
      }),
    );
  });

  it("asks the store for limit + 1 rows of the caller's orders (an admin's query names no owner), in the states of the status asked only", async () => {
    const { adoption, orders, order } = setup();
    order(A, 'placed');
    await adoption.listOrders(A, { limit: 5 });
    await adoption.listOrders(ADMIN, { limit: 5, status: 'cancelled' });
    expect(orders.queries).to.deep.equal([
      { owner: A.keyId, states: LISTED_STATES, afterId: 0, limit: 6 },
      { states: STATES_OF_STATUS.cancelled, afterId: 0, limit: 6 },
    ]);
    expect(Object.hasOwn(orders.queries[1]!, 'owner')).to.equal(false);
  });

  it('a status filter shows the records left half done on their way to that status, settled, and only those', async () => {
    const { adoption, order } = setup();
    const placing = order(A, 'placing');
    const cancelling = order(A, 'cancelling');
    const delivering = order(A, 'delivering');
    const approved = order(A, 'approved');
    order(A, 'abandoned');
    order(A, 'placing', { held: false });
    const ids = async (status?: string) => {
      const page = await adoption.listOrders(A, status === undefined ? {} : { status });
      return page.ok ? page.value.items.map((o) => [o.id, o.status]) : page.error;
    };
    expect(await ids('placed')).to.deep.equal([[placing, 'placed']]);
    expect(await ids('cancelled')).to.deep.equal([[cancelling, 'cancelled']]);
    expect(await ids('delivered')).to.deep.equal([[delivering, 'delivered']]);
    expect(await ids('approved')).to.deep.equal([[approved, 'approved']]);
    expect(await ids()).to.deep.equal([
      [placing, 'placed'],
      [cancelling, 'cancelled'],
      [delivering, 'delivered'],
      [approved, 'approved'],
    ]);
  });

  it('records it does not show do not shorten a page: it reads on, for the rest of the page and its look-ahead row only', async () => {
    const { adoption, orders, order } = setup();
    order(A, 'placed');
    order(A, 'placing', { held: false }); // its pet does not hold it: invisible
    order(A, 'placed');
    order(A, 'placed');
    order(A, 'placing', { held: false });
    order(A, 'placed');
    const first = await adoption.listOrders(A, { limit: 2 });
    if (!first.ok) throw new Error(first.error.message);
    expect(first.value.items.map((o) => o.id)).to.deep.equal([1, 3]);
    expect(first.value.nextCursor).to.equal(encodeCursor(3, pageScope('orders', { owner: A.keyId })));
    expect(orders.queries.map((q) => [q.afterId, q.limit])).to.deep.equal([
      [0, 3],
      [3, 1],
    ]);
    orders.queries.length = 0;
    const second = await adoption.listOrders(A, { limit: 2, cursor: first.value.nextCursor });
    expect(second.ok && second.value.items.map((o) => o.id)).to.deep.equal([4, 6]);
    expect(second.ok && second.value.nextCursor).to.equal(undefined);
    expect(orders.queries.map((q) => [q.afterId, q.limit])).to.deep.equal([
      [3, 3],
      [6, 1],
    ]);
  });

  it('a row the store answers in the state of another status is not shown: a page holds only the status asked', async () => {
    const { adoption, orders, order } = setup();
    order(A, 'placed');
    const approved = order(A, 'approved');
    // A store that answers every record, whatever the states asked for (one that changed between index and fetch).
    orders.list = async (query) =>
      [...orders.orders.values()].filter((o) => o.id > query.afterId).slice(0, query.limit);
    const page = await adoption.listOrders(A, { status: 'approved' });
    expect(page.ok && page.value.items.map((o) => o.id)).to.deep.equal([approved]);
  });

  it('a broken store that answers rows at or before where it was asked to start ends the page with what it has, instead of reading forever', async () => {
    const { adoption, orders, order } = setup();
    for (let i = 0; i < 4; i++) order(A, 'placing', { held: false }); // invisible: they never fill a page
    const all = [...orders.orders.values()];
    let calls = 0;
    orders.list = async (query) => {
      if (++calls > 50) throw new Error('the listing reads forever');
      return all.slice(0, query.limit);
    };
    // Answers the same invisible rows whatever afterId: the second round gets rows up to where it started, and ends there.
    const empty = await adoption.listOrders(A, { limit: 2 });
    expect(empty.ok && empty.value.items).to.deep.equal([]);
    expect(calls).to.equal(2);
  });
});

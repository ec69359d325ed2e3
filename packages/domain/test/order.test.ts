// docs/rules.md §8 rules that need no store: the transition table, the body and id rules, and the
// one source shared by the validator and the JSON Schema.
import { expect } from 'chai';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  LISTED_STATES,
  NewOrderSchema,
  ORDER_STATES,
  ORDER_STATUSES,
  OrderSchema,
  parseOrderId,
  QUOTE_LIMIT,
  repairStep,
  STATES_OF_STATUS,
  StoreUnavailableError,
  TRANSITIONS,
  toOrder,
  timestamp,
  validateNewOrder,
} from '../src/index.js';
import { isOrderStatus } from '../src/order/order.js';
import { expectRefusal } from './support/refusals.js';

const ajv = new Ajv2020({ strict: true, allErrors: false });
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
ajv.addFormat('date-time', { type: 'string', validate: (s: string) => !Number.isNaN(Date.parse(s)) });
const schemaAccepts = ajv.compile(NewOrderSchema);

describe('orders: rules without a store (docs/rules.md §8)', () => {
  it('the transition table is §8: from, to, what the pet becomes, who may', () => {
    expect(TRANSITIONS).to.deep.equal({
      approve: { from: ['placed'], to: 'approved', pet: 'pending', who: 'admin' },
      deliver: { from: ['approved'], to: 'delivered', pet: 'sold', via: 'delivering', who: 'admin' },
      cancel: {
        from: ['placed', 'approved'],
        to: 'cancelled',
        pet: 'available',
        via: 'cancelling',
        who: 'owner-or-admin',
      },
    });
  });

  it('the repair rule finishes every write-ahead state toward the status it was heading for, and nothing else', () => {
    expect(repairStep('placing')).to.deep.equal({ to: 'placed', onlyIfHeld: true });
    expect(repairStep('cancelling')).to.deep.equal({
      pet: { from: 'pending', to: 'available' },
      to: 'cancelled',
      onlyIfHeld: false,
    });
    expect(repairStep('delivering')).to.deep.equal({
      pet: { from: 'pending', to: 'sold' },
      to: 'delivered',
      onlyIfHeld: false,
    });
    for (const settled of ['placed', 'approved', 'delivered', 'cancelled', 'abandoned'] as const)
      expect(repairStep(settled)).to.equal(undefined);
    for (const [status, states] of Object.entries(STATES_OF_STATUS)) {
      for (const state of states) expect(repairStep(state)?.to ?? state).to.equal(status);
    }
  });

  it('an Order is RFC 3339 UTC with milliseconds, and carries no owner', () => {
    const at = timestamp(Date.UTC(2027, 0, 2, 3, 4, 5, 6));
    expect(at).to.equal('2027-01-02T03:04:05.006Z');
    const order = toOrder(
      { id: 1, petId: 2, owner: 'key_0123456789ab', state: 'placed', placedAt: at, updatedAt: at },
      'placed',
    );
    expect(order).to.deep.equal({ id: 1, petId: 2, status: 'placed', placedAt: at, updatedAt: at });
    expect(ajv.validate(OrderSchema, order)).to.equal(true);
  });

  it('property: timestamp writes exactly what toISOString writes, for instants in any order, near each other or not, fractions and -0 too; beyond years 0000–9999 also; a non-time throws as it does', () => {
    const MAX = 8.64e15;
    const DAY = 86_400_000;
    const instant = fc.oneof(
      fc.integer({ min: -MAX, max: MAX }),
      fc.integer({ min: Date.UTC(-1, 0, 1), max: Date.UTC(10_001, 0, 1) }),
      fc.double({ min: -MAX, max: MAX, noNaN: true }),
      fc.constantFrom(
        0,
        -0,
        -1,
        DAY - 1,
        DAY,
        -DAY,
        Date.UTC(9999, 11, 31, 23, 59, 59, 999),
        Date.UTC(10_000, 0, 1),
        -62_167_219_200_001,
      ),
    );
    // Runs of nearby instants (the same second, the next, the one before; the same day, the next), as a clock gives them.
    const step = fc.oneof(
      fc.integer({ min: -1500, max: 1500 }),
      fc.integer({ min: -2 * DAY, max: 2 * DAY }),
      fc.integer({ min: -1000, max: 100_000 }),
    );
    const run = fc.tuple(instant, fc.array(step, { maxLength: 12 }));
    fc.assert(
      fc.property(fc.array(run, { minLength: 1, maxLength: 4 }), (runs) => {
        for (const [start, steps] of runs) {
          let at = start;
          for (const step of [0, ...steps]) {
            at += step;
            if (Math.abs(at) > MAX) continue;
            expect(timestamp(at), String(at)).to.equal(new Date(at).toISOString());
          }
        }
      }),
      { numRuns: 500 },
    );
    for (const bad of [Number.NaN, Infinity, -Infinity, MAX + 1]) expect(() => timestamp(bad)).to.throw(RangeError);
  });

  it('orderId follows the petId rules', () => {
    expect(parseOrderId('12')).to.deep.equal({ ok: true, value: 12 });
    expect(parseOrderId('9223372036854775807')).to.deep.equal({ ok: true, value: null });
    for (const bad of ['', '0', '-1', '007', '1.5', 'abc', '9223372036854775808', ' 1']) {
      const result = parseOrderId(bad);
      expect(result.ok, bad).to.equal(false);
      expect(result.ok || result.error.field).to.equal('orderId');
    }
  });

  it('property: validateNewOrder accepts exactly what NewOrderSchema accepts, and names the field it refuses', () =>
    fc.assert(
      fc.property(
        fc.oneof(
          fc.record(
            {
              petId: fc.oneof(
                fc.integer({ min: -5, max: 2 ** 53 + 5 }),
                fc.double(),
                fc.string(),
                fc.constant(null),
                fc.boolean(),
              ),
            },
            { requiredKeys: [] },
          ),
          fc.dictionary(fc.oneof(fc.constant('petId'), fc.string({ maxLength: 5 })), fc.oneof(fc.nat(), fc.string())),
          fc.anything(),
        ),
        (body) => {
          const result = validateNewOrder(body);
          expect(result.ok, JSON.stringify(body)).to.equal(schemaAccepts(body));
          if (!result.ok) expect(result.error.message.length).to.be.greaterThan(5);
        },
      ),
    ));
});

describe('orders: the body and status rules, at their bounds (docs/rules.md §3, §8)', () => {
  it('a body that is not a JSON object is refused on body, saying what to send', () => {
    for (const body of [null, [], [{ petId: 1 }], 'petId', 1, true, undefined]) {
      expect(expectRefusal(validateNewOrder(body), 'validation_failed', 'body', JSON.stringify(body)))
        .to.include('JSON object')
        .and.to.include('petId');
    }
  });

  it('an unknown property is refused on itself, quoted to at most 64 characters; a missing petId is said to be required', () => {
    expect(expectRefusal(validateNewOrder({ petId: 1, color: 'red' }), 'validation_failed', 'color'))
      .to.include("'color'")
      .and.to.include('petId');
    const long = 'k'.repeat(100);
    const refused = validateNewOrder({ [long]: 1 });
    const message = expectRefusal(refused, 'validation_failed');
    expect(refused.ok || refused.error.field).to.equal(long);
    expect(message)
      .to.include(`'${'k'.repeat(QUOTE_LIMIT)}…'`)
      .and.not.to.include('k'.repeat(QUOTE_LIMIT + 1));
    expect(expectRefusal(validateNewOrder({}), 'validation_failed', 'petId')).to.include('required');
  });

  it('petId is a JSON integer from 1 to 2^53 − 1: both bounds pass, one beyond either fails naming the range', () => {
    for (const petId of [1, 2, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1, 1.0])
      expect(validateNewOrder({ petId }), String(petId)).to.deep.equal({ ok: true, value: { petId } });
    for (const petId of [0, -1, Number.MAX_SAFE_INTEGER + 1, 2 ** 60, 1.5, Number.NaN, Infinity, '1', null, [1]]) {
      const message = expectRefusal(validateNewOrder({ petId }), 'validation_failed', 'petId', String(petId));
      expect(message).to.include(`from 1 to ${Number.MAX_SAFE_INTEGER}`);
    }
  });

  it('the status filter takes exactly the four statuses', () => {
    for (const status of ORDER_STATUSES) expect(isOrderStatus(status), status).to.equal(true);
    for (const other of ['placing', 'cancelling', 'delivering', 'abandoned', 'Placed', '', undefined, null, 1])
      expect(isOrderStatus(other), String(other)).to.equal(false);
    expect(ORDER_STATUSES).to.deep.equal(['placed', 'approved', 'delivered', 'cancelled']);
  });

  it('a status filter looks at the write-ahead states that settle to it, then the status; a listing at every state but abandoned', () => {
    expect(STATES_OF_STATUS).to.deep.equal({
      placed: ['placing', 'placed'],
      approved: ['approved'],
      cancelled: ['cancelling', 'cancelled'],
      delivered: ['delivering', 'delivered'],
    });
    expect([...LISTED_STATES].sort()).to.deep.equal(ORDER_STATES.filter((state) => state !== 'abandoned').sort());
  });
});

describe('errors (docs/rules.md §3, §6)', () => {
  it('a store outage is an Error logged under its own name, keeping its message and cause', () => {
    const cause = new Error('socket closed');
    const error = new StoreUnavailableError('the pet store did not answer', { cause });
    expect(error).to.be.instanceOf(Error);
    expect(error.name).to.equal('StoreUnavailableError');
    expect(String(error)).to.equal('StoreUnavailableError: the pet store did not answer');
    expect(error.cause).to.equal(cause);
  });
});

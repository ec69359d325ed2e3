import { expect } from 'chai';
import fc from 'fast-check';
import { consumeQuota, DAY_MS, MINUTE_MS, windowStart, type ConsumeRequest, type SubjectState } from '@petstore/domain';
import { consumePipeline } from '../src/index.js';

// The quota rule exists twice: as `consumeQuota` in the domain and as the update pipeline the
// Mongo adapter sends. This checks, without a database, that the pipeline is that rule, step for
// step, by evaluating it with the MongoDB semantics of the few operators it uses. (The integration
// suite runs the same pipeline on a real server through the QuotaStore contract.)

type Value = number | string | boolean | Date | null | undefined;
type Doc = Record<string, Value>;

/** BSON comparison order for the types the pipeline meets: missing/null < numbers < strings < dates. */
const rank = (v: Value): number => (v === undefined || v === null ? 0 : typeof v === 'number' ? 1 : typeof v === 'string' ? 2 : v instanceof Date ? 3 : 4);
const compare = (a: Value, b: Value): number => {
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return 0;
};
const truthy = (v: Value): boolean => !(v === undefined || v === null || v === false || v === 0);

const evaluate = (expr: unknown, doc: Doc): Value => {
  if (typeof expr === 'string') return expr.startsWith('$') ? doc[expr.slice(1)] : expr;
  if (typeof expr === 'number' || typeof expr === 'boolean' || expr === null) return expr;
  const entries = Object.entries(expr as Record<string, unknown>);
  if (entries.length !== 1) throw new Error(`unsupported expression ${JSON.stringify(expr)}`);
  const [op, arg] = entries[0]!;
  const args = () => (arg as unknown[]).map((a) => evaluate(a, doc));
  switch (op) {
    case '$eq': { const [a, b] = args(); return compare(a, b) === 0; }
    case '$gt': { const [a, b] = args(); return compare(a, b) > 0; }
    case '$gte': { const [a, b] = args(); return compare(a, b) >= 0; }
    case '$lt': { const [a, b] = args(); return compare(a, b) < 0; }
    case '$and': return args().every(truthy);
    case '$add': { const xs = args(); return xs.some((x) => x === null || x === undefined) ? null : xs.reduce<number>((s, x) => s + (x as number), 0); }
    case '$ifNull': { const [a, b] = args(); return a === null || a === undefined ? b : a; }
    case '$max': { const xs = args().filter((x) => x !== null && x !== undefined); return xs.reduce<Value>((m, x) => (m === undefined || compare(x, m) > 0 ? x : m), undefined); }
    case '$toDate': { const a = evaluate(arg, doc); return typeof a === 'number' ? new Date(Math.trunc(a)) : null; }
    case '$cond': { const [c, t, e] = arg as unknown[]; return truthy(evaluate(c, doc)) ? evaluate(t, doc) : evaluate(e, doc); }
    case '$switch': {
      const { branches, default: otherwise } = arg as { branches: { case: unknown; then: unknown }[]; default: unknown };
      const hit = branches.find((b) => truthy(evaluate(b.case, doc)));
      return evaluate(hit === undefined ? otherwise : hit.then, doc);
    }
    default: throw new Error(`operator ${op} is not modelled`);
  }
};

/** An update pipeline of `$set` stages: each stage's expressions read the document as it was before it. */
const applyPipeline = (pipeline: readonly Record<string, unknown>[], doc: Doc): Doc =>
  pipeline.reduce<Doc>((current, stage) => {
    const keys = Object.keys(stage);
    if (keys.length !== 1 || keys[0] !== '$set') throw new Error(`stage ${keys.join()} is not modelled`);
    const next = { ...current };
    for (const [field, expr] of Object.entries(stage.$set as Record<string, unknown>)) next[field] = evaluate(expr, current);
    return next;
  }, doc);

const requestArb: fc.Arbitrary<ConsumeRequest> = fc.record({
  subject: fc.constant('s'),
  now: fc.integer({ min: Date.UTC(2027, 0, 1), max: Date.UTC(2027, 0, 4) }),
  quota: fc.integer({ min: 1, max: 5 }).chain((perMinute) => fc.record({ perMinute: fc.constant(perMinute), perDay: fc.integer({ min: perMinute, max: perMinute + 6 }) })),
  ban: fc.record({ threshold: fc.integer({ min: 1, max: 4 }), seconds: fc.integer({ min: 1, max: 1_000 }) }),
});

const stateArb = (now: number): fc.Arbitrary<SubjectState | undefined> =>
  fc.option(
    fc.record({
      minuteStart: fc.constantFrom(windowStart(now, MINUTE_MS), windowStart(now, MINUTE_MS) - MINUTE_MS, windowStart(now, MINUTE_MS) - DAY_MS),
      minuteCount: fc.integer({ min: 0, max: 6 }),
      minuteRejections: fc.integer({ min: 0, max: 4 }),
      dayStart: fc.constantFrom(windowStart(now, DAY_MS), windowStart(now, DAY_MS) - DAY_MS),
      dayCount: fc.integer({ min: 0, max: 12 }),
      bannedUntil: fc.oneof(fc.constant(0), fc.integer({ min: -300_000, max: 300_000 }).map((d) => now + d)),
    }),
    { nil: undefined },
  );

describe('consumePipeline: the Mongo update pipeline is the domain rule consumeQuota (no database)', () => {
  it('property: from any state, one pipeline run gives the same next state and result as consumeQuota', () =>
    fc.assert(
      fc.property(
        requestArb.chain((request) => fc.tuple(fc.constant(request), stateArb(request.now))),
        ([request, state]) => {
          const expected = consumeQuota(state, request);
          const doc = applyPipeline(consumePipeline(request), state === undefined ? { _id: 's' } : { _id: 's', ...state, outcome: 'admitted' });
          expect({
            minuteStart: doc.minuteStart,
            minuteCount: doc.minuteCount,
            minuteRejections: doc.minuteRejections,
            dayStart: doc.dayStart,
            dayCount: doc.dayCount,
            bannedUntil: doc.bannedUntil,
          }).to.deep.equal(expected.state);
          expect({ outcome: doc.outcome, minuteCount: doc.minuteCount, dayCount: doc.dayCount, bannedUntil: doc.bannedUntil }).to.deep.equal(expected.result);
          expect((doc.expireAt as Date).getTime()).to.equal(Math.max(expected.state.dayStart + DAY_MS, expected.state.bannedUntil));
        },
      ),
    ));

  it('uses no server clock ($$NOW, $currentDate): every time comes from the request', () => {
    const text = JSON.stringify(consumePipeline({ subject: 's', now: 1, quota: { perMinute: 1, perDay: 1 }, ban: { threshold: 1, seconds: 1 } }));
    expect(text).not.to.match(/\$\$NOW|\$\$CLUSTER_TIME|currentDate/);
  });
});

// bench/settle.mjs, the rule by which `pnpm bench:instr` decides that a figure has settled (issue 26
// item 13): windows in pairs; a pair within 2 % settles it (its second window is the figure); a pair
// that disagrees is followed by one warm-up round and a new pair; after maxPairs pairs it has not
// settled. Synthetic window sequences stand for callgrind's counts.
import { expect } from 'chai';
import fc from 'fast-check';

type SettleStep =
  { kind: 'measure'; warmUpFirst: boolean } | { kind: 'settled'; value: number } | { kind: 'unsettled'; value: number };
interface SettleOptions {
  tolerance?: number;
  maxPairs?: number;
}
interface SettleModule {
  SETTLE_DEFAULTS: { tolerance: number; maxPairs: number };
  agree(a: number, b: number, tolerance: number): boolean;
  nextStep(windows: readonly number[], options?: SettleOptions): SettleStep;
  measureUntilSettled(
    o: { measure: () => Promise<number>; warmUp: () => Promise<void> } & SettleOptions,
  ): Promise<{ value: number; stable: boolean; windows: number[] }>;
}
// The bench is plain JavaScript outside the packages: loaded from the repository's root (this file runs from apps/server/dist/test/).
const { SETTLE_DEFAULTS, agree, nextStep, measureUntilSettled } = (await import(
  new URL('../../../../bench/settle.mjs', import.meta.url).href
)) as SettleModule;

/** Runs the driver over a synthetic sequence of windows; records every call in order. */
const run = async (sequence: readonly number[], options: SettleOptions = {}) => {
  const calls: string[] = [];
  let next = 0;
  const result = await measureUntilSettled({
    measure: async () => {
      if (next >= sequence.length) throw new Error('measured more windows than the sequence has');
      calls.push(`measure ${sequence[next]!}`);
      return sequence[next++]!;
    },
    warmUp: async () => {
      calls.push('warm-up');
    },
    ...options,
  });
  return { ...result, calls };
};

describe('bench:instr settles its figures (bench/settle.mjs)', () => {
  it('defaults: within 2 %, at most 3 pairs (6 windows)', () => {
    expect(SETTLE_DEFAULTS).to.deep.equal({ tolerance: 0.02, maxPairs: 3 });
  });

  it('two windows agree when they differ by at most the tolerance of the smaller, in either order', () => {
    expect(agree(100, 102, 0.02)).to.equal(true);
    expect(agree(102, 100, 0.02)).to.equal(true);
    expect(agree(100, 102.01, 0.02)).to.equal(false);
    expect(agree(102.01, 100, 0.02)).to.equal(false);
    expect(agree(100, 100, 0)).to.equal(true);
  });

  it('settles at once on a quiet machine: the first pair agrees, its second window is the figure, no extra warm-up', async () => {
    const r = await run([209_100, 209_300]);
    expect(r).to.deep.include({ value: 209_300, stable: true, windows: [209_100, 209_300] });
    expect(r.calls).to.deep.equal(['measure 209100', 'measure 209300']);
  });

  it('under load: a pair that disagrees gets one more warm-up round, then a new pair, which settles', async () => {
    // Optimisation still under way: 541k, 300k; after one more warm-up 194k, 193k.
    const r = await run([541_000, 300_000, 194_000, 193_000]);
    expect(r).to.deep.include({ value: 193_000, stable: true });
    expect(r.calls).to.deep.equal(['measure 541000', 'measure 300000', 'warm-up', 'measure 194000', 'measure 193000']);
  });

  it('two windows with a warm-up between them are not a pair, even when they agree', async () => {
    // 200k and 199k agree but belong to different pairs; the third pair settles.
    const r = await run([300_000, 200_000, 199_000, 150_000, 175_000, 174_000]);
    expect(r).to.deep.include({ value: 174_000, stable: true });
    expect(r.calls.filter((c) => c === 'warm-up')).to.have.length(2);
  });

  it('never settles: after 3 pairs it stops, reports the last window and stable = false', async () => {
    const r = await run([434_800, 300_000, 250_000, 220_000, 205_000, 190_000, 174_000, 173_900]);
    expect(r).to.deep.include({
      value: 190_000,
      stable: false,
      windows: [434_800, 300_000, 250_000, 220_000, 205_000, 190_000],
    });
    expect(r.calls).to.deep.equal([
      'measure 434800',
      'measure 300000',
      'warm-up',
      'measure 250000',
      'measure 220000',
      'warm-up',
      'measure 205000',
      'measure 190000',
    ]);
  });

  it('the bound is the number of pairs asked for: 1 pair stops at 2 windows, 4 pairs measure an 8th window', async () => {
    const alternating = [100, 200, 100, 200, 100, 200, 100, 200, 100, 200];
    expect(await run(alternating, { maxPairs: 1 })).to.deep.include({ stable: false, value: 200, windows: [100, 200] });
    expect((await run(alternating, { maxPairs: 4 })).windows).to.have.length(8);
    expect(await run([100, 200, 150, 150], { maxPairs: 2 })).to.deep.include({ stable: true, value: 150 });
    expect(await run([100, 103], { tolerance: 0.05 })).to.deep.include({ stable: true, value: 103 });
    expect(await run([100, 103, 100, 103, 100, 103], { tolerance: 0.02 })).to.deep.include({
      stable: false,
      value: 103,
    });
  });

  it('nextStep is a function of the windows alone: measure a pair, then settle, warm up or give up', () => {
    expect(nextStep([])).to.deep.equal({ kind: 'measure', warmUpFirst: false });
    expect(nextStep([100])).to.deep.equal({ kind: 'measure', warmUpFirst: false });
    expect(nextStep([100, 101])).to.deep.equal({ kind: 'settled', value: 101 });
    expect(nextStep([100, 150])).to.deep.equal({ kind: 'measure', warmUpFirst: true });
    expect(nextStep([100, 150, 120])).to.deep.equal({ kind: 'measure', warmUpFirst: false });
    expect(nextStep([100, 150, 120, 130, 110, 140])).to.deep.equal({ kind: 'unsettled', value: 140 });
    expect(nextStep([100, 150, 120, 130, 110, 111])).to.deep.equal({ kind: 'settled', value: 111 });
  });

  it('refuses what is not a figure or not a bound', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => nextStep([100, bad]), String(bad)).to.throw(RangeError);
    expect(() => nextStep([], { maxPairs: 0 })).to.throw(RangeError);
    expect(() => nextStep([], { maxPairs: 1.5 })).to.throw(RangeError);
    expect(() => nextStep([], { tolerance: -0.01 })).to.throw(RangeError);
  });

  it('property: for any windows, it stops at the first pair that agrees (its second window) or after maxPairs pairs, with one warm-up between pairs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 20, maxLength: 20 }),
        fc.integer({ min: 1, max: 10 }),
        fc.constantFrom(0, 0.01, 0.02, 0.1),
        async (sequence, maxPairs, tolerance) => {
          const r = await run(sequence, { maxPairs, tolerance });
          // The model: pairs (0,1), (2,3), … of the sequence; the first that agrees, if any within maxPairs.
          let pairs = 0;
          let settledAt: number | undefined;
          while (pairs < maxPairs && settledAt === undefined) {
            const [a, b] = [sequence[2 * pairs]!, sequence[2 * pairs + 1]!];
            pairs++;
            if (Math.abs(a - b) <= tolerance * Math.min(a, b)) settledAt = 2 * pairs - 1;
          }
          expect(r.windows).to.deep.equal(sequence.slice(0, 2 * pairs));
          expect(r.stable).to.equal(settledAt !== undefined);
          expect(r.value).to.equal(sequence[2 * pairs - 1]);
          expect(r.calls.filter((c) => c === 'warm-up')).to.have.length(pairs - 1);
          expect(
            r.calls.indexOf('warm-up') === -1 || r.calls.every((c, i) => c !== 'warm-up' || i % 3 === 2),
            'a warm-up only between pairs',
          ).to.equal(true);
        },
      ),
    );
  });
});

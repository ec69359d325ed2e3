// When a measured figure has settled (bench only, never part of the product): `pnpm bench:instr`
// measures windows of M requests until two in a row agree.
// Under load V8's compiler threads starve, the warm-up ends before the code is optimised, and a
// window counts interpreter and compiler work too (seen: 434.8k against 173.9k on a quiet machine).
//
// The rule: windows come in pairs; a pair whose two windows agree within `tolerance` (of the
// smaller) settles the figure, which is the pair's second window. A pair that disagrees is followed
// by one more warm-up round, then a new pair. After `maxPairs` pairs without agreement the figure
// has not settled: it is reported as such (stable=no), never as a figure to judge by.

/** The defaults: within 2 %, at most 3 pairs (6 windows). */
export const SETTLE_DEFAULTS = Object.freeze({ tolerance: 0.02, maxPairs: 3 });

/**
 * True when `a` and `b` differ by at most `tolerance` of the smaller one.
 * @param {number} a @param {number} b @param {number} tolerance
 */
export const agree = (a, b, tolerance) => Math.abs(a - b) <= tolerance * Math.min(a, b);

/**
 * @typedef {{ kind: 'measure', warmUpFirst: boolean }
 *   | { kind: 'settled', value: number }
 *   | { kind: 'unsettled', value: number }} SettleStep
 */

/**
 * What to do after the windows measured so far (a pure function of them).
 * - `measure` (with `warmUpFirst` when the pair before disagreed): measure one more window;
 * - `settled`: the last pair agrees, its second window is the figure;
 * - `unsettled`: `maxPairs` pairs measured and none agreed; the last window is reported, marked.
 * @param {readonly number[]} windows Ir (or any positive figure) of each window, in order
 * @param {{ tolerance?: number, maxPairs?: number }} [options]
 * @returns {SettleStep}
 */
export const nextStep = (windows, options = {}) => {
  const { tolerance, maxPairs } = { ...SETTLE_DEFAULTS, ...options };
  if (!(tolerance >= 0) || !Number.isInteger(maxPairs) || maxPairs < 1)
    throw new RangeError(`bad settle options: tolerance ${tolerance}, maxPairs ${maxPairs}`);
  for (const w of windows)
    if (!(Number.isFinite(w) && w > 0)) throw new RangeError(`a window's figure must be a positive number, not ${w}`);
  const n = windows.length;
  if (n === 0 || n % 2 === 1) return { kind: 'measure', warmUpFirst: false };
  const [a, b] = windows.slice(n - 2);
  if (agree(a, b, tolerance)) return { kind: 'settled', value: b };
  if (n / 2 >= maxPairs) return { kind: 'unsettled', value: b };
  return { kind: 'measure', warmUpFirst: true };
};

/**
 * Measures windows until the figure settles or the bound is reached (the driver of `nextStep`).
 * @param {{ measure: () => Promise<number>, warmUp: () => Promise<void>, tolerance?: number, maxPairs?: number }} o
 * @returns {Promise<{ value: number, stable: boolean, windows: number[] }>}
 */
export const measureUntilSettled = async ({ measure, warmUp, ...options }) => {
  /** @type {number[]} */
  const windows = [];
  for (;;) {
    const step = nextStep(windows, options);
    if (step.kind !== 'measure') return { value: step.value, stable: step.kind === 'settled', windows };
    if (step.warmUpFirst) await warmUp();
    windows.push(await measure());
  }
};

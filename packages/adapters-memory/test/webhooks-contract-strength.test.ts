import { expect } from 'chai';
import { WEBHOOK_DEFECTS, type WebhookDefect } from './support/broken-webhooks.js';
import { runSuite } from './support/run-suite.js';

/**
 * The exported webhook store contract (docs/rules.md §15) must catch an adapter that breaks one
 * sentence of the port the way a real one could (support/broken-webhooks.ts), in its examples, and
 * for every defect a run of calls one at a time can show, in its model-based PROPERTY too (which an
 * outside adapter meets with every seed). support/broken-webhooks.suite.js runs the contract against
 * each broken store in a mocha of its own; this test reads which of its tests failed.
 */
const MODEL_BASED = 'property (model-based): any sequence of calls of the whole port';

/** The tests that must fail for each defect. */
const CAUGHT_BY: Readonly<Record<WebhookDefect, readonly string[]>> = {
  'gives a lease to two holders:': ['lease: of simultaneous takes of a free lease exactly one wins'],
  'keeps a lease that ran out:': ['lease: of simultaneous takes of a free lease exactly one wins', MODEL_BASED],
  'moves a cursor whose failures changed:': [
    'advance moves the cursor only when enabled',
    'pause, under the conditions of advance',
    MODEL_BASED,
  ],
  'advances a disabled subscription:': [
    'advance moves the cursor only when enabled',
    'pause, under the conditions of advance',
    MODEL_BASED,
  ],
  'resumes with its wait:': ['update applies the changes and bumps the revision', MODEL_BASED],
  'gives an id again:': ['answers taken for an id that exists or existed', MODEL_BASED],
  'gives a position again:': ['answers taken for an id that exists or existed', MODEL_BASED],
  'keeps the log of a removed subscription:': ['remove: the subscription is found by nothing', MODEL_BASED],
  'gives a log number twice:': ['log keeps only the newest 1000, each number once, also under concurrent logging'],
  'keeps one attempt too many:': ['log keeps only the newest 1000, each number once, also under concurrent logging'],
};

describe('the exported webhook store contract against deliberately broken webhook stores', function () {
  this.timeout(300_000);

  it('its examples, and its model-based property for every defect calls one at a time can show, fail for every broken store; they pass for the real one (contracts.test.ts)', async () => {
    const report = await runSuite('broken-webhooks.suite.js');
    const failed = new Set(report.failures.map((t) => t.fullTitle));
    const ran = [...report.passes, ...report.failures].map((t) => t.fullTitle);
    const missed: string[] = [];
    for (const defect of WEBHOOK_DEFECTS) {
      for (const test of CAUGHT_BY[defect.name]) {
        const titles = ran.filter((t) =>
          t.startsWith(`${defect.name} WebhookStore contract (docs/rules.md §15, webhooks) ${test}`),
        );
        expect(titles, `${defect.name} ${test}… ran once`).to.have.length(1);
        if (!failed.has(titles[0]!)) missed.push(`${defect.name} (${defect.why}): ${test}`);
      }
    }
    expect(missed, 'tests that let a broken webhook store through').to.deep.equal([]);
  });
});

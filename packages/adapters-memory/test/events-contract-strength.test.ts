import { expect } from 'chai';
import { EVENT_DEFECTS } from './support/broken-events.js';
import { runSuite } from './support/run-suite.js';

/**
 * The exported event store contract (docs/rules.md §15) must catch an adapter that breaks one of its
 * guarantees the way a real one could (support/broken-events.ts: a sequence skipped, an event stored
 * twice, an event visible before a smaller one, events lost when a relay dies), and in its
 * PROPERTIES, which an outside adapter meets with every seed, not only in its examples.
 * support/broken-events.suite.js runs the contract against each broken store in a mocha of its own;
 * this test reads which of its tests failed.
 */
const PROPERTIES = [
  'property: with a store fault in any one store call of each change or relay run',
  'property: concurrent writers, two relays at once',
];

/** The examples that show each defect plainly, besides the properties. */
const EXAMPLES: Readonly<Record<(typeof EVENT_DEFECTS)[number]['name'], readonly string[]>> = {
  'skips a sequence:': ['a write that lands but whose answer is lost records its event once'],
  'stores an event twice:': [
    'a write that lands but whose answer is lost records its event once',
    'append refuses a taken sequence and an id already in the feed',
  ],
  'shows an event before a smaller one:': ['a reader polling the feed while relays run sees every event once'],
  'loses an event in a crash:': ['a write that lands but whose answer is lost records its event once'],
};

describe('the exported event store contract against deliberately broken event stores', function () {
  this.timeout(300_000);

  it('its fault and concurrency properties, and the examples of each guarantee, fail for every broken store; they pass for the real one (contracts.test.ts)', async () => {
    const report = await runSuite('broken-events.suite.js');
    const failed = new Set(report.failures.map((t) => t.fullTitle));
    const ran = [...report.passes, ...report.failures].map((t) => t.fullTitle);
    const missed: string[] = [];
    for (const defect of EVENT_DEFECTS) {
      for (const test of [...PROPERTIES, ...EXAMPLES[defect.name]]) {
        const titles = ran.filter((t) =>
          t.startsWith(`EventStore contract (docs/rules.md §15): ${defect.name} ${test}`),
        );
        expect(titles, `${defect.name} ${test}… ran once`).to.have.length(1);
        if (!failed.has(titles[0]!)) missed.push(`${defect.name} (${defect.why}): ${test}`);
      }
    }
    expect(missed, 'tests that let a broken event store through').to.deep.equal([]);
  });
});

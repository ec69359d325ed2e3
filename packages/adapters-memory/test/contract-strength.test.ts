import { expect } from 'chai';
import { LIST_DEFECTS } from './support/broken-lists.js';
import { runSuite } from './support/run-suite.js';

/**
 * The exported contract suites must catch an adapter whose `list` breaks a rule of docs/rules.md §2
 * (a page one row too long or short, the position to start after ignored or included, the wrong
 * order), and in their PROPERTIES, which an outside adapter meets with every seed, not only in their
 * examples. support/broken-lists.suite.js runs every suite with a list against each broken list, in
 * a mocha of its own; this test reads which of its tests failed.
 */
const LIST_PROPERTIES: Readonly<Record<string, readonly string[]>> = {
  'PetRepository contract': [
    'property: agrees with a plain array model',
    'property (docs/rules.md §16): every combination',
    'property (docs/rules.md §2, §16): walking the next-page cursors of any listing',
    'property (docs/rules.md §12, §16): walking any listing while other clients withdraw pets',
  ],
  'CategoryRepository contract': [
    'property: agrees with a plain Map model',
    'property: every list answers exactly',
    'property: walking the next-page cursors',
  ],
  'OrderRepository contract': ['property: agrees with a plain array model', 'property: every list answers exactly'],
  'adoption flow (docs/rules.md §8) and pet maintenance (§12)': ['property: agrees with a plain model'],
  'ApiKeyStore contract': ['property: every list answers exactly', 'property (model-based)'],
};

describe('the exported contract suites against deliberately broken lists', function () {
  this.timeout(300_000);

  it('every list property of every suite fails for every broken list (not only the examples)', async () => {
    const report = await runSuite('broken-lists.suite.js');
    const failed = new Set(report.failures.map((t) => t.fullTitle));
    const ran = new Set([...report.passes, ...report.failures].map((t) => t.fullTitle));
    const missed: string[] = [];
    for (const defect of LIST_DEFECTS) {
      for (const [suite, properties] of Object.entries(LIST_PROPERTIES)) {
        for (const property of properties) {
          const titles = [...ran].filter((t) => t.startsWith(`${suite}: ${defect.name} ${property}`));
          expect(titles, `${suite}: ${defect.name} ${property}… ran once`).to.have.length(1);
          if (!failed.has(titles[0]!)) missed.push(titles[0]!.slice(0, 120));
        }
      }
    }
    expect(missed, 'list properties that let a broken list through').to.deep.equal([]);
  });
});

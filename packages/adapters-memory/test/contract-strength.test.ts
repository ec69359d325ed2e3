import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIST_DEFECTS } from './support/broken-lists.js';

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
    'property: every list answers exactly',
    'property: walking the next-page cursors (no filter',
    'property: walking the next-page cursors while other clients withdraw pets',
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

interface MochaJson {
  readonly passes: ReadonlyArray<{ readonly fullTitle: string }>;
  readonly failures: ReadonlyArray<{ readonly fullTitle: string }>;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '../../../..');

const runSuite = async (): Promise<MochaJson> => {
  const dir = await mkdtemp(join(tmpdir(), 'contract-strength-'));
  const output = join(dir, 'report.json');
  try {
    const mocha = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
    const args = [
      mocha,
      '--no-config',
      '--require',
      join(root, 'scripts/mocha-setup.mjs'),
      '--timeout',
      '20000',
      '--exit',
      '--reporter',
      'json',
      '--reporter-option',
      `output=${output}`,
      join(here, 'support/broken-lists.suite.js'),
    ];
    // Failing tests make mocha exit non-zero: expected here. A suite that never ends (a walk of pages
    // that starts again and again) is a failure of its own.
    const stderr = await new Promise<string>((resolve) =>
      execFile(process.execPath, args, { timeout: 240_000, maxBuffer: 1 << 24 }, (_error, _stdout, err) => resolve(String(err))),
    );
    const report = await readFile(output, 'utf8').catch(() => undefined);
    if (report === undefined) throw new Error(`the suites did not finish within 240 s (a walk that never ends?): ${stderr.slice(-2000)}`);
    return JSON.parse(report) as MochaJson;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

describe('the exported contract suites against deliberately broken lists', function () {
  this.timeout(300_000);

  it('every list property of every suite fails for every broken list (not only the examples)', async () => {
    const report = await runSuite();
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

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface MochaJson {
  readonly passes: ReadonlyArray<{ readonly fullTitle: string }>;
  readonly failures: ReadonlyArray<{ readonly fullTitle: string }>;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '../../../../..');

/**
 * Runs one compiled suite file (`support/<name>.suite.js`) in a mocha of its own with the JSON
 * reporter, and answers its report. Failing tests make mocha exit non-zero: expected here. A suite
 * that never ends (a walk of pages that starts again and again) is a failure of its own.
 */
export const runSuite = async (suite: string, timeoutMs = 240_000): Promise<MochaJson> => {
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
      join(here, suite),
    ];
    const stderr = await new Promise<string>((resolve) =>
      execFile(process.execPath, args, { timeout: timeoutMs, maxBuffer: 1 << 24 }, (_error, _stdout, err) =>
        resolve(String(err)),
      ),
    );
    const report = await readFile(output, 'utf8').catch(() => undefined);
    if (report === undefined)
      throw new Error(
        `the suites did not finish within ${timeoutMs / 1000} s (a walk that never ends?): ${stderr.slice(-2000)}`,
      );
    return JSON.parse(report) as MochaJson;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

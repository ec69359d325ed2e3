// The last step of `pnpm mutate`: the mutation score of every mutated file of the domain, from
// Stryker's JSON report, lowest first. Stryker's own `thresholds.break` judges the whole run only;
// the project's bar is per file (each rule file at least MUTATION_FLOOR %, 90 unless given), so a
// well-tested file cannot hide a poorly tested one. Exits 1 when a file is below the bar.
//
// Score = (killed + timed out) / (killed + timed out + survived + no coverage), as Stryker counts it;
// mutants that do not compile (errors) or were ignored count for nothing.
import { readFileSync } from 'node:fs';

const report = process.argv[2] ?? 'reports/mutation/mutation.json';
const floor = Number(process.env.MUTATION_FLOOR ?? 90);
const { files } = JSON.parse(readFileSync(report, 'utf8'));

const rows = [];
for (const [file, { mutants }] of Object.entries(files)) {
  const count = (status) => mutants.filter((m) => m.status === status).length;
  const [killed, timeout, survived, noCoverage] = ['Killed', 'Timeout', 'Survived', 'NoCoverage'].map(count);
  const valid = killed + timeout + survived + noCoverage;
  if (valid === 0) continue;
  rows.push({
    file: file.replace(/^packages\/domain\/src\//, ''),
    score: ((killed + timeout) / valid) * 100,
    killed,
    timeout,
    survived,
    noCoverage,
  });
}
rows.sort((a, b) => a.score - b.score || a.file.localeCompare(b.file));

const below = rows.filter((r) => r.score < floor);
console.log(`\nmutation score per file (floor ${floor} %), lowest first:`);
for (const r of rows) {
  const mark = r.score < floor ? '✗' : ' ';
  console.log(
    `${mark} ${r.score.toFixed(1).padStart(5)} %  ${r.file.padEnd(36)} killed ${r.killed}, timed out ${r.timeout}, survived ${r.survived}, no coverage ${r.noCoverage}`,
  );
}
console.log(below.length === 0 ? `every file at or above ${floor} %` : `${below.length} file(s) below ${floor} %`);
process.exitCode = below.length === 0 ? 0 : 1;

// Summarises a V8 .cpuprofile (from node --cpu-prof): self time per function and per area.
// As a script: node bench/profile-summary.mjs <file.cpuprofile> prints the summary as JSON.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './lib.mjs';

/** Which part of the stack a script belongs to. @param {string} url @param {string} fn */
const areaOf = (url, fn) => {
  if (url === '') {
    if (fn === '(garbage collector)') return 'GC';
    if (fn === '(idle)') return 'idle';
    if (fn === '(program)') return 'V8/native (program)';
    return 'native (builtins, C++)';
  }
  if (url.startsWith('node:')) return 'Node.js core (http, net, streams…)';
  const m = /node_modules\/\.pnpm\/([^/]+)\//.exec(url);
  if (m) {
    const pkg = m[1].replace(/@[^@]*$/, '').replace('+', '/');
    return `dependency: ${pkg}`;
  }
  const ours = /(packages\/[^/]+|apps\/[^/]+)\//.exec(url);
  if (ours) return `ours: ${ours[1]}`;
  return 'other';
};

/** @param {string} file @param {number} [top] */
export const summarizeProfile = (file, top = 20) => {
  /** @type {{ nodes: { id: number, callFrame: { functionName: string, url: string, lineNumber: number, columnNumber: number } }[], samples: number[], timeDeltas: number[] }} */
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  /** @type {Map<number, number>} */
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  /** @type {Map<string, { fn: string, where: string, area: string, us: number }>} */
  const byFrame = new Map();
  /** @type {Map<string, number>} */
  const byArea = new Map();
  let total = 0;
  let idle = 0;
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    if (us === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = functionName || '(anonymous)';
    const area = areaOf(url, fn);
    if (area === 'idle') {
      idle += us;
      continue;
    }
    total += us;
    let path = url;
    if (url.startsWith('file://')) {
      path = relative(ROOT, fileURLToPath(url)).replace(/^node_modules\/\.pnpm\/[^/]+\/node_modules\//, '');
    }
    const where = url === '' ? '' : `${path}:${lineNumber + 1}`;
    const key = `${fn} ${where}`;
    const entry = byFrame.get(key) ?? { fn, where, area, us: 0 };
    entry.us += us;
    byFrame.set(key, entry);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  const frames = [...byFrame.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, top)
    .map((f) => ({ ...f, share: f.us / total }));
  const areas = [...byArea.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([area, us]) => ({ area, us, share: us / total }));
  return { busyMs: total / 1000, idleMs: idle / 1000, frames, areas };
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(
    JSON.stringify(summarizeProfile(process.argv[2] ?? '', Number(process.argv[3] ?? 25)), null, 2) + '\n',
  );
}

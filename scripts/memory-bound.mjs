// Measures the memory the rate limiter keeps under hostile traffic: 100,000 distinct client
// addresses in one UTC day (each one request), then 100,000 invalid keys from one address, then
// the first request of the next day. Run: npx tsc -b && node --expose-gc scripts/memory-bound.mjs
import { Admission, anonymousSubject, Authenticator, DAY_MS, MINUTE_MS } from '../packages/domain/dist/src/index.js';
import { ApiKeyStoreInMemory, QuotaStoreInMemory } from '../packages/adapters-memory/dist/src/index.js';
import { NodeDigests } from '../apps/server/dist/src/node-digests.js';

const N = Number(process.env.SUBJECTS ?? 100_000);
const DAY0 = Date.UTC(2027, 6, 1);
let now = DAY0;
const clock = { now: () => now };
const quotas = new QuotaStoreInMemory();
const admission = new Admission(quotas, clock);
const authenticator = new Authenticator(new ApiKeyStoreInMemory(), new NodeDigests());

const heapMiB = () => {
  globalThis.gc?.();
  return Math.round((process.memoryUsage().heapUsed / 1024 / 1024) * 10) / 10;
};
const rows = [];
const row = (step) => rows.push({ step, subjectsKept: quotas.size, heapUsedMiB: heapMiB() });

row('start');
for (let i = 0; i < N; i++) {
  now = DAY0 + Math.floor((i * DAY_MS) / N);
  await admission.admit(anonymousSubject(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`));
}
row(`${N} distinct addresses in one day`);
for (let i = 0; i < N; i++) {
  if (i % 1000 === 0) now += 1; // stay within the day
  const auth = await authenticator.authenticate(`Bearer guess-${i.toString(36)}`);
  if (!auth.ok) await admission.admit(anonymousSubject('198.51.100.77'));
}
row(`+ ${N} invalid keys from one address`);
now = DAY0 + DAY_MS + MINUTE_MS;
await admission.admit(anonymousSubject('192.0.2.1'));
row('first request of the next day');
console.table(rows);
if (globalThis.gc === undefined) console.log('(run with node --expose-gc for exact heap numbers)');

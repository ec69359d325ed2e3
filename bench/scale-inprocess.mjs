// In-process scale measurements (bench only), on the compiled domain and memory adapters:
//   node bench/scale-inprocess.mjs latency  → median ns per listPets call with 10^3, 10^5, 10^6 pets
//   node --expose-gc bench/scale-inprocess.mjs heap → heap bytes per stored pet (10^6 pets over 1,000 categories)
// Prints one JSON object on stdout.
import { join } from 'node:path';
import { ROOT, petBody, prng, median, scaleCategories } from './lib.mjs';

const { PetCatalog, encodeCursor, pageScope } = await import(join(ROOT, 'packages/domain/dist/src/index.js'));
const { CategoryRepositoryInMemory, PetRepositoryInMemory, SystemClock } = await import(
  join(ROOT, 'packages/adapters-memory/dist/src/index.js')
);

const mode = process.argv[2] ?? 'latency';

/** A category repository holding categories 1…`count`. */
const categoriesUpTo = (/** @type {number} */ count) => {
  const categories = new CategoryRepositoryInMemory();
  for (let i = 1; i <= count; i++) categories.createSync({ name: `Category ${i}` });
  return categories;
};

if (mode === 'heap') {
  const gc = /** @type {() => void} */ (globalThis.gc);
  if (typeof gc !== 'function') throw new Error('run with --expose-gc');
  const count = Number(process.argv[3] ?? 1_000_000);
  const spread = scaleCategories(count);
  const random = prng(7);
  // Bodies are made first and parsed per pet, so each name is a fresh string, as on the HTTP path.
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const catalog = new PetCatalog(new PetRepositoryInMemory(), categoriesUpTo(spread), new SystemClock());
  for (let i = 0; i < count; i++) {
    const created = await catalog.createPet(JSON.parse(petBody(random, spread)));
    if (!created.ok) throw new Error(`seed refused: ${created.error.message}`);
  }
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  const check = await catalog.listPets({ limit: 1, categoryId: 1 });
  if (!check.ok || check.value.items.length !== 1) throw new Error('empty catalogue');
  process.stdout.write(
    JSON.stringify({ count, categories: spread, heapBytes: after - before, bytesPerPet: (after - before) / count }),
  );
} else {
  const sizes = [1_000, 100_000, 1_000_000];
  const random = prng(42);
  const catalogs = sizes.map((n) => {
    const spread = scaleCategories(n);
    const repo = new PetRepositoryInMemory();
    for (let i = 0; i < n; i++) repo.createSync(JSON.parse(petBody(random, spread)));
    return { n, catalog: new PetCatalog(repo, categoriesUpTo(spread), new SystemClock()) };
  });
  // First page, and a page from the middle of the catalogue (cursor after id n/2), with and without filters.
  const queries = (/** @type {number} */ n) => ({
    'limit=20': { limit: 20 },
    'limit=20&status=available': { limit: 20, status: 'available' },
    'limit=20, cursor at n/2': { limit: 20, cursor: encodeCursor(n / 2, pageScope('pets')) },
    'limit=100&status=available, cursor at n/2': {
      limit: 100,
      status: 'available',
      cursor: encodeCursor(n / 2, pageScope('pets', { status: 'available' })),
    },
    'limit=20&categoryId=7': { limit: 20, categoryId: '7' },
    'limit=20&categoryId=7, cursor at n/2': {
      limit: 20,
      categoryId: '7',
      cursor: encodeCursor(n / 2, pageScope('pets', { categoryId: 7 })),
    },
    'limit=20&status=available&categoryId=7, cursor at n/2': {
      limit: 20,
      status: 'available',
      categoryId: '7',
      cursor: encodeCursor(n / 2, pageScope('pets', { status: 'available', categoryId: 7 })),
    },
  });
  const CALLS = Number(process.env.BENCH_INPROCESS_CALLS ?? 4_000);
  const BATCHES = Number(process.env.BENCH_INPROCESS_BATCHES ?? 15);
  /** @type {Record<string, Record<string, number[]>>} */
  const samples = {};
  for (let b = -2; b < BATCHES; b++) {
    // Sizes and queries alternate inside every batch, so drift hits them all alike; two warm-up batches.
    for (const { n, catalog } of catalogs) {
      for (const [label, input] of Object.entries(queries(n))) {
        const started = process.hrtime.bigint();
        for (let i = 0; i < CALLS; i++) {
          const page = await catalog.listPets(input);
          if (!page.ok) throw new Error(`${label}: ${page.error.message}`);
          if (i === 0 && page.value.items.length !== input.limit)
            throw new Error(`${label} at ${n}: a page of ${page.value.items.length}, not ${input.limit}`);
        }
        const ns = Number(process.hrtime.bigint() - started) / CALLS;
        if (b >= 0) ((samples[label] ??= {})[n] ??= []).push(ns);
      }
    }
  }
  /** @type {Record<string, Record<string, number>>} */
  const result = {};
  for (const [label, bySize] of Object.entries(samples)) {
    result[label] = {};
    for (const [n, values] of Object.entries(bySize)) result[label][n] = median(values);
  }
  process.stdout.write(
    JSON.stringify({
      calls: CALLS,
      batches: BATCHES,
      categories: Object.fromEntries(sizes.map((n) => [n, scaleCategories(n)])),
      medianNsPerCall: result,
    }),
  );
}

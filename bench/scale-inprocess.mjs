// In-process scale measurements (bench only), on the compiled domain and memory adapters:
//   node bench/scale-inprocess.mjs latency  → median ns per listPets call with 10^3, 10^5, 10^6 pets
//   node --expose-gc bench/scale-inprocess.mjs heap → heap bytes per stored pet (10^6 pets over 1,000 categories)
//   node bench/scale-inprocess.mjs catalogue [pets] → median ns per listPets call of the public catalogue's
//     lists (docs/rules.md §16) against the plain page of the same limit, on 100,000 pets by default
// Prints one JSON object on stdout.
import { join } from 'node:path';
import { ROOT, petBody, prng, median, scaleCategories } from './lib.mjs';

const { PetCatalog, encodeCursor, pageScope, petEntry } = await import(join(ROOT, 'packages/domain/dist/src/index.js'));
const { SeededRandom, testPhotoLinks } = await import(join(ROOT, 'packages/domain/dist/test-support/index.js'));
const { CategoryRepositoryInMemory, PetRepositoryInMemory, PhotoStoreInMemory, SystemClock } = await import(
  join(ROOT, 'packages/adapters-memory/dist/src/index.js')
);

const mode = process.argv[2] ?? 'latency';
/** Where new pets' shuffle keys come from (docs/rules.md §16): a fixed stream, so every run seeds alike. */
const shuffleKeys = new SeededRandom('bench-scale');
/** A store's entry for the JSON body `text`: the pet with the search keys the use case computes. */
const entryOf = (/** @type {string} */ text) => petEntry(JSON.parse(text), shuffleKeys);

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
  const catalog = new PetCatalog(new PetRepositoryInMemory(), categoriesUpTo(spread), new SystemClock(), shuffleKeys);
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
} else if (mode === 'catalogue') {
  await catalogue(Number(process.argv[3] ?? 100_000));
} else {
  const sizes = [1_000, 100_000, 1_000_000];
  const random = prng(42);
  const catalogs = sizes.map((n) => {
    const spread = scaleCategories(n);
    const repo = new PetRepositoryInMemory();
    for (let i = 0; i < n; i++) repo.createSync(entryOf(petBody(random, spread)));
    return { n, catalog: new PetCatalog(repo, categoriesUpTo(spread), new SystemClock(), shuffleKeys) };
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

/**
 * The public catalogue's lists (docs/rules.md §16) on `count` pets of bench/lib.mjs's realistic
 * names over 10 categories, each against the plain page of the same limit: median ns per
 * `listPets` call (domain and memory store, no HTTP), in batches that alternate the queries so
 * that drift hits them all alike. `expand=photos` reads a page of 20 pets with a photo each.
 */
async function catalogue(/** @type {number} */ count) {
  const random = prng(36);
  const repo = new PetRepositoryInMemory();
  for (let i = 0; i < count; i++) repo.createSync(entryOf(petBody(random, 10)));
  const photos = new PhotoStoreInMemory();
  for (let petId = 1; petId <= 20; petId++) {
    const upload = await photos.reserve(petId, 50, 0);
    const file = { width: 300, height: 200, bytes: 50, sha256: 'a'.repeat(64) };
    await photos.putFile(upload, file, new Uint8Array(50));
    const photo = { id: upload.photoId, petId, contentType: 'image/png', width: 300, height: 200, bytes: 50 };
    await photos.publish(upload, { ...photo, createdAt: new Date(0).toISOString(), files: [file] });
  }
  const catalog = new PetCatalog(repo, categoriesUpTo(10), new SystemClock(), shuffleKeys, {
    store: photos,
    links: testPhotoLinks,
  });
  const queries = {
    'limit=20 (plain)': { limit: 20 },
    'q=ma&status=available,pending&sort=name': { limit: 20, q: 'ma', status: 'available,pending', sort: 'name' },
    'q=bella&categoryId=1,2,3&sort=random&seed=42': {
      limit: 20,
      q: 'bella',
      categoryId: '1,2,3',
      sort: 'random',
      seed: '42',
    },
    'status=sold&categoryId=4,7&sort=-id': { limit: 20, status: 'sold', categoryId: '4,7', sort: '-id' },
    'q=zi&sort=name (rare word)': { limit: 20, q: 'zi', sort: 'name' },
    'expand=photos (a photo on each pet)': { limit: 20, expand: 'photos' },
  };
  const CALLS = Number(process.env.BENCH_INPROCESS_CALLS ?? 2_000);
  const BATCHES = Number(process.env.BENCH_INPROCESS_BATCHES ?? 15);
  /** @type {Record<string, number[]>} */
  const samples = {};
  for (let b = -2; b < BATCHES; b++) {
    for (const [label, input] of Object.entries(queries)) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < CALLS; i++) {
        const page = await catalog.listPets(input);
        if (!page.ok) throw new Error(`${label}: ${page.error.message}`);
        if (i === 0 && page.value.items.length !== 20) throw new Error(`${label}: ${page.value.items.length} pets`);
      }
      if (b >= 0) (samples[label] ??= []).push(Number(process.hrtime.bigint() - started) / CALLS);
    }
  }
  const plain = median(samples['limit=20 (plain)']);
  process.stdout.write(
    JSON.stringify({
      pets: count,
      calls: CALLS,
      batches: BATCHES,
      medianNsPerCall: Object.fromEntries(
        Object.entries(samples).map(([label, values]) => [label, Math.round(median(values))]),
      ),
      ratioToPlain: Object.fromEntries(
        Object.entries(samples).map(([label, values]) => [label, Number((median(values) / plain).toFixed(3))]),
      ),
    }),
  );
}

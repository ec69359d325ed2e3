// Bench-only entry of the real server for the scale runs: the composition of apps/server
// (parseSettings, createContainer, the same HttpApp, listen) with BENCH_SEED_PETS pets put
// (and their categories) straight into the in-memory repositories before listening, because seeding 10^6 pets through
// POST would take minutes. Everything a request meets is the production code from dist/.
// Logging: the logger apps/server/src/main.ts uses (createServerLogger: stdout, level from the settings).
import { join } from 'node:path';
import { ROOT, petBody, prng, scaleCategories } from './lib.mjs';

const serverDist = join(ROOT, 'apps/server/dist/src');
const { parseSettings } = await import(join(serverDist, 'settings.js'));
const { createContainer } = await import(join(serverDist, 'container.js'));
const { TOKENS } = await import(join(serverDist, 'tokens.js'));
const { listen } = await import(join(ROOT, 'packages/adapters-http/dist/src/index.js'));
const { createServerLogger } = await import(join(serverDist, 'log-destination.js'));

const settings = parseSettings(process.env);
const logger = createServerLogger(settings.logLevel);
const container = await createContainer(settings, { logger });

// What startServer does, plus the seeding.
const keys = await container.getAsync(TOKENS.ApiKeyStore);
for (const record of settings.apiKeys) await keys.save(record);
const pets = await container.getAsync(TOKENS.PetRepository);
const categories = await container.getAsync(TOKENS.CategoryRepository);
const count = Number(process.env.BENCH_SEED_PETS ?? 0);
// The pets spread over categories 1…scaleCategories(count) (1,000 at 10^6 pets; see bench/lib.mjs).
const spread = scaleCategories(count);
for (let i = 1; i <= spread; i++) categories.createSync({ name: `Category ${i}` });
const random = prng(42);
for (let i = 0; i < count; i++) pets.createSync(JSON.parse(petBody(random, spread)));
// Let the heap settle (run with --expose-gc): no collection left over from the seeding runs during the measurement.
globalThis.gc?.();
globalThis.gc?.();
const app = await container.getAsync(TOKENS.HttpApp);
const running = await listen(app, { port: settings.port, host: settings.host });
process.on('SIGTERM', () => running.close().then(() => logger.flush(() => process.exit(0))));

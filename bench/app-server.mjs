// Bench-only entry of the real server for the scale runs: the composition of apps/server
// (parseSettings, createContainer, the same HttpApp, listen) with BENCH_SEED_PETS pets put
// (and their categories) straight into the in-memory repositories before listening, because seeding 10^6 pets through
// POST would take minutes. Everything a request meets is the production code from dist/.
// Logging: the logger apps/server/src/main.ts uses (createServerLogger: stdout, level from the settings).
// BENCH_WITHDRAW_PERCENT withdraws that share of the seeded pets (every (100/p)-th id) through the
// port, as DELETE would; BENCH_ADMIN_KEY adds an admin key whose quota never binds (admin keys from
// the settings have the business numbers, which a PATCH load would pass in a second).
// BENCH_WEBHOOKS=n subscribes n webhooks (docs/rules.md §15) of the types BENCH_WEBHOOK_TYPES
// (comma-separated; default pet.created) to a receiver answering 204 at once, run in a child process
// (bench/webhook-receiver.mjs: its work is not the server's, and callgrind does not follow children);
// PETSTORE_WEBHOOK_ALLOW_HOSTS is set for it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, petBody, prng, scaleCategories } from './lib.mjs';

const serverDist = join(ROOT, 'apps/server/dist/src');
const { parseSettings } = await import(join(serverDist, 'settings.js'));
const { createContainer } = await import(join(serverDist, 'container.js'));
const { TOKENS } = await import(join(serverDist, 'tokens.js'));
const { listen } = await import(join(ROOT, 'packages/adapters-http/dist/src/index.js'));
const { createServerLogger } = await import(join(serverDist, 'log-destination.js'));

const webhookCount = Number(process.env.BENCH_WEBHOOKS ?? 0);
/** The receiver's port (a child process), when webhooks are subscribed. */
const receiverPort =
  webhookCount === 0
    ? undefined
    : await new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [join(ROOT, 'bench/webhook-receiver.mjs')], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
        child.once('error', reject);
        process.once('exit', () => child.kill());
      });
const settings = parseSettings(
  receiverPort === undefined
    ? process.env
    : { ...process.env, PETSTORE_WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiverPort}` },
);
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
const withdrawPercent = Number(process.env.BENCH_WITHDRAW_PERCENT ?? 0);
if (withdrawPercent > 0) {
  const every = Math.round(100 / withdrawPercent);
  for (let id = every; id <= count; id += every) {
    const pet = await pets.findById(id);
    if (pet === undefined || !(await pets.withdraw(id, pet.revision)))
      throw new Error(`bench: pet ${id} could not be withdrawn`);
  }
}
if (process.env.BENCH_ADMIN_KEY) {
  const { apiKeyRecord } = await import(join(ROOT, 'packages/domain/dist/src/index.js'));
  const huge = 100_000_000_000_000;
  const digests = await container.getAsync(TOKENS.Digests);
  await keys.save(
    apiKeyRecord(digests, process.env.BENCH_ADMIN_KEY, 'enterprise', { perMinute: huge, perDay: huge }, 'admin'),
  );
}
// Let the heap settle (run with --expose-gc): no collection left over from the seeding runs during the measurement.
globalThis.gc?.();
globalThis.gc?.();
const app = await container.getAsync(TOKENS.HttpApp);
// As startServer: the event relay and the retention run beside the requests (docs/rules.md §15).
const events = await container.getAsync(TOKENS.Events);
events.start();
const webhooks = await container.getAsync(TOKENS.Webhooks);
if (webhookCount > 0) {
  const types = (process.env.BENCH_WEBHOOK_TYPES ?? 'pet.created').split(',');
  const admin = { keyId: 'key_000000000000', role: 'admin' };
  for (let i = 0; i < webhookCount; i++) {
    const created = await webhooks.admin.create(admin, { url: `http://127.0.0.1:${receiverPort}/hooks/${i}`, types });
    if (!created.ok) throw new Error(`bench: a subscription was refused: ${created.error.message}`);
  }
}
webhooks.start();
const running = await listen(app, { port: settings.port, host: settings.host });
process.on('SIGTERM', () => {
  events.closeLongPolls();
  running
    .close()
    .then(() => webhooks.stop())
    .then(() => events.stop())
    .then(() => logger.flush(() => process.exit(0)));
});

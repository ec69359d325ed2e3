// The server process: settings from the environment, then serve until SIGTERM or SIGINT.
import { parseSettings, SettingsError, type Settings } from './settings.js';
import { startServer } from './server.js';
import { createServerLogger } from './log-destination.js';

const fail = (message: string): never => {
  process.stderr.write(`petstore: ${message.split('\n')[0]}\n`);
  process.exit(1);
};

let settings: Settings;
try {
  settings = parseSettings(process.env);
} catch (error) {
  fail(error instanceof SettingsError ? error.message : String(error));
}
settings = settings!;

const logger = createServerLogger(settings.logLevel);

try {
  const server = await startServer(settings, { logger });
  logger.info({ url: server.url, store: settings.store, keys: settings.apiKeys.length, adminKeys: settings.adminKeys.length, ...(server.metricsUrl === undefined ? {} : { metrics: `${server.metricsUrl}/metrics` }) }, 'listening');
  if (server.devKey !== undefined) {
    // Printed once, on purpose, for a first try; never logged. Configure PETSTORE_API_KEYS for real use.
    process.stdout.write(
      `\nDevelopment API key (plan free): ${server.devKey}\n` +
        `  try: curl -H "Authorization: Bearer ${server.devKey}" ${server.url}/v1/pets\n\n`,
    );
  }
  if (server.devAdminKey !== undefined) {
    // The same: printed once, never logged. Configure PETSTORE_ADMIN_KEYS for real use.
    process.stdout.write(
      `Development admin key: ${server.devAdminKey}\n` +
        `  issue a key: curl -H "Authorization: Bearer ${server.devAdminKey}" -H 'Content-Type: application/json' -d '{"plan":"pro"}' ${server.url}/v1/admin/keys\n\n`,
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: finishing requests in flight');
    server.stop().then(
      () => {
        logger.info({}, 'stopped');
        logger.flush(() => process.exit(0));
      },
      (error: unknown) => {
        logger.error({ err: String(error) }, 'stop failed');
        logger.flush(() => process.exit(1));
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}

// The server process: settings from the environment (and `.env`), then serve until SIGTERM or SIGINT.
import { resolve } from 'node:path';
import { parseSettings, SettingsError, type Settings } from './settings.js';
import { startServer, type StartedServer } from './server.js';
import { createServerLogger } from './log-destination.js';

const fail = (message: string): never => {
  process.stderr.write(`petstore: ${message.split('\n')[0]}\n`);
  process.exit(1);
};

/**
 * `.env` in the working directory, when there is one, with Node's own parser: each of its
 * variables is set unless the real environment already has it (set, even empty: the environment
 * wins). Returns the file's path when it was read.
 */
const loadDotEnv = (): string | undefined => {
  try {
    process.loadEnvFile('.env');
    return resolve('.env');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return undefined;
    return fail(`.env: cannot be read (${typeof code === 'string' ? code : String(error)})`);
  }
};

/**
 * The development keys, on stderr as one marked block (one write), never among the JSON log
 * lines on stdout; printed once, never logged. Configure PETSTORE_API_KEYS for real use.
 */
const printDevelopmentKeys = (server: StartedServer): void => {
  if (server.devKey === undefined) return;
  const lines = [
    '===== petstore: development keys (PETSTORE_API_KEYS is unset; valid until this process stops; never in production) =====',
    `Development API key (plan free): ${server.devKey}`,
    `  try: curl -H "Authorization: Bearer ${server.devKey}" ${server.url}/v1/pets`,
  ];
  if (server.devAdminKey !== undefined) {
    lines.push(
      `Development admin key: ${server.devAdminKey}`,
      `  issue a key: curl -H "Authorization: Bearer ${server.devAdminKey}" -H 'Content-Type: application/json' -d '{"plan":"pro"}' ${server.url}/v1/admin/keys`,
    );
  }
  lines.push('===== end of development keys =====');
  process.stderr.write(`${lines.join('\n')}\n`);
};

const envFile = loadDotEnv();
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
  logger.info(
    {
      // What the socket is bound to (server.address()), and the URL a client on this machine uses.
      address: server.address,
      port: server.port,
      url: server.url,
      store: settings.store,
      keys: settings.apiKeys.length,
      adminKeys: settings.adminKeys.length,
      ...(server.metricsUrl === undefined ? {} : { metrics: `${server.metricsUrl}/metrics` }),
      ...(envFile === undefined ? {} : { envFile }),
    },
    'listening',
  );
  printDevelopmentKeys(server);
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

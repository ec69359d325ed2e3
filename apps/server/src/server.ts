import { apiKeyRecord, generateApiKey, PORT_NAMES, type ApiKeyRecord, type Clock } from '@petstore/domain';
import {
  listen,
  listenMetrics,
  PrometheusMetrics,
  type HttpLogger,
  type MetricsListener,
} from '@petstore/adapters-http';
import type { AddressInfo } from 'node:net';
import type { Settings } from './settings.js';
import { createContainer, type ProvidedStores } from './container.js';
import { TOKENS } from './tokens.js';

interface StartOptions {
  readonly logger: HttpLogger;
  readonly clock?: Clock;
  /** Use these ports instead of the store the settings pick (keys from the settings are still seeded into them). */
  readonly stores?: ProvidedStores;
  /** The longest one store call may take before the request is answered 503 (default 5 s). */
  readonly storeDeadlineMs?: number;
  /** How long a key lookup of a store behind a network may be reused (default 500 ms; 0: no cache). */
  readonly keyCacheMaxAgeMs?: number;
}

export interface StartedServer {
  readonly url: string;
  /** The address the listener is bound to, as `server.address()` reports it (`0.0.0.0`, `127.0.0.1`, `::`…). */
  readonly address: string;
  /** The port it is bound to (the one the system picked for `PORT=0`). */
  readonly port: number;
  /** The `GET /metrics` listener's address, when `PETSTORE_METRICS_PORT` is set. */
  readonly metricsUrl?: string;
  /** The development key generated because no key was configured (memory store only). */
  readonly devKey?: string;
  /** The development admin key generated because no key at all was configured (memory store only). */
  readonly devAdminKey?: string;
  /** Stops accepting, ends the feed's long polls, finishes the requests in flight, stops delivering webhooks, stops the relay after a last run, closes the store. */
  stop(): Promise<void>;
}

/** Builds the container from the settings, seeds the keys, and serves HTTP until `stop`. */
export const startServer = async (settings: Settings, options: StartOptions): Promise<StartedServer> => {
  const metrics = settings.metricsPort === undefined ? undefined : new PrometheusMetrics({ storePorts: PORT_NAMES });
  const container = await createContainer(settings, metrics === undefined ? options : { ...options, metrics });
  const store = await container.getAsync(TOKENS.StoreLifecycle);
  try {
    const keys = await container.getAsync(TOKENS.ApiKeyStore);
    let devKey: string | undefined;
    let devAdminKey: string | undefined;
    const seed: ApiKeyRecord[] = [...settings.apiKeys, ...settings.adminKeys];
    if (settings.apiKeys.length === 0 && settings.store === 'memory') {
      // Keys like the ones the admin API issues, from the same Random port.
      const random = await container.getAsync(TOKENS.Random);
      const digests = await container.getAsync(TOKENS.Digests);
      devKey = generateApiKey(random);
      seed.push(apiKeyRecord(digests, devKey, 'free') as ApiKeyRecord);
      if (settings.adminKeys.length === 0) {
        devAdminKey = generateApiKey(random);
        seed.push(apiKeyRecord(digests, devAdminKey, 'business', undefined, 'admin') as ApiKeyRecord);
      }
    }
    for (const record of seed) await keys.save(record);
    // Settings keys change only through the settings: one taken out of them stops working. With no
    // key configured at all (a second process on MongoDB, say), the keys stored are left as they are.
    if (settings.apiKeys.length > 0 || settings.adminKeys.length > 0)
      await keys.retainSettingsKeys(seed.map((r) => r.keyHash));

    // docs/rules.md §13: what uploads and removals cut short left (a process that died) goes before the first request.
    const swept = await (await container.getAsync(TOKENS.PhotoLibrary)).sweep();
    if (swept.uploads + swept.files + swept.orphans > 0) options.logger.info({ ...swept }, 'photos swept at start');
    const app = await container.getAsync(TOKENS.HttpApp);
    // docs/rules.md §15: the relay (under the lease every process on the store shares) and the retention.
    const events = await container.getAsync(TOKENS.Events);
    events.start();
    // docs/rules.md §15: the webhooks' dispatcher (unless PETSTORE_WEBHOOKS=off), sharing the subscriptions' leases.
    const webhooks = await container.getAsync(TOKENS.Webhooks);
    webhooks.start();
    const running = await listen(app, { port: settings.port, host: settings.host, logger: options.logger }).catch(
      async (error: unknown) => {
        await webhooks.stop();
        await events.stop();
        const code = (error as { code?: unknown }).code;
        throw new Error(
          `HOST/PORT: cannot listen on ${settings.host}:${settings.port} (${typeof code === 'string' ? code : 'error'})`,
        );
      },
    );
    let metricsListener: MetricsListener | undefined;
    if (metrics !== undefined) {
      metricsListener = await listenMetrics(metrics, { port: settings.metricsPort ?? 0, host: settings.host }).catch(
        async (error: unknown) => {
          await running.close(0);
          await webhooks.stop();
          await events.stop();
          const code = (error as { code?: unknown }).code;
          throw new Error(
            `PETSTORE_METRICS_PORT: cannot listen on ${settings.host}:${settings.metricsPort ?? 0} (${typeof code === 'string' ? code : 'error'})`,
          );
        },
      );
    }
    return {
      url: running.url,
      address: (running.server.address() as AddressInfo).address,
      port: running.port,
      ...(metricsListener === undefined ? {} : { metricsUrl: metricsListener.url }),
      ...(devKey === undefined ? {} : { devKey }),
      ...(devAdminKey === undefined ? {} : { devAdminKey }),
      async stop() {
        // Long polls answer at once (an empty page and its Link); the requests in flight finish; then
        // the relay's last run moves what they recorded (docs/rules.md §15), and the store closes.
        events.closeLongPolls();
        await Promise.all([running.close(), metricsListener?.close()]);
        // Deliveries under way end (each within its 10 s), the leases are given up; then the relay's last run.
        await webhooks.stop();
        await events.stop();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
};

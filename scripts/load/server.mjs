// Load-run-only entry (not the product): composes the real server with startServer, exactly as
// apps/server's main does, and adds what a measured run needs: the event loop delay
// (perf_hooks.monitorEventLoopDelay) and the process's memory, reported over the IPC channel to
// scripts/load/run.mjs, which forks this file.
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseSettings } from '../../apps/server/dist/src/settings.js';
import { startServer } from '../../apps/server/dist/src/server.js';

// pino is the server's dependency, resolved from apps/server as main.js resolves it.
const { pino } = createRequire(new URL('../../apps/server/package.json', import.meta.url))('pino');

const settings = parseSettings(process.env);
// Logs go where the product sends them (stdout, JSON lines) at the level asked (default warn:
// the run measures the service, not the terminal); the parent discards or keeps them.
const logger = pino(
  { level: settings.logLevel, base: { service: 'petstore' } },
  pino.destination({ dest: 1, sync: false }),
);
// The histogram records the time between two samples, so each value holds the 10 ms sampling
// interval itself: the delay is what lies beyond it.
const RESOLUTION_MS = 10;
const eld = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
const server = await startServer(settings, { logger });
eld.enable();

const ms = (ns) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);
const stats = () => {
  const m = process.memoryUsage();
  return {
    rssMiB: Math.round((m.rss / 1048576) * 10) / 10,
    heapUsedMiB: Math.round((m.heapUsed / 1048576) * 10) / 10,
    eventLoopDelayMs: {
      mean: ms(eld.mean),
      p50: ms(eld.percentile(50)),
      p90: ms(eld.percentile(90)),
      p99: ms(eld.percentile(99)),
      max: ms(eld.max),
    },
  };
};

process.on('message', (message) => void onMessage(message));

/** @param {unknown} message */
const onMessage = async (message) => {
  if (message === 'stats') process.send({ type: 'stats', ...stats() });
  else if (message === 'reset-eld') eld.reset();
  else if (message === 'stop') {
    eld.disable();
    await server.stop();
    process.send({ type: 'stopped' }, () => logger.flush(() => process.exit(0)));
  }
};
process.send({ type: 'ready', url: server.url });

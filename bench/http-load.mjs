// A load generator for large answers (bench only): autocannon parses a 200 KB body at some 400
// responses a second whatever the server, so the photo's GET is driven by node:http instead
// (keep-alive, `connections` loops each sending the next request when the last answer has ended,
// bodies read and dropped). A long-lived child of bench/photos.mjs, pinned to core 1 like
// bench/drive.mjs, answering one run per IPC message with a summary of the same shape.
import { Agent, request } from 'node:http';

/** @param {{ url: string, headers?: Record<string, string>, connections?: number, duration?: number }} options */
const run = async ({ url, headers = {}, connections = 50, duration = 5 }) => {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  /** @type {Record<string, number>} */
  const statuses = {};
  const latencies = [];
  let errors = 0;
  const one = () =>
    new Promise((resolve) => {
      const sent = performance.now();
      const req = request(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, headers, agent },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => {
            statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
            latencies.push(performance.now() - sent);
            resolve(undefined);
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve(undefined);
      });
      req.end();
    });
  const started = performance.now();
  const end = started + duration * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((x, y) => x - y);
  const at = (/** @type {number} */ q) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    rps: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    total: latencies.length,
    duration: seconds,
    statuses,
    errors,
    timeouts: 0,
  };
};

process.on('message', (/** @type {{ id: number, options: any }} */ message) => {
  run(message.options).then(
    (summary) => process.send?.({ id: message.id, summary }),
    (error) => process.send?.({ id: message.id, error: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));

// The load generator: a long-lived child of bench/run.mjs (pinned to core 1 when taskset exists)
// that runs one autocannon run per IPC message and answers with a summary. Latencies are taken
// from autocannon's per-response event as floats (its own histogram keeps whole milliseconds),
// for every response, 429s included.
import autocannon from 'autocannon';

/**
 * `patchEachConnection` (bench/maintenance.mjs): every connection sends `PATCH <pathPrefix><its own id>`
 * (ids from `firstId` on, one per connection) with a new `name` each time, so that each request is a
 * real change of a pet no other connection touches; the functions this takes cannot travel over IPC.
 * @param {{ pathPrefix: string, firstId: number }} spec
 */
const patchRequests = (spec) => {
  let nextId = spec.firstId;
  let serial = 0;
  return [
    {
      method: 'PATCH',
      setupRequest: (/** @type {Record<string, unknown>} */ req, /** @type {Record<string, unknown>} */ context) => {
        if (context.petId === undefined) context.petId = nextId++;
        return {
          ...req,
          method: 'PATCH',
          path: `${spec.pathPrefix}${context.petId}`,
          body: `{"name":"Biscuit ${++serial}"}`,
        };
      },
    },
  ];
};

/**
 * `rebuildEachRequest`: the request is built anew for every request (a `setupRequest` that changes
 * nothing), as `patchEachConnection` has to: the side it is compared with pays the same load
 * generator cost, which on a busy machine would otherwise show as a difference of the server's.
 */
const rebuiltRequests = () => [{ setupRequest: (/** @type {Record<string, unknown>} */ req) => ({ ...req }) }];

/**
 * @param {Record<string, unknown>} options
 */
const run = async (options) => {
  let latencies = new Float64Array(1 << 20);
  let n = 0;
  const { patchEachConnection, rebuildEachRequest, ...rest } =
    /** @type {{ patchEachConnection?: { pathPrefix: string, firstId: number }, rebuildEachRequest?: boolean }} */ (
      options
    );
  const requests =
    patchEachConnection !== undefined
      ? patchRequests(patchEachConnection)
      : rebuildEachRequest === true
        ? rebuiltRequests()
        : undefined;
  const instance = autocannon(requests === undefined ? { ...rest } : { ...rest, requests });
  instance.on('response', (_client, _status, _bytes, ms) => {
    if (n === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[n++] = ms;
  });
  const result = await instance;
  const sorted = latencies.subarray(0, n).sort();
  const at = (/** @type {number} */ q) => (n === 0 ? NaN : sorted[Math.min(n - 1, Math.floor(q * n))]);
  /** @type {Record<string, number>} */
  const statuses = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count;
  return {
    rps: result.requests.total / result.duration,
    p50: at(0.5),
    p99: at(0.99),
    total: result.requests.total,
    duration: result.duration,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
  };
};

process.on('message', (/** @type {{ id: number, options: Record<string, unknown> }} */ message) => {
  run(message.options).then(
    (summary) => process.send?.({ id: message.id, summary }),
    (error) => process.send?.({ id: message.id, error: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));

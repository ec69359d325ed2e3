// The two clients of the upload-burst benchmark (bench/photos.mjs, part `burst`), each a long-lived
// child process answering one run per IPC message (bench only, never part of the product):
//
// - `node bench/upload-burst.mjs probe`: for `seconds`, every `connectEveryMs` a request on a NEW
//   connection (`GET path`, `Connection: close`), timed from the connect() call to the first byte of
//   the answer (open loop: a slow answer never delays the next probe); and one kept-alive connection
//   sending `GET path` one request after the other, one every `keptEveryMs` (or at once when the last
//   answer came later), each timed from its send to the end of its answer.
// - `node bench/upload-burst.mjs uploads`: `count` uploads of the same body at once, each on its own
//   connection (`Content-Length` declared, the body written at once as a client does), to pets in turn;
//   an answer 503 with `Retry-After` is retried after that many seconds, on a new connection, until
//   `seconds` have passed since the start (then nothing more is sent and what is under way is cut:
//   `cut`). A connection reset before an answer (`reset`) is retried after a second. Answers what
//   became of them: the first attempts' statuses, every attempt's, and how long the 503s took.
import { Agent, request } from 'node:http';
import { connect } from 'node:net';

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @param {{ host: string, port: number, path: string, headers: Record<string, string>, seconds: number, connectEveryMs: number, keptEveryMs: number }} o */
const probe = async (o) => {
  const end = performance.now() + o.seconds * 1000;
  /** @type {number[]} */
  const ttfb = [];
  /** @type {number[]} */
  const kept = [];
  let failures = 0;
  const head = `GET ${o.path} HTTP/1.1\r\nHost: ${o.host}:${o.port}\r\n${Object.entries(o.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}`;

  /** One request on a new connection; resolves when the first byte came (or it failed). */
  const fresh = () =>
    new Promise((resolve) => {
      const started = performance.now();
      const socket = connect({ host: o.host, port: o.port });
      let first = true;
      socket.on('connect', () => socket.write(`${head}Connection: close\r\n\r\n`));
      socket.on('data', () => {
        if (!first) return;
        first = false;
        ttfb.push(performance.now() - started);
        resolve(undefined);
      });
      socket.on('error', () => {
        if (first) failures++;
        first = false;
        resolve(undefined);
      });
      socket.on('close', () => {
        if (first) failures++;
        first = false;
        resolve(undefined);
      });
      socket.setTimeout(30_000, () => socket.destroy());
    });

  const connections = (async () => {
    /** @type {Promise<unknown>[]} */
    const pending = [];
    for (let next = performance.now(); next < end; next += o.connectEveryMs) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(fresh());
    }
    await Promise.all(pending);
  })();

  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const keptAlive = (async () => {
    for (let next = performance.now(); performance.now() < end; next += o.keptEveryMs) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      else next = performance.now();
      const sent = performance.now();
      const ok = await new Promise((resolve) => {
        const req = request({ host: o.host, port: o.port, path: o.path, headers: o.headers, agent }, (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve(res.statusCode === 200));
        });
        req.on('error', () => resolve(false));
        req.end();
      });
      if (ok) kept.push(performance.now() - sent);
      else failures++;
    }
  })();
  await Promise.all([connections, keptAlive]);
  agent.destroy();
  return { ttfb, kept, failures };
};

/** @param {{ host: string, port: number, pets: number[], headers: Record<string, string>, bodyFile: string, count: number, seconds: number }} o */
const uploads = async (o) => {
  const { readFileSync } = await import('node:fs');
  const body = readFileSync(o.bodyFile);
  const end = performance.now() + o.seconds * 1000;
  /** @type {Record<string, number>} */
  const first = {};
  /** @type {Record<string, number>} */
  const all = {};
  /** @type {number[]} */
  const refusedMs = [];
  let reset = 0;
  /** Set at the end of the window: what is still under way is cut, and counted as `cut`, not `reset`. */
  let cutting = false;
  /** @type {Set<import('node:http').ClientRequest>} */
  const open = new Set();

  /** One attempt: the status and Retry-After, or `reset` when the connection ended without an answer. */
  const attempt = (/** @type {number} */ petId) =>
    new Promise((resolve) => {
      const started = performance.now();
      let answered = false;
      const req = request(
        {
          host: o.host,
          port: o.port,
          method: 'POST',
          path: `/v1/pets/${petId}/photos`,
          headers: { ...o.headers, 'content-type': 'image/jpeg', 'content-length': String(body.length) },
          agent: false,
        },
        (res) => {
          answered = true;
          const ms = performance.now() - started;
          res.on('data', () => {});
          const done = () => {
            open.delete(req);
            resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers['retry-after'] ?? 1), ms });
          };
          res.on('end', done);
          res.on('error', done);
        },
      );
      open.add(req);
      req.on('error', () => {
        open.delete(req);
        if (!answered) resolve({ status: cutting ? 'cut' : 'reset', retryAfter: 1, ms: performance.now() - started });
      });
      req.end(body);
    });

  const client = async (/** @type {number} */ i) => {
    const petId = o.pets[i % o.pets.length];
    for (let n = 0; performance.now() < end; n++) {
      const got = /** @type {{ status: number | string, retryAfter: number, ms: number }} */ (await attempt(petId));
      if (n === 0) first[got.status] = (first[got.status] ?? 0) + 1;
      all[got.status] = (all[got.status] ?? 0) + 1;
      if (got.status === 'reset') reset++;
      if (got.status === 503) refusedMs.push(got.ms);
      // A connection reset before its answer is taken for a refusal, and retried after a second.
      if (got.status !== 503 && got.status !== 'reset') return;
      await sleep(Math.max(0, Math.min(got.retryAfter * 1000, end - performance.now())));
    }
  };
  const clients = Promise.all(Array.from({ length: o.count }, (_, i) => client(i)));
  // At the end of the window, what is still under way is cut.
  const cut = sleep(o.seconds * 1000 + 50).then(() => {
    cutting = true;
    for (const req of open) req.destroy();
  });
  await Promise.race([clients, cut]);
  await clients;
  return { first, all, reset, refusedMs };
};

const role = process.argv[2];
process.on('message', (/** @type {{ id: number, options: any }} */ message) => {
  (role === 'probe' ? probe(message.options) : uploads(message.options)).then(
    (summary) => process.send?.({ id: message.id, summary }),
    (error) => process.send?.({ id: message.id, error: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));

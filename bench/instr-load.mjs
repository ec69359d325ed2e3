// The request loop of bench/instr.mjs (bench only): sends exactly N requests over C keep-alive
// connections, one request in flight per connection, and exits 1 if any answer has another status
// than expected. Run as its own process so that its work is never counted with the server's.
// Usage: node instr-load.mjs '<json options>'
//   { port, path, method, headers, keys?: string[] (the bearer key of request i: keys[i % length]),
//     body?: 'pet' | base64 string, contentType?, n, c, expect }
// body 'pet': a new pet per request ({"name":"ic-<pid>-<i>","categoryId":1..10}).
import http from 'node:http';

const o = JSON.parse(process.argv[2] ?? '{}');
const agent = new http.Agent({ keepAlive: true, maxSockets: o.c });
const fixedBody = typeof o.body === 'string' && o.body !== 'pet' ? Buffer.from(o.body, 'base64') : undefined;
let issued = 0;
let bad = 0;
let sample = '';

/**
 * Request `i`; resolves when its answer has been read whole. A kept-alive socket the server closed
 * as idle (its keep-alive timeout runs out while callgrind dumps, seconds at 100,000 pets) resets
 * the request written on it just then: that request is sent again on a new socket, as Node's
 * documentation of `request.reusedSocket` advises. The server closed it unread, so nothing is counted twice.
 */
const send = (i) =>
  new Promise((resolve, reject) => {
    const headers = { ...o.headers };
    if (o.keys !== undefined) headers.authorization = `Bearer ${o.keys[i % o.keys.length]}`;
    let body = fixedBody;
    if (o.body === 'pet')
      body = Buffer.from(JSON.stringify({ name: `ic-${process.pid}-${i}`, categoryId: (i % 10) + 1 }));
    if (body !== undefined) {
      headers['content-type'] = o.contentType ?? 'application/json';
      headers['content-length'] = String(body.length);
    }
    const req = http.request(
      { host: '127.0.0.1', port: o.port, path: o.path, method: o.method, agent, headers },
      (res) => {
        const chunks = [];
        res.on('data', (d) => bad === 0 && chunks.push(d));
        res.on('end', () => {
          if (res.statusCode !== o.expect) {
            if (bad === 0) sample = `${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`;
            bad++;
          }
          resolve(undefined);
        });
      },
    );
    req.on('error', (error) => {
      if (req.reusedSocket && error.code === 'ECONNRESET') send(i).then(resolve, reject);
      else reject(error);
    });
    req.end(body);
  });

const loop = async () => {
  while (issued < o.n) await send(issued++);
};
await Promise.all(Array.from({ length: o.c }, loop));
agent.destroy();
if (bad > 0) {
  console.error(`instr-load: ${bad} of ${o.n} answers were not ${o.expect}, e.g. ${sample}`);
  process.exit(1);
}

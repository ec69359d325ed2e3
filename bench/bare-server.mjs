// (b) The floor: a bare node:http server answering the benchmark's requests with the exact
// JSON the real server gave for them. Bench only, never part of the product.
// argv[2]: the fixtures file written by bench/run.mjs; argv[3]: the port.
// GET bodies are kept parsed and serialised per request with JSON.stringify, as a real
// handler would; POST parses the body and answers 201 with a Pet of the same shape.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

/** @type {{ contentType: string, gets: Record<string, string> }} */
const fixtures = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const port = Number(process.argv[3] ?? 0);
const TYPE = fixtures.contentType;
/** @type {Map<string, unknown>} request URL → parsed body */
const gets = new Map(Object.entries(fixtures.gets).map(([url, body]) => [url, JSON.parse(body)]));
let lastId = 1_000_000;

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    const data = gets.get(req.url ?? '');
    if (data === undefined) {
      res.writeHead(404, { 'Content-Type': TYPE });
      res.end('{"code":"not_found","message":"no such path","status":404}');
      return;
    }
    const body = JSON.stringify(data);
    res.writeHead(200, { 'Content-Type': TYPE, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  if (req.method === 'POST' && req.url === '/v1/pets') {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const draft = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const pet = { id: ++lastId, name: draft.name, categoryId: draft.categoryId, status: draft.status ?? 'available' };
      const body = JSON.stringify(pet);
      res.writeHead(201, {
        'Content-Type': TYPE,
        'Content-Length': Buffer.byteLength(body),
        Location: `/v1/pets/${pet.id}`,
      });
      res.end(body);
    });
    return;
  }
  res.writeHead(405, { 'Content-Type': TYPE });
  res.end('{"code":"method_not_allowed","message":"not allowed","status":405}');
});
server.keepAliveTimeout = 5_000;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());

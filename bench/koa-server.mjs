// (c) The limit: a minimal Koa app, no middleware but the router's, answering the benchmark's
// requests with the exact JSON the real server gave for them. Bench only, never part of the product.
// argv[2]: the fixtures file written by bench/run.mjs; argv[3]: the port.
// GET bodies are kept parsed; Koa serialises them per request (JSON.stringify, the same bytes).
import Koa from 'koa';
import Router from '@koa/router';
import { readFileSync } from 'node:fs';

/** @type {{ contentType: string, gets: Record<string, string> }} */
const fixtures = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const port = Number(process.argv[3] ?? 0);
const TYPE = fixtures.contentType;
/** @type {Map<string, unknown>} request URL → parsed body */
const gets = new Map(Object.entries(fixtures.gets).map(([url, body]) => [url, JSON.parse(body)]));
let lastId = 1_000_000;

const router = new Router();
/** @param {import('koa').Context} ctx */
const serveGet = (ctx) => {
  const data = gets.get(ctx.url);
  if (data === undefined) ctx.throw(404);
  ctx.body = data; // Koa answers an object with JSON.stringify and application/json; charset=utf-8
  ctx.type = TYPE;
};
router.get('/v1/pets', serveGet);
router.get('/v1/pets/:petId', serveGet);
// Other listings the bench measures (e.g. /v1/store/inventory, /v1/categories): one route per path.
for (const path of new Set([...gets.keys()].map((url) => url.split('?')[0]))) {
  if (!path.startsWith('/v1/pets')) router.get(path, serveGet);
}
router.post('/v1/pets', async (ctx) => {
  /** @type {Buffer[]} */
  const chunks = [];
  for await (const chunk of ctx.req) chunks.push(chunk);
  const draft = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const pet = { id: ++lastId, name: draft.name, categoryId: draft.categoryId, status: draft.status ?? 'available' };
  ctx.status = 201;
  ctx.set('Location', `/v1/pets/${pet.id}`);
  ctx.body = pet;
  ctx.type = TYPE;
});

const app = new Koa();
app.use(router.routes());
const server = app.listen(port, '127.0.0.1');
server.keepAliveTimeout = 5_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());

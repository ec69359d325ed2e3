// koa-routes: minimal Koa + @koa/router with every route of the API registered, and nothing else.
// The routes (method and path template) are the project's own, read by bench/instr.mjs from its
// served OpenAPI document into the fixtures (34 today). The list and the create answer as
// bench/koa-server.mjs does (the project's JSON for the list; a Pet of the same shape for the
// create); every other route answers a fixed small JSON. Against minimal Koa it shows what the
// router's matching over the API's routes costs a request; against the project, what is left for
// the contract's work. Bench only, never part of the product.
// argv[2]: the fixtures file written by bench/instr.mjs; argv[3]: the port.
import Koa from 'koa';
import Router from '@koa/router';
import { readFileSync } from 'node:fs';

/** @type {{ contentType: string, gets: Record<string, string>, routes: { method: string, path: string }[] }} */
const fixtures = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const port = Number(process.argv[3] ?? 0);
const TYPE = fixtures.contentType;
/** @type {Map<string, unknown>} request URL → parsed body */
const gets = new Map(Object.entries(fixtures.gets).map(([url, body]) => [url, JSON.parse(body)]));
const FIXED = { ok: true };
let lastId = 1_000_000;

/** @param {import('koa').Context} ctx */
const list = (ctx) => {
  const data = gets.get(ctx.url);
  if (data === undefined) ctx.throw(404);
  ctx.body = data;
  ctx.type = TYPE;
};
/** @param {import('koa').Context} ctx */
const create = async (ctx) => {
  /** @type {Buffer[]} */
  const chunks = [];
  for await (const chunk of ctx.req) chunks.push(chunk);
  const draft = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const pet = { id: ++lastId, name: draft.name, categoryId: draft.categoryId, status: draft.status ?? 'available' };
  ctx.status = 201;
  ctx.set('Location', `/v1/pets/${pet.id}`);
  ctx.body = pet;
  ctx.type = TYPE;
};
/** @param {import('koa').Context} ctx */
const fixed = (ctx) => {
  ctx.body = FIXED;
  ctx.type = TYPE;
};

const router = new Router();
for (const { method, path } of fixtures.routes) {
  const handler = path !== '/v1/pets' ? fixed : method === 'GET' ? list : method === 'POST' ? create : fixed;
  // router.get, router.post, router.patch, router.delete: the methods of the document.
  router[/** @type {'get' | 'post' | 'put' | 'patch' | 'delete'} */ (method.toLowerCase())](path, handler);
}

const app = new Koa();
app.use(router.routes());
const server = app.listen(port, '127.0.0.1');
server.keepAliveTimeout = 5_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());

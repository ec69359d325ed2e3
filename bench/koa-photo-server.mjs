// The limit for serving a photo: a minimal Koa app (Koa 3, @koa/router, no other middleware)
// answering GET of the photo path with the exact bytes the real server stored, and their type.
// Bench only, never part of the product. argv[2]: the file of the bytes; argv[3]: its type; argv[4]: the port.
import Koa from 'koa';
import Router from '@koa/router';
import { readFileSync } from 'node:fs';

const bytes = readFileSync(process.argv[2]);
const type = process.argv[3];
const port = Number(process.argv[4] ?? 0);

const router = new Router();
router.get('/v1/pets/:petId/photos/:photoId', (ctx) => {
  ctx.type = type;
  ctx.body = bytes;
});
router.get('/healthz', (ctx) => {
  ctx.body = { status: 'ok' };
});

const app = new Koa();
app.use(router.routes());
const server = app.listen(port, '127.0.0.1');
server.keepAliveTimeout = 5_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());

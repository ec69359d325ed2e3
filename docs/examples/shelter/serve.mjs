// A static server for trying this folder on your machine (Node only, nothing to install):
//   node serve.mjs [port]   → http://localhost:<port>/ (default 8000), this folder's files, GET only.
// On a real site, serve the folder with your own web server instead.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = fileURLToPath(new URL('.', import.meta.url));
const port = Number(process.argv[2] ?? 8000);
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.md': 'text/markdown; charset=utf-8',
};

createServer((req, res) => {
  const name = new URL(req.url ?? '/', 'http://localhost').pathname.slice(1) || 'index.html';
  // This folder's own files only: no sub-folder, no way up.
  if (req.method !== 'GET' || !/^[\w.-]+$/.test(name) || name.startsWith('.')) return void res.writeHead(404).end();
  readFile(join(folder, name)).then(
    (bytes) => res.writeHead(200, { 'Content-Type': types[extname(name)] ?? 'application/octet-stream' }).end(bytes),
    () => res.writeHead(404).end(),
  );
}).listen(port, 'localhost', () => console.log(`the shelter's page: http://localhost:${port}/`));

// Bench only: a webhook receiver that answers every request 204 at once, on 127.0.0.1 and a free
// port, which it prints on stdout (one line). bench/app-server.mjs runs it as a child process.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));

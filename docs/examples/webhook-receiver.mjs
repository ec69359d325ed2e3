// A webhook receiver for the Animal Adoption Store (docs/rules.md §15, "Webhooks"): it checks the
// signature of every request with the `standardwebhooks` package and prints each verified event.
//
//   npm install --prefix docs/examples
//   WEBHOOK_SECRET='whsec_…' PORT=4000 node docs/examples/webhook-receiver.mjs
//
// WEBHOOK_SECRET is the `secret` of the subscription's create (or rotate-secret) answer; it is
// never printed. A delivery may come more than once (the same webhook-id): a real receiver
// remembers the ids it handled and skips a repeat.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET ?? '';
if (!secret.startsWith('whsec_')) {
  console.error('webhook-receiver: set WEBHOOK_SECRET to the subscription secret (whsec_…)');
  process.exit(1);
}
let webhook;
try {
  webhook = new Webhook(secret);
} catch {
  console.error('webhook-receiver: WEBHOOK_SECRET is not whsec_ followed by base64');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 4000);
const MAX_BODY = 1024 * 1024; // an event is a few KiB; refuse anything far larger unread

const server = createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY) {
      res.writeHead(413, { Connection: 'close' }).end();
      req.destroy();
    } else chunks.push(chunk);
  });
  req.on('error', () => res.destroy()); // the sender went away: nothing to answer
  req.on('end', () => {
    // The signature covers the exact bytes sent: verify them before parsing anything.
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      event = webhook.verify(body, req.headers);
    } catch (error) {
      console.error(`refused ${req.method} ${req.url}: ${error.message}`);
      res.writeHead(400).end();
      return;
    }
    console.log(`${event.sequence} ${event.type} ${req.headers['webhook-id']}`);
    res.writeHead(204).end();
  });
});

server.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));

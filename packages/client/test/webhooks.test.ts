// @petstore/client's webhook operations against a started server (docs/rules.md §15, "Webhooks"):
// typed calls to create (the secret shown once), list (paged like every list), change, rotate and
// read the deliveries log; and a receiver written as docs/embedding.md shows it ("Webhooks from
// TypeScript"): each delivery verified with the `standardwebhooks` package, then read as the client's
// `Event` type.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { createPetstoreClient, items, PetstoreError, type Event } from '../src/index.js';
import { KEYS, startServer, type ClientTestServer } from './support/server.js';

interface Received {
  readonly body: string;
  readonly headers: Record<string, string>;
}

describe('@petstore/client: webhooks (docs/rules.md §15)', function () {
  this.timeout(60_000);
  let s: ClientTestServer;
  let receiver: Server;
  let received: Received[];

  beforeEach(async () => {
    received = [];
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          body: Buffer.concat(chunks).toString('utf8'),
          headers: {
            'webhook-id': String(req.headers['webhook-id']),
            'webhook-timestamp': String(req.headers['webhook-timestamp']),
            'webhook-signature': String(req.headers['webhook-signature']),
          },
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    // The clock stands at the real time, so that the receiver's check of `webhook-timestamp` (within 5 minutes) holds.
    s = await startServer({ at: Date.now(), webhookHosts: [`127.0.0.1:${(receiver.address() as AddressInfo).port}`] });
  });
  afterEach(async () => {
    await s.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const receiverUrl = () => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const until = async (done: () => boolean): Promise<void> => {
    for (let waited = 0; !done(); waited += 10) {
      if (waited > 10_000) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('creates, lists, changes and rotates a subscription with typed calls; a receiver verifies each delivery and reads it as an Event', async () => {
    const admin = createPetstoreClient({ baseUrl: s.baseUrl, apiKey: KEYS.admin });
    const created = await admin.POST('/webhooks', {
      body: { url: receiverUrl(), types: ['pet.created'], description: 'the shelter' },
    });
    expect(created.response.status).to.equal(201);
    const webhook = created.data!;
    expect(webhook.secret).to.match(/^whsec_/);
    expect(webhook).to.include({ url: receiverUrl(), enabled: true, pausedReason: null, description: 'the shelter' });

    const writer = createPetstoreClient({ baseUrl: s.baseUrl, apiKey: KEYS.business });
    const dogs = (await writer.POST('/categories', { body: { name: 'Dogs' } })).data!;
    const rex = (await writer.POST('/pets', { body: { name: 'Rex', categoryId: dogs.id } })).data!;
    await until(() => received.length === 1);

    // The receiver of docs/embedding.md: verify, then read the body as an Event.
    const verifier = new Webhook(webhook.secret);
    const readDelivery = (body: string, headers: Record<string, string>): Event =>
      verifier.verify(body, headers) as Event;
    const event = readDelivery(received[0]!.body, received[0]!.headers);
    expect(event.type).to.equal('pet.created');
    expect(event.data).to.deep.equal(rex);
    expect(received[0]!.headers['webhook-id']).to.equal(event.id);
    // A body changed on the way is refused.
    expect(() => readDelivery(received[0]!.body.replace('Rex', 'Max'), received[0]!.headers)).to.throw();

    // The list, paged like every list; never a secret.
    const listed = [];
    for await (const item of items(admin, '/webhooks', { limit: 1 })) listed.push(item);
    expect(listed.map((w) => w.id)).to.deep.equal([webhook.id]);
    expect(listed[0]).to.not.have.property('secret');

    // The deliveries log, newest first.
    const path = { webhookId: webhook.id };
    const log = await admin.GET('/webhooks/{webhookId}/deliveries', { params: { path } });
    expect(log.data?.[0]).to.include({ eventId: event.id, sequence: event.sequence, attempt: 1, outcome: 'delivered' });

    // A rotation: the next delivery verifies with the new secret and with the old one.
    const rotated = await admin.POST('/webhooks/{webhookId}/rotate-secret', { params: { path } });
    const newSecret = rotated.data!.secret;
    await writer.POST('/pets', { body: { name: 'Bella', categoryId: dogs.id } });
    await until(() => received.length === 2);
    const second = received[1]!;
    expect((new Webhook(newSecret).verify(second.body, second.headers) as Event).type).to.equal('pet.created');
    expect((verifier.verify(second.body, second.headers) as Event).type).to.equal('pet.created');

    // A change: every type again.
    const patched = await admin.PATCH('/webhooks/{webhookId}', { params: { path }, body: { types: null } });
    expect(patched.data).to.not.have.property('types');
  });

  it('a client key gets PetstoreError-shaped 403 answers on the webhook operations', async () => {
    const client = createPetstoreClient({ baseUrl: s.baseUrl, apiKey: KEYS.business });
    const { error, response } = await client.GET('/webhooks');
    expect(response.status).to.equal(403);
    expect(error).to.include({ code: 'forbidden', status: 403 });
    let thrown: unknown;
    try {
      for await (const _ of items(client, '/webhooks')) break;
    } catch (e) {
      thrown = e;
    }
    expect(thrown).to.be.instanceOf(PetstoreError);
    expect((thrown as PetstoreError).status).to.equal(403);
  });
});

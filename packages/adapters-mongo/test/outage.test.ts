import { expect } from 'chai';
import { createServer } from 'node:net';
import { StoreUnavailableError } from '@petstore/domain';
import { MongoClient } from 'mongodb';
import {
  ApiKeyStoreMongo,
  connectMongo,
  PetRepositoryMongo,
  QuotaStoreMongo,
  resolveMongoSettings,
  WebhookStoreMongo,
} from '../src/index.js';
import { entryOf } from '@petstore/domain/testing';

/** A loopback port nothing listens on: taken from the OS, then released. */
const closedPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });

const settle = async (promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> => {
  const started = Date.now();
  try {
    await promise;
    return { error: undefined, ms: Date.now() - started };
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
};

describe('MongoDB outage (no server needed: a closed port)', function () {
  this.timeout(15_000);

  it('every adapter call throws StoreUnavailableError within 5 s with the default settings, never hangs', async () => {
    const port = await closedPort();
    const uri = `mongodb://app:topsecret@127.0.0.1:${port}/petstore`;
    const client = new MongoClient(uri, resolveMongoSettings(uri).driverOptions);
    try {
      const db = client.db();
      const pets = new PetRepositoryMongo(db);
      const quotas = new QuotaStoreMongo(db);
      const keys = new ApiKeyStoreMongo(db);
      const webhooks = new WebhookStoreMongo(db);
      const request = {
        subject: 'k:x',
        now: Date.UTC(2027, 0, 1),
        quota: { perMinute: 1, perDay: 1 },
        ban: { threshold: 1, seconds: 1 },
      };
      const outcomes = await Promise.all([
        settle(pets.create(entryOf({ name: 'Rex', categoryId: 1, status: 'available' }))),
        settle(pets.findById(1)),
        settle(pets.list({ order: { sort: 'id' }, limit: 3 })),
        settle(quotas.consume(request)),
        settle(keys.findByHash('ab'.repeat(32))),
        settle(
          keys.save({ keyHash: 'ab'.repeat(32), role: 'client', plan: 'free', quota: { perMinute: 60, perDay: 1000 } }),
        ),
        settle(webhooks.findById(`wh_${'0'.repeat(24)}`)),
        settle(webhooks.lease(`wh_${'0'.repeat(24)}`, 'one', 0, 1)),
        settle(
          webhooks.log(`wh_${'0'.repeat(24)}`, {
            eventId: 'evt_1',
            sequence: 1,
            attempt: 1,
            at: 0,
            status: null,
            outcome: 'unreachable',
            durationMs: 1,
          }),
        ),
      ]);
      for (const [i, { error, ms }] of outcomes.entries()) {
        expect(error, `call ${i}`).to.be.instanceOf(StoreUnavailableError);
        expect(ms, `call ${i} took`).to.be.below(5_000);
        const message = (error as Error).message;
        expect(message, `call ${i}`).not.to.match(new RegExp(`${port}|127\\.0\\.0\\.1|topsecret|app:`));
      }
    } finally {
      await client.close();
    }
  });

  it('connectMongo fails with one clear line after a bounded wait, without echoing credentials', async () => {
    const port = await closedPort();
    const { error, ms } = await settle(
      connectMongo(`mongodb://app:topsecret@127.0.0.1:${port}/petstore?serverSelectionTimeoutMS=500`),
    );
    expect(error).to.be.instanceOf(Error);
    const message = (error as Error).message;
    expect(message).to.equal(`cannot reach MongoDB at 127.0.0.1:${port} within 500 ms`);
    expect(message).not.to.match(/topsecret|app:|\n/);
    expect(ms).to.be.below(3_000);
  });

  it('connectMongo waits about 2 s by default, not the driver default of 30 s', async () => {
    const port = await closedPort();
    const { error, ms } = await settle(connectMongo(`mongodb://127.0.0.1:${port}`));
    expect((error as Error).message).to.equal(`cannot reach MongoDB at 127.0.0.1:${port} within 2000 ms`);
    expect(ms).to.be.within(1_500, 5_000);
  });

  it('connectMongo refuses a malformed connection string with one line and no credentials', async () => {
    for (const uri of [
      'postgres://u:pw@h/db',
      'mongodb://u:pw@h:notaport/db',
      'mongodb://u:pw@h/db?maxPoolSize=lots',
    ]) {
      const { error, ms } = await settle(connectMongo(uri));
      expect(error, uri).to.be.instanceOf(Error);
      expect((error as Error).message, uri).not.to.match(/pw|\n/);
      expect(ms).to.be.below(1_000);
    }
  });
});

import { expect } from 'chai';
import { createServer } from 'node:net';
import { MongoClient } from 'mongodb';
import { StoreUnavailableError } from '@petstore/domain';
import { PetRepositoryMongo } from '../src/index.js';
import { entryOf } from '@petstore/domain/testing';

describe('PetRepositoryMongo while the store does not answer (no database needed)', function () {
  this.timeout(20_000);

  it('keeps at most 10,000 creates waiting: the next one is refused at once, and nothing is left pending after', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const client = new MongoClient(`mongodb://127.0.0.1:${port}`, { serverSelectionTimeoutMS: 1_500 });
    try {
      const repo = new PetRepositoryMongo(client.db('queue_test'));
      const waiting = Array.from({ length: 10_000 }, (_, i) =>
        repo.create(entryOf({ name: `p${i}`, categoryId: 1, status: 'available' })).then(
          () => 'created',
          (error: unknown) => (error instanceof StoreUnavailableError ? 'unavailable' : 'other'),
        ),
      );
      const started = Date.now();
      const refused = await repo.create(entryOf({ name: 'one too many', categoryId: 1, status: 'available' })).then(
        () => 'created',
        (error: unknown) => (error instanceof StoreUnavailableError ? 'unavailable' : 'other'),
      );
      expect(refused).to.equal('unavailable');
      expect(Date.now() - started, 'refused without waiting for the store').to.be.below(500);
      const outcomes = await Promise.all(waiting);
      expect(new Set(outcomes)).to.deep.equal(new Set(['unavailable']));
    } finally {
      await client.close();
    }
  });
});

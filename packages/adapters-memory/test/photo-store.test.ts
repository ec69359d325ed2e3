import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { PHOTOS_PER_PET, type PhotoUpload } from '@petstore/domain';
import { photoStoreContract } from '@petstore/domain/testing';
import { PhotoStoreInMemory } from '../src/index.js';

/** SHA-256 of bytes, lowercase hex (`node:crypto`). */
const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

photoStoreContract('in memory', async () => {
  const store = new PhotoStoreInMemory();
  return { subject: { store, restart: async () => store, storedFiles: async () => store.fileCount } };
});

const T0 = Date.UTC(2027, 0, 1);
const file = (width: number, bytes: Uint8Array) => ({
  width,
  height: width,
  bytes: bytes.length,
  sha256: sha256Of(bytes),
});

describe('PhotoStoreInMemory beyond the contract: its budget (PETSTORE_PHOTO_MEMORY_MB, docs/rules.md §13)', () => {
  it('reserves the bytes of a whole upload; past the budget it answers no_space and holds nothing', async () => {
    const store = new PhotoStoreInMemory(1_000);
    const a = (await store.reserve(1, 600, T0)) as PhotoUpload;
    expect(a.photoId).to.be.a('number');
    expect(store.usedBytes).to.equal(600);
    expect(await store.reserve(1, 401, T0)).to.equal('no_space');
    expect(await store.reserve(2, 401, T0), 'whatever the pet').to.equal('no_space');
    expect(store.usedBytes).to.equal(600);
    const b = (await store.reserve(2, 400, T0)) as PhotoUpload;
    expect(store.usedBytes).to.equal(1_000);
    expect(await store.reserve(3, 1, T0)).to.equal('no_space');
    await store.abandon(a);
    expect(store.usedBytes).to.equal(400);
    const bytes = new Uint8Array(400).fill(7);
    await store.putFile(b, file(100, bytes), bytes);
    expect(
      await store.publish(b, {
        id: b.photoId,
        petId: 2,
        contentType: 'image/png',
        width: 100,
        height: 100,
        bytes: 400,
        createdAt: '2027-01-01T00:00:00.000Z',
        files: [file(100, bytes)],
      }),
    ).to.equal(true);
    expect(store.usedBytes).to.equal(400);
    expect(await store.delete(2, b.photoId)).to.equal(true);
    expect(store.usedBytes).to.equal(0);
  });

  it('a budget of 0 stores nothing at all; a budget of one photo stores exactly it', async () => {
    expect(await new PhotoStoreInMemory(0).reserve(1, 1, T0)).to.equal('no_space');
    const one = new PhotoStoreInMemory(500);
    expect(await one.reserve(1, 500, T0)).not.to.be.a('string');
    expect(await one.reserve(1, 1, T0)).to.equal('no_space');
  });

  it('refuses files beyond what the upload reserved (a bug in the caller, never a silent overrun)', async () => {
    const store = new PhotoStoreInMemory(10_000);
    const up = (await store.reserve(1, 100, T0)) as PhotoUpload;
    const big = new Uint8Array(101);
    let error: unknown;
    await store.putFile(up, file(50, big), big).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(Error);
    expect(store.fileCount).to.equal(0);
  });

  it('keeps the bytes handed to it as they are, but copies a view into a larger buffer (so that it does not hold the rest)', async () => {
    const store = new PhotoStoreInMemory();
    const up = (await store.reserve(1, 8, T0)) as PhotoUpload;
    const whole = new Uint8Array([1, 2, 3, 4]);
    const large = new Uint8Array(1_000).fill(9);
    const view = large.subarray(10, 14);
    await store.putFile(up, file(10, whole), whole);
    await store.putFile(up, file(5, view), view);
    const photo = {
      id: up.photoId,
      petId: 1,
      contentType: 'image/png' as const,
      width: 10,
      height: 10,
      bytes: 4,
      createdAt: '2027-01-01T00:00:00.000Z',
    };
    await store.publish(up, { ...photo, files: [file(10, whole), file(5, view)] });
    expect(await store.read(up.photoId, 10)).to.equal(whole);
    const kept = (await store.read(up.photoId, 5)) as Uint8Array;
    expect([...kept]).to.deep.equal([9, 9, 9, 9]);
    expect(kept.buffer.byteLength, 'not the 1,000-byte buffer').to.equal(4);
    expect(PHOTOS_PER_PET).to.equal(12);
  });
});

// docs/rules.md §10, its last paragraph, for photo uploads (docs/rules.md §13): a create never happens
// twice under one Idempotency-Key. When an upload's publish landed but its answer was lost (503), or
// its process died before it released its claim, a repeat with the same key and body answers that
// photo (201, the same body and Location, `Idempotent-Replayed: true`) instead of storing a second
// one, also after the claim's lease, also through another process. The faults come from the
// FaultInjector of @petstore/domain/testing around the memory photo store; two apps given the same
// stores stand for two server processes sharing one database.
import { expect } from 'chai';
import { IN_PROGRESS_LEASE_MS } from '@petstore/domain';
import { IdempotencyStoreInMemory, PetRepositoryInMemory, PhotoStoreInMemory } from '@petstore/adapters-memory';
import { FaultInjector, ManualClock, type FaultMode, entryOf } from '@petstore/domain/testing';
import { testImage } from '@petstore/adapters-sharp/testing';
import { expectError, KEYS, startServer, T0, type RawResponse, type TestServer } from './support/server.js';

const LEASE = IN_PROGRESS_LEASE_MS;

describe('a photo upload never happens twice under one Idempotency-Key: a publish that landed under a 503 or a lost answer is found, not made again (docs/rules.md §10, §13)', function () {
  this.timeout(60_000);
  let photoStore: PhotoStoreInMemory;
  let faults: FaultInjector;
  /** The process the first attempts go to: its photo store behind the fault injector. */
  let a: TestServer;
  /** Another process over the same stores (and clock), without faults. */
  let b: TestServer;
  let petId: number;
  let jpeg: Buffer;

  before(async () => {
    jpeg = await testImage({ format: 'jpeg', width: 400, height: 300, content: 'photo' });
  });

  beforeEach(async () => {
    const clock = new ManualClock(T0);
    // A hang lasts until `reset()`: a process that never answers (it died).
    faults = new FaultInjector({ hangMs: 10 * LEASE });
    const pets = new PetRepositoryInMemory();
    const idempotencyStore = new IdempotencyStoreInMemory();
    photoStore = new PhotoStoreInMemory();
    a = await startServer({
      clock,
      repository: pets,
      idempotencyStore,
      wrapIdempotencyStore: (inner) => faults.idempotencyStore(inner),
      photoStore,
      wrapPhotoStore: (inner) => faults.photoStore(inner),
    });
    // As the server wires it (apps/server): a withdrawal takes the pet's photos with it (docs/rules.md §12).
    b = await startServer({
      clock,
      repository: pets,
      categories: 0,
      idempotencyStore,
      photoStore,
      afterWithdrawal: async (id) => void (await photoStore.deleteAllOf(id)),
    });
    petId = (await pets.create(entryOf({ name: 'Photogenic', categoryId: 1, status: 'available' }))).id;
  });
  afterEach(async () => {
    faults.reset();
    await a.close();
    await b.close();
  });

  const upload = (server: TestServer, key: string): Promise<RawResponse> =>
    server.request({
      method: 'POST',
      path: `/v1/pets/${petId}/photos`,
      key: KEYS.admin,
      headers: { 'content-type': 'image/jpeg', 'idempotency-key': key },
      body: jpeg,
    });
  const failOn = (method: string, mode: FaultMode) =>
    faults.use((call) => (call.port === 'PhotoStore' && call.method === method ? mode : undefined));

  /** Exactly one photo is stored, and `answer` is a replayed 201 naming it as it is stored (body and Location). */
  const expectUploadedOnce = async (answer: RawResponse): Promise<void> => {
    expect([answer.status, answer.header('idempotent-replayed')], answer.text).to.deep.equal([201, 'true']);
    const stored = await photoStore.list(petId);
    expect(
      stored.map((p) => p.id),
      'exactly one photo',
    ).to.have.length(1);
    const photo = stored[0]!;
    expect(answer.json()).to.deep.equal({
      id: photo.id,
      petId,
      contentType: photo.contentType,
      width: photo.width,
      height: photo.height,
      bytes: photo.bytes,
      createdAt: photo.createdAt,
    });
    expect(answer.header('location')).to.equal(`/v1/pets/${petId}/photos/${photo.id}`);
    // Nothing else held: the files of that one photo only (no bytes of a second upload kept).
    expect(photoStore.fileCount).to.equal(photo.files.length);
    const listed = await b.request({ path: `/v1/pets/${petId}/photos`, key: KEYS.admin });
    expect(listed.json()).to.deep.equal([answer.json()]);
  };

  it('the publish lands, its answer is lost (503): a repeat answers that photo (201, Idempotent-Replayed: true), no second one; then that answer is kept', async () => {
    failOn('publish', 'fail-after-write');
    expectError(await upload(a, 'lost-1'), 503, 'unavailable');
    faults.use(undefined);
    expect(await photoStore.list(petId), 'the publish landed').to.have.length(1);
    const retried = await upload(a, 'lost-1');
    await expectUploadedOnce(retried);
    const again = await upload(a, 'lost-1');
    expect([again.status, again.text, again.header('location'), again.header('idempotent-replayed')]).to.deep.equal([
      201,
      retried.text,
      retried.header('location'),
      'true',
    ]);
    await expectUploadedOnce(again);
  });

  it('the publish lands, its answer is lost and the claim is not released (the process died before): 409 while the lease lasts, then, past the lease (60 s), that photo', async () => {
    faults.use((call) =>
      call.port === 'PhotoStore' && call.method === 'publish'
        ? 'fail-after-write'
        : call.port === 'IdempotencyStore' && call.method === 'release'
          ? 'fail'
          : undefined,
    );
    expectError(await upload(a, 'left-1'), 503, 'unavailable');
    faults.use(undefined);
    expectError(await upload(a, 'left-1'), 409, 'conflict');
    a.clock.advance(LEASE - 1);
    expectError(await upload(b, 'left-1'), 409, 'conflict');
    a.clock.advance(1);
    await expectUploadedOnce(await upload(a, 'left-1'));
  });

  it('the 201 was answered but keeping it failed: past the lease a repeat answers the same photo (same body and Location, replayed), never a second one', async () => {
    faults.use((call) => (call.port === 'IdempotencyStore' && call.method === 'complete' ? 'fail' : undefined));
    const first = await upload(a, 'unkept-1');
    expect([first.status, first.header('idempotent-replayed')], first.text).to.deep.equal([201, '']);
    faults.use(undefined);
    expectError(await upload(a, 'unkept-1'), 409, 'conflict');
    a.clock.advance(LEASE + 1);
    const retried = await upload(a, 'unkept-1');
    expect([retried.text, retried.header('location')]).to.deep.equal([first.text, first.header('location')]);
    await expectUploadedOnce(retried);
  });

  it('another process: the first answered 503 after its publish landed; the repeat, sent to another process over the same stores, answers that photo', async () => {
    failOn('publish', 'fail-after-write');
    expectError(await upload(a, 'moved-1'), 503, 'unavailable');
    faults.use(undefined);
    await expectUploadedOnce(await upload(b, 'moved-1'));
  });

  it("another process: the first dies mid-publish after it landed (no answer, no release); the other answers 409 while the lease lasts, then that photo; the first one's late end changes nothing", async () => {
    failOn('publish', 'hang-after-write');
    const dying = upload(a, 'died-1');
    while (faults.count({ port: 'PhotoStore', method: 'publish', mode: 'hang-after-write' }) === 0)
      await new Promise((resolve) => setImmediate(resolve));
    faults.use(undefined);
    expectError(await upload(b, 'died-1'), 409, 'conflict');
    b.clock.advance(LEASE);
    const retried = await upload(b, 'died-1');
    await expectUploadedOnce(retried);
    faults.reset();
    expectError(await dying, 503, 'unavailable');
    const again = await upload(b, 'died-1');
    expect([again.status, again.text, again.header('idempotent-replayed')]).to.deep.equal([201, retried.text, 'true']);
    await expectUploadedOnce(again);
  });

  for (const [gone, remove] of [
    [
      'the photo is deleted',
      (photoId: number) =>
        b.request({ method: 'DELETE', path: `/v1/pets/${petId}/photos/${photoId}`, key: KEYS.admin }),
    ],
    [
      'its pet is withdrawn (docs/rules.md §12: its photos go with it)',
      () => b.request({ method: 'DELETE', path: `/v1/pets/${petId}`, key: KEYS.admin }),
    ],
  ] as const) {
    it(`the publish lands, its answer is lost (503), ${gone}, then the repeat: 201 replayed, that photo as it was published; nothing uploaded again, no bytes kept`, async () => {
      failOn('publish', 'fail-after-write');
      expectError(await upload(a, 'gone-1'), 503, 'unavailable');
      faults.use(undefined);
      const published = await photoStore.list(petId);
      expect(published, 'the publish landed').to.have.length(1);
      const photo = published[0]!;
      const removed = await remove(photo.id);
      expect(removed.status, removed.text).to.equal(204);
      for (const server of [a, b]) {
        const retried = await upload(server, 'gone-1');
        expect([retried.status, retried.header('idempotent-replayed')], retried.text).to.deep.equal([201, 'true']);
        expect(retried.json()).to.deep.equal({
          id: photo.id,
          petId,
          contentType: photo.contentType,
          width: photo.width,
          height: photo.height,
          bytes: photo.bytes,
          createdAt: photo.createdAt,
        });
        expect(retried.header('location')).to.equal(`/v1/pets/${petId}/photos/${photo.id}`);
      }
      expect(await photoStore.list(petId), 'no photo stored again').to.deep.equal([]);
      expect([photoStore.fileCount, photoStore.usedBytes], 'no bytes kept').to.deep.equal([0, 0]);
      expect(
        (await b.request({ path: `/v1/pets/${petId}/photos/${photo.id}`, key: KEYS.admin })).status,
        'still gone',
      ).to.equal(404);
    });
  }

  it('a repeat whose pet is full with that photo among its 12 answers that photo, not 409', async () => {
    failOn('publish', 'fail-after-write');
    expectError(await upload(a, 'full-1'), 503, 'unavailable');
    faults.use(undefined);
    for (let i = 1; i < 12; i++) {
      const other = await b.request({
        method: 'POST',
        path: `/v1/pets/${petId}/photos`,
        key: KEYS.admin,
        headers: { 'content-type': 'image/jpeg' },
        body: jpeg,
      });
      expect(other.status, other.text).to.equal(201);
    }
    const retried = await upload(b, 'full-1');
    expect([retried.status, retried.header('idempotent-replayed')], retried.text).to.deep.equal([201, 'true']);
    expect(await photoStore.list(petId)).to.have.length(12);
    expect((retried.json() as { id: number }).id).to.equal((await photoStore.list(petId))[0]!.id);
  });
});

// docs/rules.md §13 and §6 (issue 26): photo uploads are admitted before their body is read, a
// bounded number in flight by count and by bytes (past it: 503 at once, `Retry-After`, `Connection:
// close`, the body unread); the place is given back however the upload ends; a photo's body may
// take longer than any other request's as long as bytes keep coming, and one that stalls is cut.
// The uploads are written by hand on their own connections, so the tests decide when (and whether)
// each byte of a body is sent. Timeouts are the short ones given to `listen` here.
import { connect } from 'node:net';
import { expect } from 'chai';
import fc from 'fast-check';
import type { PetRepository, PhotoUpload } from '@petstore/domain';
import { FaultInjector, forwardingPets } from '@petstore/domain/testing';
import { PetRepositoryInMemory } from '@petstore/adapters-memory';
import { testImage } from '@petstore/adapters-sharp/testing';
import { UploadAdmission } from '../src/index.js';
import { KEYS, parseRawResponse, startServer, type TestServer } from './support/server.js';

const MiB = 1024 * 1024;
const BUSY = 'too many photos are being processed right now; nothing was read or stored, retry in 5 seconds';

interface HandAnswer {
  readonly text: string;
  readonly status: number;
  readonly headers: Map<string, string>;
  readonly body: string;
  /** The server ended the connection (rather than the test). */
  readonly closedByServer: boolean;
}

interface HandUpload {
  /** Writes more of the body; resolves once the bytes are handed to the system. */
  write(bytes: Buffer | string): Promise<void>;
  /** Ends the connection from the client's side, whatever was sent. */
  abort(): void;
  /** What the server wrote, once the connection is over. */
  readonly answer: Promise<HandAnswer>;
  /** Bytes of the body written so far. */
  readonly bodyBytesSent: number;
}

/** A `POST` written by hand on its own connection (`Connection: close`): the head at once, the body as the test writes it. */
const handRequest = (
  port: number,
  path: string,
  headers: Readonly<Record<string, string>>,
  key: string = KEYS.admin,
): HandUpload => {
  const socket = connect({ host: '127.0.0.1', port });
  socket.setNoDelay(true);
  const lines = Object.entries({ host: 'x', authorization: `Bearer ${key}`, connection: 'close', ...headers }).map(
    ([k, v]) => `${k}: ${v}\r\n`,
  );
  socket.write(`POST ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
  const got: Buffer[] = [];
  let closedByServer = false;
  let sent = 0;
  socket.on('data', (chunk: Buffer) => got.push(chunk));
  socket.on('end', () => {
    closedByServer = true;
    socket.destroy();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ECONNRESET' || error.code === 'EPIPE') closedByServer = true;
  });
  const answer = new Promise<HandAnswer>((resolve) => {
    socket.on('close', () => {
      const text = Buffer.concat(got).toString('latin1');
      resolve({ text, ...parseRawResponse(text), closedByServer });
    });
  });
  return {
    write: (bytes) =>
      new Promise<void>((resolve) => {
        if (socket.destroyed) return resolve();
        socket.write(bytes, (error) => {
          if (error === undefined || error === null) sent += Buffer.byteLength(bytes);
          resolve();
        });
      }),
    abort: () => socket.destroy(),
    answer,
    get bodyBytesSent() {
      return sent;
    },
  };
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `condition` holds; fails the test naming `what` when it never does (a leak, not a slow machine: 10 s). */
const until = async (condition: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await sleep(5);
  }
};

const connections = (s: TestServer): Promise<number> =>
  new Promise((resolve, reject) => s.server.getConnections((error, n) => (error ? reject(error) : resolve(n))));

const createPet = async (s: TestServer): Promise<number> => {
  const res = await s.postJson('{"name":"Rex","categoryId":1}');
  expect(res.status).to.equal(201);
  return (res.json() as { id: number }).id;
};

const errorOf = (answer: HandAnswer): { code: string; message: string; status: number } =>
  JSON.parse(answer.body) as { code: string; message: string; status: number };

/** A pet repository whose look-ups of the pets in `held` wait until `release` (an upload held before its body is read). */
class HeldLookups {
  private readonly held = new Map<
    number,
    { started: () => void; startedAt: Promise<void>; go: Promise<void>; release: () => void }
  >();
  wrap(inner: PetRepository): PetRepository {
    return {
      ...forwardingPets(inner),
      findById: async (id: number) => {
        const hold = this.held.get(id);
        if (hold !== undefined) {
          hold.started();
          await hold.go;
        }
        return inner.findById(id);
      },
    };
  }
  /** Holds the look-ups of `petId` from now on; `started` resolves at the first one. */
  hold(petId: number): { started: Promise<void>; release: () => void } {
    let started!: () => void;
    let release!: () => void;
    const startedAt = new Promise<void>((resolve) => (started = resolve));
    const go = new Promise<void>((resolve) => (release = resolve));
    this.held.set(petId, { started, startedAt, go, release });
    return {
      started: startedAt,
      release: () => {
        this.held.delete(petId);
        release();
      },
    };
  }
}

describe('photo uploads: admitted before their body is read, their body timed (docs/rules.md §13, §6)', function () {
  this.timeout(120_000);
  let jpeg: Buffer;

  before(async () => {
    jpeg = await testImage({ format: 'jpeg', width: 320, height: 240, content: 'photo', seed: 3 });
  });

  describe('the bound', () => {
    let s: TestServer;
    let admission: UploadAdmission;
    beforeEach(async () => {
      admission = new UploadAdmission({ uploads: 2, bytes: 20 * MiB });
      s = await startServer({ uploads: admission });
    });
    afterEach(() => s.close());

    it('past it an upload is answered 503 unavailable at once, with Retry-After, Connection: close and a message of its own, before a byte of its body is sent (none ever is), no 100 Continue', async () => {
      const petId = await createPet(s);
      const path = `/v1/pets/${petId}/photos`;
      const held = [0, 1].map(() =>
        handRequest(s.port, path, { 'content-type': 'image/jpeg', 'content-length': String(jpeg.length) }),
      );
      for (const h of held) await h.write(jpeg.subarray(0, 100));
      await until(() => admission.inFlight.uploads === 2, 'both uploads admitted');

      // Declares 5 MiB and waits for a 100 Continue that must not come: the answer comes instead.
      const refused = handRequest(s.port, path, {
        'content-type': 'image/jpeg',
        'content-length': String(5 * MiB),
        expect: '100-continue',
      });
      const answer = await refused.answer;
      expect(refused.bodyBytesSent, 'no byte of the body was sent, so none was read').to.equal(0);
      expect(answer.text).not.to.match(/^HTTP\/1\.1 100/);
      expect(answer.status).to.equal(503);
      expect(errorOf(answer)).to.deep.equal({ code: 'unavailable', message: BUSY, status: 503 });
      expect(answer.headers.get('retry-after')).to.equal('5');
      expect(answer.headers.get('connection')).to.equal('close');
      expect(answer.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(answer.headers.get('x-request-id')).to.be.a('string');
      expect(answer.headers.get('ratelimit'), 'the rate-limit headers, as on every answer (§5)').to.be.a('string');
      expect(answer.closedByServer).to.equal(true);
      expect(admission.inFlight).to.deep.equal({ uploads: 2, bytes: 2 * jpeg.length });

      // The two in flight go on, and are stored; then a place is free again.
      for (const h of held) await h.write(jpeg.subarray(100));
      for (const h of held) expect((await h.answer).status).to.equal(201);
      expect(admission.inFlight).to.deep.equal({ uploads: 0, bytes: 0 });
      const again = handRequest(s.port, path, { 'content-type': 'image/jpeg', 'content-length': String(jpeg.length) });
      await again.write(jpeg);
      expect((await again.answer).status).to.equal(201);
      expect(await s.photoStore.list(petId)).to.have.length(3);
    });

    it("a client key's upload is still 403 (it takes no place); a refused upload's Idempotency-Key stays free", async () => {
      const petId = await createPet(s);
      const path = `/v1/pets/${petId}/photos`;
      const held = [0, 1].map(() =>
        handRequest(s.port, path, { 'content-type': 'image/jpeg', 'content-length': String(jpeg.length) }),
      );
      for (const h of held) await h.write(jpeg.subarray(0, 100));
      await until(() => admission.inFlight.uploads === 2, 'both uploads admitted');

      const client = handRequest(
        s.port,
        path,
        { 'content-type': 'image/jpeg', 'content-length': String(jpeg.length) },
        KEYS.huge,
      );
      expect((await client.answer).status).to.equal(403);
      const keyed = handRequest(s.port, path, {
        'content-type': 'image/jpeg',
        'content-length': String(jpeg.length),
        'idempotency-key': `busy-${petId}`,
      });
      expect((await keyed.answer).status).to.equal(503);

      for (const h of held) h.abort();
      await until(() => admission.inFlight.uploads === 0, 'the aborted uploads gave their places back');
      // The same upload under the same key, now admitted: a first attempt (no replay of the 503, no 409 or 422).
      const retried = await s.request({
        method: 'POST',
        path,
        key: KEYS.admin,
        headers: { 'content-type': 'image/jpeg', 'idempotency-key': `busy-${petId}` },
        body: jpeg,
      });
      expect(retried.status, retried.text).to.equal(201);
      expect(retried.header('idempotent-replayed')).to.equal('');
    });

    it('counts bytes too: declared lengths add up, a chunked body counts as 10 MiB; an upload without a body takes no place', async () => {
      const petId = await createPet(s);
      const path = `/v1/pets/${petId}/photos`;
      const declared = handRequest(s.port, path, { 'content-type': 'image/jpeg', 'content-length': String(10 * MiB) });
      await declared.write(jpeg.subarray(0, 100));
      await until(() => admission.inFlight.uploads === 1, 'the declared upload admitted');
      expect(admission.inFlight.bytes).to.equal(10 * MiB);
      const chunked = handRequest(s.port, path, { 'content-type': 'image/jpeg', 'transfer-encoding': 'chunked' });
      await chunked.write(`64\r\n${'x'.repeat(100)}\r\n`);
      await until(() => admission.inFlight.uploads === 2, 'the chunked upload admitted');
      expect(admission.inFlight.bytes).to.equal(20 * MiB);
      declared.abort();
      await until(() => admission.inFlight.uploads === 1, 'the aborted upload gave its place back');

      // One upload in flight (10 MiB of 20): 10 MiB more fits, one byte beyond does not.
      const over = handRequest(s.port, path, { 'content-type': 'image/jpeg', 'content-length': String(10 * MiB + 1) });
      expect((await over.answer).status, 'over 10 MiB: 413 before anything else').to.equal(413);
      const fits = handRequest(s.port, path, { 'content-type': 'image/jpeg', 'content-length': String(10 * MiB) });
      await fits.write(jpeg.subarray(0, 10));
      await until(() => admission.inFlight.uploads === 2, 'the one that fits admitted');
      const oneByte = handRequest(s.port, path, { 'content-type': 'image/jpeg', 'content-length': '1' });
      const refused = await oneByte.answer;
      expect(refused.status).to.equal(503);
      expect(errorOf(refused).message).to.equal(BUSY);
      // No body at all: a 400 that reads nothing, never a 503.
      const empty = handRequest(s.port, path, { 'content-type': 'image/jpeg', 'content-length': '0' });
      expect((await empty.answer).status).to.equal(400);

      chunked.abort();
      fits.abort();
      await until(() => admission.inFlight.uploads === 0 && admission.inFlight.bytes === 0, 'every place given back');
    });
  });

  it('an upload whose client leaves before its body is read gives its place back (the reader no longer waits for a connection already gone)', async () => {
    const lookups = new HeldLookups();
    const admission = new UploadAdmission({ uploads: 1, bytes: 10 * MiB });
    const s = await startServer({ uploads: admission, repository: lookups.wrap(new PetRepositoryInMemory()) });
    try {
      const petId = await createPet(s);
      const hold = lookups.hold(petId);
      const gone = handRequest(s.port, `/v1/pets/${petId}/photos`, {
        'content-type': 'image/jpeg',
        'content-length': String(jpeg.length),
      });
      await gone.write(jpeg.subarray(0, 100));
      await hold.started;
      expect(admission.inFlight.uploads).to.equal(1);
      const open = await connections(s);
      gone.abort();
      // The server has seen the connection go before the upload gets to its body.
      await until(async () => (await connections(s)) < open, 'the connection closed on the server');
      hold.release();
      await until(() => admission.inFlight.uploads === 0, 'the place given back');
      const next = await s.request({
        method: 'POST',
        path: `/v1/pets/${petId}/photos`,
        key: KEYS.admin,
        headers: { 'content-type': 'image/jpeg' },
        body: jpeg,
      });
      expect(next.status, next.text).to.equal(201);
    } finally {
      await s.close();
    }
  });

  it('whatever the uploads come to (stored, refused, failed, aborted, stalled), every place is given back: full capacity after each mix', async () => {
    const lookups = new HeldLookups();
    const failing = new Set<number>();
    const admission = new UploadAdmission({ uploads: 3, bytes: 30 * MiB });
    // The photo store fails to write the files of the pets in `failing` (a 503 of the store's own).
    const faults = new FaultInjector().use((call) =>
      call.method === 'putFile' && failing.has((call.args[0] as PhotoUpload).petId) ? 'fail' : undefined,
    );
    const s = await startServer({
      uploads: admission,
      repository: lookups.wrap(new PetRepositoryInMemory()),
      wrapPhotoStore: (inner) => faults.photoStore(inner),
      timeouts: { uploadStallTimeoutMs: 300 },
    });
    const image = { 'content-type': 'image/jpeg', 'content-length': String(jpeg.length) };
    /** Each outcome: what the upload does, and the statuses it may get (503 whenever the bound is reached). */
    const OUTCOMES = {
      stored: async () => {
        const r = handRequest(s.port, `/v1/pets/${await createPet(s)}/photos`, image);
        await r.write(jpeg);
        return { got: (await r.answer).status, may: [201, 503] };
      },
      keyed: async () => {
        const petId = await createPet(s);
        const r = handRequest(s.port, `/v1/pets/${petId}/photos`, { ...image, 'idempotency-key': `mix-${petId}` });
        await r.write(jpeg);
        return { got: (await r.answer).status, may: [201, 503] };
      },
      notAnImage: async () => {
        const r = handRequest(s.port, `/v1/pets/${await createPet(s)}/photos`, {
          'content-type': 'image/jpeg',
          'content-length': '5',
        });
        await r.write('hello');
        return { got: (await r.answer).status, may: [400, 503] };
      },
      noPet: async () => {
        const r = handRequest(s.port, '/v1/pets/999999/photos', image);
        await r.write(jpeg);
        return { got: (await r.answer).status, may: [404, 503] };
      },
      otherType: async () => {
        const r = handRequest(s.port, `/v1/pets/${await createPet(s)}/photos`, {
          ...image,
          'content-type': 'image/gif',
        });
        await r.write(jpeg);
        return { got: (await r.answer).status, may: [415, 503] };
      },
      storeFails: async () => {
        const petId = await createPet(s);
        failing.add(petId);
        const r = handRequest(s.port, `/v1/pets/${petId}/photos`, image);
        await r.write(jpeg);
        return { got: (await r.answer).status, may: [503] };
      },
      clientKey: async () => {
        const r = handRequest(s.port, `/v1/pets/${await createPet(s)}/photos`, image, KEYS.huge);
        await r.write(jpeg);
        return { got: (await r.answer).status, may: [403] };
      },
      abortedMidBody: async () => {
        const r = handRequest(s.port, `/v1/pets/${await createPet(s)}/photos`, image);
        await r.write(jpeg.subarray(0, jpeg.length >> 1));
        await sleep(5);
        r.abort();
        await r.answer;
        return { got: 0, may: [0] };
      },
      abortedBeforeRead: async () => {
        const petId = await createPet(s);
        const hold = lookups.hold(petId);
        const r = handRequest(s.port, `/v1/pets/${petId}/photos`, image);
        await r.write(jpeg.subarray(0, 100));
        // Held in its pet's look-up, or refused (503) before it.
        await Promise.race([hold.started, r.answer]);
        r.abort();
        const { status } = await r.answer;
        await sleep(10);
        hold.release();
        return { got: status || 0, may: [0, 503] };
      },
      stalled: async () => {
        const r = handRequest(s.port, `/v1/pets/${await createPet(s)}/photos`, image);
        await r.write(jpeg.subarray(0, 100));
        const answer = await r.answer;
        return { got: answer.status, may: [408, 503] };
      },
    } as const;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom(...(Object.keys(OUTCOMES) as (keyof typeof OUTCOMES)[])), {
            minLength: 1,
            maxLength: 8,
          }),
          async (mix) => {
            const results = await Promise.all(mix.map((outcome) => OUTCOMES[outcome]()));
            results.forEach(({ got, may }, i) => expect(may, `${mix[i]} answered ${got}`).to.include(got));
            await until(
              () => admission.inFlight.uploads === 0 && admission.inFlight.bytes === 0,
              `every place given back after ${mix.join(', ')}`,
            );
          },
        ),
        { numRuns: 12 },
      );
      // Full capacity: three uploads admitted at once, the fourth refused.
      const petId = await createPet(s);
      const three = [0, 1, 2].map(() => handRequest(s.port, `/v1/pets/${petId}/photos`, image));
      for (const r of three) await r.write(jpeg.subarray(0, 100));
      await until(() => admission.inFlight.uploads === 3, 'three admitted');
      const fourth = handRequest(s.port, `/v1/pets/${petId}/photos`, image);
      expect((await fourth.answer).status).to.equal(503);
      for (const r of three) r.abort();
      await until(() => admission.inFlight.uploads === 0, 'every place given back');
    } finally {
      await s.close();
    }
  });

  describe("a photo's body has its own time (short timeouts given to listen here)", () => {
    let s: TestServer;
    let admission: UploadAdmission;
    const timeouts = { requestTimeoutMs: 800, uploadBodyTimeoutMs: 3_000, uploadStallTimeoutMs: 500 };
    beforeEach(async () => {
      admission = new UploadAdmission();
      s = await startServer({ uploads: admission, timeouts });
    });
    afterEach(() => s.close());

    /** Writes `bytes` in `pieces` pieces, `everyMs` apart, stopping early when the connection is gone. */
    const drip = async (r: HandUpload, bytes: Buffer, pieces: number, everyMs: number): Promise<void> => {
      const size = Math.ceil(bytes.length / pieces);
      for (let at = 0; at < bytes.length; at += size) {
        if (at > 0) await sleep(everyMs);
        await r.write(bytes.subarray(at, at + size));
      }
    };

    it('a slow but steady photo body, long past the request timeout, is stored; a JSON body as slow is cut at the request timeout (408)', async () => {
      const petId = await createPet(s);
      const slow = handRequest(s.port, `/v1/pets/${petId}/photos`, {
        'content-type': 'image/jpeg',
        'content-length': String(jpeg.length),
      });
      const started = Date.now();
      await drip(slow, jpeg, 20, 100);
      const stored = await slow.answer;
      expect(Date.now() - started, 'the body took longer than the request timeout').to.be.above(
        timeouts.requestTimeoutMs,
      );
      expect(stored.status, stored.body).to.equal(201);

      const body = Buffer.from('{"name":"Slowpoke","categoryId":1}');
      const json = handRequest(
        s.port,
        '/v1/pets',
        { 'content-type': 'application/json', 'content-length': String(body.length) },
        KEYS.huge,
      );
      await drip(json, body, 20, 100);
      const cut = await json.answer;
      expect(cut.status).to.equal(408);
      expect(errorOf(cut)).to.deep.include({ code: 'request_timeout', status: 408 });
      expect(errorOf(cut).message).to.match(/^the request did not arrive in time/);
      expect(cut.closedByServer).to.equal(true);
    });

    it('a photo body that stalls is cut (408 with the request id the app gave it, the connection closed), and its place given back', async () => {
      const petId = await createPet(s);
      const stalled = handRequest(s.port, `/v1/pets/${petId}/photos`, {
        'content-type': 'image/jpeg',
        'content-length': String(jpeg.length),
        'x-request-id': 'stalled-upload-1',
      });
      await stalled.write(jpeg.subarray(0, 1000));
      await until(() => admission.inFlight.uploads === 1, 'admitted');
      const answer = await stalled.answer;
      expect(answer.status).to.equal(408);
      expect(errorOf(answer)).to.deep.equal({
        code: 'request_timeout',
        message:
          'the photo did not arrive in time: its body may take up to 3 s as long as bytes keep arriving, with no pause of 0.5 s',
        status: 408,
      });
      // The 408 is written on the socket, outside Koa, over the request the app was answering: same id.
      expect(answer.headers.get('x-request-id')).to.equal('stalled-upload-1');
      expect(answer.closedByServer).to.equal(true);
      await until(() => admission.inFlight.uploads === 0, 'the place given back');
      expect(await s.photoStore.list(petId)).to.deep.equal([]);
    });

    it('a photo body still arriving at the upload timeout is cut too (408)', async () => {
      const petId = await createPet(s);
      const endless = handRequest(s.port, `/v1/pets/${petId}/photos`, {
        'content-type': 'image/jpeg',
        'content-length': String(jpeg.length),
      });
      // A byte every 100 ms never stalls, and never ends within the 3 s.
      const dripping = (async () => {
        for (
          let i = 0;
          i < 100 && !(await Promise.race([endless.answer.then(() => true), sleep(100).then(() => false)]));
          i++
        )
          await endless.write(jpeg.subarray(i, i + 1));
      })();
      const answer = await endless.answer;
      await dripping;
      expect(answer.status).to.equal(408);
      expect(errorOf(answer).message).to.match(/^the photo did not arrive in time/);
      await until(() => admission.inFlight.uploads === 0, 'the place given back');
    });
  });
});

describe('UploadAdmission (docs/rules.md §13): a model of places by count and by bytes', () => {
  it('admits an upload exactly when one more and its bytes stay within both bounds; a release gives back its own, once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 10 * MiB, max: 40 * MiB }),
        fc.array(
          fc.oneof(
            fc.record({ enter: fc.integer({ min: 0, max: 10 * MiB }) }),
            fc.record({ release: fc.nat(), twice: fc.boolean() }),
          ),
          { maxLength: 60 },
        ),
        (uploads, bytes, steps) => {
          const admission = new UploadAdmission({ uploads, bytes });
          const held: { bytes: number; release(): void }[] = [];
          let model = { uploads: 0, bytes: 0 };
          for (const step of steps) {
            if ('enter' in step) {
              const fits = model.uploads + 1 <= uploads && model.bytes + step.enter <= bytes;
              const ticket = admission.tryEnter(step.enter);
              expect(ticket !== undefined, JSON.stringify({ model, step })).to.equal(fits);
              if (ticket !== undefined) {
                held.push(ticket);
                model = { uploads: model.uploads + 1, bytes: model.bytes + step.enter };
              }
            } else if (held.length > 0) {
              const [ticket] = held.splice(step.release % held.length, 1);
              ticket!.release();
              if (step.twice) ticket!.release();
              model = { uploads: model.uploads - 1, bytes: model.bytes - ticket!.bytes };
            }
            expect(admission.inFlight).to.deep.equal(model);
          }
          for (const ticket of held) ticket.release();
          expect(admission.inFlight).to.deep.equal({ uploads: 0, bytes: 0 });
        },
      ),
    );
  });

  it('refuses bounds that could never admit a photo: fewer than 1 upload, fewer bytes than one photo of 10 MiB', () => {
    expect(() => new UploadAdmission({ uploads: 0 })).to.throw(RangeError);
    expect(() => new UploadAdmission({ uploads: 1.5 })).to.throw(RangeError);
    expect(() => new UploadAdmission({ bytes: 10 * MiB - 1 })).to.throw(RangeError);
    expect(new UploadAdmission().bounds).to.deep.equal({ uploads: 32, bytes: 40 * MiB });
  });
});

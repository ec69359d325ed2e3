// Log levels (docs/rules.md §6): what a client does wrong (malformed HTTP, too slow, gone mid-body)
// is logged at `info` (30) or `warn` (40), once, with the request id the client was answered with;
// `error` (50) is for the service's own faults only.
import { expect } from 'chai';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import {
  Admission,
  Adoption,
  Authenticator,
  apiKeyRecord,
  CategoryCatalog,
  KeyAdmin,
  PetCatalog,
  PetMaintenance,
  type ApiKeyRecord,
} from '@petstore/domain';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  QuotaStoreInMemory,
  SystemClock,
} from '@petstore/adapters-memory';
import { createHttpApp, listen } from '@petstore/adapters-http';
import { SystemRandom } from '../../src/system-random.js';
import { parseRaw, rawExchange, send, sleep, startHarness, waitFor } from './support.js';
import { nodeDigests } from '@petstore/domain/testing';

const KEY = 'log-levels-key';
const HEAD = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n`;

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly requestId?: string | null;
  readonly code?: string | null;
  readonly err?: { readonly code?: string | null };
}

/** A real pino logger (the server's levels: info 30, warn 40, error 50) writing into `lines`. */
const recordingLogger = () => {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) if (text !== '') lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  return { lines, logger: pino({ level: 'trace', base: { service: 'petstore' } }, sink) };
};

const requestIdOf = (raw: string): string | undefined => /^x-request-id: (.+)$/im.exec(parseRaw(raw).headers)?.[1];

/** Writes `bytes`, then resets the connection (TCP RST), as a client that crashes mid-request. */
const resetMidRequest = (port: number, bytes: string): Promise<void> =>
  new Promise<void>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(bytes, () => setTimeout(() => socket.resetAndDestroy(), 50));
    });
    socket.on('close', () => resolve());
    socket.on('error', () => {});
  });

describe('hardening: log levels (a client fault is info or warn, never error)', function () {
  this.timeout(30_000);

  it('malformed HTTP through the server (bad chunk sizes, a bad request line or header, a body cut short, a reset) is logged at info/warn once, with the id it was answered with', async () => {
    const { lines, logger } = recordingLogger();
    const h = await startHarness({ env: { PETSTORE_API_KEYS: `${KEY}:pro` }, logger });
    try {
      const cases: { name: string; pieces: Array<string | { pauseMs: number }>; level: number; code: string }[] = [
        {
          name: 'bad chunk size',
          pieces: [`${HEAD}Transfer-Encoding: chunked\r\n\r\n`, 'zz\r\n{}\r\n0\r\n\r\n'],
          level: 40,
          code: 'HPE_INVALID_CHUNK_SIZE',
        },
        {
          name: 'bad second chunk',
          pieces: [`${HEAD}Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n`, { pauseMs: 50 }, 'q\r\n'],
          level: 40,
          code: 'HPE_INVALID_CHUNK_SIZE',
        },
        { name: 'bad request line', pieces: ['GARBAGE\r\n\r\n'], level: 40, code: 'HPE_INVALID_METHOD' },
        {
          name: 'bad header',
          pieces: ['GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'],
          level: 40,
          code: 'HPE_INVALID_HEADER_TOKEN',
        },
      ];
      for (const c of cases) {
        lines.length = 0;
        const { text } = await rawExchange(h.port, c.pieces, 5_000);
        expect(parseRaw(text).status, c.name).to.equal(400);
        await waitFor(() => lines.some((l) => l.msg === 'client error'), `the log line of ${c.name}`);
        await sleep(50);
        const faults = lines.filter((l) => l.msg === 'client error');
        expect(
          faults.map((l) => [l.level, l.code]),
          c.name,
        ).to.deep.equal([[c.level, c.code]]);
        expect(faults[0]!.requestId, `${c.name}: the id the client got`).to.equal(requestIdOf(text));
        expect(
          lines.filter((l) => l.level >= 50),
          c.name,
        ).to.deep.equal([]);
      }

      // A body cut short (the client closes its side) and a reset mid-body: the client went away (info).
      lines.length = 0;
      await rawExchange(h.port, [`${HEAD}Content-Length: 100\r\n\r\n{"na`, { pauseMs: 100 }], 300);
      await resetMidRequest(h.port, `${HEAD}Content-Length: 100\r\n\r\n{"na`);
      await waitFor(
        () => lines.filter((l) => l.msg === 'client error').length >= 2,
        'the log lines of the bodies cut short',
      );
      await sleep(100);
      const gone = lines.filter((l) => l.msg === 'client error');
      expect(gone.map((l) => l.level)).to.deep.equal([30, 30]);
      expect(lines.filter((l) => l.level >= 40)).to.deep.equal([]);

      // The service still answers, and its own request lines are info.
      expect((await send(h.port, { path: '/v1/pets', headers: { Authorization: `Bearer ${KEY}` } })).status).to.equal(
        200,
      );
    } finally {
      await h.stop();
    }
  });

  it('request timeouts (headers too slow, body too slow) are logged at warn, with the id of the 408', async () => {
    const { lines, logger } = recordingLogger();
    const keys = new ApiKeyStoreInMemory([apiKeyRecord(nodeDigests, KEY, 'pro') as ApiKeyRecord]);
    const clock = new SystemClock();
    const categories = new CategoryRepositoryInMemory();
    const pets = new PetRepositoryInMemory();
    const app = createHttpApp({
      catalog: new PetCatalog(pets, categories, clock, new SystemRandom()),
      categories: new CategoryCatalog(categories),
      adoption: new Adoption(pets, new OrderRepositoryInMemory(), clock),
      maintenance: new PetMaintenance(pets, new OrderRepositoryInMemory(), categories, clock),
      authenticator: new Authenticator(keys, nodeDigests),
      admission: new Admission(new QuotaStoreInMemory(), clock),
      keyAdmin: new KeyAdmin(keys, new SystemRandom(), clock, clock.now(), nodeDigests),
      logger,
    });
    const running = await listen(app, {
      port: 0,
      host: '127.0.0.1',
      headersTimeoutMs: 500,
      requestTimeoutMs: 1_000,
      logger,
    });
    try {
      const slowHeaders = rawExchange(running.port, ['GET /v1/pets HTTP/1.1\r\nHost: x\r\n'], 5_000);
      const slowBody = rawExchange(running.port, [`${HEAD}Content-Length: 100\r\n\r\n{"name":`], 5_000);
      const answers = await Promise.all([slowHeaders, slowBody]);
      await sleep(100);
      for (const a of answers) expect(parseRaw(a.text).status).to.equal(408);
      const faults = lines.filter((l) => l.msg === 'client error');
      expect(faults.map((l) => [l.level, l.code])).to.deep.equal([
        [40, 'ERR_HTTP_REQUEST_TIMEOUT'],
        [40, 'ERR_HTTP_REQUEST_TIMEOUT'],
      ]);
      expect(faults.map((l) => l.requestId).sort()).to.deep.equal(answers.map((a) => requestIdOf(a.text)).sort());
      expect(lines.filter((l) => l.level >= 50)).to.deep.equal([]);

      // The service's own fault is still an error: a failure Koa reports that is not a client's.
      lines.length = 0;
      app.emit('error', new TypeError('a bug of ours'), { state: { requestId: 'r-1' } });
      expect(lines.map((l) => [l.level, l.msg, l.requestId])).to.deep.equal([[50, 'response error', 'r-1']]);
    } finally {
      await running.close(100);
    }
  });
});

import { expect } from 'chai';
import { StoreUnavailableError } from '@petstore/domain';
import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoParseError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type TopologyDescription,
} from 'mongodb';
import { classifyMongoError } from '../src/index.js';
import { guard, MongoCommandError, upsertWithRetry } from '../src/errors.js';

const noTopology = {} as unknown as TopologyDescription;
const serverError = (code: number, errorLabels: string[] = []) =>
  new MongoServerError({ message: `server said ${code}`, code, errorLabels });
const labelled = (label: string) => {
  const error = new MongoError('driver said so');
  error.addErrorLabel(label);
  return error;
};

describe('classifyMongoError: which driver errors are an outage (tested without a database)', () => {
  const cases: ReadonlyArray<readonly [string, unknown, 'unavailable' | 'duplicate_key' | 'other']> = [
    [
      'server selection timed out',
      new MongoServerSelectionError('Server selection timed out after 2000 ms', noTopology),
      'unavailable',
    ],
    ['connection refused / reset', new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27017'), 'unavailable'],
    ['socket timeout', new MongoNetworkTimeoutError('connection timed out'), 'unavailable'],
    ['client closed (topology)', new MongoTopologyClosedError(), 'unavailable'],
    ['client closed', new MongoClientClosedError(), 'unavailable'],
    ['not connected', new MongoNotConnectedError('MongoClient must be connected'), 'unavailable'],
    ['operation timeout (timeoutMS)', new MongoOperationTimeoutError('Timed out'), 'unavailable'],
    ['RetryableWriteError label', labelled('RetryableWriteError'), 'unavailable'],
    ['ResetPool label', labelled('ResetPool'), 'unavailable'],
    ['server shutting down (91)', serverError(91), 'unavailable'],
    ['not writable primary (10107)', serverError(10107), 'unavailable'],
    ['primary stepped down (189)', serverError(189), 'unavailable'],
    ['maxTimeMS expired (50)', serverError(50), 'unavailable'],
    ['interrupted at shutdown (11600) with its label', serverError(11600, ['RetryableWriteError']), 'unavailable'],
    ['duplicate key (11000)', serverError(11000), 'duplicate_key'],
    [
      'duplicate key in a bulk write',
      new MongoBulkWriteError({ message: 'E11000', code: 11000 }, { insertedCount: 0 } as never),
      'duplicate_key',
    ],
    [
      'a bulk write stopped before any server answered (the driver wraps the selection error)',
      new MongoBulkWriteError(new MongoServerSelectionError('Server selection timed out', noTopology), {
        insertedCount: 0,
      } as never),
      'unavailable',
    ],
    [
      'a bulk write refused by document validation (121): a bug, not an outage',
      new MongoBulkWriteError(
        { message: 'Document failed validation', code: 121, writeErrors: [{ code: 121 }] } as never,
        { insertedCount: 0 } as never,
      ),
      'other',
    ],
    ['authentication failed (18): not an outage, a misconfiguration', serverError(18), 'other'],
    ['bad update (a bug, code 9)', serverError(9), 'other'],
    ['invalid argument (a bug)', new MongoInvalidArgumentError('bad option'), 'other'],
    ['parse error', new MongoParseError('Invalid scheme'), 'other'],
    ['a plain Error', new Error('boom'), 'other'],
    ['a TypeError', new TypeError('x is undefined'), 'other'],
    ['not an Error at all', 'ECONNREFUSED', 'other'],
    ['null', null, 'other'],
  ];
  for (const [title, error, kind] of cases) {
    it(`${title} → ${kind}`, () => expect(classifyMongoError(error)).to.equal(kind));
  }

  it('knows the pool errors the driver does not export by their name', () => {
    for (const name of ['MongoPoolClosedError', 'MongoPoolClearedError', 'MongoWaitQueueTimeoutError']) {
      const error = new MongoError('pool');
      Object.defineProperty(error, 'name', { value: name });
      expect(classifyMongoError(error), name).to.equal('unavailable');
    }
  });
});

describe('guard: outages become StoreUnavailableError, bugs travel unchanged', () => {
  it('wraps an outage with the driver error as cause and a message with no driver text or address', async () => {
    const driverError = new MongoServerSelectionError('connect ECONNREFUSED 10.1.2.3:27017 user:secret', noTopology);
    const thrown = await guard(() => Promise.reject(driverError)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(thrown).to.be.instanceOf(StoreUnavailableError);
    const error = thrown as StoreUnavailableError;
    expect(error.cause).to.equal(driverError);
    expect(error.message).not.to.match(/ECONNREFUSED|10\.1\.2\.3|27017|secret/);
  });

  it("rethrows an error that is not the server's as it is", async () => {
    const bug = new TypeError('x is undefined');
    expect(await guard(() => Promise.reject(bug)).catch((e: unknown) => e)).to.equal(bug);
  });

  it('turns a command the server refused into a MongoCommandError naming the command, with the server message, code and cause', async () => {
    const refused = new MongoServerError({
      message:
        "Cannot apply $inc to a value of non-numeric type. {_id: 'k:x'} has the field 'minuteCount' of non-numeric type string",
      code: 14,
      codeName: 'TypeMismatch',
    });
    const thrown = await guard(() => Promise.reject(refused), 'findAndModify on quota_subjects').catch(
      (e: unknown) => e,
    );
    expect(thrown).to.be.instanceOf(MongoCommandError);
    const error = thrown as MongoCommandError;
    expect(error.name).to.equal('MongoCommandError');
    expect(error.message).to.equal(
      `MongoDB refused findAndModify on quota_subjects: ${refused.message} (TypeMismatch, code 14)`,
    );
    expect(error.code).to.equal(14);
    expect(error.cause).to.equal(refused);
    expect(classifyMongoError(error)).to.equal('other');
  });

  it('never copies a key hash (64 hex digits) a refused command quotes into its message', async () => {
    const hash = 'ab12'.repeat(16);
    const refused = new MongoServerError({
      message: `Cannot apply $inc to a value of non-numeric type. {_id: 'k:${hash}'}`,
      code: 14,
      codeName: 'TypeMismatch',
    });
    const thrown = (await guard(() => Promise.reject(refused), 'findAndModify on quota_subjects').catch(
      (e: unknown) => e,
    )) as Error;
    expect(thrown.message).not.to.include(hash);
    expect(thrown.message).to.include("{_id: 'k:…'}");
  });

  it('keeps at most 500 characters of the server message, and is still classified by its cause', async () => {
    const thrown = await guard(
      () => Promise.reject(new MongoServerError({ message: 'E11000 duplicate key '.padEnd(5_000, 'x'), code: 11000 })),
      'insert on pets',
    ).catch((e: unknown) => e);
    expect(thrown).to.be.instanceOf(MongoCommandError);
    expect((thrown as Error).message.length).to.be.below(600);
    expect(classifyMongoError(thrown)).to.equal('duplicate_key');
  });

  it('retries an upsert once after a duplicate key error, and not a second time', async () => {
    let calls = 0;
    expect(await upsertWithRetry(async () => (++calls === 1 ? Promise.reject(serverError(11000)) : 'ok'))).to.equal(
      'ok',
    );
    expect(calls).to.equal(2);
    calls = 0;
    const again = await upsertWithRetry(async () => {
      calls++;
      throw serverError(11000);
    }).catch((e: unknown) => e);
    expect(classifyMongoError(again)).to.equal('duplicate_key');
    expect(calls).to.equal(2);
  });

  it('turns an outage during the retry into StoreUnavailableError too', async () => {
    let calls = 0;
    const thrown = await upsertWithRetry(async () => {
      throw ++calls === 1 ? serverError(11000) : new MongoNetworkError('reset');
    }).catch((e: unknown) => e);
    expect(thrown).to.be.instanceOf(StoreUnavailableError);
  });
});

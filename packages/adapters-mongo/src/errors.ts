import { StoreUnavailableError } from '@petstore/domain';
import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';

/** What an adapter does with a driver error: answer 503, retry a racing upsert, or let it through as a bug. */
export type MongoErrorKind = 'unavailable' | 'duplicate_key' | 'other';

/** Driver errors that mean the server could not be reached, or is going away, or did not answer in time. */
const UNAVAILABLE_CLASSES = [
  MongoServerSelectionError,
  MongoNetworkError, // MongoNetworkTimeoutError and PoolClearedError too
  MongoTopologyClosedError,
  MongoClientClosedError,
  MongoServerClosedError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
] as const;

/** Driver errors not exported by the driver, known by name (connection pool closed or saturated). */
const UNAVAILABLE_NAMES = new Set(['MongoPoolClosedError', 'MongoPoolClearedError', 'MongoWaitQueueTimeoutError']);

/** Labels the server or driver puts on errors that a retry a moment later may not get. */
const UNAVAILABLE_LABELS = ['RetryableWriteError', 'ResetPool', 'SystemOverloadedError'] as const;

/**
 * Server error codes of a node that is unreachable, shutting down, stepping down or out of time:
 * HostUnreachable, HostNotFound, ExceededTimeLimit, MaxTimeMSExpired, NetworkTimeout,
 * ShutdownInProgress, PrimarySteppedDown, SocketException, NotWritablePrimary, InterruptedAtShutdown,
 * InterruptedDueToReplStateChange, NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary.
 */
const UNAVAILABLE_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

const DUPLICATE_KEY_CODES = new Set([11000, 11001]);

/** Characters of the server's message kept in a `MongoCommandError` (a message may quote a whole document). */
const SERVER_MESSAGE_LIMIT = 500;

/**
 * A command the server answered with an error that is not an outage (it refused it: a type
 * mismatch, a validation failure, an operator it does not support). Still a bug to the service
 * (answered 500), but its message names the command and carries the server's own message, so the
 * log line says what was refused and why. `code` is the server's code; `cause` the driver error.
 */
export class MongoCommandError extends Error {
  override readonly name = 'MongoCommandError';
  readonly code: number | undefined;
  constructor(command: string, error: MongoServerError) {
    const code = typeof error.code === 'number' ? error.code : undefined;
    const reason = [error.codeName, code === undefined ? undefined : `code ${code}`]
      .filter((part) => part !== undefined)
      .join(', ');
    // The server's message may quote a document's `_id`, and some `_id`s are key hashes (api_keys,
    // quota_subjects): a run of 64 hex digits is never copied into the log line.
    const message = error.message.slice(0, SERVER_MESSAGE_LIMIT).replace(/[0-9a-f]{64}/gi, '…');
    super(`MongoDB refused ${command}: ${message}${reason === '' ? '' : ` (${reason})`}`, { cause: error });
    this.code = code;
  }
}

/** Sorts a thrown value from the driver into what the adapters do with it (tested without a database). */
export const classifyMongoError = (error: unknown): MongoErrorKind => {
  if (error instanceof MongoCommandError) return classifyMongoError(error.cause);
  if (!(error instanceof Error)) return 'other';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && DUPLICATE_KEY_CODES.has(code)) return 'duplicate_key';
  if (UNAVAILABLE_CLASSES.some((kind) => error instanceof kind)) return 'unavailable';
  // A bulk write (insertMany) stopped before any server answered: the driver wraps the error that
  // stopped it (server selection, network) in a MongoBulkWriteError with no write error and no
  // write concern error, copying its fields but losing its class.
  if (error instanceof MongoBulkWriteError && [error.writeErrors].flat().length === 0 && error.err === undefined)
    return 'unavailable';
  if (UNAVAILABLE_NAMES.has(error.name)) return 'unavailable';
  if (error instanceof MongoError) {
    if (UNAVAILABLE_LABELS.some((label) => error.hasErrorLabel(label))) return 'unavailable';
    if (typeof code === 'number' && UNAVAILABLE_CODES.has(code)) return 'unavailable';
  }
  return 'other';
};

/** The message a caller sees: nothing from the driver, no address, no credential. */
const UNAVAILABLE_MESSAGE = 'the MongoDB store cannot be reached or did not answer in time';

/**
 * Runs one store operation: an outage becomes the domain's `StoreUnavailableError` (with the
 * driver error as `cause`, for the log); a command the server refused becomes a
 * `MongoCommandError` naming `command` (e.g. `findAndModify on pets`) and the server's message;
 * any other error is a bug and travels unchanged.
 */
export const guard = async <T>(operation: () => Promise<T>, command = 'a command'): Promise<T> => {
  try {
    return await operation();
  } catch (error) {
    if (classifyMongoError(error) === 'unavailable')
      throw new StoreUnavailableError(UNAVAILABLE_MESSAGE, { cause: error });
    if (error instanceof MongoServerError) throw new MongoCommandError(command, error);
    throw error;
  }
};

/**
 * Runs an upsert, once more when a concurrent first upsert of the same `_id` won the race (the
 * loser gets a duplicate key error; on the second try the document exists and is updated).
 */
export const upsertWithRetry = async <T>(operation: () => Promise<T>, command?: string): Promise<T> =>
  guard(async () => {
    try {
      return await operation();
    } catch (error) {
      if (classifyMongoError(error) !== 'duplicate_key') throw error;
      return operation();
    }
  }, command);

import type { MongoClientOptions } from 'mongodb';

/**
 * Driver settings the adapters rely on, used unless the connection string sets them
 * (e.g. `?serverSelectionTimeoutMS=5000&maxPoolSize=20`). The driver's own defaults would let a
 * request wait 30 s for a server that is down; these keep an outage answered within seconds.
 */
export const MONGO_DEFAULTS = {
  /** How long an operation (and the start-up) waits for a reachable server before giving up. */
  serverSelectionTimeoutMS: 2_000,
  /** How long opening one TCP connection (and its handshake) may take. */
  connectTimeoutMS: 2_000,
  /** How long an established connection may stay silent during an operation. */
  socketTimeoutMS: 5_000,
  /** How long an operation waits for a free connection of the pool. */
  waitQueueTimeoutMS: 3_000,
  maxPoolSize: 100,
  retryWrites: true,
  retryReads: true,
  appName: 'petstore',
} as const satisfies MongoClientOptions;

/** The database used when the connection string names none. */
export const DEFAULT_DATABASE = 'petstore';

export interface MongoSettings {
  readonly database: string;
  /** The host list of the connection string, without credentials or options: safe to print. */
  readonly endpoint: string;
  /** The bounded wait for a server, as it will apply (the URI's value or the default). */
  readonly serverSelectionTimeoutMS: number;
  /** Options for `new MongoClient(uri, options)`: the defaults the connection string does not set. */
  readonly driverOptions: MongoClientOptions;
}

const SCHEMES = ['mongodb://', 'mongodb+srv://'] as const;

/**
 * Reads what the adapters need from a connection string, without echoing its credentials:
 * the database (from the path, else `petstore`), a printable endpoint, and driver options.
 * Throws an `Error` with one line when it is not a MongoDB connection string at all; the driver
 * validates the rest.
 */
export const resolveMongoSettings = (uri: string): MongoSettings => {
  const scheme = SCHEMES.find((s) => uri.startsWith(s));
  if (scheme === undefined)
    throw new Error('the MongoDB connection string must start with mongodb:// or mongodb+srv://');
  const rest = uri.slice(scheme.length);
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const query = queryAt === -1 ? '' : rest.slice(queryAt + 1);
  const pathAt = beforeQuery.indexOf('/');
  const authority = pathAt === -1 ? beforeQuery : beforeQuery.slice(0, pathAt);
  const path = pathAt === -1 ? '' : beforeQuery.slice(pathAt + 1);
  const hosts = authority.slice(authority.lastIndexOf('@') + 1);
  if (hosts.length === 0) throw new Error('the MongoDB connection string names no host');

  let database = DEFAULT_DATABASE;
  if (path.length > 0) {
    try {
      database = decodeURIComponent(path);
    } catch {
      throw new Error('the database name in the MongoDB connection string is not valid percent-encoding');
    }
  }

  // URI options are case-insensitive; a value the URI sets wins over the default.
  const given = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(query)) given.set(key.toLowerCase(), value);
  const driverOptions: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(MONGO_DEFAULTS)) {
    if (!given.has(key.toLowerCase())) driverOptions[key] = value;
  }
  const selection = Number(given.get('serverselectiontimeoutms'));
  return {
    database,
    endpoint: hosts,
    serverSelectionTimeoutMS:
      Number.isFinite(selection) && selection > 0 ? selection : MONGO_DEFAULTS.serverSelectionTimeoutMS,
    driverOptions: driverOptions as MongoClientOptions,
  };
};

import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where the integration suite finds a MongoDB, or why it is skipped. */
export type MongoTarget =
  | { readonly kind: 'ready'; readonly uri: string; readonly source: string; stop(): Promise<void> }
  | { readonly kind: 'skipped'; readonly reason: string }
  | { readonly kind: 'broken'; readonly reason: string };

const onPath = (name: string): string | undefined => {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir.length === 0) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
};

/**
 * `MONGODB_URI` when set; else a `mongodb-memory-server-core` instance, but ONLY from a `mongod`
 * binary already on this machine (`MONGOMS_SYSTEM_BINARY`, `mongod` on the PATH, or its cache):
 * its runtime download is switched off, so nothing is ever fetched from the network.
 */
export const findMongo = async (): Promise<MongoTarget> => {
  const uri = process.env.MONGODB_URI;
  if (uri !== undefined && uri.length > 0)
    return { kind: 'ready', uri, source: 'MONGODB_URI', stop: async () => undefined };

  process.env.MONGOMS_RUNTIME_DOWNLOAD = 'false';
  const systemBinary = process.env.MONGOMS_SYSTEM_BINARY ?? onPath('mongod');
  if (systemBinary !== undefined) process.env.MONGOMS_SYSTEM_BINARY = systemBinary;
  const { MongoBinary, MongoMemoryServer } = await import('mongodb-memory-server-core');
  try {
    await MongoBinary.getPath();
  } catch {
    return { kind: 'skipped', reason: 'MONGODB_URI is not set and no mongod binary is available (downloads are off)' };
  }
  try {
    const server = await MongoMemoryServer.create({ instance: { ip: '127.0.0.1' } });
    return {
      kind: 'ready',
      uri: server.getUri(),
      source: 'a local mongod via mongodb-memory-server-core',
      stop: async () => {
        await server.stop();
      },
    };
  } catch (error) {
    return {
      kind: 'broken',
      reason: `a mongod binary was found but did not start: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
};

/**
 * Declares the suite `name` over `target`: with a MongoDB, `body` declares it; with none, one test,
 * skipped on purpose with the reason in its title (a mock of the driver is not a substitute); with a
 * mongod binary that did not start, one test that fails with why.
 */
export const describeMongo = (
  name: string,
  target: MongoTarget,
  body: (mongo: Extract<MongoTarget, { kind: 'ready' }>) => void,
): void => {
  if (target.kind === 'skipped') describe(name, () => it.skip(`MongoDB suite skipped: ${target.reason}`));
  else if (target.kind === 'broken') {
    describe(name, () => {
      it('starts a MongoDB for the suite', () => {
        throw new Error(target.reason);
      });
    });
  } else body(target);
};

import type { ApiKeyRecord, BanRule, PlanName } from '@petstore/domain';
import { apiKeyRecord, DEFAULT_BAN_RULE, isPlanName, publicKeyId } from '@petstore/domain';

type StoreKind = 'memory' | 'mongo';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/** Every setting of the server (docs/rules.md §6), parsed and checked. */
export interface Settings {
  readonly port: number;
  readonly host: string;
  /** Keys from `PETSTORE_API_KEYS`, already hashed; empty when the variable is unset. */
  readonly apiKeys: readonly ApiKeyRecord[];
  /** Keys from `PETSTORE_ADMIN_KEYS` (role admin, plan business), already hashed; empty when unset. */
  readonly adminKeys: readonly ApiKeyRecord[];
  readonly store: StoreKind;
  readonly mongodbUri: string | undefined;
  readonly ban: BanRule;
  readonly trustProxy: boolean;
  readonly logLevel: LogLevel;
  /** `PETSTORE_CORS_ORIGINS`: the browser origins allowed (exact `scheme://host[:port]`), or `*`; unset: no CORS. */
  readonly corsOrigins: readonly string[] | '*' | undefined;
  /** `PETSTORE_METRICS_PORT`: where the `GET /metrics` listener runs (on HOST); unset: none. */
  readonly metricsPort: number | undefined;
  /** `PETSTORE_PHOTO_MEMORY_MB`, in bytes: what the memory store keeps of photos (docs/rules.md §13); default 256 MiB. */
  readonly photoMemoryBytes: number;
}

/** A setting that cannot be used; the message is one line naming the variable and the fault. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULTS = { PORT: '8080', HOST: '0.0.0.0', PETSTORE_STORE: 'memory', PETSTORE_LOG_LEVEL: 'info' } as const;
/** `PETSTORE_PHOTO_MEMORY_MB` when unset (docs/rules.md §6). */
const PHOTO_MEMORY_MB_DEFAULT = 256;
const MIB = 1024 * 1024;

const wholeNumber = (env: Env, name: string, fallback: number, min: number, max: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new SettingsError(`${name} must be a whole number from ${min} to ${max} (got "${raw.slice(0, 40)}")`);
  }
  return Number(raw);
};

const BOOLEAN: Readonly<Record<string, boolean>> = { true: true, '1': true, yes: true, on: true, false: false, '0': false, no: false, off: false };

// RFC 6750 token68, less what PETSTORE_API_KEYS uses as separators: the key must be sendable as a bearer token.
const KEY = /^[A-Za-z0-9\-._~+/]+=*$/;

const parseKeys = (raw: string | undefined): ApiKeyRecord[] => {
  if (raw === undefined || raw.trim() === '') return [];
  const records: ApiKeyRecord[] = [];
  const seen = new Set<string>();
  raw.split(',').forEach((entry, index) => {
    const where = `PETSTORE_API_KEYS entry ${index + 1}`;
    const parts = entry.trim().split(':');
    const [key = '', plan = '', ...rest] = parts;
    if (key === '' || plan === '') throw new SettingsError(`${where} must be key:plan or key:enterprise:<perMinute>:<perDay>`);
    if (!KEY.test(key)) throw new SettingsError(`${where}: the key may hold only letters, digits and - . _ ~ + / (then = padding)`);
    // The value is not echoed: a key and its plan swapped by mistake would print the key.
    if (!isPlanName(plan)) throw new SettingsError(`${where}: the second field must be a plan: free, pro, business or enterprise`);
    let custom: { perMinute: number; perDay: number } | undefined;
    if (plan === 'enterprise') {
      if (rest.length !== 2 || !rest.every((n) => /^[0-9]{1,15}$/.test(n))) {
        throw new SettingsError(`${where}: an enterprise key is key:enterprise:<perMinute>:<perDay> with whole numbers`);
      }
      custom = { perMinute: Number(rest[0]), perDay: Number(rest[1]) };
    } else if (rest.length > 0) {
      throw new SettingsError(`${where}: only enterprise keys take numbers (key:${plan as PlanName})`);
    }
    const record = apiKeyRecord(key, plan, custom);
    if (typeof record === 'string') throw new SettingsError(`${where}: ${record}`);
    if (seen.has(record.keyHash)) throw new SettingsError(`${where} repeats a key given earlier`);
    seen.add(record.keyHash);
    records.push(record);
  });
  return records;
};

/**
 * Admin keys: comma-separated keys, each limited with the business plan's numbers. No entry may
 * repeat one given earlier or a key of `PETSTORE_API_KEYS`, nor share a public id with one.
 */
const parseAdminKeys = (raw: string | undefined, apiKeys: readonly ApiKeyRecord[]): ApiKeyRecord[] => {
  if (raw === undefined || raw.trim() === '') return [];
  const records: ApiKeyRecord[] = [];
  const ids = new Map(apiKeys.map((r) => [publicKeyId(r.keyHash), r.keyHash]));
  raw.split(',').forEach((entry, index) => {
    const where = `PETSTORE_ADMIN_KEYS entry ${index + 1}`;
    const key = entry.trim();
    if (key === '') throw new SettingsError(`${where} is empty (comma-separated admin keys)`);
    if (!KEY.test(key)) throw new SettingsError(`${where}: the key may hold only letters, digits and - . _ ~ + / (then = padding)`);
    const record = apiKeyRecord(key, 'business', undefined, 'admin');
    if (typeof record === 'string') throw new SettingsError(`${where}: ${record}`);
    const clash = ids.get(publicKeyId(record.keyHash));
    if (clash !== undefined) {
      const inApiKeys = apiKeys.some((r) => r.keyHash === clash);
      const what = clash === record.keyHash ? 'repeats' : 'has the same public id as';
      throw new SettingsError(`${where} ${what} a key given ${inApiKeys ? 'in PETSTORE_API_KEYS (a key is either a client or an admin key)' : 'earlier'}`);
    }
    ids.set(publicKeyId(record.keyHash), record.keyHash);
    records.push(record);
  });
  return records;
};

/**
 * `PETSTORE_CORS_ORIGINS`: `*`, or comma-separated origins, each exactly as a browser sends it in
 * `Origin`: `http` or `https`, a host, an optional port, nothing else (no path, no trailing slash).
 */
const parseCorsOrigins = (raw: string | undefined): readonly string[] | '*' | undefined => {
  if (raw === undefined || raw.trim() === '') return undefined;
  if (raw.trim() === '*') return '*';
  const origins = raw.split(',').map((entry) => entry.trim());
  origins.forEach((origin, index) => {
    let canonical: string | undefined;
    try {
      const url = new URL(origin);
      canonical = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
    } catch {
      canonical = undefined;
    }
    if (canonical !== origin) {
      throw new SettingsError(
        `PETSTORE_CORS_ORIGINS entry ${index + 1} must be * or an origin such as https://app.example.com:8443 (scheme, host, optional port; no path or trailing slash; got "${origin.slice(0, 60)}")`,
      );
    }
  });
  return origins;
};

/** Reads the settings from the environment; throws `SettingsError` on the first bad one. */
export const parseSettings = (env: Env): Settings => {
  const port = wholeNumber(env, 'PORT', Number(DEFAULTS.PORT), 0, 65535);
  const host = env['HOST'] || DEFAULTS.HOST;
  if (/\s/.test(host)) throw new SettingsError(`HOST must be a host name or address without spaces`);

  const store = env['PETSTORE_STORE'] || DEFAULTS.PETSTORE_STORE;
  if (store !== 'memory' && store !== 'mongo') throw new SettingsError(`PETSTORE_STORE must be memory or mongo (got "${store.slice(0, 20)}")`);
  const mongodbUri = env['MONGODB_URI'] || undefined;
  if (store === 'mongo' && mongodbUri === undefined) throw new SettingsError('MONGODB_URI must be set when PETSTORE_STORE=mongo');
  if (mongodbUri !== undefined && !/^mongodb(\+srv)?:\/\/[^\s]+$/.test(mongodbUri)) {
    throw new SettingsError('MONGODB_URI must be a mongodb:// or mongodb+srv:// connection string');
  }

  const trustRaw = (env['PETSTORE_TRUST_PROXY'] ?? '').toLowerCase();
  const trustProxy = trustRaw === '' ? false : BOOLEAN[trustRaw];
  if (trustProxy === undefined) throw new SettingsError('PETSTORE_TRUST_PROXY must be true or false');

  const logLevel = env['PETSTORE_LOG_LEVEL'] || DEFAULTS.PETSTORE_LOG_LEVEL;
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new SettingsError(`PETSTORE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }

  const apiKeys = parseKeys(env['PETSTORE_API_KEYS']);
  return {
    port,
    host,
    apiKeys,
    adminKeys: parseAdminKeys(env['PETSTORE_ADMIN_KEYS'], apiKeys),
    store,
    mongodbUri,
    ban: {
      threshold: wholeNumber(env, 'PETSTORE_BAN_THRESHOLD', DEFAULT_BAN_RULE.threshold, 1, 1_000_000),
      seconds: wholeNumber(env, 'PETSTORE_BAN_SECONDS', DEFAULT_BAN_RULE.seconds, 1, 31_536_000),
    },
    trustProxy,
    logLevel: logLevel as LogLevel,
    corsOrigins: parseCorsOrigins(env['PETSTORE_CORS_ORIGINS']),
    metricsPort: env['PETSTORE_METRICS_PORT'] === undefined || env['PETSTORE_METRICS_PORT'] === '' ? undefined : wholeNumber(env, 'PETSTORE_METRICS_PORT', 0, 0, 65535),
    // 0 keeps no photo at all (every upload 507); at most 1 TiB.
    photoMemoryBytes: wholeNumber(env, 'PETSTORE_PHOTO_MEMORY_MB', PHOTO_MEMORY_MB_DEFAULT, 0, 1_048_576) * MIB,
  };
};

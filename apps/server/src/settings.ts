import type { ApiKeyRecord, BanRule, PlanName } from '@petstore/domain';
import { parseAllowHosts } from '@petstore/adapters-webhooks';
import { NodeDigests } from './node-digests.js';
import {
  apiKeyRecord,
  DEFAULT_BAN_RULE,
  EVENT_RETENTION_DAYS,
  isPlanName,
  PHOTO_BODY_LIMIT_BYTES,
  publicKeyId,
} from '@petstore/domain';

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
  /** `PETSTORE_UPLOADS_IN_FLIGHT`: photo uploads worked on at once, at most (docs/rules.md §13); default 32. */
  readonly uploadsInFlight: number;
  /** `PETSTORE_UPLOADS_IN_FLIGHT_MB`, in bytes: their bodies' bytes at once, at most (a chunked body counts as 10 MiB); default 40 MiB. */
  readonly uploadBytesInFlight: number;
  /** `PETSTORE_EVENT_RETENTION_DAYS`: how long events are kept (docs/rules.md §15); default 30, 1–365. */
  readonly eventRetentionDays: number;
  /** `PETSTORE_EVENT_MEMORY_MAX`: how many events the memory store keeps at most (docs/rules.md §15); default 100,000. */
  readonly eventMemoryMax: number;
  /** `PETSTORE_WEBHOOKS`: whether this process delivers webhooks (docs/rules.md §15); `off` still records events. Default on. */
  readonly webhooks: boolean;
  /** `PETSTORE_WEBHOOK_ALLOW_HOSTS`: the `host[:port]`s a subscription may name although the URL rules refuse them (loopback, private…; `http` too). */
  readonly webhookAllowHosts: readonly string[];
  /** `PETSTORE_PUBLIC_URL`: the origin the photo URLs start with (docs/rules.md §16); `''` when unset (they start with `/v1/`). */
  readonly publicUrl: string;
  /** `PETSTORE_PHOTO_URL_SECRET`: the signing secret of the photo URLs (§16); unset: the store keeps one. Never logged. */
  readonly photoUrlSecret: string | undefined;
}

/** A setting that cannot be used; the message is one line naming the variable and the fault. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

type Env = Readonly<Record<string, string | undefined>>;

/** One setting: its default as written in the environment (`''`: unset, none) and what it does. */
interface SettingEntry {
  readonly default: string;
  readonly about: string;
}
const MIB = 1024 * 1024;

/**
 * Every variable the server reads (docs/rules.md §6): the one list of known names (an unknown
 * `PETSTORE_*` variable stops the start), with the defaults `parseSettings` uses and the text of
 * `.env.example` (a test checks that file against this table). A new setting is one line here,
 * then read in `parseSettings`.
 */
export const SETTINGS = {
  PORT: { default: '8080', about: 'port of the API (0: any free port)' },
  HOST: { default: '0.0.0.0', about: 'address the API and the metrics listener bind to' },
  PETSTORE_API_KEYS: {
    default: '',
    about:
      'client keys: comma-separated key:plan (free, pro, business) or key:enterprise:<perMinute>:<perDay>. Unset on the memory store: a development key is generated (refused with NODE_ENV=production)',
  },
  PETSTORE_ADMIN_KEYS: {
    default: '',
    about:
      'admin keys (issue, change, revoke keys; business plan numbers), comma-separated; a key is in one of the two variables only',
  },
  PETSTORE_STORE: { default: 'memory', about: 'memory or mongo' },
  MONGODB_URI: {
    default: '',
    about: 'MongoDB connection string, required with PETSTORE_STORE=mongo (the database is its path, else petstore)',
  },
  PETSTORE_BAN_THRESHOLD: {
    default: String(DEFAULT_BAN_RULE.threshold),
    about: 'rejections (429) within one UTC minute that start a ban',
  },
  PETSTORE_BAN_SECONDS: { default: String(DEFAULT_BAN_RULE.seconds), about: 'length of a ban, in seconds' },
  PETSTORE_TRUST_PROXY: {
    default: 'false',
    about: 'true: take the client address from X-Forwarded-For (set by your one trusted proxy)',
  },
  PETSTORE_LOG_LEVEL: {
    default: 'info',
    about: 'fatal, error, warn, info, debug, trace or silent (JSON lines on stdout)',
  },
  PETSTORE_CORS_ORIGINS: {
    default: '',
    about: 'browser origins allowed to call the API (https://app.example.com, comma-separated), or *; unset: no CORS',
  },
  PETSTORE_METRICS_PORT: {
    default: '',
    about:
      'port of a second listener serving GET /metrics only (no key: expose it to your scraper only), not PORT; unset: none',
  },
  PETSTORE_PHOTO_MEMORY_MB: { default: '256', about: 'MiB of photos the memory store keeps (docs/rules.md §13)' },
  PETSTORE_UPLOADS_IN_FLIGHT: {
    default: '32',
    about: 'photo uploads worked on at once; more get 503 with Retry-After, their body unread (docs/rules.md §13)',
  },
  PETSTORE_UPLOADS_IN_FLIGHT_MB: {
    default: '40',
    about:
      'MiB of photo uploads worked on at once, counted by their declared Content-Length (a chunked body: 10); at least 10 (docs/rules.md §13)',
  },
  PETSTORE_EVENT_RETENTION_DAYS: {
    default: String(EVENT_RETENTION_DAYS.default),
    about: `days the feed of events keeps an event, from ${EVENT_RETENTION_DAYS.min} to ${EVENT_RETENTION_DAYS.max}; older ones leave the start of GET /v1/events (docs/rules.md §15)`,
  },
  PETSTORE_EVENT_MEMORY_MAX: {
    default: '100000',
    about:
      'events the memory store keeps at most (about 1 KiB each); past it the oldest leave the feed, as by the retention, and a webhook behind them pauses (docs/rules.md §15)',
  },
  PETSTORE_WEBHOOKS: {
    default: 'on',
    about:
      'on or off: off keeps this process from delivering webhooks (it still records events; another process delivers) (docs/rules.md §15)',
  },
  PETSTORE_WEBHOOK_ALLOW_HOSTS: {
    default: '',
    about:
      'host[:port]s (comma-separated; no port: every port) webhooks may go to although they are loopback or private, over http too: for local development and tests only (docs/rules.md §15)',
  },
  PETSTORE_PUBLIC_URL: {
    default: '',
    about:
      'the origin clients reach the API at (https://pets.example.org, no path): the signed photo URLs start with it; unset: they start with /v1/ (docs/rules.md §16)',
  },
  PETSTORE_PHOTO_URL_SECRET: {
    default: '',
    about:
      'the signing secret of the photo URLs, the same in every process: at least 32 random bytes in hex or base64 (openssl rand -base64 32); changing it voids every photo URL made before. Unset: the store makes and keeps one (docs/rules.md §16)',
  },
  NODE_ENV: { default: '', about: 'production: refuse to start with generated development keys' },
} as const satisfies Readonly<Record<string, SettingEntry>>;

type SettingName = keyof typeof SETTINGS;

const KNOWN: readonly string[] = Object.keys(SETTINGS);

/** Levenshtein distance (insertions, deletions, substitutions), for naming the closest known setting. */
const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
};

/** A name without the `PETSTORE_` prefix: every name compared has it, so it tells nothing apart. */
const stem = (name: string): string => name.replace(/^PETSTORE_/, '');

/** The known setting nearest to `name` (fewest edits, the prefix aside; the first in the table on a tie). */
const closestSetting = (name: string): string => {
  const distance = (known: string): number => editDistance(stem(name), stem(known));
  return KNOWN.reduce((best, known) => (distance(known) < distance(best) ? known : best));
};

/** A `PETSTORE_*` variable the service does not know: most likely a typo, which would otherwise be ignored. */
const refuseUnknown = (env: Env): void => {
  for (const name of Object.keys(env)) {
    if (name.startsWith('PETSTORE_') && !KNOWN.includes(name)) {
      throw new SettingsError(
        `${name.slice(0, 64)} is not a setting of this service; did you mean ${closestSetting(name)}?`,
      );
    }
  }
};

const defaultOf = (name: SettingName): string => SETTINGS[name].default;

const wholeNumber = (env: Env, name: SettingName, fallback: number, min: number, max: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new SettingsError(`${name} must be a whole number from ${min} to ${max} (got "${raw.slice(0, 40)}")`);
  }
  return Number(raw);
};

const BOOLEAN: Readonly<Record<string, boolean>> = {
  true: true,
  '1': true,
  yes: true,
  on: true,
  false: false,
  '0': false,
  no: false,
  off: false,
};

/** Keys are kept as their SHA-256 from the moment they are read. */
const digests = new NodeDigests();

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
    if (key === '' || plan === '')
      throw new SettingsError(`${where} must be key:plan or key:enterprise:<perMinute>:<perDay>`);
    if (!KEY.test(key))
      throw new SettingsError(`${where}: the key may hold only letters, digits and - . _ ~ + / (then = padding)`);
    // The value is not echoed: a key and its plan swapped by mistake would print the key.
    if (!isPlanName(plan))
      throw new SettingsError(`${where}: the second field must be a plan: free, pro, business or enterprise`);
    let custom: { perMinute: number; perDay: number } | undefined;
    if (plan === 'enterprise') {
      if (rest.length !== 2 || !rest.every((n) => /^[0-9]{1,15}$/.test(n))) {
        throw new SettingsError(
          `${where}: an enterprise key is key:enterprise:<perMinute>:<perDay> with whole numbers`,
        );
      }
      custom = { perMinute: Number(rest[0]), perDay: Number(rest[1]) };
    } else if (rest.length > 0) {
      throw new SettingsError(`${where}: only enterprise keys take numbers (key:${plan as PlanName})`);
    }
    const record = apiKeyRecord(digests, key, plan, custom);
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
    if (!KEY.test(key))
      throw new SettingsError(`${where}: the key may hold only letters, digits and - . _ ~ + / (then = padding)`);
    const record = apiKeyRecord(digests, key, 'business', undefined, 'admin');
    if (typeof record === 'string') throw new SettingsError(`${where}: ${record}`);
    const clash = ids.get(publicKeyId(record.keyHash));
    if (clash !== undefined) {
      const inApiKeys = apiKeys.some((r) => r.keyHash === clash);
      const what = clash === record.keyHash ? 'repeats' : 'has the same public id as';
      throw new SettingsError(
        `${where} ${what} a key given ${inApiKeys ? 'in PETSTORE_API_KEYS (a key is either a client or an admin key)' : 'earlier'}`,
      );
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

/**
 * `PETSTORE_EVENT_RETENTION_DAYS`: whole days within the domain's bounds (`EVENT_RETENTION_DAYS`),
 * written plainly (no sign, no leading zero, no fraction); unset or empty, the default.
 */
const parseRetentionDays = (raw: string | undefined): number => {
  const { default: fallback, min, max } = EVENT_RETENTION_DAYS;
  if (raw === undefined || raw === '') return fallback;
  if (!/^[1-9][0-9]{0,2}$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new SettingsError(
      `PETSTORE_EVENT_RETENTION_DAYS must be a whole number of days from ${min} to ${max} (default ${fallback})`,
    );
  return Number(raw);
};

/** `PETSTORE_PUBLIC_URL`: an `http(s)` origin exactly as `URL.origin` writes it (no path, no trailing slash); `''` when unset. */
const parsePublicUrl = (raw: string | undefined): string => {
  if (raw === undefined || raw === '') return '';
  let origin: string | undefined;
  try {
    const url = new URL(raw);
    origin = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    origin = undefined;
  }
  if (origin !== raw)
    throw new SettingsError(
      `PETSTORE_PUBLIC_URL must be an http:// or https:// origin such as https://pets.example.org:8443 (scheme, host, optional port; no path or trailing slash; got "${raw.slice(0, 60)}")`,
    );
  return origin;
};

/** Fewest distinct characters a random secret of the shortest length shows, all but never fewer (hex, base64). */
const SECRET_VARIETY = { hex: 10, base64: 16 } as const;

/**
 * `PETSTORE_PHOTO_URL_SECRET`: at least 32 bytes, written in hex (64 digits or more) or base64 or
 * base64url (43 characters or more, `=` padding allowed), with the variety of characters random
 * bytes show (`aaaa…` or a repeated word is refused). The value is never echoed.
 */
const parsePhotoUrlSecret = (raw: string | undefined): string | undefined => {
  if (raw === undefined || raw === '') return undefined;
  const hex = /^[0-9a-fA-F]+$/.test(raw);
  const base64 = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw);
  const digits = raw.replace(/=+$/, '').length;
  const bytes = hex ? digits / 2 : Math.floor((digits * 6) / 8);
  const distinct = new Set(raw.replace(/=+$/, '')).size;
  if (!base64 || bytes < 32 || distinct < (hex ? SECRET_VARIETY.hex : SECRET_VARIETY.base64))
    throw new SettingsError(
      'PETSTORE_PHOTO_URL_SECRET must be at least 32 random bytes in hex (64 digits) or base64 (43 characters), e.g. the output of openssl rand -base64 32',
    );
  return raw;
};

/** Reads the settings from the environment; throws `SettingsError` on the first bad one. */
export const parseSettings = (env: Env): Settings => {
  refuseUnknown(env);
  const port = wholeNumber(env, 'PORT', Number(defaultOf('PORT')), 0, 65535);
  const host = env['HOST'] || defaultOf('HOST');
  if (/\s/.test(host)) throw new SettingsError(`HOST must be a host name or address without spaces`);

  const store = env['PETSTORE_STORE'] || defaultOf('PETSTORE_STORE');
  if (store !== 'memory' && store !== 'mongo')
    throw new SettingsError(`PETSTORE_STORE must be memory or mongo (got "${store.slice(0, 20)}")`);
  const mongodbUri = env['MONGODB_URI'] || undefined;
  if (store === 'mongo' && mongodbUri === undefined)
    throw new SettingsError('MONGODB_URI must be set when PETSTORE_STORE=mongo');
  if (mongodbUri !== undefined && !/^mongodb(\+srv)?:\/\/[^\s]+$/.test(mongodbUri)) {
    throw new SettingsError('MONGODB_URI must be a mongodb:// or mongodb+srv:// connection string');
  }

  const trustRaw = (env['PETSTORE_TRUST_PROXY'] ?? '').toLowerCase();
  const trustProxy = trustRaw === '' ? false : BOOLEAN[trustRaw];
  if (trustProxy === undefined) throw new SettingsError('PETSTORE_TRUST_PROXY must be true or false');

  const logLevel = env['PETSTORE_LOG_LEVEL'] || defaultOf('PETSTORE_LOG_LEVEL');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new SettingsError(`PETSTORE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }

  const apiKeys = parseKeys(env['PETSTORE_API_KEYS']);
  // Without client keys the memory store makes development keys (printed at start): never in production.
  if (env['NODE_ENV'] === 'production' && store === 'memory' && apiKeys.length === 0) {
    throw new SettingsError(
      'NODE_ENV=production needs PETSTORE_API_KEYS (and PETSTORE_ADMIN_KEYS to manage keys): development keys are never generated in production',
    );
  }
  const metricsPort =
    env['PETSTORE_METRICS_PORT'] === undefined || env['PETSTORE_METRICS_PORT'] === ''
      ? undefined
      : wholeNumber(env, 'PETSTORE_METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    throw new SettingsError(
      `PETSTORE_METRICS_PORT must differ from PORT (both are ${port}): /metrics has a listener of its own`,
    );
  }
  const eventRetentionDays = parseRetentionDays(env['PETSTORE_EVENT_RETENTION_DAYS']);
  const webhooksRaw = env['PETSTORE_WEBHOOKS'] || defaultOf('PETSTORE_WEBHOOKS');
  if (webhooksRaw !== 'on' && webhooksRaw !== 'off') throw new SettingsError('PETSTORE_WEBHOOKS must be on or off');
  let webhookAllowHosts: readonly string[];
  try {
    webhookAllowHosts = parseAllowHosts(env['PETSTORE_WEBHOOK_ALLOW_HOSTS'] ?? '');
  } catch (error) {
    throw new SettingsError(`PETSTORE_WEBHOOK_ALLOW_HOSTS: ${(error as Error).message}`);
  }
  return {
    port,
    host,
    apiKeys,
    adminKeys: parseAdminKeys(env['PETSTORE_ADMIN_KEYS'], apiKeys),
    store,
    mongodbUri,
    ban: {
      threshold: wholeNumber(env, 'PETSTORE_BAN_THRESHOLD', Number(defaultOf('PETSTORE_BAN_THRESHOLD')), 1, 1_000_000),
      seconds: wholeNumber(env, 'PETSTORE_BAN_SECONDS', Number(defaultOf('PETSTORE_BAN_SECONDS')), 1, 31_536_000),
    },
    trustProxy,
    logLevel: logLevel as LogLevel,
    corsOrigins: parseCorsOrigins(env['PETSTORE_CORS_ORIGINS']),
    metricsPort,
    // 0 keeps no photo at all (every upload 507); at most 1 TiB.
    photoMemoryBytes:
      wholeNumber(env, 'PETSTORE_PHOTO_MEMORY_MB', Number(defaultOf('PETSTORE_PHOTO_MEMORY_MB')), 0, 1_048_576) * MIB,
    uploadsInFlight: wholeNumber(
      env,
      'PETSTORE_UPLOADS_IN_FLIGHT',
      Number(defaultOf('PETSTORE_UPLOADS_IN_FLIGHT')),
      1,
      10_000,
    ),
    // At least one photo of the largest size (10 MiB), or no upload could ever be admitted.
    uploadBytesInFlight:
      wholeNumber(
        env,
        'PETSTORE_UPLOADS_IN_FLIGHT_MB',
        Number(defaultOf('PETSTORE_UPLOADS_IN_FLIGHT_MB')),
        PHOTO_BODY_LIMIT_BYTES / MIB,
        1_048_576,
      ) * MIB,
    eventRetentionDays,
    // At least one event (the newest always stays); at most 100 million (about 100 GiB).
    eventMemoryMax: wholeNumber(
      env,
      'PETSTORE_EVENT_MEMORY_MAX',
      Number(defaultOf('PETSTORE_EVENT_MEMORY_MAX')),
      1,
      100_000_000,
    ),
    webhooks: webhooksRaw === 'on',
    webhookAllowHosts,
    publicUrl: parsePublicUrl(env['PETSTORE_PUBLIC_URL']),
    photoUrlSecret: parsePhotoUrlSecret(env['PETSTORE_PHOTO_URL_SECRET']),
  };
};

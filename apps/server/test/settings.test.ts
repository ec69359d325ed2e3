import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PLAN_QUOTAS } from '@petstore/domain';
import { parseSettings, SETTINGS, SettingsError } from '../src/settings.js';
import { nodeDigests } from '@petstore/domain/testing';

const ENV_EXAMPLE = fileURLToPath(new URL('../../../../.env.example', import.meta.url));

const fails = (env: Record<string, string>, name: string) => {
  let error: unknown;
  try {
    parseSettings(env);
  } catch (e) {
    error = e;
  }
  expect(error, JSON.stringify(env)).to.be.instanceOf(SettingsError);
  const message = (error as Error).message;
  expect(message).to.contain(name);
  expect(message).not.to.contain('\n');
  return message;
};

describe('settings (docs/rules.md §6)', () => {
  it('has the documented defaults', () => {
    expect(parseSettings({})).to.deep.equal({
      port: 8080,
      host: '0.0.0.0',
      apiKeys: [],
      adminKeys: [],
      store: 'memory',
      mongodbUri: undefined,
      ban: { threshold: 10, seconds: 900 },
      trustProxy: false,
      logLevel: 'info',
      corsOrigins: undefined,
      metricsPort: undefined,
      photoMemoryBytes: 256 * 1024 * 1024,
      uploadsInFlight: 32,
      uploadBytesInFlight: 40 * 1024 * 1024,
      eventRetentionDays: 30,
      eventMemoryMax: 100_000,
      webhooks: true,
      webhookAllowHosts: [],
      publicUrl: '',
      photoUrlSecret: undefined,
    });
  });

  it('reads PETSTORE_PUBLIC_URL (docs/rules.md §16): an http(s) origin, no path; anything else stops the start naming it', () => {
    for (const good of ['https://pets.example.org', 'http://127.0.0.1:8080', 'https://[::1]:8443'])
      expect(parseSettings({ PETSTORE_PUBLIC_URL: good }).publicUrl).to.equal(good);
    for (const bad of [
      'https://pets.example.org/',
      'https://pets.example.org/api',
      'pets.example.org',
      'ftp://pets.example.org',
      'https://user@pets.example.org',
      'https://pets.example.org?x=1',
      'https://PETS.example.org',
      'https://pets.example.org:443',
    ])
      fails({ PETSTORE_PUBLIC_URL: bad }, 'PETSTORE_PUBLIC_URL');
  });

  it('reads PETSTORE_PHOTO_URL_SECRET (docs/rules.md §16): 32 random bytes or more in hex or base64; anything else stops the start, never echoing it', () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 73 + 11) & 255));
    for (const good of [
      bytes.toString('hex'),
      bytes.toString('base64'),
      bytes.toString('base64url'),
      Buffer.concat([bytes, bytes]).toString('base64'),
    ])
      expect(parseSettings({ PETSTORE_PHOTO_URL_SECRET: good }).photoUrlSecret).to.equal(good);
    for (const bad of [
      bytes.toString('hex').slice(0, 62),
      bytes.toString('base64url').slice(0, 42),
      'a'.repeat(64),
      'abcdef0123'.repeat(8).slice(0, 63) + 'x!',
      'correct horse battery staple correct horse battery',
      'secretsecretsecretsecretsecretsecretsecretsecret',
    ]) {
      const message = fails({ PETSTORE_PHOTO_URL_SECRET: bad }, 'PETSTORE_PHOTO_URL_SECRET');
      expect(message).not.to.contain(bad.slice(0, 12));
    }
  });

  it('reads PETSTORE_WEBHOOKS (on or off, default on) and PETSTORE_WEBHOOK_ALLOW_HOSTS (host[:port], comma-separated); anything else stops the start naming it (docs/rules.md §15)', () => {
    expect(parseSettings({ PETSTORE_WEBHOOKS: 'off' }).webhooks).to.equal(false);
    expect(parseSettings({ PETSTORE_WEBHOOKS: 'on' }).webhooks).to.equal(true);
    for (const bad of ['yes', 'false', 'OFF', '0']) fails({ PETSTORE_WEBHOOKS: bad }, 'PETSTORE_WEBHOOKS');
    expect(
      parseSettings({ PETSTORE_WEBHOOK_ALLOW_HOSTS: '127.0.0.1:4000, localhost,[::1]:8443' }).webhookAllowHosts,
    ).to.deep.equal(['127.0.0.1:4000', 'localhost', '[::1]:8443']);
    for (const bad of ['127.0.0.1:0', 'a,,b', 'http://127.0.0.1:4000', '127.0.0.1:99999'])
      fails({ PETSTORE_WEBHOOK_ALLOW_HOSTS: bad }, 'PETSTORE_WEBHOOK_ALLOW_HOSTS');
  });

  it('reads PETSTORE_EVENT_RETENTION_DAYS (docs/rules.md §15): a whole number of days from 1 to 365 written plainly, default 30; anything else stops the start naming it', () => {
    for (const [raw, days] of [
      ['1', 1],
      ['7', 7],
      ['30', 30],
      ['99', 99],
      ['365', 365],
      ['', 30],
    ] as const)
      expect(parseSettings({ PETSTORE_EVENT_RETENTION_DAYS: raw }).eventRetentionDays, raw).to.equal(days);
    for (const bad of [
      '0',
      '366',
      '999',
      '1000',
      '-1',
      '030',
      '7.5',
      '1e2',
      ' 7',
      '30 ',
      '+30',
      '0x1f',
      'seven',
      '99999999999999999999',
    ]) {
      const message = fails({ PETSTORE_EVENT_RETENTION_DAYS: bad }, 'PETSTORE_EVENT_RETENTION_DAYS');
      expect(message, bad).to.equal(
        'PETSTORE_EVENT_RETENTION_DAYS must be a whole number of days from 1 to 365 (default 30)',
      );
    }
  });

  it('reads PETSTORE_EVENT_MEMORY_MAX (docs/rules.md §15): a whole number of events from 1 to 100,000,000, default 100,000; anything else stops the start naming it', () => {
    for (const [raw, max] of [
      ['1', 1],
      ['250000', 250_000],
      ['100000000', 100_000_000],
      ['', 100_000],
    ] as const)
      expect(parseSettings({ PETSTORE_EVENT_MEMORY_MAX: raw }).eventMemoryMax, raw).to.equal(max);
    for (const bad of ['0', '-1', '1.5', '1e5', '100000001', 'many'])
      expect(fails({ PETSTORE_EVENT_MEMORY_MAX: bad }, 'PETSTORE_EVENT_MEMORY_MAX'), bad).to.match(
        /must be a whole number from 1 to 100000000/,
      );
  });

  it('reads PETSTORE_UPLOADS_IN_FLIGHT (at least 1) and PETSTORE_UPLOADS_IN_FLIGHT_MB (in MiB, at least one photo of the largest, 10); anything else stops the start naming it', () => {
    const s = parseSettings({ PETSTORE_UPLOADS_IN_FLIGHT: '12', PETSTORE_UPLOADS_IN_FLIGHT_MB: '100' });
    expect([s.uploadsInFlight, s.uploadBytesInFlight]).to.deep.equal([12, 100 * 1024 * 1024]);
    expect(
      parseSettings({ PETSTORE_UPLOADS_IN_FLIGHT: '1', PETSTORE_UPLOADS_IN_FLIGHT_MB: '10' }).uploadBytesInFlight,
    ).to.equal(10 * 1024 * 1024);
    for (const v of ['0', '-1', '1.5', 'many', '10001']) {
      expect(fails({ PETSTORE_UPLOADS_IN_FLIGHT: v }, 'PETSTORE_UPLOADS_IN_FLIGHT')).to.match(
        /must be a whole number from 1 to 10000/,
      );
    }
    for (const v of ['9', '0', '40MB', '1048577']) {
      expect(fails({ PETSTORE_UPLOADS_IN_FLIGHT_MB: v }, 'PETSTORE_UPLOADS_IN_FLIGHT_MB')).to.match(
        /must be a whole number from 10 to 1048576/,
      );
    }
  });

  it('reads PETSTORE_PHOTO_MEMORY_MB in MiB (0 keeps no photo); anything but a whole number up to 1048576 stops the start naming it', () => {
    expect(parseSettings({ PETSTORE_PHOTO_MEMORY_MB: '64' }).photoMemoryBytes).to.equal(64 * 1024 * 1024);
    expect(parseSettings({ PETSTORE_PHOTO_MEMORY_MB: '0' }).photoMemoryBytes).to.equal(0);
    expect(parseSettings({ PETSTORE_PHOTO_MEMORY_MB: '' }).photoMemoryBytes).to.equal(256 * 1024 * 1024);
    for (const v of ['-1', '1.5', '256MB', 'lots', ' 64', '1048577', '0x40']) {
      expect(fails({ PETSTORE_PHOTO_MEMORY_MB: v }, 'PETSTORE_PHOTO_MEMORY_MB')).to.match(
        /must be a whole number from 0 to 1048576/,
      );
    }
  });

  it('reads every setting', () => {
    const s = parseSettings({
      PORT: '0',
      HOST: '127.0.0.1',
      PETSTORE_API_KEYS: 'alpha:free, beta:pro,gamma:business,delta:enterprise:5000:2000000',
      PETSTORE_STORE: 'mongo',
      MONGODB_URI: 'mongodb://127.0.0.1:27017/pets',
      PETSTORE_BAN_THRESHOLD: '3',
      PETSTORE_BAN_SECONDS: '60',
      PETSTORE_TRUST_PROXY: 'true',
      PETSTORE_LOG_LEVEL: 'warn',
      PETSTORE_CORS_ORIGINS: 'https://app.example.com, http://localhost:3000,https://[::1]:8443',
      PETSTORE_METRICS_PORT: '9464',
    });
    expect(s.corsOrigins).to.deep.equal(['https://app.example.com', 'http://localhost:3000', 'https://[::1]:8443']);
    expect(s.metricsPort).to.equal(9464);
    expect(parseSettings({ PETSTORE_CORS_ORIGINS: '*' }).corsOrigins).to.equal('*');
    expect(parseSettings({ PETSTORE_CORS_ORIGINS: ' ' }).corsOrigins).to.equal(undefined);
    expect(s.port).to.equal(0);
    expect(s.host).to.equal('127.0.0.1');
    expect(s.store).to.equal('mongo');
    expect(s.mongodbUri).to.equal('mongodb://127.0.0.1:27017/pets');
    expect(s.ban).to.deep.equal({ threshold: 3, seconds: 60 });
    expect(s.trustProxy).to.equal(true);
    expect(s.logLevel).to.equal('warn');
    expect(s.apiKeys).to.deep.equal([
      { keyHash: nodeDigests.sha256Hex('alpha'), role: 'client', plan: 'free', quota: PLAN_QUOTAS.free },
      { keyHash: nodeDigests.sha256Hex('beta'), role: 'client', plan: 'pro', quota: PLAN_QUOTAS.pro },
      { keyHash: nodeDigests.sha256Hex('gamma'), role: 'client', plan: 'business', quota: PLAN_QUOTAS.business },
      {
        keyHash: nodeDigests.sha256Hex('delta'),
        role: 'client',
        plan: 'enterprise',
        quota: { perMinute: 5000, perDay: 2_000_000 },
      },
    ]);
  });

  it('keeps no raw key in the settings', () => {
    const s = parseSettings({ PETSTORE_API_KEYS: 'super-secret-key:pro' });
    expect(JSON.stringify(s)).not.to.contain('super-secret-key');
  });

  it('refuses each malformed setting with one line naming it, never echoing a key', () => {
    for (const port of ['-1', '65536', 'http', '80.5', ' 80']) fails({ PORT: port }, 'PORT');
    fails({ HOST: 'a b' }, 'HOST');
    fails({ PETSTORE_STORE: 'redis' }, 'PETSTORE_STORE');
    fails({ PETSTORE_STORE: 'mongo' }, 'MONGODB_URI');
    fails({ MONGODB_URI: 'http://x' }, 'MONGODB_URI');
    for (const v of ['0', 'ten', '-3']) fails({ PETSTORE_BAN_THRESHOLD: v }, 'PETSTORE_BAN_THRESHOLD');
    for (const v of ['0', '1.5']) fails({ PETSTORE_BAN_SECONDS: v }, 'PETSTORE_BAN_SECONDS');
    fails({ PETSTORE_TRUST_PROXY: 'maybe' }, 'PETSTORE_TRUST_PROXY');
    fails({ PETSTORE_LOG_LEVEL: 'loud' }, 'PETSTORE_LOG_LEVEL');
    for (const origins of [
      'app.example.com',
      'https://app.example.com/',
      'https://app.example.com/path',
      'ftp://files.example.com',
      'https://a.example,',
      '*,https://a.example',
      'https://user@a.example',
      'HTTPS://A.EXAMPLE',
      'null',
    ]) {
      fails({ PETSTORE_CORS_ORIGINS: origins }, 'PETSTORE_CORS_ORIGINS');
    }
    for (const port of ['-1', '65536', 'metrics']) fails({ PETSTORE_METRICS_PORT: port }, 'PETSTORE_METRICS_PORT');
    for (const keys of [
      'secretkey',
      'secretkey:gold',
      'secretkey:enterprise',
      'secretkey:enterprise:10',
      'secretkey:enterprise:100:10',
      'secretkey:pro:5:5',
      'secret key:pro',
      'secretkey:pro,,other:free',
      'secretkey:pro,secretkey:free',
      'pro:secretkey',
    ]) {
      const message = fails({ PETSTORE_API_KEYS: keys }, 'PETSTORE_API_KEYS');
      expect(message).not.to.contain('secret');
    }
  });

  it('reads PETSTORE_ADMIN_KEYS: admin keys on the business plan, hashed', () => {
    const s = parseSettings({ PETSTORE_ADMIN_KEYS: ' root-one ,root-two', PETSTORE_API_KEYS: 'client:free' });
    expect(s.adminKeys).to.deep.equal([
      { keyHash: nodeDigests.sha256Hex('root-one'), role: 'admin', plan: 'business', quota: PLAN_QUOTAS.business },
      { keyHash: nodeDigests.sha256Hex('root-two'), role: 'admin', plan: 'business', quota: PLAN_QUOTAS.business },
    ]);
    expect(s.apiKeys.map((k) => k.role)).to.deep.equal(['client']);
    expect(JSON.stringify(s)).not.to.match(/root-one|root-two/);
  });

  it('refuses a bad PETSTORE_ADMIN_KEYS entry with one line naming it, never echoing a key; a key in both variables is an error', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PETSTORE_ADMIN_KEYS: 'secretadmin,' }, /entry 2 is empty/],
      [{ PETSTORE_ADMIN_KEYS: 'secret admin' }, /entry 1: the key may hold only/],
      [{ PETSTORE_ADMIN_KEYS: 'secretadmin:business' }, /entry 1: the key may hold only/],
      [{ PETSTORE_ADMIN_KEYS: 'secretadmin,secretother,secretadmin' }, /entry 3 repeats a key given earlier/],
      [
        { PETSTORE_ADMIN_KEYS: 'secretother,secretboth', PETSTORE_API_KEYS: 'secretboth:pro' },
        /entry 2 repeats a key given in PETSTORE_API_KEYS/,
      ],
    ];
    for (const [env, pattern] of cases) {
      const message = fails(env, 'PETSTORE_ADMIN_KEYS');
      expect(message).to.match(pattern);
      expect(message).not.to.contain('secret');
    }
  });

  it('refuses a PETSTORE_* variable it does not know, naming the closest setting; other variables are not its business', () => {
    const cases: Array<[string, string]> = [
      ['PETSTORE_API_KEY', 'PETSTORE_API_KEYS'],
      ['PETSTORE_ADMIN_KEY', 'PETSTORE_ADMIN_KEYS'],
      ['PETSTORE_LOGLEVEL', 'PETSTORE_LOG_LEVEL'],
      ['PETSTORE_METRICS', 'PETSTORE_METRICS_PORT'],
      ['PETSTORE_BAN_SECS', 'PETSTORE_BAN_SECONDS'],
      ['PETSTORE_CORS_ORIGIN', 'PETSTORE_CORS_ORIGINS'],
      ['PETSTORE_TRUST_PROXIES', 'PETSTORE_TRUST_PROXY'],
      ['PETSTORE_MONGODB_URI', 'MONGODB_URI'],
      ['PETSTORE_PORT', 'PORT'],
      ['PETSTORE_HOST', 'HOST'],
      ['PETSTORE_PHOTO_MEMORY', 'PETSTORE_PHOTO_MEMORY_MB'],
      ['PETSTORE_STROE', 'PETSTORE_STORE'],
    ];
    for (const [typo, closest] of cases) {
      const message = fails({ [typo]: 'x' }, typo);
      expect(message).to.equal(`${typo} is not a setting of this service; did you mean ${closest}?`);
    }
    // A name is quoted at most 64 characters long.
    expect(fails({ [`PETSTORE_${'X'.repeat(200)}`]: '1' }, 'PETSTORE_').length).to.be.below(150);
    // Every known setting is accepted; variables outside PETSTORE_* are ignored.
    expect(() =>
      parseSettings({
        PETSTORE_PHOTO_MEMORY_MB: '64',
        NODE_ENV: 'development',
        PATH: '/bin',
        PETSTOREX: '1',
        npm_config_x: 'y',
      }),
    ).not.to.throw();
  });

  it('NODE_ENV=production refuses to start with generated development keys (memory store without PETSTORE_API_KEYS)', () => {
    for (const env of [{ NODE_ENV: 'production' }, { NODE_ENV: 'production', PETSTORE_ADMIN_KEYS: 'root-admin' }]) {
      expect(fails(env, 'NODE_ENV=production')).to.contain('PETSTORE_API_KEYS');
    }
    expect(parseSettings({ NODE_ENV: 'production', PETSTORE_API_KEYS: 'client:pro' }).apiKeys).to.have.length(1);
    expect(
      parseSettings({ NODE_ENV: 'production', PETSTORE_STORE: 'mongo', MONGODB_URI: 'mongodb://127.0.0.1/x' }).store,
      'keys live in the database',
    ).to.equal('mongo');
    expect(parseSettings({ NODE_ENV: 'development' }).apiKeys, 'outside production: development keys').to.deep.equal(
      [],
    );
  });

  it('refuses PETSTORE_METRICS_PORT equal to PORT, by name (0, any free port, for both is fine)', () => {
    expect(fails({ PORT: '9464', PETSTORE_METRICS_PORT: '9464' }, 'PETSTORE_METRICS_PORT')).to.equal(
      'PETSTORE_METRICS_PORT must differ from PORT (both are 9464): /metrics has a listener of its own',
    );
    fails({ PETSTORE_METRICS_PORT: '8080' }, 'PORT');
    expect(parseSettings({ PORT: '0', PETSTORE_METRICS_PORT: '0' }).metricsPort).to.equal(0);
    expect(parseSettings({ PORT: '8080', PETSTORE_METRICS_PORT: '8081' }).metricsPort).to.equal(8081);
  });

  it('.env.example lists every setting, each with its description and default, commented out; the defaults are the ones parseSettings uses', () => {
    const lines = readFileSync(ENV_EXAMPLE, 'utf8').split('\n');
    const listed = new Map<string, { value: string; about: string | undefined }>();
    lines.forEach((line, i) => {
      const m = /^# ([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      if (m) listed.set(m[1]!, { value: m[2]!, about: lines[i - 1]?.replace(/^# /, '') });
    });
    expect([...listed.keys()]).to.deep.equal(Object.keys(SETTINGS));
    for (const [name, entry] of Object.entries(SETTINGS)) {
      expect(listed.get(name), name).to.deep.equal({ value: entry.default, about: entry.about });
    }
    // No line sets anything: copied as .env, the file changes nothing.
    expect(lines.filter((l) => l !== '' && !l.startsWith('#'))).to.deep.equal([]);
    // The defaults are the parser's.
    const d = parseSettings({});
    expect([
      String(d.port),
      d.host,
      d.store,
      d.logLevel,
      String(d.ban.threshold),
      String(d.ban.seconds),
      String(d.trustProxy),
    ]).to.deep.equal(
      (
        [
          'PORT',
          'HOST',
          'PETSTORE_STORE',
          'PETSTORE_LOG_LEVEL',
          'PETSTORE_BAN_THRESHOLD',
          'PETSTORE_BAN_SECONDS',
          'PETSTORE_TRUST_PROXY',
        ] as const
      ).map((n) => SETTINGS[n].default),
    );
  });
});

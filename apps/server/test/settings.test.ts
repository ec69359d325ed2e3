import { expect } from 'chai';
import { PLAN_QUOTAS, sha256Hex } from '@petstore/domain';
import { parseSettings, SettingsError } from '../src/settings.js';

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
    });
  });

  it('reads PETSTORE_PHOTO_MEMORY_MB in MiB (0 keeps no photo); anything but a whole number up to 1048576 stops the start naming it', () => {
    expect(parseSettings({ PETSTORE_PHOTO_MEMORY_MB: '64' }).photoMemoryBytes).to.equal(64 * 1024 * 1024);
    expect(parseSettings({ PETSTORE_PHOTO_MEMORY_MB: '0' }).photoMemoryBytes).to.equal(0);
    expect(parseSettings({ PETSTORE_PHOTO_MEMORY_MB: '' }).photoMemoryBytes).to.equal(256 * 1024 * 1024);
    for (const v of ['-1', '1.5', '256MB', 'lots', ' 64', '1048577', '0x40']) {
      expect(fails({ PETSTORE_PHOTO_MEMORY_MB: v }, 'PETSTORE_PHOTO_MEMORY_MB')).to.match(/must be a whole number from 0 to 1048576/);
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
      { keyHash: sha256Hex('alpha'), role: 'client', plan: 'free', quota: PLAN_QUOTAS.free },
      { keyHash: sha256Hex('beta'), role: 'client', plan: 'pro', quota: PLAN_QUOTAS.pro },
      { keyHash: sha256Hex('gamma'), role: 'client', plan: 'business', quota: PLAN_QUOTAS.business },
      { keyHash: sha256Hex('delta'), role: 'client', plan: 'enterprise', quota: { perMinute: 5000, perDay: 2_000_000 } },
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
    for (const origins of ['app.example.com', 'https://app.example.com/', 'https://app.example.com/path', 'ftp://files.example.com', 'https://a.example,', '*,https://a.example', 'https://user@a.example', 'HTTPS://A.EXAMPLE', 'null']) {
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
      { keyHash: sha256Hex('root-one'), role: 'admin', plan: 'business', quota: PLAN_QUOTAS.business },
      { keyHash: sha256Hex('root-two'), role: 'admin', plan: 'business', quota: PLAN_QUOTAS.business },
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
      [{ PETSTORE_ADMIN_KEYS: 'secretother,secretboth', PETSTORE_API_KEYS: 'secretboth:pro' }, /entry 2 repeats a key given in PETSTORE_API_KEYS/],
    ];
    for (const [env, pattern] of cases) {
      const message = fails(env, 'PETSTORE_ADMIN_KEYS');
      expect(message).to.match(pattern);
      expect(message).not.to.contain('secret');
    }
  });
});

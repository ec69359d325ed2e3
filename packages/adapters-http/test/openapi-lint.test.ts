// docs/rules.md §2: the OpenAPI document lints clean with `@redocly/cli lint` (no errors, no
// warnings), and every operation has an example request and response. Runs on whatever the
// generated document holds, with the recommended rules as `redocly lint` runs them with no
// configuration (redocly.yaml may only switch telemetry off: a rule loosened there once hid seven
// warnings an outside `redocly lint` reported), and offline: a guard loaded into the CLI refuses
// and records any connection or name lookup, and the test fails on any.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { buildOpenApiDocument } from '../src/index.js';

const require = createRequire(import.meta.url);
const CLI = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
/** packages/adapters-http/redocly.yaml (this file runs from dist/test). */
const CONFIG = fileURLToPath(new URL('../../redocly.yaml', import.meta.url));

/**
 * Loaded with `--import` into a process: every TCP/TLS connection, UDP send and DNS lookup is
 * refused (it throws) and written to `PETSTORE_NETWORK_LOG`. Unix sockets (a path) stay allowed.
 */
const NETWORK_GUARD = `
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import { appendFileSync } from 'node:fs';
const refuse = (what) => {
  appendFileSync(process.env.PETSTORE_NETWORK_LOG, what + '\\n');
  throw new Error('no network in this test: ' + what);
};
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const options = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof options === 'string' || (typeof options === 'object' && options !== null && typeof options.path === 'string')) return connect.apply(this, args);
  refuse('connect ' + (typeof options === 'object' && options !== null ? (options.host ?? 'localhost') + ':' + options.port : String(options) + ':' + String(args[1])));
};
dgram.Socket.prototype.send = function () { refuse('udp send'); };
for (const api of [dns, dns.promises]) {
  for (const name of ['lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname', 'resolveTxt', 'resolveSrv', 'reverse']) {
    api[name] = (host) => refuse('dns ' + name + ' ' + String(host));
  }
}
`;

/** Runs `node --import <guard> args…` in `dir` with no inherited environment; its stdout and every network attempt. */
const runGuarded = async (
  dir: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ stdout: string; network: string[] }> => {
  const guard = join(dir, 'network-guard.mjs');
  const log = join(dir, 'network.log');
  await writeFile(guard, NETWORK_GUARD);
  await writeFile(log, '');
  const stdout = await new Promise<string>((resolve) => {
    execFile(
      process.execPath,
      ['--import', pathToFileURL(guard).href, ...args],
      {
        cwd: dir,
        env: { PATH: process.env['PATH'] ?? '', HOME: dir, PETSTORE_NETWORK_LOG: log, ...env },
        maxBuffer: 16 * 1024 * 1024,
      },
      (_error, out) => resolve(out),
    );
  });
  return { stdout, network: (await readFile(log, 'utf8')).split('\n').filter((line) => line !== '') };
};

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; message: string; location?: { pointer?: string }[] }[];
}

type Operation = {
  operationId?: string;
  summary?: string;
  parameters?: {
    $ref?: string;
    required?: boolean;
    example?: unknown;
    examples?: unknown;
    schema?: { default?: unknown };
  }[];
  requestBody?: { content: Record<string, { example?: unknown; examples?: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { example?: unknown; examples?: unknown }> }>;
};

const operations = (doc: Record<string, unknown>): [string, Operation][] =>
  Object.entries(doc['paths'] as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(method))
      .map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
  );

const hasExample = (media: { example?: unknown; examples?: unknown } | undefined): boolean =>
  media !== undefined && (media.example !== undefined || media.examples !== undefined);

describe('the OpenAPI document (docs/rules.md §2)', function () {
  this.timeout(60_000);

  it('lints clean with @redocly/cli lint: no errors, no warnings (recommended rules), with no network call', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(buildOpenApiDocument(), null, 2));
      // No telemetry, no update check (the config says so too): nothing leaves this machine.
      const { stdout, network } = await runGuarded(dir, [CLI, 'lint', file, '--config', CONFIG, '--format=json'], {
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        CI: 'true',
      });
      expect(network, 'connections and lookups the CLI tried').to.deep.equal([]);
      expect(stdout.trim(), 'a JSON report').to.match(/^\{/);
      const report = JSON.parse(stdout) as LintReport;
      const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);
      expect(problems).to.deep.equal([]);
      expect(report.totals).to.deep.equal({ errors: 0, warnings: 0, ignored: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('redocly.yaml extends the recommended rules and changes none of them (no `rules`, no ignore file)', async () => {
    const config = await readFile(CONFIG, 'utf8');
    const keys = config
      .split('\n')
      .filter((line) => /^[A-Za-z]/.test(line))
      .map((line) => line.replace(/:.*$/, ''));
    expect(keys).to.deep.equal(['extends', 'telemetry']);
    expect(config).to.match(/^extends:\n {2}- recommended\n/m);
    expect(config).to.match(/^telemetry: off$/m);
    const ignoreFile = fileURLToPath(new URL('../../.redocly.lint-ignore.yaml', import.meta.url));
    expect(
      await readFile(ignoreFile, 'utf8').then(
        () => 'present',
        () => 'absent',
      ),
    ).to.equal('absent');
  });

  it('the network guard works: it refuses and records a connection (to a closed loopback port) and a name lookup', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-guard-'));
    try {
      const script =
        "await fetch('http://127.0.0.1:65535/').catch(() => {}); await import('node:dns').then((dns) => dns.promises.lookup('localhost')).catch(() => {});";
      const { network } = await runGuarded(dir, ['--input-type=module', '-e', script]);
      expect(network).to.deep.equal(['connect 127.0.0.1:65535', 'dns lookup localhost']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('every operation has a summary, an example request (body, and each required parameter) and an example response', () => {
    const doc = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Record<string, unknown>;
    const components = doc['components'] as {
      responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
    };
    const ops = operations(doc);
    expect(ops.length).to.be.greaterThan(0);
    for (const [name, op] of ops) {
      expect(op.summary, `${name}: summary`).to.be.a('string').and.not.equal('');
      if (op.requestBody !== undefined) {
        for (const [type, media] of Object.entries(op.requestBody.content))
          expect(hasExample(media), `${name}: example of its ${type} body`).to.equal(true);
      }
      for (const parameter of op.parameters ?? []) {
        if (parameter.$ref !== undefined || parameter.required !== true) continue;
        expect(parameter.example ?? parameter.examples, `${name}: example of a required parameter`).not.to.equal(
          undefined,
        );
      }
      const examples = Object.entries(op.responses).filter(([, response]) => {
        const resolved = response.$ref === undefined ? response : components.responses[response.$ref.split('/').pop()!];
        return Object.values(resolved?.content ?? {}).some(hasExample);
      });
      // A success without a body (204) has nothing to show.
      if (op.responses['204'] !== undefined) continue;
      expect(
        examples.map(([status]) => status).filter((s) => /^2/.test(s)),
        `${name}: an example of its success answer`,
      ).to.have.length.greaterThan(0);
    }
  });

  it('an idempotent create documents Idempotency-Key, 409 and 422, and Idempotent-Replayed', () => {
    const doc = JSON.parse(JSON.stringify(buildOpenApiDocument())) as {
      paths: Record<string, Record<string, Operation & { responses: Record<string, { headers?: object }> }>>;
    };
    const create = doc.paths['/pets']!['post']!;
    expect(create.parameters).to.deep.include({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(create.responses).to.include.keys('409', '422');
    expect(create.responses['201']!.headers).to.have.property('Idempotent-Replayed');
    expect(doc.paths['/pets']!['get']!.parameters).not.to.deep.include({
      $ref: '#/components/parameters/IdempotencyKey',
    });
  });
});

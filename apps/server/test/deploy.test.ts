// The production path (docs/running.md "Running in production"): build once, `pnpm deploy --prod` the
// server into a folder of its own, start it there with plain `node`, no devDependency present.
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './hardening/support.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  packageManager: string;
  devDependencies: Record<string, string>;
};

/**
 * The development tools: every devDependency of the workspace (root and packages) that no workspace
 * package needs in production (`koa` is the root's devDependency and the HTTP adapter's
 * dependency), type packages aside (`@types/koa` is a dependency and brings `@types/node`).
 */
const developmentOnly = (): string[] => {
  const dev = new Set(Object.keys(rootPackage.devDependencies));
  const production = new Set<string>();
  for (const dir of ['packages', 'apps']) {
    for (const name of readdirSync(join(ROOT, dir))) {
      const file = join(ROOT, dir, name, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
        devDependencies?: Record<string, string>;
        dependencies?: Record<string, string>;
      };
      for (const d of Object.keys(pkg.devDependencies ?? {})) dev.add(d);
      for (const d of Object.keys(pkg.dependencies ?? {})) production.add(d);
    }
  }
  return [...dev].filter((d) => !production.has(d) && !d.startsWith('@types/') && !d.startsWith('@petstore/'));
};

describe('production start: pnpm deploy --prod into a folder, started with plain node @external', function () {
  this.timeout(120_000);
  let dir: string | undefined;

  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('the deployed folder holds the compiled workspace packages and no devDependency, and serves /healthz and /v1/openapi.json', async () => {
    expect(existsSync(join(ROOT, 'apps/server/dist/src/main.js')), 'built first (tsc -b)').to.equal(true);
    dir = mkdtempSync(join(tmpdir(), 'petstore-deploy-'));
    const target = join(dir, 'app');
    // docs/running.md's command, with the pnpm of packageManager (as `npx --yes pnpm@…` everywhere else).
    const deployed = spawnSync(
      'npx',
      ['--yes', rootPackage.packageManager, '--filter', '@petstore/server', 'deploy', '--prod', target],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 90_000,
      },
    );
    expect(deployed.status, `${deployed.stdout}\n${deployed.stderr}`).to.equal(0);

    // What `node dist/src/main.js` needs, and nothing of the development tools.
    expect(existsSync(join(target, 'dist/src/main.js'))).to.equal(true);
    expect(existsSync(join(target, 'src')), 'sources are not deployed').to.equal(false);
    expect(existsSync(join(target, 'dist/test')), 'tests are not deployed').to.equal(false);
    for (const name of ['domain', 'adapters-http', 'adapters-memory', 'adapters-mongo']) {
      expect(
        existsSync(join(target, 'node_modules/@petstore', name, 'dist/src/index.js')),
        `@petstore/${name} compiled, in node_modules`,
      ).to.equal(true);
    }
    const installed = readdirSync(join(target, 'node_modules/.pnpm'));
    const tools = developmentOnly();
    expect(tools, 'the tools looked for').to.include.members(['typescript', 'mocha', 'chai', 'fast-check']);
    for (const dev of tools) {
      const stem = `${dev.replace('/', '+')}@`;
      expect(
        installed.filter((entry) => entry.startsWith(stem)),
        `devDependency ${dev} is not deployed`,
      ).to.deep.equal([]);
    }

    // Plain node, in that folder, with nothing but the settings.
    const child = spawn(process.execPath, [join(target, 'dist/src/main.js')], {
      cwd: target,
      env: {
        PATH: process.env['PATH'] ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        NODE_ENV: 'production',
        PETSTORE_API_KEYS: 'deploy-smoke-key:pro',
      },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => /"msg":"listening"/.test(out) || child.exitCode !== null, 'the listening line', 20_000);
      expect(out, err).to.match(/"msg":"listening"/);
      const url = /"url":"([^"]+)"/.exec(out)![1]!;
      const health = await fetch(`${url}/healthz`);
      expect(health.status).to.equal(200);
      expect(await health.json()).to.deep.equal({ status: 'ok' });
      const openapi = await fetch(`${url}/v1/openapi.json`);
      expect(openapi.status).to.equal(200);
      expect(((await openapi.json()) as { openapi?: string }).openapi).to.match(/^3\.1\./);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, err).to.equal(0);
  });
});

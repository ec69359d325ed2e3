// The packages as an outsider gets them: each of the five packs (`pnpm pack`) into a tarball with
// compiled JavaScript, types, sources for its maps, a README, the license, an exports map and real
// version ranges; the tarballs install with plain npm into a new project outside the workspace,
// and there docs/embedding.md's examples run as written: embedding the domain, a third adapter under the
// exported contract suite (which a planted bug makes fail), the typed client against the server,
// the HTTP adapter's own server, and (with MONGODB_URI) the MongoDB stores. A TypeScript file of
// that project is type-checked against the installed declarations.
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const MAIN = join(ROOT, 'apps/server/dist/src/main.js');
const PACKAGES = ['domain', 'adapters-memory', 'adapters-mongo', 'adapters-http', 'client'] as const;
const SKIPPED = 'pack-and-install: SKIPPED';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end (never throws for a non-zero exit). */
const run = (
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Run> =>
  new Promise((done) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });

/** A README's marked block: `<!-- NAME:start … -->` then one fenced block, then `<!-- NAME:end -->`. */
const block = (readme: string, name: string): string => {
  const found = new RegExp(
    `<!-- ${name}:start[^>]*-->\\s*\`\`\`\\w+\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`,
  ).exec(readme);
  if (found === null) throw new Error(`no block ${name}`);
  return found[1]!;
};

/** What an example prints, by its own comments: the comment at the end of each `console.log(…)` line. */
const printed = (code: string): string =>
  code
    .split('\n')
    .filter((line) => line.includes('console.log('))
    .map((line) => /\/\/ (.*)$/.exec(line)?.[1] ?? '')
    .join(' ');
const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Every file under `dir`, relative to it, with `/` separators. */
const filesUnder = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'));

/** npm failed for want of a network (no registry reachable), not because of the packages. */
const NO_NETWORK =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b|network connectivity/;

/** Starts `node <file>` and resolves with the first match of `ready` in its output. */
const start = (
  file: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> =>
  new Promise((resolveStart, reject) => {
    const child = spawn(process.execPath, [file], { cwd, env: { PATH: process.env['PATH'] ?? '', ...env } });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${file} did not start: ${output.slice(0, 2000)}`)), 20_000);
    const look = (data: Buffer) => {
      output += data.toString();
      const match = ready.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolveStart({ child, match, output: () => output });
      }
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) =>
      reject(new Error(`${file} exited (${String(code)}) before it was ready: ${output.slice(0, 2000)}`)),
    );
  });

const stop = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
};

describe('the packages, packed and installed outside the workspace (docs/embedding.md: The packages, outside this workspace) @external', function () {
  this.timeout(120_000);

  /** The guide whose examples run here: docs/embedding.md. */
  const readme = () => readFile(join(ROOT, 'docs', 'embedding.md'), 'utf8');
  let dir = '';
  let tarballs = '';
  let project = '';
  /** Each package's tarball unpacked: `<dir>/unpacked/<package>/package/…`. */
  let unpacked = '';
  /** Why the tarballs (`packed`) or the project (`installed`) are missing: no registry to fetch from. */
  const skipped: { packed?: string; installed?: string } = {};
  const unreachable = (stderr: string, step: 'packed' | 'installed'): void => {
    const reason = `${SKIPPED}, the npm registry is unreachable (${NO_NETWORK.exec(stderr)![0]})`;
    skipped.installed = reason;
    if (step === 'packed') skipped.packed = reason;
  };
  /** Skips the tests of a block when what they need is missing, saying why in their title. */
  const needs = (step: 'packed' | 'installed') =>
    beforeEach(function () {
      const reason = skipped[step];
      if (reason === undefined) return;
      this.currentTest!.title = `${this.currentTest!.title} — ${reason}`;
      this.skip();
    });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'petstore-pack-'));
    tarballs = join(dir, 'packages');
    project = join(dir, 'project');
    unpacked = join(dir, 'unpacked');
    await Promise.all([mkdir(tarballs), mkdir(project), mkdir(unpacked)]);
    // docs/embedding.md's steps: one `pnpm pack` per package into one folder.
    const packs = await Promise.all(
      PACKAGES.map((p) =>
        run('npx', ['--yes', 'pnpm@12.18.0', 'pack', '--pack-destination', tarballs], {
          cwd: join(ROOT, 'packages', p),
        }),
      ),
    );
    for (const [i, packed] of packs.entries()) {
      // npx fetches the pinned pnpm when it is not in npm's cache yet.
      if (packed.code !== 0 && NO_NETWORK.test(packed.stderr)) return unreachable(packed.stderr, 'packed');
      expect(packed.code, `pnpm pack of ${PACKAGES[i]}: ${packed.stderr}`).to.equal(0);
    }
    for (const p of PACKAGES) {
      await mkdir(join(unpacked, p));
      const untar = await run('tar', ['-xzf', join(tarballs, `petstore-${p}-1.0.0.tgz`), '-C', join(unpacked, p)], {
        cwd: dir,
      });
      expect(untar.code, untar.stderr).to.equal(0);
    }
    // A new project with plain npm: the five tarballs, and what the contract suites need beside.
    const rootPackage = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    const peers = ['mocha', 'chai', 'fast-check'].map((name) => `${name}@${rootPackage.devDependencies[name]!}`);
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'outsider', private: true, type: 'module' }, null, 2),
    );
    const install = await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--ignore-scripts',
        ...PACKAGES.map((p) => join(tarballs, `petstore-${p}-1.0.0.tgz`)),
        ...peers,
      ],
      // --ignore-scripts and SCARF_ANALYTICS: @scarf/scarf (under swagger-ui-dist) reports installs to a server; never here.
      { cwd: project, env: { SCARF_ANALYTICS: 'false', npm_config_update_notifier: 'false' }, timeoutMs: 100_000 },
    );
    if (install.code !== 0 && NO_NETWORK.test(install.stderr)) return unreachable(install.stderr, 'installed');
    expect(install.code, `npm install: ${install.stderr.slice(-3000)}`).to.equal(0);
  });

  after(async () => {
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  it('docs/embedding.md packs and installs with the very commands this test runs', async () => {
    const steps = block(await readme(), 'example:pack');
    expect(steps).to.contain(`for p in ${PACKAGES.join(' ')}; do`);
    expect(steps).to.contain(
      '(cd packages/$p && npx --yes pnpm@12.18.0 pack --pack-destination /tmp/petstore-packages)',
    );
    expect(steps).to.match(/^npm install \/tmp\/petstore-packages\/petstore-domain-1\.0\.0\.tgz/m);
  });

  describe('each tarball', () => {
    needs('packed');

    for (const p of PACKAGES) {
      it(`${p}: compiled JavaScript and types behind an exports map, README, LICENSE, real version ranges, no test file, no map pointing at a missing file`, async () => {
        const base = join(unpacked, p, 'package');
        const files = await filesUnder(base);
        const manifestText = await readFile(join(base, 'package.json'), 'utf8');
        const manifest = JSON.parse(manifestText) as {
          name: string;
          exports: Record<string, { types: string; default: string }>;
          dependencies?: Record<string, string>;
          peerDependencies?: Record<string, string>;
          peerDependenciesMeta?: Record<string, { optional?: boolean }>;
          license: string;
          engines: { node: string };
        };
        expect(manifest.name).to.equal(`@petstore/${p}`);
        expect(manifest.license).to.equal('MIT');
        expect(manifest.engines.node).to.equal('>=20.19.0');
        expect(manifestText, 'pnpm replaced every workspace: range').not.to.contain('workspace:');
        for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
          expect(range, `${name}: a version range`).to.match(/^\^?\d+\.\d+\.\d+$/);
          if (name.startsWith('@petstore/')) expect(range).to.equal('^1.0.0');
        }
        expect(files).to.include.members([
          'package.json',
          'README.md',
          'LICENSE',
          'dist/src/index.js',
          'dist/src/index.d.ts',
        ]);
        for (const [entry, target] of Object.entries(manifest.exports)) {
          for (const path of [target.types, target.default])
            expect(files, `exports ${entry}`).to.include(path.replace(/^\.\//, ''));
        }
        const strays = files.filter((f) => /(^|\/)test\/|\.test\.|tsbuildinfo|tsconfig|(^|\/)codegen\//.test(f));
        expect(strays, 'tests, build state and generators stay home').to.deep.equal([]);
        // Every source map and every map reference resolves inside the tarball (the sources ship).
        for (const file of files.filter((f) => /\.(js|d\.ts)$/.test(f))) {
          const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(await readFile(join(base, file), 'utf8'))?.[1];
          if (url !== undefined)
            expect(files, `${file} → ${url}`).to.include(join(dirname(file), url).split('\\').join('/'));
        }
        const maps = files.filter((f) => f.endsWith('.map'));
        expect(maps.length).to.be.greaterThan(0);
        for (const map of maps) {
          const { sources } = JSON.parse(await readFile(join(base, map), 'utf8')) as { sources: string[] };
          for (const source of sources)
            expect(files, `${map} → ${source}`).to.include(
              relative(base, resolve(base, dirname(map), source))
                .split('\\')
                .join('/'),
            );
        }
        // The license: MIT, the same text in every package (and at the root, where it is).
        const license = await readFile(join(base, 'LICENSE'), 'utf8');
        expect(license).to.match(/^MIT License\n\nCopyright \(c\) 2026 The Animal Adoption Store authors\n/);
        expect(license).to.equal(await readFile(join(unpacked, 'domain', 'package', 'LICENSE'), 'utf8'));
        if (existsSync(join(ROOT, 'LICENSE'))) expect(license).to.equal(await readFile(join(ROOT, 'LICENSE'), 'utf8'));
        if (p === 'domain') {
          expect(manifest.exports).to.have.keys('.', './testing');
          expect(Object.keys(manifest.peerDependencies ?? {})).to.have.members(['mocha', 'chai', 'fast-check']);
          for (const peer of ['mocha', 'chai', 'fast-check'])
            expect(manifest.peerDependenciesMeta?.[peer]?.optional, `${peer}: only ./testing needs it`).to.equal(true);
          expect(manifest.dependencies ?? {}, 'no runtime dependency').to.deep.equal({});
        }
      });
    }

    it("the packages' README examples are docs/embedding.md's, word for word", async () => {
      const root = await readme();
      for (const [p, names] of [
        ['domain', ['embed-example', 'example:third-adapter']],
        ['adapters-memory', ['embed-example']],
        ['client', ['example:client']],
      ] as const) {
        const own = await readFile(join(unpacked, p, 'package', 'README.md'), 'utf8');
        for (const name of names) expect(block(own, name), `${p}: ${name}`).to.equal(block(root, name));
      }
    });
  });

  describe('in a new npm project outside the workspace', () => {
    needs('installed');

    it("(a) docs/embedding.md's embedding example runs there and prints what its comments say", async () => {
      const code = block(await readme(), 'embed-example');
      await writeFile(join(project, 'embed.mjs'), code);
      const result = await run(process.execPath, ['embed.mjs'], { cwd: project });
      expect(result.code, result.stderr).to.equal(0);
      expect(squash(result.stdout)).to.equal(squash(printed(code)));
    });

    describe('(b) a third adapter under the exported contract suite (docs/embedding.md: A third adapter under the contract suite)', () => {
      const mocha = (file: string) =>
        run(process.execPath, ['node_modules/mocha/bin/mocha.js', '--timeout', '20000', file], {
          cwd: project,
          timeoutMs: 100_000,
        });

      it('passes the PetRepository contract suite', async () => {
        await writeFile(join(project, 'map-pet-repository.test.mjs'), block(await readme(), 'example:third-adapter'));
        const result = await mocha('map-pet-repository.test.mjs');
        expect(result.code, result.stdout.slice(-3000) + result.stderr).to.equal(0);
        expect(result.stdout)
          .to.match(/PetRepository contract: MapPetRepository/)
          .and.not.match(/failing|pending/);
        expect(Number(/(\d+) passing/.exec(result.stdout)?.[1]), 'the whole suite ran').to.be.at.least(5);
      });

      it('fails it with a planted bug: list returns one row too many', async () => {
        const code = block(await readme(), 'example:third-adapter');
        const planted = code.replace('found.length === limit)', 'found.length === limit + 1)');
        expect(planted, 'the bug is planted').to.not.equal(code);
        await writeFile(join(project, 'planted-bug.test.mjs'), planted);
        const result = await mocha('planted-bug.test.mjs');
        expect(result.code).to.not.equal(0);
        expect(result.stdout).to.match(/\d+ failing/);
      });
    });

    it('(c) the typed client calls the server: creates, an idempotent repeat replayed, pages through the iterator, rate limits', async () => {
      const key = `pack-test-${randomBytes(8).toString('hex')}`;
      const server = await start(
        MAIN,
        ROOT,
        { PORT: '0', HOST: '127.0.0.1', PETSTORE_API_KEYS: `${key}:free` },
        /"url":"([^"]+)"/,
      );
      try {
        const code = block(await readme(), 'example:client');
        await writeFile(join(project, 'client.mjs'), code);
        const result = await run(process.execPath, ['client.mjs'], {
          cwd: project,
          env: { PETSTORE_URL: `${server.match[1]!}/v1`, PETSTORE_KEY: key },
        });
        expect(result.code, result.stderr).to.equal(0);
        expect(squash(result.stdout)).to.equal(squash(printed(code)));
      } finally {
        await stop(server.child);
      }
    });

    it("the HTTP adapter's README server starts there and answers", async () => {
      const code = block(
        await readFile(join(unpacked, 'adapters-http', 'package', 'README.md'), 'utf8'),
        'example:http-app',
      );
      await writeFile(join(project, 'server.mjs'), code);
      const server = await start('server.mjs', project, { PORT: '0' }, /listening on (http:\/\/\S+)/);
      try {
        const pets = await fetch(`${server.match[1]!}/v1/pets`, { headers: { Authorization: 'Bearer my-secret-key' } });
        expect(pets.status).to.equal(200);
        expect(await pets.json()).to.deep.equal([]);
        expect(pets.headers.get('ratelimit-policy')).to.equal('"minute";q=60;w=60, "day";q=1000;w=86400');
      } finally {
        await stop(server.child);
      }
    });

    const mongoUri = process.env['MONGODB_URI'];
    if (mongoUri === undefined) {
      it.skip("the MongoDB adapter's README example: skipped, MONGODB_URI is not set");
    } else {
      it("the MongoDB adapter's README example runs there against MONGODB_URI and prints what its comments say", async () => {
        const code = block(
          await readFile(join(unpacked, 'adapters-mongo', 'package', 'README.md'), 'utf8'),
          'example:mongo',
        );
        await writeFile(join(project, 'mongo.mjs'), code);
        const database = `petstore_pack_${randomBytes(4).toString('hex')}`;
        const uri = new URL(mongoUri);
        uri.pathname = `/${database}`;
        try {
          const result = await run(process.execPath, ['mongo.mjs'], {
            cwd: project,
            env: { MONGODB_URI: uri.toString() },
          });
          expect(result.code, result.stderr).to.equal(0);
          expect(squash(result.stdout)).to.equal(squash(printed(code)));
        } finally {
          const client = new MongoClient(mongoUri);
          try {
            await client.db(database).dropDatabase();
          } finally {
            await client.close();
          }
        }
      });
    }

    it('TypeScript there type-checks against the installed declarations (strict, no skipped library check)', async () => {
      await writeFile(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'nodenext',
            target: 'es2023',
            noEmit: true,
            skipLibCheck: false,
            exactOptionalPropertyTypes: true,
          },
          files: ['consumer.ts'],
        }),
      );
      await writeFile(
        join(project, 'consumer.ts'),
        [
          "import { CategoryCatalog, PetCatalog, type Pet, type PetRepository } from '@petstore/domain';",
          "import { ManualClock, SeededRandom, petDraftArb, petRepositoryContract } from '@petstore/domain/testing';",
          "import { CategoryRepositoryInMemory, PetRepositoryInMemory } from '@petstore/adapters-memory';",
          "import { connectMongo, type MongoStores } from '@petstore/adapters-mongo';",
          "import { buildOpenApiDocument, createHttpApp, type HttpApp } from '@petstore/adapters-http';",
          "import { createPetstoreClient, items, readRateLimit, type PetstoreClient } from '@petstore/client';",
          '',
          'export const repository: PetRepository = new PetRepositoryInMemory();',
          'export const catalog = new PetCatalog(repository, new CategoryRepositoryInMemory(), new ManualClock(), new SeededRandom());',
          'export const categories = new CategoryCatalog(new CategoryRepositoryInMemory());',
          'export const suites = [petRepositoryContract, petDraftArb] as const;',
          'export const stores: (uri: string) => Promise<MongoStores> = connectMongo;',
          'export const app: typeof createHttpApp extends (...args: never[]) => HttpApp ? true : false = true;',
          "export const documentVersion: unknown = buildOpenApiDocument()['openapi'];",
          'export const walk = async (client: PetstoreClient): Promise<string[]> => {',
          "  const created = await client.POST('/pets', { body: { name: 'Rex', categoryId: 1 } });",
          '  const pet: Pet | undefined = created.data;',
          '  // @ts-expect-error: a pet needs its categoryId',
          "  await client.POST('/pets', { body: { name: 'Rex' } });",
          '  // @ts-expect-error: no such path',
          "  await client.GET('/animals');",
          '  const names: string[] = [];',
          "  for await (const p of items(client, '/pets', { status: 'available', limit: 10 })) names.push(p.name);",
          '  return [...names, String(pet?.id), String(readRateLimit(created.response)?.remaining)];',
          '};',
          "export const client = createPetstoreClient({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'k', retry: { maxAttempts: 2 } });",
          '',
        ].join('\n'),
      );
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project });
      expect(result.code, result.stdout + result.stderr).to.equal(0);
    });
  });
});

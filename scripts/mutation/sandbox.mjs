// Stryker's build command (stryker.config.json), run inside its sandbox (.stryker-tmp/sandbox-*),
// before the tests: links the sandbox's packages to each other, then compiles them.
//
// pnpm links a workspace package into its dependants' node_modules (`@petstore/domain` in
// packages/adapters-memory/node_modules). Stryker would link each package's node_modules into the
// sandbox as a whole, so the memory adapter's tests would import the ORIGINAL domain, never a
// mutant. Instead (symlinkNodeModules: false) each package gets a node_modules of its own here:
// third-party packages linked to the project's, workspace packages to the sandbox's copies.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

const sandbox = process.cwd();
if (basename(dirname(sandbox)) !== '.stryker-tmp') throw new Error(`run by Stryker in its sandbox, not in ${sandbox}`);
const project = resolve(sandbox, '../..');

/** Links `entry` of the project's `modules` folder into the same place in the sandbox. */
const mirror = (modules, entry) => {
  const from = join(modules, entry);
  const target = lstatSync(from).isSymbolicLink() ? resolve(dirname(from), readlinkSync(from)) : from;
  const real = realpathSync(target);
  const inWorkspace =
    !relative(project, real).startsWith('..') && !relative(project, real).split('/').includes('node_modules');
  const to = join(sandbox, relative(project, from));
  mkdirSync(dirname(to), { recursive: true });
  symlinkSync(inWorkspace ? join(sandbox, relative(project, real)) : real, to);
};

symlinkSync(join(project, 'node_modules'), join(sandbox, 'node_modules'));
for (const group of ['packages', 'apps']) {
  if (!existsSync(join(sandbox, group))) continue;
  for (const name of readdirSync(join(sandbox, group))) {
    const modules = join(project, group, name, 'node_modules');
    if (!existsSync(modules)) continue;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('@'))
        for (const scoped of readdirSync(join(modules, entry))) mirror(modules, join(entry, scoped));
      else mirror(modules, entry);
    }
  }
}

execFileSync('tsc', ['-b', 'packages/domain/test', 'packages/adapters-memory/test'], { stdio: 'inherit' });

// Architecture checks that the compiler cannot make (part of `pnpm lint` and `pnpm test`):
// the domain imports nothing outside itself, adapters import only the domain, only the server
// knows Inversify, the client knows the service by HTTP only, the domain has no runtime dependency, and no test is left as `.only`.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const problems = [];

const files = (dir, pattern) => {
  const out = [];
  let entries = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path, pattern));
    else if (pattern.test(name)) out.push(path);
  }
  return out;
};
const imports = (file) =>
  [
    ...readFileSync(file, 'utf8').matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
    ),
  ].map((m) => m[1] ?? m[2]);

for (const file of files(join(root, 'packages/domain/src'), /\.ts$/)) {
  for (const spec of imports(file)) {
    if (!spec.startsWith('.'))
      problems.push(`${relative(root, file)}: the domain imports '${spec}'; it may import only its own files`);
  }
}
for (const pkg of ['adapters-memory', 'adapters-mongo', 'adapters-http', 'adapters-sharp', 'adapters-webhooks']) {
  for (const file of files(join(root, 'packages', pkg, 'src'), /\.ts$/)) {
    for (const spec of imports(file)) {
      if (spec.startsWith('@petstore/') && spec !== '@petstore/domain') {
        problems.push(`${relative(root, file)}: an adapter imports '${spec}'; adapters depend on the domain only`);
      }
      if (/^(inversify|reflect-metadata|@inversifyjs\/)/.test(spec)) {
        problems.push(`${relative(root, file)}: '${spec}' belongs to apps/server only`);
      }
    }
  }
}
// The client speaks to the service over HTTP only (its types come from the OpenAPI document), and
// runs wherever fetch does: no workspace package, no Node module.
for (const file of files(join(root, 'packages/client/src'), /\.ts$/)) {
  for (const spec of imports(file)) {
    if (spec.startsWith('@petstore/') || spec.startsWith('node:'))
      problems.push(
        `${relative(root, file)}: the client imports '${spec}'; it knows the service by its OpenAPI document only`,
      );
  }
}
const domainPkg = JSON.parse(readFileSync(join(root, 'packages/domain/package.json'), 'utf8'));
if (Object.keys(domainPkg.dependencies ?? {}).length > 0)
  problems.push('packages/domain/package.json has runtime dependencies');

for (const file of [...files(join(root, 'packages'), /\.ts$/), ...files(join(root, 'apps'), /\.ts$/)]) {
  if (/\b(?:it|describe|context)\.only\(/.test(readFileSync(file, 'utf8')))
    problems.push(`${relative(root, file)}: .only( silences the other tests`);
}

if (problems.length > 0) {
  for (const p of problems) console.error(`boundary check: ${p}`);
  process.exit(1);
}

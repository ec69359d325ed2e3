// The client's committed types are what the current OpenAPI document generates: change the
// document, and this fails until `pnpm --filter @petstore/client generate` is run.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** packages/client/codegen/generate.mjs (this file runs from dist/test). */
const GENERATOR = fileURLToPath(new URL('../../codegen/generate.mjs', import.meta.url));
const GENERATED = new URL('../../src/generated/', import.meta.url);

describe('@petstore/client: the generated types', function () {
  this.timeout(60_000);

  it('the committed src/generated/ files are exactly what the served OpenAPI document generates now', async () => {
    const { generateClientSources } = (await import(pathToFileURL(GENERATOR).href)) as { generateClientSources: () => Promise<Record<string, string>> };
    const fresh = await generateClientSources();
    expect(Object.keys(fresh)).to.have.members(['openapi.ts', 'idempotent-creates.ts']);
    for (const [name, text] of Object.entries(fresh)) {
      const committed = await readFile(new URL(name, GENERATED), 'utf8');
      expect(committed === text, `src/generated/${name} is stale: run \`npx --yes pnpm@12.18.0 --filter @petstore/client generate\``).to.equal(true);
    }
  });

  it('the generated creates are the operations that take an Idempotency-Key (docs/rules.md §10)', async () => {
    const { IDEMPOTENT_CREATES } = await import('../src/index.js');
    expect(IDEMPOTENT_CREATES.map((c) => `${c.method} ${c.path}`)).to.include.members(['POST /pets', 'POST /categories', 'POST /store/orders']);
    expect(IDEMPOTENT_CREATES.map((c) => c.path)).not.to.include('/admin/keys');
  });
});

// The client's committed types are what the current OpenAPI document generates: change the
// document, and this fails until `pnpm --filter @petstore/client generate` is run.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { components } from '../src/index.js';

/** packages/client/codegen/generate.mjs (this file runs from dist/test). */
const GENERATOR = fileURLToPath(new URL('../../codegen/generate.mjs', import.meta.url));
const GENERATED = new URL('../../src/generated/', import.meta.url);

describe('@petstore/client: the generated types', function () {
  this.timeout(60_000);

  it('the committed src/generated/ files are exactly what the served OpenAPI document generates now', async () => {
    const { generateClientSources } = (await import(pathToFileURL(GENERATOR).href)) as {
      generateClientSources: () => Promise<Record<string, string>>;
    };
    const fresh = await generateClientSources();
    expect(Object.keys(fresh)).to.have.members(['openapi.ts', 'idempotent-creates.ts']);
    for (const [name, text] of Object.entries(fresh)) {
      const committed = await readFile(new URL(name, GENERATED), 'utf8');
      expect(
        committed === text,
        `src/generated/${name} is stale: run \`npx --yes pnpm@12.18.0 --filter @petstore/client generate\``,
      ).to.equal(true);
    }
  });

  it('the generated creates are the operations that take an Idempotency-Key (docs/rules.md §10)', async () => {
    const { IDEMPOTENT_CREATES } = await import('../src/index.js');
    expect(IDEMPOTENT_CREATES.map((c) => `${c.method} ${c.path}`)).to.include.members([
      'POST /pets',
      'POST /categories',
      'POST /store/orders',
    ]);
    expect(IDEMPOTENT_CREATES.map((c) => c.path)).not.to.include('/admin/keys');
  });

  it('the key bodies are unions told apart by plan (docs/rules.md §9): numbers only, and both, with enterprise (the compiler checks the lines marked)', () => {
    type NewApiKey = components['schemas']['NewApiKey'];
    type ApiKeyPatch = components['schemas']['ApiKeyPatch'];
    const quotaOf = (key: NewApiKey): string =>
      key.plan === 'enterprise' ? `${key.perMinute}/${key.perDay}` : key.plan;
    const made: NewApiKey[] = [
      { plan: 'pro', label: 'CI' },
      { plan: 'enterprise', perMinute: 5, perDay: 8 },
    ];
    // @ts-expect-error numbers with a fixed plan
    made.push({ plan: 'pro', perMinute: 5, perDay: 8 });
    // @ts-expect-error enterprise without its numbers
    made.push({ plan: 'enterprise', perMinute: 5 });
    const changes: ApiKeyPatch[] = [
      { plan: 'business' },
      { plan: 'enterprise', perDay: 8 },
      { perDay: 8 },
      { label: 'staging' },
    ];
    // @ts-expect-error a number with a change to a fixed plan
    changes.push({ plan: 'free', perDay: 8 });
    expect(made.slice(0, 2).map(quotaOf)).to.deep.equal(['pro', '5/8']);
    expect(changes).to.have.length(5);
  });
});

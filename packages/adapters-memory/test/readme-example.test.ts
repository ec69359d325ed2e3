import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const README = fileURLToPath(new URL('../../../../docs/embedding.md', import.meta.url));
// Written beside this compiled test so that '@petstore/domain' and '@petstore/adapters-memory' resolve.
const SCRIPT = fileURLToPath(new URL('./readme-example.generated.mjs', import.meta.url));

describe('docs/embedding.md: embedding the domain', () => {
  it('runs the example and prints what its comments say', async () => {
    const readme = await readFile(README, 'utf8');
    const block = /<!-- embed-example:start[^>]*-->\s*```js\n([\s\S]*?)```\s*<!-- embed-example:end -->/.exec(readme);
    expect(block, 'the marked example block').to.not.equal(null);
    const code = block![1]!;
    expect(code.trim().split('\n').length, 'a ten-line example').to.be.at.most(10);
    await writeFile(SCRIPT, code);
    const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT]);
    const expected = [...code.matchAll(/\/\/ (.*)$/gm)].map((m) => m[1]!.trim()).join(' ');
    const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
    expect(squash(stdout)).to.equal(squash(expected));
  });
});

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const DOC = fileURLToPath(new URL('../../../../docs/embedding.md', import.meta.url));
// Written beside this compiled test so that '@petstore/domain' and '@petstore/adapters-memory' resolve.
const SCRIPT = fileURLToPath(new URL('./events-example.generated.mjs', import.meta.url));

describe('docs/embedding.md: reacting to events in-process (docs/rules.md §15)', () => {
  it('runs the example: it hears of the delivery, after the events before it, and prints what its comments say', async () => {
    const doc = await readFile(DOC, 'utf8');
    const block = /<!-- events-example:start[^>]*-->\s*```js\n([\s\S]*?)```\s*<!-- events-example:end -->/.exec(doc);
    expect(block, 'the marked example block').to.not.equal(null);
    const code = block![1]!;
    await writeFile(SCRIPT, code);
    const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT], { timeout: 30_000 });
    // The printed lines: each the comment at the end of the `console.log` line that prints it.
    const expected = [...code.matchAll(/console\.log\(.*;[ \t]+\/\/ (.*)$/gm)].map((m) => m[1]!.trim());
    expect(expected).to.have.length(2);
    expect(stdout.trim().split('\n')).to.deep.equal(expected);
  });
});

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MODULE = fileURLToPath(new URL('../src/log-destination.js', import.meta.url));

/** Runs `script` in a child process with `createServerLogger` in scope; resolves with its stdout. */
const runWithLogger = (script: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const program = `import { createServerLogger } from ${JSON.stringify(MODULE)};\n${script}`;
    execFile(process.execPath, ['--input-type=module', '-e', program], { timeout: 10_000 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
  });

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { msg: string; n?: number });

describe('the server log destination (lines written in batches)', () => {
  it('a lone line reaches stdout on its own, within the batch delay, while the process keeps running', async () => {
    const out = await runWithLogger(`
      const logger = createServerLogger('info');
      logger.info({ n: 1 }, 'alone');
      setTimeout(() => { process.stderr.write('still running'); }, 1_000);
      await new Promise((r) => setTimeout(r, 1_200));
    `);
    expect(lines(out).map((l) => l.msg)).to.deep.equal(['alone']);
  });

  it('every line is written, in order, when the process exits at once after logging (process.exit)', async () => {
    const out = await runWithLogger(`
      const logger = createServerLogger('info');
      for (let n = 0; n < 5_000; n++) logger.info({ n }, 'line');
      process.exit(0);
    `);
    const got = lines(out);
    expect(got).to.have.length(5_000);
    expect(got.every((l, i) => l.n === i)).to.equal(true);
  });

  it('logger.flush writes what is pending before calling back', async () => {
    const out = await runWithLogger(`
      const logger = createServerLogger('info');
      logger.info({}, 'before flush');
      logger.flush(() => { process.stdout.write('{"msg":"flushed"}\\n'); setTimeout(() => process.exit(0), 200); });
    `);
    expect(lines(out).map((l) => l.msg)).to.deep.equal(['before flush', 'flushed']);
  });

  it('the request line goes to the same destination, in order with the other lines, and only where the level lets info through', async () => {
    const fields =
      "{ requestId: 'r1', method: 'GET', route: 'GET /v1/pets', status: 200, durationMs: 1.5, subject: 'key_0123456789ab' }";
    const atInfo = await runWithLogger(`
      const logger = createServerLogger('info');
      logger.info({}, 'first');
      logger.request(${fields});
      logger.info({}, 'last');
      process.exit(0);
    `);
    expect(lines(atInfo).map((l) => l.msg)).to.deep.equal(['first', 'request', 'last']);
    const atWarn = await runWithLogger(`
      const logger = createServerLogger('warn');
      logger.request(${fields});
      logger.warn({}, 'only this');
      process.exit(0);
    `);
    expect(lines(atWarn).map((l) => l.msg)).to.deep.equal(['only this']);
  });
});

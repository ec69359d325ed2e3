import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The repository root, from apps/server/dist/test/hardening/.
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

interface LoadSummary {
  readonly ok: boolean;
  readonly requests: {
    readonly total: number;
    readonly '5xx': number;
    readonly connectionErrors: number;
    readonly timeouts: number;
  };
  readonly serverExitCode: number | null;
}

describe('hardening: a short load run (the load script, a few seconds)', function () {
  this.timeout(60_000);

  it('scripts/load/run.mjs for 4 s at 300 requests/s: no 5xx, no connection error, no crash, clean stop', async () => {
    const child = spawn(process.execPath, ['scripts/load/run.mjs'], {
      cwd: ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        LOAD_DURATION: '4',
        LOAD_RATE: '300',
        LOAD_CONNECTIONS: '20',
        LOAD_SAMPLE_SECONDS: '1',
        LOAD_JSON: '1',
      },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const summary = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as LoadSummary;
    expect(summary.requests['5xx'], err).to.equal(0);
    expect(summary.requests.connectionErrors).to.equal(0);
    expect(summary.requests.timeouts).to.equal(0);
    expect(summary.requests.total).to.be.greaterThan(100);
    expect(summary.serverExitCode, 'the server stopped cleanly').to.equal(0);
    expect(summary.ok).to.equal(true);
    expect(code).to.equal(0);
  });
});

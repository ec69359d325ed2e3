// docs/rules.md §2: the OpenAPI document lints clean with `@redocly/cli lint` (no errors, no
// warnings), and every operation has an example request and response. Runs on whatever the
// generated document holds.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { buildOpenApiDocument } from '../src/index.js';

const require = createRequire(import.meta.url);
const CLI = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
/** packages/adapters-http/redocly.yaml (this file runs from dist/test). */
const CONFIG = fileURLToPath(new URL('../../redocly.yaml', import.meta.url));

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; message: string; location?: { pointer?: string }[] }[];
}

type Operation = {
  operationId?: string;
  summary?: string;
  parameters?: { $ref?: string; required?: boolean; example?: unknown; examples?: unknown; schema?: { default?: unknown } }[];
  requestBody?: { content: Record<string, { example?: unknown; examples?: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { example?: unknown; examples?: unknown }> }>;
};

const operations = (doc: Record<string, unknown>): [string, Operation][] =>
  Object.entries(doc['paths'] as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(method))
      .map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
  );

const hasExample = (media: { example?: unknown; examples?: unknown } | undefined): boolean => media !== undefined && (media.example !== undefined || media.examples !== undefined);

describe('the OpenAPI document (docs/rules.md §2)', function () {
  this.timeout(60_000);

  it('lints clean with @redocly/cli lint: no errors, no warnings (recommended rules)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(buildOpenApiDocument(), null, 2));
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          [CLI, 'lint', file, '--config', CONFIG, '--format=json'],
          // No telemetry, no update check: nothing leaves this machine.
          { env: { PATH: process.env['PATH'] ?? '', HOME: dir, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' }, maxBuffer: 16 * 1024 * 1024 },
          (error, out) => (out.trim().startsWith('{') ? resolve(out) : reject(error ?? new Error(`no JSON report: ${out.slice(0, 500)}`))),
        );
      });
      const report = JSON.parse(stdout) as LintReport;
      const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);
      expect(problems).to.deep.equal([]);
      expect(report.totals).to.deep.equal({ errors: 0, warnings: 0, ignored: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('every operation has a summary, an example request (body, and each required parameter) and an example response', () => {
    const doc = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Record<string, unknown>;
    const components = doc['components'] as { responses: Record<string, { content?: Record<string, { example?: unknown }> }> };
    const ops = operations(doc);
    expect(ops.length).to.be.greaterThan(0);
    for (const [name, op] of ops) {
      expect(op.summary, `${name}: summary`).to.be.a('string').and.not.equal('');
      if (op.requestBody !== undefined) {
        for (const [type, media] of Object.entries(op.requestBody.content)) expect(hasExample(media), `${name}: example of its ${type} body`).to.equal(true);
      }
      for (const parameter of op.parameters ?? []) {
        if (parameter.$ref !== undefined || parameter.required !== true) continue;
        expect(parameter.example ?? parameter.examples, `${name}: example of a required parameter`).not.to.equal(undefined);
      }
      const examples = Object.entries(op.responses).filter(([, response]) => {
        const resolved = response.$ref === undefined ? response : components.responses[response.$ref.split('/').pop()!];
        return Object.values(resolved?.content ?? {}).some(hasExample);
      });
      // A success without a body (204) has nothing to show.
      if (op.responses['204'] !== undefined) continue;
      expect(examples.map(([status]) => status).filter((s) => /^2/.test(s)), `${name}: an example of its success answer`).to.have.length.greaterThan(0);
    }
  });

  it('the creates of IDEMPOTENT_CREATES document Idempotency-Key, 409 and 422, and Idempotent-Replayed', () => {
    const doc = JSON.parse(JSON.stringify(buildOpenApiDocument())) as { paths: Record<string, Record<string, Operation & { responses: Record<string, { headers?: object }> }>> };
    const create = doc.paths['/pets']!['post']!;
    expect(create.parameters).to.deep.include({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(create.responses).to.include.keys('409', '422');
    expect(create.responses['201']!.headers).to.have.property('Idempotent-Replayed');
    expect(doc.paths['/pets']!['get']!.parameters).not.to.deep.include({ $ref: '#/components/parameters/IdempotencyKey' });
  });
});

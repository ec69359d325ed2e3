// docs/rules.md §11: GET /docs, its files served by the service, a CSP naming no other host; and
// the page tested in a real browser (Debian's chromium driven by playwright-core).
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { buildOpenApiDocument, DOCS_CSP } from '../src/index.js';
import { testImage } from '@petstore/adapters-sharp/testing';
import { expectError, KEYS, startServer, type TestServer } from './support/server.js';

const CHROMIUM = '/usr/bin/chromium';
/** The line .ci/run looks for: in CI the browser test must run, never be skipped. */
const SKIPPED = 'docs page in a real browser: SKIPPED, /usr/bin/chromium is not installed (apt-get install chromium)';
/** The bound of one wait on the page: only a hang reaches it (a busy machine is slower, never wrong). */
const WAIT = 120_000;
/** How often a page function waited on is tried again (ms). */
const POLL = 50;

/** What the document says the page must show: every operation, and whether each response and request body has a body to show. */
interface DocumentedOperation {
  readonly path: string;
  readonly method: string;
  readonly operationId: string;
  readonly summary: string;
  /** Swagger UI's id of its block: `operations-<tag>-<operationId>`. */
  readonly domId: string;
  /** Status code → whether the response has content (then an example is shown). */
  readonly responses: Readonly<Record<string, boolean>>;
  readonly jsonBody: boolean;
}
interface OpenApiOperation {
  readonly operationId: string;
  readonly summary: string;
  readonly tags: readonly string[];
  readonly responses: Record<string, { $ref?: string; content?: Record<string, unknown> }>;
  readonly requestBody?: { content: Record<string, unknown> };
}
const DOCUMENT = buildOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, { content?: Record<string, unknown> }> };
};
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);
const OPERATIONS: readonly DocumentedOperation[] = Object.entries(DOCUMENT.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => HTTP_METHODS.has(method))
    .map(([method, op]) => ({
      path,
      method,
      operationId: op.operationId,
      summary: op.summary,
      domId: `operations-${op.tags[0]}-${op.operationId}`,
      responses: Object.fromEntries(
        Object.entries(op.responses).map(([code, r]) => {
          const response = r.$ref === undefined ? r : DOCUMENT.components.responses[r.$ref.split('/').pop()!]!;
          return [code, Object.keys(response.content ?? {}).length > 0];
        }),
      ),
      jsonBody: op.requestBody?.content['application/json'] !== undefined,
    })),
);
const SCHEMAS = Object.keys(DOCUMENT.components.schemas).sort();

/** The little of the browser's DOM and of Swagger UI (`window.ui`) the page functions use: this file compiles without the DOM library. */
interface PageElement {
  readonly id: string;
  readonly textContent: string | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement> & ArrayLike<PageElement>;
  getAttribute(name: string): string | null;
  click(): void;
}
declare const document: PageElement & {
  addEventListener(
    type: 'securitypolicyviolation',
    listener: (event: { violatedDirective: string; blockedURI: string }) => void,
  ): void;
};
declare const window: {
  ui: {
    specActions: { requestResolvedSubtree(path: readonly string[]): void };
    specSelectors: { specResolvedSubtree(path: readonly string[]): unknown };
    errSelectors: { allErrors(): { size: number } };
  };
};

describe('GET /docs (docs/rules.md §11)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ keys: [{ key: KEYS.free, plan: 'free' }] });
  });
  after(() => s.close());

  it('is an HTML page with a Content-Security-Policy that has default-src and names no other host; no key, not rate-limited', async () => {
    for (let i = 0; i < 70; i++) {
      const res = await s.request({ path: '/docs' });
      expect(res.status).to.equal(200);
      expect(res.header('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.header('x-ratelimit-limit')).to.equal('');
      expect(res.header('content-security-policy')).to.equal(DOCS_CSP);
    }
    const csp = DOCS_CSP.split(';').map((d) => d.trim().split(/\s+/));
    expect(csp.map((d) => d[0])).to.include('default-src');
    for (const [directive, ...sources] of csp) {
      for (const source of sources) {
        expect(["'self'", "'none'", 'data:', 'blob:', "'unsafe-inline'"], `${directive} ${source}`).to.include(source);
        if (source === "'unsafe-inline'") expect(directive).to.equal('style-src');
      }
    }
    const page = (await s.request({ path: '/docs' })).text;
    for (const src of page.matchAll(/(?:src|href)="([^"]+)"/g))
      expect(src[1], 'only files of this service').to.match(/^(\/docs\/assets\/|data:)/);
  });

  it('serves the renderer from the package (JS, CSS, our start script); anything else under /docs is 404; other methods 405', async () => {
    for (const [file, type] of [
      ['swagger-ui-bundle.js', 'text/javascript'],
      ['swagger-ui.css', 'text/css'],
      ['init.js', 'text/javascript'],
    ] as const) {
      const res = await s.request({ path: `/docs/assets/${file}` });
      expect(res.status, file).to.equal(200);
      expect(res.header('content-type')).to.equal(`${type}; charset=utf-8`);
      expect(res.bytes.length).to.be.greaterThan(100);
      expect(res.text, 'no source map pointer').not.to.match(/sourceMappingURL/);
    }
    expect((await s.request({ path: '/docs/assets/init.js' })).text)
      .to.include("url: '/v1/openapi.json'")
      .and.include('validatorUrl: null');
    expectError(await s.request({ path: '/docs/assets/../../etc/passwd' }), 404, 'not_found');
    expectError(await s.request({ path: '/docs/assets/swagger-ui-bundle.js.map' }), 404, 'not_found');
    const post = await s.request({ method: 'POST', path: '/docs' });
    expectError(post, 405, 'method_not_allowed');
    expect(post.header('allow')).to.equal('GET, HEAD, OPTIONS');
    expect((await s.request({ method: 'HEAD', path: '/docs' })).bytes.length).to.equal(0);
  });
});

if (!existsSync(CHROMIUM)) {
  describe('GET /docs in a real browser @external', () => {
    // One clear line; .ci/run installs chromium and fails when it sees this one.
    it.skip(SKIPPED);
  });
} else {
  // One page load for everything: chromium starts, /docs loads once, and every check below runs on that page.
  // Every step waits on a condition of the page (a page function, a locator, the DOM), never on a fixed time,
  // so a busy machine makes the test slower but not wrong; the timeouts only bound a hang.
  describe('GET /docs in a real browser (chromium via playwright-core) @external', function () {
    this.timeout(300_000);
    let s: TestServer;
    let browser: Browser;
    let page: Page;
    let origin: string;
    /** Every console error or warning, page error, failed, refused or foreign request, HTTP error, CSP violation. */
    const problems: string[] = [];
    const requested: string[] = [];
    before(async () => {
      s = await startServer();
      origin = `http://127.0.0.1:${s.port}`;
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
      page = await browser.newPage();
      page.setDefaultTimeout(WAIT);
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning')
          problems.push(`console ${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('requestfailed', (request) =>
        problems.push(`failed: ${request.url()} (${request.failure()?.errorText ?? '?'})`),
      );
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
      });
      page.on('request', (request) => requested.push(new URL(request.url()).pathname));
      // Nothing may leave this server: any other address is refused and reported.
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
        problems.push(`request to another host: ${url}`);
        return route.abort('blockedbyclient');
      });
      // The page's CSP (DOCS_CSP) is enforced by the browser; a violation is reported here by name.
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
        });
      });
      await page.goto(`${origin}/docs`, { waitUntil: 'load' });
      // Rendered: one block per operation of the document.
      await page.waitForFunction((n) => document.querySelectorAll('.opblock').length === n, OPERATIONS.length, {
        polling: POLL,
      });
    });
    after(async () => {
      await browser?.close();
      await s?.close();
    });

    it('shows every operation of the document with its summary, every response with its example, every schema; no console error, no blocked, failed or foreign request', async () => {
      expect(OPERATIONS.length).to.be.greaterThan(0);
      expect(await page.locator('.information-container .title').innerText()).to.include('Animal Adoption Store');
      // The first operation is opened as a reader does (a click; Swagger UI resolves that operation alone) ...
      const first = page.locator(`#${OPERATIONS[0]!.domId}`);
      await first.locator('.opblock-summary-control').click();
      await first.locator('.responses-wrapper').waitFor({ state: 'visible' });
      await first.locator('.opblock-summary-control').click();
      // ... then Swagger UI resolves the whole document in one go (its own action, on the path []) before the
      // others are opened: opened first, each operation or schema would make it resolve the whole OpenAPI 3.1
      // document again (about a second each on an idle machine, growing; this test took 42–90 s that way).
      await page.evaluate(() => window.ui.specActions.requestResolvedSubtree([]));
      await page.waitForFunction(
        ([ops, schemas]) =>
          ops.every(
            ([path, method]) => window.ui.specSelectors.specResolvedSubtree(['paths', path, method]) !== undefined,
          ) &&
          schemas.every(
            (name) => window.ui.specSelectors.specResolvedSubtree(['components', 'schemas', name]) !== undefined,
          ),
        [OPERATIONS.map((op): [string, string] => [op.path, op.method]), SCHEMAS] as const,
        { polling: POLL },
      );
      // Each operation is opened by a click on its summary, read once rendered, and closed again (an open
      // operation is rendered again on every later change of the page): all in one page function, which
      // waits on each condition inside the page (no round trip per step, which a busy machine makes slow).
      const shown = await page.evaluate(
        async ([ids, wait]) => {
          const until = async <T>(read: () => T | undefined, what: string): Promise<T> => {
            const end = Date.now() + wait;
            for (;;) {
              const value = read();
              if (value !== undefined) return value;
              if (Date.now() > end) throw new Error(`not rendered within ${wait} ms: ${what}`);
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          };
          const blocks = [];
          for (const id of ids) {
            const summary = document.querySelector(`#${id} .opblock-summary-control`);
            if (summary === null) throw new Error(`no block ${id}`);
            summary.click();
            blocks.push(
              await until(() => {
                const block = document.querySelector(`#${id}`);
                if (block?.querySelector('.responses-wrapper') == null) return undefined;
                return {
                  id,
                  summary: block.querySelector('.opblock-summary-description')?.textContent ?? '',
                  responses: [...block.querySelectorAll('tr.response')].map((row) => ({
                    code: row.getAttribute('data-code') ?? '',
                    example: row.querySelector('.highlight-code') !== null,
                  })),
                  bodyExample: block.querySelector('.opblock-section-request-body .highlight-code') !== null,
                };
              }, `the responses of ${id}`),
            );
            summary.click();
            await until(
              () => (document.querySelector(`#${id} .opblock-body`) === null ? true : undefined),
              `${id} closed`,
            );
          }
          return blocks;
        },
        [OPERATIONS.map((op) => op.domId), WAIT] as const,
      );
      expect(shown.map((block) => block.id)).to.deep.equal(OPERATIONS.map((op) => op.domId));
      for (const op of OPERATIONS) {
        const block = shown.find((b) => b.id === op.domId)!;
        expect(block.summary, op.domId).to.equal(op.summary);
        expect(block.responses.map((r) => r.code).sort(), `${op.domId}: one row per documented response`).to.deep.equal(
          Object.keys(op.responses).sort(),
        );
        for (const r of block.responses)
          expect(
            r.example,
            `${op.domId} ${r.code}: an example is shown exactly where the response has a body`,
          ).to.equal(op.responses[r.code]);
        expect(block.bodyExample, `${op.domId}: the example of its JSON request body`).to.equal(op.jsonBody);
      }
      expect(await page.locator('.opblock-body').count(), 'all closed again').to.equal(0);
      expect(await page.locator('.errors-wrapper').count(), 'no resolver or parser error shown').to.equal(0);

      // Every schema of the document, in the Schemas section, each opened one level (one page function).
      const models = page.locator('.models .json-schema-2020-12[data-json-schema-level="0"]');
      expect(
        (await models.locator(':scope > .json-schema-2020-12-head .json-schema-2020-12__title').allInnerTexts()).sort(),
      ).to.deep.equal(SCHEMAS);
      await page.evaluate(() => {
        for (const button of document.querySelectorAll(
          '.models .json-schema-2020-12[data-json-schema-level="0"] > .json-schema-2020-12-head > .json-schema-2020-12-accordion',
        ))
          button.click();
      });
      await page.waitForFunction(
        (n) =>
          document.querySelectorAll(
            '.models .json-schema-2020-12[data-json-schema-level="0"] > .json-schema-2020-12-body:not(.json-schema-2020-12-body--collapsed) > *',
          ).length >= n,
        SCHEMAS.length,
        { polling: POLL },
      );
      // The schema tab of a request body (the same renderer inside an operation).
      const create = await opened(OPERATIONS.find((op) => op.jsonBody)!.operationId);
      await create.locator('.opblock-section-request-body .tablinks[data-name="model"]').click();
      await create
        .locator('.opblock-section-request-body .model-box .json-schema-2020-12')
        .first()
        .waitFor({ state: 'visible' });
      await create.locator('.opblock-summary-control').click();

      expect(requested).to.include('/v1/openapi.json');
      expect(await page.evaluate(() => window.ui.errSelectors.allErrors().size), 'no error in Swagger UI').to.equal(0);
      expect(problems).to.deep.equal([]);
    });

    it('"Try it out" uploads a photo file with an admin key (201), then fetches it and shows it as an image (docs/rules.md §13)', async () => {
      const before = problems.length;
      const created = await s.postJson('{"name":"Pixel","categoryId":1}');
      const petId = String((created.json() as { id: number }).id);
      const photo = await testImage({ format: 'jpeg', width: 120, height: 90, content: 'photo' });
      await page.locator('.btn.authorize').first().click();
      // Both schemes of the document: the admin key for the upload, any key for the rest.
      for (const scheme of ['bearerAuth', 'adminKey']) {
        const form = page.locator('.auth-container').filter({ hasText: scheme });
        await form.locator('input').fill(KEYS.admin);
        await form.locator('button.authorize').click();
      }
      await page.locator('.btn-done').first().click();

      const upload = await opened('uploadPetPhoto');
      await upload.locator('.try-out__btn').click();
      await upload.locator('tr[data-param-name="petId"] input').fill(petId);
      await upload
        .locator('input[type="file"]')
        .setInputFiles({ name: 'pixel.jpg', mimeType: 'image/jpeg', buffer: photo });
      await upload.locator('.execute').click();
      const status = upload.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor();
      expect((await status.innerText()).trim()).to.equal('201');
      const stored = await s.photoStore.list(Number(petId));
      expect(stored.map((p) => [p.width, p.height, p.contentType])).to.deep.equal([[120, 90, 'image/jpeg']]);

      const fetchIt = await opened('getPetPhoto');
      await fetchIt.locator('.try-out__btn').click();
      await fetchIt.locator('tr[data-param-name="petId"] input').fill(petId);
      await fetchIt.locator('tr[data-param-name="photoId"] input').fill(String(stored[0]!.id));
      await fetchIt.locator('.execute').click();
      const image = fetchIt.locator('.live-responses-table img');
      await image.waitFor({ state: 'visible' });
      // Decoded by the browser: its natural size is the photo's.
      await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await image.elementHandle(), {
        polling: POLL,
      });
      expect(await image.evaluate((img) => [img.naturalWidth, img.naturalHeight])).to.deep.equal([120, 90]);
      expect(problems.slice(before)).to.deep.equal([]);
    });

    /** The block of an operation, opened (a click on its summary unless it is open already). */
    const opened = async (operationId: string): Promise<Locator> => {
      const op = OPERATIONS.find((o) => o.operationId === operationId)!;
      const block = page.locator(`#${op.domId}`);
      if ((await block.locator('.opblock-body').count()) === 0) await block.locator('.opblock-summary-control').click();
      await block.locator('.responses-wrapper').waitFor({ state: 'visible' });
      return block;
    };
  });
}

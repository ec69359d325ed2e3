// The shelter's example page (docs/examples/shelter, docs/rules.md §16) in a real browser: the API
// on the memory store with signed photo URLs, the page's folder served from another origin, and
// Debian's chromium driven by playwright-core. The page must list, search, filter, sort and page
// with a publishable key alone, show the photos through their signed URLs, break no CSP rule and
// send no other credential; its error state shows the API's message (a visitor over its limit).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PhotoUrls } from '@petstore/domain';
import { ManualClock, SeededRandom, nodeDigests } from '@petstore/domain/testing';
import { PhotoUrlSecretStoreInMemory } from '@petstore/adapters-memory';
import { KEYS, startServer, T0, type TestServer } from './support/server.js';
import { portrait, type Kind } from './support/portraits.js';

const CHROMIUM = '/usr/bin/chromium';
/** The line .ci/run looks for ("docs page in a real browser: SKIPPED"): in CI this test must run too. */
const SKIPPED =
  'shelter example (docs/examples/shelter) of the docs page in a real browser: SKIPPED, /usr/bin/chromium is not installed (apt-get install chromium)';
/** The bound of one wait on the page: only a hang reaches it. */
const WAIT = 120_000;
/** The page's folder, from dist/test/ of this package. */
const PAGE_DIR = fileURLToPath(new URL('../../../../docs/examples/shelter/', import.meta.url));
/** Set it to a file name to keep a screenshot of the page as first shown (docs/examples/shelter/screenshot.png). */
const SCREENSHOT = process.env.SHELTER_SCREENSHOT;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.md': 'text/markdown; charset=utf-8',
};

/** The page's folder over HTTP, as a shelter's own web server would serve it (GET only, no listing). */
const serveFolder = async (): Promise<{ server: Server; port: number }> => {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^\/+/, '');
    if (req.method !== 'GET' || path.startsWith('..') || path.includes('/')) return void res.writeHead(404).end();
    const file = path === '' ? 'index.html' : path;
    readFile(join(PAGE_DIR, file)).then(
      (bytes) => res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(bytes),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
};

/** The animals: [name, kind, status, photo colours]; ids follow this order (1, 2, …). */
type Rgb = readonly [number, number, number];
type Fixture = readonly [name: string, kind: Kind, status: 'available' | 'pending' | 'sold', fur?: Rgb];
const PETS: readonly Fixture[] = [
  ['Biscuit', 'dog', 'available', [196, 140, 90]],
  ['Luna', 'cat', 'available', [90, 90, 100]],
  ['Rex', 'dog', 'available', [150, 100, 60]],
  ['Mochi', 'rabbit', 'available', [235, 225, 215]],
  ['Ghost', 'cat', 'sold'],
  ['Pepper', 'cat', 'available', [60, 55, 55]],
  ['Old Rex', 'dog', 'pending'],
  ['Clover', 'rabbit', 'available'],
  ['Renée', 'cat', 'available', [225, 160, 90]],
  ['Hazel', 'dog', 'available'],
  ['Tofu', 'rabbit', 'available', [200, 190, 180]],
  ['Juniper', 'cat', 'pending'],
  ['Maple', 'dog', 'available', [170, 110, 70]],
  ['Willow', 'cat', 'available'],
  ['Zeus', 'dog', 'available', [120, 85, 60]],
];
const CATEGORY_OF: Record<Kind, number> = { cat: 1, dog: 2, rabbit: 3 };
const BACKGROUNDS: readonly (readonly [number, number, number])[] = [
  [244, 214, 188],
  [214, 230, 214],
  [236, 222, 240],
  [250, 232, 196],
];
/** What the page lists: the pets not sold, newest first. */
const LISTED = PETS.filter(([, , status]) => status !== 'sold').map(([name]) => name);
const NEWEST = [...LISTED].reverse();
const PAGE_SIZE = 12;

/** The little of the browser's DOM the page functions use: this file compiles without the DOM library. */
interface PageNode {
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
}
declare const document: {
  getElementById(id: string): PageNode | null;
  querySelectorAll(selector: string): Iterable<PageNode>;
  addEventListener(
    type: 'securitypolicyviolation',
    listener: (event: { violatedDirective: string; blockedURI: string }) => void,
  ): void;
};
declare const window: { scrollTo(x: number, y: number): void };

if (!existsSync(CHROMIUM)) {
  describe('the shelter page in a real browser @external', () => {
    it.skip(SKIPPED);
  });
} else {
  describe('the shelter page (docs/examples/shelter) in a real browser (chromium via playwright-core) @external', function () {
    this.timeout(300_000);
    let s: TestServer;
    let site: { server: Server; port: number };
    let browser: Browser;
    let api: string;
    let pageOrigin: string;

    /** POST of JSON to the API with the admin key; the answer's body. */
    const admin = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${api}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEYS.admin}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, `${path}: ${await res.clone().text()}`).to.equal(201);
      return (await res.json()) as Record<string, unknown>;
    };
    const publishableKey = async (extra: object = {}): Promise<string> =>
      (await admin('/v1/admin/keys', { plan: 'business', role: 'publishable', origins: [pageOrigin], ...extra }))
        .key as string;

    /** A browser tab on the page, recording what the tests check: problems, and every request's credentials. */
    interface Visit {
      readonly context: BrowserContext;
      readonly page: Page;
      readonly problems: string[];
      readonly requests: { url: string; method: string; authorization: string | undefined }[];
      /** Each answer's URL and `Link` header. */
      readonly responses: { url: string; link: string | null }[];
    }
    const visit = async (key: string): Promise<Visit> => {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT);
      const problems: string[] = [];
      const requests: Visit['requests'] = [];
      const responses: Visit['responses'] = [];
      page.on('response', (r) => void r.headerValue('link').then((link) => responses.push({ url: r.url(), link })));
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} (${r.failure()?.errorText ?? '?'})`));
      page.on('request', (r) => {
        void r
          .allHeaders()
          .then((headers) => requests.push({ url: r.url(), method: r.method(), authorization: headers.authorization }));
      });
      // Only the page's origin and the API's: anything else is refused and reported.
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${pageOrigin}/`) || url.startsWith(`${api}/`)) return route.continue();
        problems.push(`request to another host: ${url}`);
        return route.abort('blockedbyclient');
      });
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
        });
      });
      const query = new URLSearchParams({ api: `${api}/v1`, key });
      await page.goto(`${pageOrigin}/?${query.toString()}`, { waitUntil: 'load' });
      return { context, page, problems, requests, responses };
    };

    /** The names on the cards once the list is settled and equals `expected` (else the wait fails, saying what it shows). */
    const expectNames = async (page: Page, expected: readonly string[]): Promise<void> => {
      try {
        await page.waitForFunction(
          (names) =>
            document.getElementById('pets')?.getAttribute('aria-busy') === 'false' &&
            JSON.stringify([...document.querySelectorAll('#pets .pet-name')].map((e) => e.textContent)) ===
              JSON.stringify(names),
          expected,
          { polling: 50, timeout: WAIT },
        );
      } catch {
        expect(await page.locator('#pets .pet-name').allTextContents()).to.deep.equal(expected);
      }
    };

    before(async () => {
      const photoUrls = new PhotoUrls(
        { store: new PhotoUrlSecretStoreInMemory() },
        { digests: nodeDigests, random: new SeededRandom('shelter'), clock: new ManualClock(T0) },
      );
      s = await startServer({ photoUrls, categories: 0 });
      api = `http://127.0.0.1:${s.port}`;
      site = await serveFolder();
      pageOrigin = `http://localhost:${site.port}`;
      for (const name of ['Cats', 'Dogs', 'Rabbits']) await admin('/v1/categories', { name });
      for (const [i, [name, kind, status, fur]] of PETS.entries()) {
        const pet = await admin('/v1/pets', { name, categoryId: CATEGORY_OF[kind], status });
        if (fur === undefined) continue;
        const res = await fetch(`${api}/v1/pets/${String(pet.id)}/photos`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${KEYS.admin}`, 'Content-Type': 'image/png' },
          body: portrait(kind, fur, BACKGROUNDS[i % BACKGROUNDS.length]!),
        });
        expect(res.status, await res.clone().text()).to.equal(201);
      }
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      });
    });
    after(async () => {
      await browser?.close();
      await new Promise((resolve) => site?.server.close(resolve));
      await s?.close();
    });

    it('lists newest first with photos, pages with "Show more", sorts, searches and filters; no console error, no CSP violation, no other credential', async () => {
      const key = await publishableKey();
      const { context, page, problems, requests, responses } = await visit(key);
      try {
        // The first page, newest first: 12 cards, the photos loaded through their signed URLs.
        await expectNames(page, NEWEST.slice(0, PAGE_SIZE));
        expect(await page.locator('#more').isVisible()).to.equal(true);
        const images = page.locator('#pets img');
        const withPhotos = PETS.filter(
          ([name, , , fur]) => fur !== undefined && NEWEST.slice(0, PAGE_SIZE).includes(name),
        );
        expect(await images.count()).to.equal(withPhotos.length);
        for (const img of await images.all()) {
          await img.scrollIntoViewIfNeeded();
          await img.evaluate((el) =>
            el.complete && el.naturalWidth > 0
              ? undefined
              : new Promise<void>((resolve, reject) => {
                  el.addEventListener('load', () => resolve());
                  el.addEventListener('error', () => reject(new Error(`${el.alt}: not loaded`)));
                }),
          );
          const seen = await img.evaluate((el) => ({
            width: el.naturalWidth,
            srcset: el.srcset,
            current: el.currentSrc,
            alt: el.alt,
            lazy: el.loading,
          }));
          expect(seen.width).to.be.greaterThan(0);
          expect(seen.srcset).to.match(/ 160w, /);
          expect(seen.current.startsWith(`${api}/v1/pets/`) && /[?&]sig=/.test(seen.current), seen.current).to.equal(
            true,
          );
          expect(seen.alt).to.match(/^Photo of /);
          expect(seen.lazy).to.equal('lazy');
        }
        const badges = await page.locator('#pets .badge').allTextContents();
        expect(badges[NEWEST.indexOf('Juniper')]).to.equal('Adoption pending');
        expect(badges[0]).to.equal('Available');
        expect(await page.locator('#pets .kind').first().textContent()).to.equal('Dogs');
        if (SCREENSHOT !== undefined) {
          await page.evaluate(() => window.scrollTo(0, 0));
          await writeFile(SCREENSHOT, await page.screenshot({ type: 'png' }));
        }

        // "Show more" follows the answer's Link: rel="next" and appends the rest.
        const link = responses.filter((r) => r.url.startsWith(`${api}/v1/pets?`)).at(-1)?.link ?? '';
        const next = /<([^>]*)>; rel="next"/.exec(link)?.[1];
        expect(next, link).to.be.a('string');
        const [nextRequest] = await Promise.all([
          page.waitForRequest((r) => r.url().startsWith(`${api}/v1/pets?`) && r.method() === 'GET'),
          page.locator('#more').click(),
        ]);
        await expectNames(page, NEWEST);
        expect(nextRequest.url()).to.equal(new URL(next!, api).href);
        expect(await page.locator('#more').isVisible()).to.equal(false);

        // The order: A–Z, then shuffled with the seed the page chose, as the API orders it.
        await page.selectOption('#sort', 'name');
        await expectNames(
          page,
          [...LISTED].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)).slice(0, PAGE_SIZE),
        );
        const [shuffled] = await Promise.all([
          page.waitForRequest((r) => r.url().includes('sort=random')),
          page.selectOption('#sort', 'random'),
        ]);
        const seed = new URL(shuffled.url()).searchParams.get('seed');
        expect(seed).to.match(/^\d+$/);
        const byApi = await fetch(
          `${api}/v1/pets?limit=${PAGE_SIZE}&status=available,pending&sort=random&seed=${seed!}`,
          { headers: { Authorization: `Bearer ${key}`, Origin: pageOrigin } },
        );
        const randomOrder = ((await byApi.json()) as { name: string }[]).map((p) => p.name);
        expect(randomOrder).to.have.length(PAGE_SIZE);
        await expectNames(page, randomOrder);
        // One seed for the visit: back to A–Z and to shuffled again, the same order.
        await page.selectOption('#sort', 'name');
        await expectNames(
          page,
          [...LISTED].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)).slice(0, PAGE_SIZE),
        );
        await page.selectOption('#sort', 'random');
        await expectNames(page, randomOrder);

        // Search (debounced, `q`): "re" finds Rex, Old Rex and Renée (folded), newest first.
        await page.selectOption('#sort', '-id');
        await expectNames(page, NEWEST.slice(0, PAGE_SIZE));
        await page.locator('#q').fill('re');
        await expectNames(page, ['Renée', 'Old Rex', 'Rex']);
        await page.locator('#q').fill('rex old');
        await expectNames(page, ['Old Rex']);
        await page.locator('#q').fill('zz');
        await expectNames(page, []);
        expect(await page.locator('#empty').isVisible()).to.equal(true);
        expect(await page.locator('#status').textContent()).to.equal('No animals match.');

        // The category filter, from GET /v1/categories.
        await page.locator('#q').fill('');
        await expectNames(page, NEWEST.slice(0, PAGE_SIZE));
        expect(await page.locator('#category option').allTextContents()).to.deep.equal([
          'All animals',
          'Cats',
          'Dogs',
          'Rabbits',
        ]);
        await page.selectOption('#category', { label: 'Rabbits' });
        await expectNames(page, ['Tofu', 'Clover', 'Mochi']);
        expect(await page.locator('#empty').isVisible()).to.equal(false);

        // The page's policy: strict, and narrowed to the API's origin for connections and images.
        const policies = await page
          .locator('meta[http-equiv="Content-Security-Policy"]')
          .evaluateAll((metas) => metas.map((m) => m.getAttribute('content') ?? ''));
        expect(policies).to.have.length(2);
        expect(policies.join(' ')).not.to.match(/unsafe-|\*\.|data:/);
        expect(policies[0]).to.match(/default-src 'self'; script-src 'self'; style-src 'self'/);
        expect(policies[1]).to.equal(`connect-src ${api}; img-src 'self' ${api}`);

        // Every request: the page's files with no credential, the API's calls with the publishable
        // key only, the photos with their signature and no key at all.
        const calls = requests.filter((r) => r.url.startsWith(`${api}/`) && r.method !== 'OPTIONS');
        const photos = calls.filter((r) => /\/photos\/\d+\?/.test(r.url));
        expect(photos.length).to.be.at.least(withPhotos.length);
        for (const r of requests) {
          if (r.url.startsWith(`${pageOrigin}/`) || photos.includes(r)) {
            expect(r.authorization, r.url).to.equal(undefined);
          } else expect(r.authorization, r.url).to.equal(`Bearer ${key}`);
          if (r.url.startsWith(`${api}/`)) expect(r.url).not.to.include(key);
        }
        for (const r of photos) expect(new URL(r.url).searchParams.get('sig'), r.url).to.match(/^[A-Za-z0-9_-]{43}$/);
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it("a visitor over the key's limit sees the API's message and when to try again, and the list comes back after", async () => {
      // Two requests a minute for this key: the categories and the first page; the search is the third.
      const key = await publishableKey({ plan: 'enterprise', perMinute: 2, perDay: 1_000 });
      const { context, page, problems } = await visit(key);
      try {
        await expectNames(page, NEWEST.slice(0, PAGE_SIZE));
        expect(await page.locator('#problem').isVisible()).to.equal(false);
        await page.locator('#q').fill('rex');
        await page.locator('#problem').waitFor({ state: 'visible' });
        const text = await page.locator('#problem-text').textContent();
        expect(text).to.match(/^Sorry, we could not load the animals: .*limit.* Please try again in \d+ seconds\.$/);
        expect(await page.locator('#pets .card').count()).to.equal(0);
        // The browser reports the 429 itself; nothing else went wrong.
        expect(problems.filter((p) => !/status of 429/.test(p))).to.deep.equal([]);
        // The next minute: "Try again" brings the list back.
        s.clock.advance(60_000);
        await page.locator('#retry').click();
        await expectNames(page, ['Old Rex', 'Rex']);
        expect(await page.locator('#problem').isVisible()).to.equal(false);
      } finally {
        await context.close();
      }
    });
  });
}

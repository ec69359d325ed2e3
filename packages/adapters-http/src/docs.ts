import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Middleware } from 'koa';
import { answerError } from './middleware/request-context.js';
import type { AppState } from './state.js';

/**
 * `GET /docs` (docs/rules.md §11): Swagger UI rendering `/v1/openapi.json`, every file served by
 * this service from the `swagger-ui-dist` package (no CDN: it works with no internet), under a
 * Content-Security-Policy that names no other host.
 */
const DOCS_PATH = '/docs';
const ASSETS = `${DOCS_PATH}/assets/`;

/**
 * Only this origin, and `data:` images and fonts (`blob:` images too: "Try it out" on a photo shows
 * the answered bytes as an image from a blob URL): no inline script, no eval, no inline style (Swagger
 * UI sets its styles through the DOM, which a CSP does not restrict; the browser test opens every
 * operation under this policy and sees no violation, so 'unsafe-inline' is not needed).
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Animal Adoption Store API</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="${ASSETS}swagger-ui.css">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${ASSETS}swagger-ui-bundle.js"></script>
    <script src="${ASSETS}init.js"></script>
  </body>
</html>
`;

/** Our own start script (a file, so the CSP needs no inline script): the document of this server, nothing fetched elsewhere. */
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 1,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
  });
});
`;

/**
 * Example photos of the document's binary bodies (`externalValue` of the photo operations): a
 * 16 × 12 gradient in each of the three types, served with the page (no credential).
 */
const EXAMPLE_PHOTOS = new Map([
  [
    'example-photo.jpg',
    {
      type: 'image/jpeg',
      base64:
        '/9j/2wBDAAoHBwgHBgoICAgLCgoLDhgQDg0NDh0VFhEYIx8lJCIfIiEmKzcvJik0KSEiMEExNDk7Pj4+JS5ESUM8SDc9Pjv/2wBDAQoLCw4NDhwQEBw7KCIoOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozv/wAARCAAMABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABAUG/8QAGRAAAgMBAAAAAAAAAAAAAAAAAAMCBFFh/8QAFQEBAQAAAAAAAAAAAAAAAAAAAgX/xAAYEQACAwAAAAAAAAAAAAAAAAAABAECA//aAAwDAQACEQMRAD8Aosp8DMp8NExUMDTVDCArvIW2bH//2Q==',
    },
  ],
  [
    'example-photo.png',
    {
      type: 'image/png',
      base64:
        'iVBORw0KGgoAAAANSUhEUgAAABAAAAAMCAMAAABcOc2zAAACQFBMVEWGoGiSyGDIiDy2wEiAmGxu0HikkFSqmFCY0Fy8yER6kHCeiFiMwGTCgECwuEx0iHSYgFyGuGi8eESqsFBugHiSeGCAsGykqFTIoDx6qHCeoFjCmECw0Ex0oHSYmFyG0Gi8kESqyFBumHiSkGCAyGy2iEikwFTIuDyMiGR6wHCwgEyeuFjCsECGgGh0uHSqeFCYsFy8qESAeGxusHiSqGC2oEjI0DyMoGSwmEye0FjCyECGmGh00HSqkFCYyFy8wESAkGxuyHikiFSSwGDIgDy2uEh6iHCegFiMuGTCeECwsEx0gHSYeFyGsGiqqFBueHiAqGykoFTImDy20Eh6oHCemFiM0GTCkECwyEx0mHSYkFyGyGi8iESqwFBukHiSiGCAwGy2gEikuFTIsDyMgGR6uHCweEyesFjCqECGeGh0sHSYqFy8oERuqHiSoGC2mEik0FTIyDyMmGR60HCwkEyeyFjCwECGkGh0yHSqiFCYwFy8uESAiGxuwHikgFSSuGDIeDy2sEh6gHCeeFiMsGSwqEx0eHSGqGiqoFC80ESAoGykmFSS0GDIkDy2yEh6mHCekFiMyGTCiECwwEx0kHSYiFyGwGi8gESquFBuiHiSgGCAuGy2eEiksFTIqDyMeGR6sHCeqFjCoEB0qHSYoFy8mESq0FBuoHiSmGCA0Gy2kEikyFTIwDyMkGR6yHCwiEyewFjCuECGiGh0wHSqgFCYuFy8sESAgGxuuHikeFSSsGC2qEh6eHCMqGSwoEzC0EBCwfrXAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAA10lEQVQI1wHMADP/AIBJEpxmL7mDTBWfaTK8hk8ARA2XYSq0fkcQmmQtt4JLFAACklwlr3lCC5VfKLJ8Rg+ZAI1XIKp0PQaQWiOtd0AKlF4AUhulbzgHi1UeqHI7BI9ZIgAYomw1vohRGqRuNwCKVB2nAJ5oMbuFThehazS9h1AZo20AYyy2gUoTnWcwuoRNFqBqMwAnsXtFDphiK7V/SBGbZS64AKx2PwOTXSawekMMlmAps30AcToJjlghq3U+AZFbJK54QQA2v4lTHKZwOQiMVh+pczwFlRpHoXLE5s0AAAAASUVORK5CYII=',
    },
  ],
  [
    'example-photo.webp',
    {
      type: 'image/webp',
      base64: 'UklGRkIAAABXRUJQVlA4IDYAAACwAQCdASoQAAwAAkA4JbACdAEJEsugAPyBL5a5peC8Xs2T/xhRfT0r/+JMqT5Ns6bNHN4AAAA=',
    },
  ],
]);

/** Where the document's example photos are served: `/docs/assets/example-photo.<jpg|png|webp>`. */
export const EXAMPLE_PHOTO_PATHS: Readonly<Record<'image/jpeg' | 'image/png' | 'image/webp', string>> = {
  'image/jpeg': `${ASSETS}example-photo.jpg`,
  'image/png': `${ASSETS}example-photo.png`,
  'image/webp': `${ASSETS}example-photo.webp`,
};

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

/** The files, read once at start from the package's dist directory. */
const loadAssets = (): ReadonlyMap<string, Asset> => {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // A last line pointing at a source map this service does not serve is cut, so that no tool asks for it.
  const read = (file: string): string =>
    readFileSync(join(dist, file), 'utf8').replace(
      /\s*(?:\/\/# sourceMappingURL=\S+|\/\*# sourceMappingURL=\S+?\s*\*\/)\s*$/,
      '\n',
    );
  const bundle = read('swagger-ui-bundle.js');
  const css = read('swagger-ui.css');
  return new Map<string, Asset>([
    ['swagger-ui-bundle.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(bundle) }],
    ['swagger-ui.css', { type: 'text/css; charset=utf-8', body: Buffer.from(css) }],
    ['init.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(INIT) }],
    ...[...EXAMPLE_PHOTOS].map(([file, photo]): [string, Asset] => [
      file,
      { type: photo.type, body: Buffer.from(photo.base64, 'base64') },
    ]),
  ]);
};

const ALLOW = 'GET, HEAD, OPTIONS';

/** Serves `/docs` and its assets; no credential, not rate-limited (it runs before the gate). */
export const docs = (): Middleware<AppState> => {
  const assets = loadAssets();
  const page = Buffer.from(PAGE);
  return function docs(ctx, next) {
    const path: string = ctx.path ?? '';
    const isPage = path === DOCS_PATH || path === `${DOCS_PATH}/`;
    if (!isPage && !path.startsWith(ASSETS)) return next();
    ctx.set({
      'Content-Security-Policy': DOCS_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
    const asset = isPage ? undefined : assets.get(path.slice(ASSETS.length));
    if (!isPage && asset === undefined) {
      answerError(ctx, 'not_found', 'no such file of the documentation page');
      return;
    }
    ctx.state.route = `${ctx.method} ${isPage ? DOCS_PATH : `${ASSETS}:file`}`;
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', ALLOW);
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', ALLOW);
      answerError(ctx, 'method_not_allowed', `use ${ALLOW} here`);
      return;
    }
    ctx.set('Cache-Control', isPage ? 'no-cache' : 'public, max-age=3600');
    ctx.type = asset?.type ?? 'text/html; charset=utf-8';
    ctx.body = asset?.body ?? page;
  };
};

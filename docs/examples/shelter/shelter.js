// A shelter's page over the Animal Adoption Store's public catalogue (docs/rules.md §16): with a
// publishable key only, it lists the available and pending animals with their photos, searches by
// name, filters by kind, sorts, and follows the API's `Link: rel="next"` for "Show more". `load`
// and `begin` catch every failure themselves and show it: their promises are left to run.
import config from './config.js';

const $ = (id) => document.getElementById(id);
const ui = {
  name: $('shelter-name'),
  form: $('filters'),
  q: $('q'),
  category: $('category'),
  sort: $('sort'),
  status: $('status'),
  problem: $('problem'),
  problemText: $('problem-text'),
  retry: $('retry'),
  pets: $('pets'),
  empty: $('empty'),
  more: $('more'),
};

/** The settings: config.js, or, for what it leaves empty, the page's own ?api=…&key=… */
const settings = (() => {
  const query = new URLSearchParams(location.search);
  const api = config.api || query.get('api') || '';
  const key = config.key || query.get('key') || '';
  const size = Number(config.pageSize);
  return { api, key, shelter: config.shelter || 'Our animals', pageSize: size >= 1 && size <= 100 ? size : 12 };
})();

/** The API's base (ending in /v1/), or undefined when it is missing or not an http(s) address. */
const apiBase = (() => {
  try {
    const url = new URL(settings.api.endsWith('/') ? settings.api : `${settings.api}/`);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
})();

/** One visit, one shuffle: the seed of sort=random, kept for this tab so "back" shows the same order. */
const seed = (() => {
  try {
    const kept = sessionStorage.getItem('shelter-seed');
    if (kept !== null && /^\d{1,10}$/.test(kept) && Number(kept) <= 2147483647) return kept;
    const made = String(crypto.getRandomValues(new Uint32Array(1))[0] & 0x7fffffff);
    sessionStorage.setItem('shelter-seed', made);
    return made;
  } catch {
    return String(crypto.getRandomValues(new Uint32Array(1))[0] & 0x7fffffff);
  }
})();

/** Narrows the page's policy: it may talk to the API's origin only, and show images from there and its own folder. */
const narrowPolicy = (origin) => {
  const meta = document.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = `connect-src ${origin}; img-src 'self' ${origin}`;
  document.head.append(meta);
};

/** An answer that is not a success, with the API's `message` (docs/rules.md §3). */
class ApiProblem extends Error {
  constructor(status, message, retryAfter) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/** GET of a URL of the API with the publishable key; the JSON body and the `next` link. */
const get = async (url, signal) => {
  const response = await fetch(url, {
    headers: { Authorization: `Bearer ${settings.key}`, Accept: 'application/json' },
    credentials: 'omit',
    signal,
  });
  const body = await response.json().catch(() => undefined);
  if (!response.ok) {
    const message = typeof body?.message === 'string' ? body.message : `The server answered ${response.status}.`;
    const retryAfter = Number(response.headers.get('Retry-After'));
    throw new ApiProblem(response.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 0);
  }
  const link = response.headers.get('Link') ?? '';
  const next = /<([^>]*)>\s*;\s*rel="?next"?/.exec(link)?.[1];
  return { body, next: next === undefined ? undefined : new URL(next, apiBase) };
};

/** A URL the API gave (a photo's `url`, a `next` link): absolute, or from /v1/ on the API's origin. */
const fromApi = (url) => new URL(url, apiBase).href;

/** A `srcset` of the API with each of its URLs made absolute. */
const absoluteSrcset = (srcset) =>
  srcset
    .split(',')
    .map((candidate) => candidate.trim().split(/\s+/))
    .map(([url, width]) => `${fromApi(url)} ${width}`)
    .join(', ');

const categoryNames = new Map();

/** Every category (they are few), for the filter and the cards. */
const loadCategories = async () => {
  let url = new URL('categories?limit=100', apiBase);
  for (let pages = 0; url !== undefined && pages < 10; pages++) {
    const { body, next } = await get(url);
    for (const category of body) categoryNames.set(category.id, category.name);
    url = next;
  }
  const sorted = [...categoryNames].sort((a, b) => a[1].localeCompare(b[1]));
  ui.category.append(...sorted.map(([id, name]) => new Option(name, String(id))));
};

/** A letter (or digit) is what makes a word of a search (docs/rules.md §16: `q=--` has none). */
const hasWord = (text) => /[\p{L}\p{N}]/u.test(text);

/** The first page's URL for what the form says now. */
const firstPage = () => {
  const url = new URL('pets', apiBase);
  const query = url.searchParams;
  query.set('limit', String(settings.pageSize));
  query.set('status', 'available,pending');
  query.set('expand', 'photos');
  const q = ui.q.value.trim();
  if (hasWord(q)) query.set('q', q);
  if (ui.category.value !== '') query.set('categoryId', ui.category.value);
  query.set('sort', ui.sort.value);
  if (ui.sort.value === 'random') query.set('seed', seed);
  return url;
};

const STATUS_LABELS = { available: 'Available', pending: 'Adoption pending' };

const element = (tag, className, text) => {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
};

/** One card: the first photo (or the name's initial), the name, the kind and the status. */
const card = (pet) => {
  const item = element('li', 'card');
  const figure = element('div', 'photo');
  const photo = pet.photos?.[0];
  if (photo) {
    const img = document.createElement('img');
    img.src = fromApi(photo.url);
    img.srcset = absoluteSrcset(photo.srcset);
    img.sizes = '(min-width: 72rem) 17rem, (min-width: 40rem) 45vw, 92vw';
    img.width = photo.width;
    img.height = photo.height;
    img.loading = 'lazy';
    img.decoding = 'async';
    img.alt = `Photo of ${pet.name}`;
    figure.append(img);
  } else {
    const initial = element('span', 'initial', [...pet.name.trim()][0]?.toUpperCase() ?? '?');
    initial.setAttribute('aria-hidden', 'true');
    figure.classList.add('no-photo');
    figure.append(initial);
  }
  const body = element('div', 'card-body');
  const title = element('h2', 'pet-name', pet.name);
  title.tabIndex = -1;
  const meta = element('p', 'kind', categoryNames.get(pet.categoryId) ?? 'Friend');
  const badge = element('span', `badge badge-${pet.status}`, STATUS_LABELS[pet.status] ?? pet.status);
  body.append(title, meta, badge);
  item.append(figure, body);
  return item;
};

let current; // { controller, next } of the list on screen
let shown = 0;

const showProblem = (error) => {
  const wait = error.retryAfter ? ` Please try again in ${error.retryAfter} seconds.` : '';
  ui.problemText.textContent = `Sorry, we could not load the animals: ${error.message}${wait}`;
  ui.problem.hidden = false;
};

/** Loads a page: the first one of the form's list (`append` false) or the `next` of the one shown. */
const load = async (append) => {
  if (!append) current?.controller.abort();
  const controller = append ? current.controller : new AbortController();
  const url = append ? current.next : firstPage();
  if (!append) current = { controller, next: undefined };
  const mine = current;
  ui.problem.hidden = true;
  ui.more.disabled = true;
  ui.pets.setAttribute('aria-busy', 'true');
  if (!append) ui.status.textContent = 'Looking for animals…';
  try {
    const { body, next } = await get(url, controller.signal);
    if (mine !== current) return;
    const cards = body.map(card);
    if (append) ui.pets.append(...cards);
    else {
      ui.pets.replaceChildren(...cards);
      shown = 0;
    }
    shown += cards.length;
    current.next = next;
    ui.empty.hidden = shown > 0;
    ui.more.hidden = next === undefined;
    // The live region says it too, for those who do not see the empty state appear.
    ui.status.textContent =
      shown === 0
        ? 'No animals match.'
        : `Showing ${shown} ${shown === 1 ? 'animal' : 'animals'}${next ? ', and there are more' : ''}.`;
    // Keyboard users land on the first new animal after "Show more".
    if (append && cards.length > 0) cards[0].querySelector('h2').focus();
  } catch (error) {
    if (error.name === 'AbortError' || mine !== current) return;
    if (!append) {
      ui.pets.replaceChildren();
      ui.more.hidden = true;
      ui.empty.hidden = true;
      ui.status.textContent = '';
    }
    showProblem(error instanceof ApiProblem ? error : new ApiProblem(0, 'the server could not be reached.', 0));
  } finally {
    if (mine === current) {
      ui.more.disabled = false;
      ui.pets.setAttribute('aria-busy', 'false');
    }
  }
};

/** Categories first (the cards name them), then the first page. */
const begin = async () => {
  try {
    if (categoryNames.size === 0) await loadCategories();
  } catch (error) {
    ui.pets.setAttribute('aria-busy', 'false');
    showProblem(error instanceof ApiProblem ? error : new ApiProblem(0, 'the server could not be reached.', 0));
    return;
  }
  await load(false);
};

const start = () => {
  ui.name.textContent = settings.shelter;
  document.title = `Our animals · ${settings.shelter}`;
  if (apiBase === undefined || !settings.key.startsWith('pk_')) {
    ui.pets.setAttribute('aria-busy', 'false');
    ui.retry.hidden = true;
    showProblem(
      new ApiProblem(
        0,
        'this page is not set up yet: give it the API address and a publishable key (see README.md).',
        0,
      ),
    );
    return;
  }
  narrowPolicy(apiBase.origin);
  let typing;
  ui.q.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => void load(false), 300);
  });
  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(typing);
    void load(false);
  });
  ui.category.addEventListener('change', () => void load(false));
  ui.sort.addEventListener('change', () => void load(false));
  ui.more.addEventListener('click', () => void load(true));
  ui.retry.addEventListener('click', () => void begin());
  void begin();
};

start();

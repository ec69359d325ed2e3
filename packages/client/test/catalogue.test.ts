// @petstore/client and the public catalogue (docs/rules.md §16) against a started server: the list's
// new parameters typed (value lists as arrays, `q`, `sort`, `seed`, `expand`), `items` following
// `Link: rel="next"` with every one of them, `PetWithPhotos` for `expand: 'photos'` with signed
// photo URLs a browser may load without a key, all read through a publishable key and its origin.
import { expect } from 'chai';
import fc from 'fast-check';
import { textImage } from '@petstore/domain/testing';
import {
  createPetstoreClient,
  items,
  pages,
  type ListQuery,
  type Pet,
  type PetStatus,
  type PetWithPhotos,
  type PetstoreClient,
} from '../src/index.js';
import { KEYS, startServer, type ClientTestServer } from './support/server.js';

const SITE = 'https://shelter.example';
const WORDS = ['rex', 'bella', 'old', 'max', 'luna', 'mo'] as const;
const STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];

describe('@petstore/client and the public catalogue (docs/rules.md §16)', function () {
  this.timeout(120_000);
  let s: ClientTestServer;
  let admin: PetstoreClient;
  let site: PetstoreClient;
  let categories: number[];
  let pets: Pet[];

  before(async () => {
    s = await startServer();
    admin = createPetstoreClient({ baseUrl: s.baseUrl, apiKey: KEYS.admin, retry: false });
    const issued = await admin.POST('/admin/keys', {
      body: { plan: 'enterprise', perMinute: 1_000_000, perDay: 100_000_000, role: 'publishable', origins: [SITE] },
    });
    expect(issued.response.status).to.equal(201);
    site = createPetstoreClient({ baseUrl: s.baseUrl, apiKey: issued.data!.key, origin: SITE, retry: false });
    categories = [];
    for (const name of ['Cats', 'Dogs', 'Rabbits'])
      categories.push((await admin.POST('/categories', { body: { name } })).data!.id);
    pets = [];
    // 30 pets: names of one or two words of WORDS (some repeated), every status, every category.
    for (let i = 0; i < 30; i++) {
      const name = i % 4 === 0 ? `${WORDS[i % 6]!} ${WORDS[(i * 5 + 1) % 6]!}` : `${WORDS[(i * 7) % 6]!}-${i}`;
      const body = { name, categoryId: categories[i % 3]!, status: STATUSES[(i * 2) % 3]! };
      const made = await admin.POST('/pets', { body });
      expect(made.response.status).to.equal(201);
      pets.push(made.data!);
    }
  });
  after(() => s.close());

  /** What the list must hold, in order: the rules of §16 on these names (ASCII: folding is lower-casing). */
  const model = (query: ListQuery<'/pets'>): Pet[] => {
    const list = (v: unknown) => (v === undefined ? undefined : ([] as unknown[]).concat(v));
    const statuses = list(query.status);
    const ids = list(query.categoryId);
    const words = (text: string) =>
      text
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean);
    const matching = pets.filter(
      (p) =>
        (statuses === undefined || statuses.includes(p.status)) &&
        (ids === undefined || ids.includes(p.categoryId)) &&
        (query.q === undefined || words(query.q).every((w) => words(p.name).some((n) => n.startsWith(w)))),
    );
    if (query.sort === '-id') return matching.sort((a, b) => b.id - a.id);
    if (query.sort === 'name') {
      const key = (p: Pet) => p.name.toLowerCase();
      return matching.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id));
    }
    return matching.sort((a, b) => a.id - b.id);
  };

  const subset = <T>(values: readonly T[]) => fc.subarray([...values], { minLength: 1 });
  const query = fc.record(
    {
      limit: fc.integer({ min: 1, max: 4 }),
      status: fc.oneof(fc.constantFrom(...STATUSES), subset(STATUSES)),
      categoryId: fc.oneof(
        fc.constantFrom(0, 1, 2).map((i) => categories[i]!),
        fc.constantFrom(0, 1, 2).chain(() => subset(categories)),
      ),
      q: fc.constantFrom(...WORDS, 're', 'o', 'be l', 'old rex'),
      sort: fc.constantFrom('id' as const, '-id' as const, 'name' as const),
    },
    { requiredKeys: ['limit'] },
  );

  it('items() follows next with every parameter: exactly the matching pets, each once, in the order asked', async () => {
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const walked: Pet[] = [];
        for await (const pet of items(site, '/pets', q)) walked.push(pet);
        expect(walked.map((p) => p.id)).to.deep.equal(model(q).map((p) => p.id));
      }),
      { numRuns: 40 },
    );
  });

  it('sort random with a seed: page after page, the one-page order of that seed, a permutation of the matches', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2147483647 }), fc.integer({ min: 1, max: 5 }), async (seed, limit) => {
        const q = { sort: 'random', seed, status: ['available', 'pending'] } as const;
        const walked: number[] = [];
        for await (const pet of items(site, '/pets', { ...q, limit })) walked.push(pet.id);
        const whole = await site.GET('/pets', { params: { query: { ...q, status: 'available,pending', limit: 100 } } });
        expect(walked).to.deep.equal((whole.data as Pet[]).map((p) => p.id));
        expect([...walked].sort((a, b) => a - b)).to.deep.equal(model({ status: q.status }).map((p) => p.id));
      }),
      { numRuns: 15 },
    );
  });

  it("expand: 'photos' types each item PetWithPhotos: photos in ascending id with signed url and srcset, loaded with no key", async () => {
    const [withPhotos, without] = [pets[1]!, pets[2]!];
    const uploaded: number[] = [];
    for (const width of [400, 800]) {
      const res = await fetch(`${s.baseUrl}/pets/${withPhotos.id}/photos`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEYS.admin}`, 'Content-Type': 'image/png' },
        body: Buffer.from(textImage({ format: 'png', width, height: 300 }, `photo ${width}`)),
      });
      expect(res.status, await res.clone().text()).to.equal(201);
      uploaded.push(((await res.json()) as { id: number }).id);
    }
    const seen = new Map<number, PetWithPhotos>();
    for await (const page of pages(site, '/pets', {
      expand: 'photos',
      limit: 7,
      categoryId: [withPhotos.categoryId, without.categoryId],
    }))
      for (const pet of page.items) seen.set(pet.id, pet);
    expect(seen.get(without.id)!.photos).to.deep.equal([]);
    const photos = seen.get(withPhotos.id)!.photos;
    expect(photos.map((p) => p.id)).to.deep.equal(uploaded);
    for (const photo of photos) {
      const url = `/v1/pets/${withPhotos.id}/photos/${photo.id}?sig=`;
      expect(photo.url.startsWith(url) && /^[A-Za-z0-9_-]{43}$/.test(photo.url.slice(url.length)), photo.url).to.equal(
        true,
      );
      expect(photo.srcset).to.match(new RegExp(`, ${photo.url.replace(/[?]/g, '\\?')} ${photo.width}w$`));
      // What a browser's <img> does: no key, no Origin, the signature only.
      const image = await fetch(new URL(photo.url, s.baseUrl));
      expect([image.status, image.headers.get('cache-control')]).to.deep.equal([200, 'public, max-age=86400']);
    }
    // Without expand, a Pet: no photos, in the answer or in the type.
    for await (const pet of items(site, '/pets', { limit: 3 })) {
      expect(pet).not.to.have.property('photos');
      // @ts-expect-error a Pet of a list without expand has no photos
      expect(pet.photos).to.equal(undefined);
    }
  });
});

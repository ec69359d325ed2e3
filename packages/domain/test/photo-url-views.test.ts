// The views of signed photo URLs that `PhotoUrls` hands to `expand=photos` (docs/rules.md §16): the
// URL without `PETSTORE_PUBLIC_URL`, and what a page costs: no secret for a page without photos, no
// HMAC again for a photo asked again under the same secret, and a bounded memory of the views kept.
import { expect } from 'chai';
import fc from 'fast-check';
import { PhotoUrls, signPhoto, type Digests, type PhotoUrlSecretStore } from '../src/index.js';
import { ManualClock, SeededRandom, nodeDigests } from '../test-support/index.js';
import { photoOf } from './support/photo-urls.js';

const SECRET = 'k'.repeat(43);
/** The views `PhotoUrls` keeps at most (`VIEW_CACHE_MAX`, "past this many, the cache starts over"). */
const VIEWS_KEPT = 50_000;

/** `node:crypto`'s digests (or a cheaper MAC), counting the HMACs: the cost of signing a URL. */
const countingDigests = (
  mac: Digests['hmacSha256'] = nodeDigests.hmacSha256,
): Digests & { readonly signed: () => number } => {
  let signed = 0;
  return {
    ...nodeDigests,
    hmacSha256: (key, message) => (signed++, mac(key, message)),
    signed: () => signed,
  };
};

const fromSetting = (digests: Digests = nodeDigests, base?: string) =>
  new PhotoUrls(
    { setting: SECRET },
    { digests, random: new SeededRandom(), clock: new ManualClock(), ...(base === undefined ? {} : { base }) },
  );

describe('PhotoUrls views (docs/rules.md §16)', () => {
  it('without PETSTORE_PUBLIC_URL, a URL starts with /v1/', async () => {
    const [view] = await fromSetting().links([photoOf(7, 3)]);
    expect(view!.url).to.equal(`/v1/pets/7/photos/3?sig=${signPhoto(nodeDigests, SECRET, '7', '3')}`);
  });

  it('a page without photos neither reads nor makes the secret', async () => {
    let calls = 0;
    const store: PhotoUrlSecretStore = {
      read: async () => (calls++, undefined),
      create: async (secret) => (calls++, secret),
      rotate: async () => void calls++,
    };
    const urls = new PhotoUrls(
      { store },
      { digests: nodeDigests, random: new SeededRandom(), clock: new ManualClock() },
    );
    expect(await urls.links([])).to.deep.equal([]);
    expect(calls).to.equal(0);
  });

  it('hands out frozen views, the same object for the same photo asked again (an adapter may keep what it makes of one)', async () => {
    const urls = fromSetting();
    const [view] = await urls.links([photoOf(7, 3)]);
    expect(Object.isFrozen(view)).to.equal(true);
    const [again] = await urls.links([photoOf(7, 3)]);
    expect(again).to.equal(view);
  });

  it('property: a page asked again under the same secret costs no HMAC, and shows the same views', async () => {
    const pageArb = fc.uniqueArray(
      fc.record({ petId: fc.integer({ min: 1, max: 9 }), id: fc.integer({ min: 1, max: 99 }) }),
      { minLength: 1, maxLength: 12, selector: (p) => p.id },
    );
    await fc.assert(
      fc.asyncProperty(pageArb, async (ids) => {
        const digests = countingDigests();
        const urls = fromSetting(digests, 'https://p.example');
        const page = ids.map(({ petId, id }) => photoOf(petId, id));
        const first = await urls.links(page);
        expect(digests.signed(), 'each photo signed once').to.equal(page.length);
        expect(await urls.links(page)).to.deep.equal(first);
        expect(await urls.links([...page].reverse())).to.deep.equal([...first].reverse());
        expect(digests.signed(), 'asked again').to.equal(page.length);
      }),
    );
  });

  it(`keeps the views of up to ${VIEWS_KEPT} photos, and past that starts over: its memory is bounded`, async () => {
    const digests = countingDigests(() => new Uint8Array(32)); // what is counted, not what is signed
    const urls = fromSetting(digests);
    await urls.links(Array.from({ length: VIEWS_KEPT }, (_, i) => photoOf(1, i + 1)));
    expect(digests.signed()).to.equal(VIEWS_KEPT);
    await urls.links([photoOf(1, 1), photoOf(1, VIEWS_KEPT)]);
    expect(digests.signed(), `${VIEWS_KEPT} photos are all kept`).to.equal(VIEWS_KEPT);
    await urls.links([photoOf(1, VIEWS_KEPT + 1)]);
    await urls.links([photoOf(1, 1)]);
    expect(digests.signed(), 'one more, and the first is signed again').to.equal(VIEWS_KEPT + 2);
  });
});

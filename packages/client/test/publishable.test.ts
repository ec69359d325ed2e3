// @petstore/client with a publishable key (docs/rules.md §16): issued through the admin API, then
// used as a shelter's page would use it, with the `origin` option standing for the page's origin.
import { expect } from 'chai';
import { PUBLISHABLE_KEY_PATTERN } from '@petstore/domain';
import { createPetstoreClient } from '../src/index.js';
import { KEYS, startServer, type ClientTestServer } from './support/server.js';

const SITE = 'https://shelter.example';

describe('@petstore/client with a publishable key (docs/rules.md §16)', () => {
  let s: ClientTestServer;
  beforeEach(async () => {
    s = await startServer();
  });
  afterEach(() => s.close());

  it('an admin issues one with its origins; from that origin it lists pets and reads /me, elsewhere and off the catalogue it gets 403', async () => {
    const admin = createPetstoreClient({ baseUrl: s.baseUrl, apiKey: KEYS.admin });
    const issued = await admin.POST('/admin/keys', {
      body: { plan: 'free', role: 'publishable', origins: [SITE], label: 'shelter site' },
    });
    expect(issued.response.status).to.equal(201);
    const key = issued.data!.key;
    expect(key).to.match(PUBLISHABLE_KEY_PATTERN);
    expect(issued.data).to.deep.include({ role: 'publishable', origins: [SITE] });

    const page = createPetstoreClient({ baseUrl: s.baseUrl, apiKey: key, origin: SITE, retry: false });
    const pets = await page.GET('/pets', { params: { query: { limit: 5 } } });
    expect(pets.response.status).to.equal(200);
    expect(pets.response.headers.get('access-control-allow-origin')).to.equal(SITE);
    const me = await page.GET('/me');
    expect(me.data).to.deep.include({ role: 'publishable' });
    const create = await page.POST('/categories', { body: { name: 'Cats' } });
    expect([create.response.status, create.error?.code]).to.deep.equal([403, 'forbidden']);

    const elsewhere = createPetstoreClient({ baseUrl: s.baseUrl, apiKey: key, retry: false });
    const refused = await elsewhere.GET('/pets');
    expect([refused.response.status, refused.error?.message]).to.deep.equal([
      403,
      'this publishable key is not allowed from this origin',
    ]);
  });
});

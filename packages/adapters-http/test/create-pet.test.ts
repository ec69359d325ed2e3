// docs/rules.md §1 (every NewPet and body rule) through POST /v1/pets, and §2 (201 + Location).
import { expect } from 'chai';
import { BODY_LIMIT_BYTES } from '../src/index.js';
import {
  expectError,
  KEYS,
  rateLimitOf,
  SEEDED_CATEGORIES,
  startServer,
  streamingRequest,
  type RawResponse,
  type TestServer,
} from './support/server.js';

interface PetBody {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

describe('POST /v1/pets (docs/rules.md §1, §2)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(() => s.close());

  const post = (body: unknown): Promise<RawResponse> => s.postJson(JSON.stringify(body));
  const created = (res: RawResponse): PetBody => {
    expect(res.status, res.text).to.equal(201);
    const pet = res.json() as PetBody;
    expect(res.header('location')).to.equal(`/v1/pets/${pet.id}`);
    expect(res.header('content-type')).to.equal('application/json; charset=utf-8');
    return pet;
  };
  const refused = (res: RawResponse, field: string): string => {
    const { message } = expectError(res, 400, 'validation_failed');
    expect(message, 'the message names the field').to.include(field);
    return message;
  };

  describe('the created Pet', () => {
    it('is answered 201 with Location: /v1/pets/{id}, stores `available` when status is omitted, and is what GET returns', async () => {
      const pet = created(await post({ name: 'Rex', categoryId: 3 }));
      expect(pet).to.deep.equal({ id: pet.id, name: 'Rex', categoryId: 3, status: 'available' });
      expect(Number.isSafeInteger(pet.id) && pet.id > 0).to.equal(true);
      const fetched = await s.request({ path: `/v1/pets/${pet.id}`, key: KEYS.huge });
      expect(fetched.json()).to.deep.equal(pet);
      for (const status of ['available', 'pending', 'sold']) {
        expect(created(await post({ name: 'S', categoryId: 1, status })).status).to.equal(status);
      }
    });

    it('gets a positive id, unique and increasing in creation order, also under concurrent creates', async () => {
      const first = created(await post({ name: 'a', categoryId: 1 })).id;
      const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => post({ name: `p${i}`, categoryId: 1 })));
      const ids = burst.map((r) => created(r).id);
      expect(new Set(ids).size).to.equal(40);
      for (const id of ids) expect(id).to.be.greaterThan(first);
      const last = created(await post({ name: 'z', categoryId: 1 })).id;
      expect(last).to.be.greaterThan(Math.max(...ids));
    });

    it('keeps the name exactly as sent: no trimming, no normalisation', async () => {
      for (const name of ['  Rex  ', '\tTab', 'e\u0301', '\u00e9', 'Ｒｅｘ', '🐕‍🦺', 'a\u0000b', '<b>&amp;</b>']) {
        expect(created(await post({ name, categoryId: 1 })).name).to.equal(name);
      }
    });
  });

  describe('name', () => {
    it('counts Unicode code points: 1 and 200 pass, 0 and 201 fail, also for astral characters', async () => {
      created(await post({ name: 'x', categoryId: 1 }));
      created(await post({ name: 'x'.repeat(200), categoryId: 1 }));
      const astral = created(await post({ name: '𝒜'.repeat(200), categoryId: 1 })); // 400 UTF-16 units
      expect([...astral.name]).to.have.length(200);
      refused(await post({ name: '', categoryId: 1 }), 'name');
      refused(await post({ name: 'x'.repeat(201), categoryId: 1 }), 'name');
      refused(await post({ name: '𝒜'.repeat(201), categoryId: 1 }), 'name');
    });

    it('needs at least one character that is not white space', async () => {
      for (const name of [' ', '   ', '\t\n\r', '\u00a0', '\u2003\u3000', '\ufeff'])
        refused(await post({ name, categoryId: 1 }), 'name');
      created(await post({ name: ' . ', categoryId: 1 }));
    });

    it('must be well-formed Unicode: a lone surrogate escaped in the JSON text (\\ud800) is refused, a pair is fine', async () => {
      for (const escaped of ['\\ud800', 'a\\ud800b', '\\udc00', 'x\\udbff', '\\ude00\\ud83d']) {
        refused(await s.postJson(`{"name":"${escaped}","categoryId":1}`), 'name');
      }
      expect(created(await s.postJson('{"name":"\\ud83d\\ude00","categoryId":1}')).name).to.equal('😀');
    });

    it('must be a string', async () => {
      for (const name of [1, true, null, ['a'], { a: 1 }]) refused(await post({ name, categoryId: 1 }), 'name');
    });
  });

  describe('categoryId', () => {
    it('accepts JSON integers naming a category, and 1.0 as 1', async () => {
      expect(created(await post({ name: 'a', categoryId: 1 })).categoryId).to.equal(1);
      expect(created(await post({ name: 'a', categoryId: SEEDED_CATEGORIES })).categoryId).to.equal(SEEDED_CATEGORIES);
      expect(created(await s.postJson('{"name":"a","categoryId":1.0}')).categoryId).to.equal(1);
      expect(created(await s.postJson('{"name":"a","categoryId":42.000}')).categoryId).to.equal(42);
    });

    it('refuses a well-formed id that names no category (up to 2^53 − 1) with 400 naming the id, after the shape rules, storing nothing', async () => {
      const stored = async () => (await s.repository.list({ order: { sort: 'id' }, limit: 1_000_000 })).pets.length;
      const before = await stored();
      for (const id of [SEEDED_CATEGORIES + 1, 7_000, 9007199254740991]) {
        const body = expectError(await post({ name: 'a', categoryId: id }), 400, 'validation_failed');
        expect(body.message).to.equal(`categoryId ${id} names no category`);
      }
      expect(
        expectError(await s.postJson('{"name":"a","categoryId":101.0}'), 400, 'validation_failed').message,
      ).to.equal('categoryId 101 names no category');
      // Shape first: a malformed name or id is refused for its shape even when the id names no category.
      expect(expectError(await post({ name: ' ', categoryId: 7_000 }), 400, 'validation_failed').message).to.match(
        /^name /,
      );
      expect(
        expectError(await post({ name: 'a', categoryId: 9007199254740992 }), 400, 'validation_failed').message,
      ).to.match(/^categoryId must be/);
      expect(
        expectError(await post({ name: 'a', categoryId: 7_000, extra: 1 }), 400, 'validation_failed').message,
      ).to.include("'extra'");
      expect(await stored()).to.equal(before);
      // Created now, the category is named from then on.
      const category = await s.postCategory('{"name":"Late arrivals"}');
      expect(category.status).to.equal(201);
      const id = (category.json() as { id: number }).id;
      expect(created(await post({ name: 'a', categoryId: id })).categoryId).to.equal(id);
    });

    it('refuses 0, negatives, 2^53, strings, fractions, booleans, null, arrays and objects', async () => {
      for (const text of [
        '0',
        '-1',
        '-0',
        '9007199254740992',
        '1e300',
        '"5"',
        '"1"',
        '1.5',
        '0.5',
        'true',
        'false',
        'null',
        '[1]',
        '{}',
      ]) {
        refused(await s.postJson(`{"name":"a","categoryId":${text}}`), 'categoryId');
      }
    });
  });

  describe('status', () => {
    it('is exactly available, pending or sold (case-sensitive); null and anything else are refused', async () => {
      for (const status of ['Available', 'SOLD', 'Pending', 'available ', '', 'adopted', null, 1, true, ['sold']]) {
        refused(await post({ name: 'a', categoryId: 1, status }), 'status');
      }
    });
  });

  describe('the object is closed', () => {
    it('requires name and categoryId', async () => {
      refused(await post({ categoryId: 1 }), 'name');
      refused(await post({ name: 'a' }), 'categoryId');
      expectError(await post({}), 400, 'validation_failed');
    });

    it('refuses an unknown property and names it', async () => {
      for (const key of ['extra', 'Name', 'category_id', 'tags', '']) {
        const message = refused(await post({ name: 'a', categoryId: 1, [key]: 1 }), `'${key}'`);
        expect(message).to.include('unknown');
      }
    });

    it('refuses id: it is assigned by the service', async () => {
      const message = refused(await post({ id: 7, name: 'a', categoryId: 1 }), 'id');
      expect(message).to.include('assigned by the service');
    });

    it('refuses __proto__, constructor and prototype as unknown properties, and they never reach a prototype', async () => {
      const payloads = [
        '{"name":"a","categoryId":1,"__proto__":{"polluted":"yes","status":"sold"}}',
        '{"__proto__":{"polluted":"yes"},"name":"a","categoryId":1}',
        '{"name":"a","categoryId":1,"constructor":{"prototype":{"polluted":"yes"}}}',
        '{"name":"a","categoryId":1,"prototype":{"polluted":"yes"}}',
        '{"name":"a","categoryId":1,"__proto__":null}',
      ];
      for (const text of payloads) {
        const key = /"(__proto__|constructor|prototype)"/.exec(text)![1]!;
        refused(await s.postJson(text), key);
        expect(({} as Record<string, unknown>)['polluted'], text).to.equal(undefined);
        expect(Object.prototype).to.not.have.property('polluted');
      }
    });
  });

  describe('the body', () => {
    it('is required: a missing body is 400 validation_failed, with or without Content-Type', async () => {
      expectError(await s.postJson(''), 400, 'validation_failed');
      expectError(await s.request({ method: 'POST', path: '/v1/pets', key: KEYS.huge }), 400, 'validation_failed');
      expectError(
        await s.request({
          method: 'POST',
          path: '/v1/pets',
          key: KEYS.huge,
          headers: { 'content-type': 'application/json' },
          chunked: true,
          body: '',
        }),
        400,
        'validation_failed',
      );
    });

    it('must be a JSON object: arrays, strings, numbers, null and booleans are 400 validation_failed', async () => {
      for (const text of ['[]', '[{"name":"a","categoryId":1}]', '"a"', '1', 'null', 'true', '{}']) {
        expectError(await s.postJson(text), 400, 'validation_failed');
      }
    });

    it('that is not parseable JSON is 400 malformed_json', async () => {
      for (const text of [
        '{',
        '{"name":',
        "{'name':'a','categoryId':1}",
        '{"name":"a","categoryId":1,}',
        '{"name":"a"}x',
        'nul',
        '{name:"a"}',
        ' ',
        '\u0000',
      ]) {
        expectError(await s.postJson(text), 400, 'malformed_json');
      }
    });

    it('that is not valid UTF-8 is 400 malformed_json', async () => {
      const wrap = (bytes: number[]): Buffer =>
        Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bytes), Buffer.from('","categoryId":1}')]);
      const invalid = [
        [0xff],
        [0xc3],
        [0xc0, 0xaf],
        [0xed, 0xa0, 0x80],
        [0xf8, 0x88, 0x80, 0x80, 0x80],
        [0x80],
        [0xe2, 0x82],
      ];
      for (const bytes of invalid) {
        const res = await s.request({
          method: 'POST',
          path: '/v1/pets',
          key: KEYS.huge,
          headers: { 'content-type': 'application/json' },
          body: wrap(bytes),
        });
        expectError(res, 400, 'malformed_json');
      }
      // The same name as well-formed UTF-8 is fine.
      const ok = await s.request({
        method: 'POST',
        path: '/v1/pets',
        key: KEYS.huge,
        headers: { 'content-type': 'application/json' },
        body: wrap([0xc3, 0xa9]),
      });
      expect(created(ok).name).to.equal('é');
    });
  });

  describe('Content-Type', () => {
    it('application/json is required; parameters such as charset=utf-8 are allowed', async () => {
      for (const type of [
        'application/json',
        'application/json; charset=utf-8',
        'application/json;charset=UTF-8',
        'Application/JSON',
        'application/json; charset="utf-8"',
      ]) {
        created(await s.postJson('{"name":"a","categoryId":1}', KEYS.huge, { 'content-type': type }));
      }
    });

    it('anything else, or none with a body, is 415 unsupported_media_type', async () => {
      const body = '{"name":"a","categoryId":1}';
      for (const type of [
        'text/plain',
        'text/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonx',
        'application/json-patch+json',
        'application/xml',
        '*/*',
      ]) {
        expectError(await s.postJson(body, KEYS.huge, { 'content-type': type }), 415, 'unsupported_media_type');
      }
      expectError(
        await s.request({ method: 'POST', path: '/v1/pets', key: KEYS.huge, body }),
        415,
        'unsupported_media_type',
      );
    });
  });

  describe('size', () => {
    const json = { 'content-type': 'application/json' };

    it('accepts a body of exactly 1 MiB', async () => {
      const core = '{"name":"big","categoryId":1}';
      const text = core + ' '.repeat(BODY_LIMIT_BYTES - core.length);
      expect(Buffer.byteLength(text)).to.equal(1024 * 1024);
      created(await s.postJson(text));
    });

    it('refuses a declared Content-Length over 1 MiB with 413 at once, before any of the body is sent', async () => {
      for (const length of [BODY_LIMIT_BYTES + 1, 50 * 1024 * 1024]) {
        const res = await streamingRequest(
          s.port,
          { path: '/v1/pets', key: KEYS.huge, headers: { ...json, 'content-length': String(length) } },
          [],
        );
        expectError(res, 413, 'payload_too_large');
        expect(res.bytesWritten).to.equal(0);
        rateLimitOf(res);
      }
    });

    it('refuses a chunked body that grows past 1 MiB with 413 while it is being sent', async () => {
      const piece = Buffer.alloc(64 * 1024, 0x20);
      const chunks = [Buffer.from('{"name":"a","categoryId":1}'), ...Array.from({ length: 17 }, () => piece)];
      const res = await streamingRequest(
        s.port,
        { path: '/v1/pets', key: KEYS.huge, headers: { ...json, 'transfer-encoding': 'chunked' } },
        chunks,
      );
      expectError(res, 413, 'payload_too_large');
      rateLimitOf(res);
    });
  });
});

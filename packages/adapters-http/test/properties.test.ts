// Properties over real HTTP: for generated bodies, query strings and path segments, the status
// is exactly the one the domain (validateNewPet, parsePetId) or the contract's query rule
// predicts, and never a 5xx. One shared server; a key whose quota no run reaches.
import { expect } from 'chai';
import fc from 'fast-check';
import { MAX_CATEGORY_ID, parsePetId, PET_STATUSES, validateNewPet, type Pet } from '@petstore/domain';
import { validNameArb } from '@petstore/domain/testing';
import { KEYS, SEEDED_CATEGORIES, startServer, type RawResponse, type TestServer } from './support/server.js';

const SETTINGS = { numRuns: 100, interruptAfterTimeLimit: 10_000 } as const;

/**
 * What the server decodes from `text` sent as UTF-8: lone surrogates become U+FFFD on the wire,
 * and a leading byte order mark is dropped by the UTF-8 decoder (RFC 8259 lets a parser ignore it).
 */
const asSent = (text: string): string => new TextDecoder('utf-8').decode(Buffer.from(text, 'utf8'));

/** The contract's answer to a create body: 201, or 400 with the code (the server has categories 1…SEEDED_CATEGORIES). */
const predictCreate = (text: string): { status: 201 | 400; code?: string } => {
  const sent = asSent(text);
  if (sent === '') return { status: 400, code: 'validation_failed' };
  let value: unknown;
  try {
    value = JSON.parse(sent);
  } catch {
    return { status: 400, code: 'malformed_json' };
  }
  const draft = validateNewPet(value);
  return draft.ok && draft.value.categoryId <= SEEDED_CATEGORIES
    ? { status: 201 }
    : { status: 400, code: 'validation_failed' };
};

const entry = (key: string, value: unknown): string => `${JSON.stringify(key)}:${JSON.stringify(value)}`;

/** Objects near the valid ones: each field valid or wrong in a typical way, sometimes missing or extra. */
const nearValidText: fc.Arbitrary<string> = fc
  .record(
    {
      name: fc.oneof(
        validNameArb,
        fc.constantFrom(
          '',
          ' ',
          '\t',
          '\ud800',
          'a\udc00',
          'x'.repeat(200),
          'x'.repeat(201),
          '𝒜'.repeat(200),
          '𝒜'.repeat(201),
        ),
        fc.string(),
        fc.integer(),
        fc.constant(null),
      ),
      categoryId: fc.oneof(
        fc.integer({ min: 1, max: SEEDED_CATEGORIES + 50 }),
        fc.integer({ min: -10, max: 10 }),
        fc.constantFrom(MAX_CATEGORY_ID, MAX_CATEGORY_ID + 1, 1.5, -0, 1e21, 0.1),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom('5', '1', true, null, [1], {}),
      ),
      status: fc.oneof(
        fc.constantFrom(...PET_STATUSES),
        fc.constantFrom('Available', 'SOLD', '', 'sold ', null, 1),
        fc.string(),
      ),
      extra: fc.tuple(
        fc.constantFrom('id', '__proto__', 'constructor', 'prototype', 'extra', 'Name', ''),
        fc.jsonValue({ maxDepth: 1 }),
      ),
    },
    { requiredKeys: [] },
  )
  .map((r) => {
    const parts: string[] = [];
    if ('name' in r) parts.push(entry('name', r.name));
    if ('categoryId' in r) parts.push(entry('categoryId', r.categoryId));
    if ('status' in r) parts.push(entry('status', r.status));
    if (r.extra !== undefined) parts.push(entry(r.extra[0], r.extra[1]));
    return `{${parts.join(',')}}`;
  });

/** Raw JSON texts: `1.0`-style numbers, escaped lone surrogates, broken texts. */
const rawText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{"name":"a","categoryId":1.0}',
    '{"name":"\\ud800","categoryId":1}',
    '{"name":"\\ud83d\\ude00","categoryId":1}',
    '{"name":"a","categoryId":1e0}',
    '{"name":"a","categoryId":10e-1}',
    '{"name":"a","categoryId":1,"status":"sold"}',
  ),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  nearValidText.map((t) => t.slice(0, -1)),
);

describe('properties over HTTP (docs/rules.md §1, §2)', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    s = await startServer();
    for (let i = 0; i < 30; i++)
      await s.postJson(JSON.stringify({ name: `seed ${i}`, categoryId: 1, status: PET_STATUSES[i % 3] }));
  });
  after(() => s.close());

  const noServerError = (res: RawResponse): void => {
    expect(res.status, res.text).to.be.below(500);
  };

  it('POST /v1/pets answers 201 exactly when the domain accepts the body, else 400 with the right code', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(nearValidText, rawText), async (text) => {
        const res = await s.postJson(text);
        noServerError(res);
        const predicted = predictCreate(text);
        expect(res.status, text).to.equal(predicted.status);
        if (predicted.status === 201) {
          const pet = res.json() as Pet;
          const draft = validateNewPet(JSON.parse(asSent(text)));
          expect(draft.ok).to.equal(true);
          if (draft.ok) expect(pet).to.deep.equal({ id: pet.id, ...draft.value });
          expect(res.header('location')).to.equal(`/v1/pets/${pet.id}`);
        } else {
          expect((res.json() as { code: string }).code, text).to.equal(predicted.code);
        }
      }),
      SETTINGS,
    );
  });

  it('GET /v1/pets answers 200 exactly when limit is a canonical integer 1–100 and status one of the three, each at most once', async () => {
    const limitArb = fc.oneof(
      fc.integer({ min: -5, max: 120 }).map(String),
      fc.constantFrom(
        '1',
        '100',
        '20',
        '0',
        '101',
        '007',
        '01',
        '+5',
        '1.0',
        '1e1',
        ' 5',
        '5 ',
        '',
        'abc',
        '٣',
        '99999999999999999999',
      ),
      fc.string({ unit: 'grapheme', maxLength: 6 }),
    );
    const statusArb = fc.oneof(
      fc.constantFrom(...PET_STATUSES),
      fc.constantFrom('Available', 'SOLD', '', 'sold ', ' sold'),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
    );
    const queryArb = fc.record({
      limit: fc.option(limitArb, { nil: undefined }),
      status: fc.option(statusArb, { nil: undefined }),
      repeatLimit: fc.boolean(),
      repeatStatus: fc.boolean(),
      unknown: fc.option(
        fc.tuple(fc.constantFrom('foo', 'Limit', 'STATUS', 'page', 'offset'), fc.string({ maxLength: 5 })),
        { nil: undefined },
      ),
    });
    await fc.assert(
      fc.asyncProperty(queryArb, async (q) => {
        const parts: string[] = [];
        if (q.limit !== undefined) parts.push(`limit=${encodeURIComponent(q.limit)}`);
        if (q.limit !== undefined && q.repeatLimit) parts.push(`limit=${encodeURIComponent(q.limit)}`);
        if (q.status !== undefined) parts.push(`status=${encodeURIComponent(q.status)}`);
        if (q.status !== undefined && q.repeatStatus) parts.push(`status=${encodeURIComponent(q.status)}`);
        if (q.unknown !== undefined) parts.push(`${q.unknown[0]}=${encodeURIComponent(q.unknown[1])}`);
        const path = `/v1/pets${parts.length > 0 ? `?${parts.join('&')}` : ''}`;

        const limitOk =
          q.limit === undefined || (!q.repeatLimit && /^[1-9][0-9]*$/.test(q.limit) && Number(q.limit) <= 100);
        const statusOk =
          q.status === undefined || (!q.repeatStatus && (PET_STATUSES as readonly string[]).includes(q.status));
        const res = await s.request({ path, key: KEYS.huge });
        noServerError(res);
        if (limitOk && statusOk) {
          expect(res.status, path).to.equal(200);
          const page = res.json() as Pet[];
          expect(page.length).to.be.at.most(q.limit === undefined ? 20 : Number(q.limit));
          for (const pet of page) if (q.status !== undefined) expect(pet.status).to.equal(q.status);
          for (let i = 1; i < page.length; i++) expect(page[i]!.id).to.be.greaterThan(page[i - 1]!.id);
        } else {
          expect(res.status, path).to.equal(400);
          expect((res.json() as { code: string }).code).to.equal('validation_failed');
        }
      }),
      SETTINGS,
    );
  });

  it('GET /v1/pets/{petId} answers 400 exactly when parsePetId refuses the raw segment, else 200 or 404 by whether the pet exists', async () => {
    const segmentArb = fc
      .oneof(
        fc.bigInt({ min: -10n, max: 2n ** 64n }).map(String),
        fc.integer({ min: 1, max: 40 }).map(String),
        fc.tuple(fc.stringMatching(/^0{1,3}$/), fc.integer({ min: 0, max: 50 })).map(([zeros, n]) => `${zeros}${n}`),
        fc.constantFrom(
          '%31',
          '1.0',
          '0x1',
          '1e2',
          '9223372036854775807',
          '9223372036854775808',
          '+1',
          '-0',
          '%',
          '%zz',
          '..',
          '.',
        ),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).map((t) => encodeURIComponent(t)),
      )
      .filter((seg) => seg !== '');
    await fc.assert(
      fc.asyncProperty(segmentArb, async (segment) => {
        const res = await s.request({ path: `/v1/pets/${segment}`, key: KEYS.huge });
        noServerError(res);
        const parsed = parsePetId(segment);
        if (!parsed.ok) {
          expect(res.status, segment).to.equal(400);
          expect((res.json() as { code: string }).code).to.equal('validation_failed');
        } else {
          const exists = parsed.value !== null && (await s.repository.findById(parsed.value)) !== undefined;
          expect(res.status, segment).to.equal(exists ? 200 : 404);
          if (exists) expect((res.json() as Pet).id).to.equal(parsed.value);
        }
        expect(res.header('sunset')).to.equal('Thu, 05 Dec 2030 00:00:00 GMT');
      }),
      SETTINGS,
    );
  });
});

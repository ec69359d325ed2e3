// The bodies and ids of the webhook API (docs/rules.md §15, "Webhooks"; webhooks/request.ts): each
// field's rule, closed objects, ids and secrets drawn from the Random port.
import { expect } from 'chai';
import fc from 'fast-check';
import type { Random } from '../src/index.js';
import {
  EVENT_TYPES,
  generateWebhookId,
  generateWebhookSecret,
  validateWebhookCreate,
  validateWebhookId,
  validateWebhookPatch,
  WEBHOOK_DESCRIPTION_MAX_LENGTH,
  WEBHOOK_ID_PATTERN,
  WEBHOOK_URL_MAX_LENGTH,
} from '../src/index.js';
import { expectRefusal } from './support/refusals.js';

const URL_OK = 'https://hooks.example.com/petstore';

describe('webhook ids and secrets (docs/rules.md §15)', () => {
  it('property: an id is wh_ + the lowercase hex of 12 bytes from the Random port', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 12, maxLength: 12 }), (bytes) => {
        const asked: number[] = [];
        const id = generateWebhookId({ bytes: (n) => (asked.push(n), bytes) });
        expect(asked).to.deep.equal([12]);
        expect(id).to.equal(`wh_${Buffer.from(bytes).toString('hex')}`);
        expect(id).to.match(WEBHOOK_ID_PATTERN);
        expect(validateWebhookId(id).ok).to.equal(true);
      }),
    );
  });

  it('property: a secret is whsec_ + the standard, padded base64 of 32 bytes from the Random port', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const secret = generateWebhookSecret({ bytes: () => bytes });
        expect(secret).to.equal(`whsec_${Buffer.from(bytes).toString('base64')}`);
        expect(secret).to.have.length(6 + 44);
      }),
    );
  });

  it('refuses a random source that gives fewer bytes than asked', () => {
    const short: Random = { bytes: () => new Uint8Array(3) };
    expect(() => generateWebhookId(short)).to.throw(/3 bytes/);
    expect(() => generateWebhookSecret(short)).to.throw(/3 bytes/);
  });

  it('a malformed webhookId is refused on field webhookId, without quoting it', () => {
    for (const raw of [
      '',
      'wh_',
      'wh_0123456789abcdef0123456',
      'wh_0123456789ABCDEF01234567',
      'whsec_abc',
      'x',
      'xwh_0123456789abcdef01234567',
      'wh_0123456789abcdef01234567x',
    ]) {
      const message = expectRefusal(validateWebhookId(raw), 'validation_failed', 'webhookId', raw);
      if (raw.length > 3) expect(message).not.to.include(raw);
    }
    expect(validateWebhookId('wh_0123456789abcdef01234567').ok).to.equal(true);
  });
});

describe('webhook bodies (docs/rules.md §15)', () => {
  it('a creation body is a closed JSON object with a url', () => {
    for (const body of [null, [], 'url', 3]) {
      expect(expectRefusal(validateWebhookCreate(body), 'validation_failed', 'body', String(body))).to.match(
        /JSON object.*url/,
      );
    }
    expect(expectRefusal(validateWebhookCreate({}), 'validation_failed', 'url')).to.match(/required/);
    expect(
      expectRefusal(validateWebhookCreate({ url: URL_OK, enabled: false }), 'validation_failed', 'enabled'),
    ).to.include('url, types, description, after');
    expect(validateWebhookCreate({ url: URL_OK })).to.deep.equal({ ok: true, value: { url: URL_OK, description: '' } });
  });

  it('url: a string of 1 to 2048 characters (the rest is the WebhookTargets port)', () => {
    expectRefusal(validateWebhookCreate({ url: 7 }), 'validation_failed', 'url');
    expect(expectRefusal(validateWebhookCreate({ url: '' }), 'validation_failed', 'url')).to.include('1 to 2048');
    expect(validateWebhookCreate({ url: 'h' }).ok, 'one character: its shape is the port’s to judge').to.equal(true);
    const longest = `https://x.example/${'a'.repeat(WEBHOOK_URL_MAX_LENGTH - 18)}`;
    expect(validateWebhookCreate({ url: longest }).ok).to.equal(true);
    expect(expectRefusal(validateWebhookCreate({ url: `${longest}a` }), 'validation_failed', 'url')).to.include(
      'got 2049',
    );
  });

  it('types: a non-empty array of distinct known types, the known ones listed when refused', () => {
    for (const types of [[], 'pet.created', ['pet.created', 'pet.created'], ['pet.adopted'], [3], null]) {
      const message = expectRefusal(
        validateWebhookCreate({ url: URL_OK, types }),
        'validation_failed',
        'types',
        JSON.stringify(types),
      );
      expect(message).to.include(EVENT_TYPES.join(', '));
    }
    // A refused type that is a string is named, quoted (and cut like every quote of what the caller sent).
    expect(
      expectRefusal(validateWebhookCreate({ url: URL_OK, types: ['pet.adopted'] }), 'validation_failed', 'types'),
    ).to.match(/^types must be .*: 'pet\.adopted' is not one$/);
    expect(
      expectRefusal(
        validateWebhookCreate({ url: URL_OK, types: ['pet.created', 'pet.created'] }),
        'validation_failed',
        'types',
      ),
    ).to.match(/^types must be .*: pet\.created is named twice$/);
    expect(expectRefusal(validateWebhookCreate({ url: URL_OK, types: [3] }), 'validation_failed', 'types')).to.match(
      /^types must be/,
    );
    expect(validateWebhookCreate({ url: URL_OK, types: ['order.placed', 'pet.created'] })).to.deep.equal({
      ok: true,
      value: { url: URL_OK, types: ['order.placed', 'pet.created'], description: '' },
    });
  });

  it('description: a string of at most 500 characters (code points)', () => {
    expectRefusal(validateWebhookCreate({ url: URL_OK, description: 5 }), 'validation_failed', 'description');
    const longest = '🐈'.repeat(WEBHOOK_DESCRIPTION_MAX_LENGTH);
    expect(validateWebhookCreate({ url: URL_OK, description: longest }).ok).to.equal(true);
    expect(
      expectRefusal(
        validateWebhookCreate({ url: URL_OK, description: `${longest}x` }),
        'validation_failed',
        'description',
      ),
    ).to.include('at most 500');
  });

  it('after: an integer of 0 or more', () => {
    for (const after of [-1, 1.5, '3', null]) {
      expectRefusal(validateWebhookCreate({ url: URL_OK, after }), 'validation_failed', 'after', String(after));
    }
    expect(validateWebhookCreate({ url: URL_OK, after: 0 }).ok).to.equal(true);
  });

  it('a change body: closed, at least one field, types null for every type, enabled a boolean', () => {
    expect(expectRefusal(validateWebhookPatch(null), 'validation_failed', 'body')).to.include(
      'url, types, description, enabled',
    );
    expectRefusal(validateWebhookPatch({ description: 5 }), 'validation_failed', 'description');
    expect(validateWebhookPatch({ types: ['order.placed', 'pet.created'] })).to.deep.equal({
      ok: true,
      value: { types: ['order.placed', 'pet.created'] },
    });
    expect(expectRefusal(validateWebhookPatch({}), 'validation_failed', 'body')).to.include(
      'url, types, description, enabled',
    );
    expectRefusal(validateWebhookPatch({ after: 3 }), 'validation_failed', 'after');
    expectRefusal(validateWebhookPatch({ enabled: 'yes' }), 'validation_failed', 'enabled');
    expect(expectRefusal(validateWebhookPatch({ types: [] }), 'validation_failed', 'types')).to.equal(
      `types must be a non-empty array of distinct event types, or null for every type (known: ${EVENT_TYPES.join(', ')})`,
    );
    expect(
      expectRefusal(validateWebhookPatch({ types: ['pet.created', 'pet.created'] }), 'validation_failed', 'types'),
    ).to.match(/, or null for every type \(known: .*\): pet\.created is named twice$/);
    expectRefusal(validateWebhookPatch({ url: '' }), 'validation_failed', 'url');
    expect(validateWebhookPatch({ types: null, enabled: true, description: '' })).to.deep.equal({
      ok: true,
      value: { types: null, enabled: true, description: '' },
    });
  });
});

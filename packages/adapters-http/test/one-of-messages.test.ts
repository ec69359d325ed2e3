// The key bodies are a `oneOf` of closed shapes told apart by `plan` (docs/rules.md §9). ajv's own
// refusal of a `oneOf` is every branch's first error and "must match exactly one schema in oneOf";
// the service says instead what the branch the body was meant for says: the field and what to send.
// (An answer carries the domain's message first; this one is the schema's, for a body the domain
// would take: tested here on the validators themselves.)
import { expect } from 'chai';
import fc from 'fast-check';
import { ok, validateKeyRequest } from '@petstore/domain';
import { HttpError } from '../src/errors.js';
import { checkBody, compileValidators, describeRefusal } from '../src/validation.js';

const validators = compileValidators();

/** The message the schema alone gives for `body` (undefined when the schema takes it). */
const refusal = (which: 'newApiKey' | 'apiKeyPatch', body: unknown): string | undefined => {
  const validate = validators[which];
  return validate(body) ? undefined : describeRefusal(validate, body);
};

describe('a oneOf refusal names its field and what to send (docs/rules.md §9)', () => {
  it('POST /admin/keys: each refused shape gets the message of the shape its plan asks for', () => {
    const cases: [unknown, string][] = [
      [{ plan: 'enterprise' }, 'perMinute is required with plan enterprise'],
      [{ plan: 'enterprise', perMinute: 5 }, 'perDay is required with plan enterprise'],
      [{ plan: 'pro', perMinute: 5, perDay: 8 }, 'perMinute is not sent with plan pro: only with plan enterprise'],
      [{ plan: 'free', perDay: 8 }, 'perDay is not sent with plan free: only with plan enterprise'],
      [{ plan: 'gold' }, 'plan must be one of free, pro, business, enterprise'],
      [{ plan: null }, 'plan must be one of free, pro, business, enterprise'],
      [{ plan: { nested: 'x'.repeat(5000) } }, 'plan must be one of free, pro, business, enterprise'],
      [{}, 'plan is required: one of free, pro, business, enterprise'],
      [{ label: 'CI' }, 'plan is required: one of free, pro, business, enterprise'],
      [{ plan: 'enterprise', perMinute: 0, perDay: 8 }, 'perMinute must be >= 1'],
      [{ plan: 'pro', label: '' }, 'label must NOT have fewer than 1 characters'],
      [{ plan: 'pro', role: 'admin' }, 'role must be equal to one of the allowed values'],
      [{ plan: 'pro', role: 'owner' }, 'role must be equal to one of the allowed values'],
      [{ plan: 'pro', role: 'publishable', origins: 'https://a.example' }, 'origins must be array'],
      [[], 'body must be object'],
    ];
    for (const [body, message] of cases)
      expect(refusal('newApiKey', body), JSON.stringify(body).slice(0, 80)).to.equal(message);
  });

  it('PATCH /admin/keys/{keyId}: a change to a fixed plan, to enterprise, or without a plan', () => {
    const cases: [unknown, string][] = [
      [
        { plan: 'business', perDay: 8 },
        'perDay is not sent with plan business: only with plan enterprise, or without plan',
      ],
      [{ plan: 'gold' }, 'plan must be one of free, pro, business, enterprise'],
      [{}, 'send at least one of plan, label, origins, perMinute, perDay'],
      [{ origins: [] }, 'origins must NOT have fewer than 1 items'],
      [{ perDay: 0 }, 'perDay must be >= 1'],
      [{ plan: 'enterprise', perMinute: 1.5 }, 'perMinute must be integer'],
      [{ role: 'admin' }, "unknown body property 'role'"],
      [{ [`${'p'.repeat(5000)}`]: 1 }, `unknown body property '${'p'.repeat(64)}…'`],
    ];
    for (const [body, message] of cases)
      expect(refusal('apiKeyPatch', body), JSON.stringify(body).slice(0, 80)).to.equal(message);
    for (const body of [
      { plan: 'enterprise' },
      { plan: 'enterprise', perDay: 8 },
      { perMinute: 3 },
      { label: 'x' },
      { plan: 'pro', label: 'x' },
    ]) {
      expect(refusal('apiKeyPatch', body), JSON.stringify(body)).to.equal(undefined);
    }
  });

  it("property: every refused key body gets a short message that starts with a field it names or what to send, never ajv's oneOf wording", () => {
    const value = fc.oneof(
      fc.constantFrom('free', 'pro', 'business', 'enterprise'),
      fc.integer({ min: -2, max: 10 }),
      fc.constant(1.5),
      fc.string(),
      fc.constant(null),
      fc.string({ minLength: 100, maxLength: 300 }),
    );
    const body = fc.oneof(
      fc.record({ plan: value, label: value, perMinute: value, perDay: value, extra: value }, { requiredKeys: [] }),
      fc.constantFrom<unknown>([], 'free', 7, null),
    );
    const starts =
      /^(plan|label|perMinute|perDay) |^unknown body property '|^send at least one of |^body must be object$/;
    fc.assert(
      fc.property(body, fc.constantFrom('newApiKey' as const, 'apiKeyPatch' as const), (b, which) => {
        const message = refusal(which, b);
        if (message === undefined) return;
        expect(message, JSON.stringify(b)).to.match(starts);
        expect(message).not.to.match(/oneOf|exactly one schema|allowed values|constant/);
        expect(message.length).to.be.at.most(200);
        // Never a wrong lead: a field some shape takes is not "unknown", a plan that exists is not refused as a plan.
        expect(message, JSON.stringify(b)).not.to.match(/^unknown body property '(plan|label|perMinute|perDay)'/);
        if (
          typeof b === 'object' &&
          b !== null &&
          ['free', 'pro', 'business', 'enterprise'].includes((b as { plan?: unknown }).plan as string)
        ) {
          expect(message, JSON.stringify(b)).not.to.match(/^plan /);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("checkBody answers 400 with it when the domain rule would take the body, and with the domain's message otherwise", () => {
    const thrown = (rule: (body: unknown) => ReturnType<typeof validateKeyRequest>) => {
      try {
        checkBody(validators.newApiKey, { plan: 'enterprise', perMinute: 5 }, rule);
      } catch (error) {
        return error as HttpError;
      }
      throw new Error('checkBody took the body');
    };
    const schemaOnly = thrown(() => ok({ role: 'client', plan: 'free', quota: { perMinute: 1, perDay: 1 } }));
    expect(schemaOnly).to.be.instanceOf(HttpError);
    expect([schemaOnly.code, schemaOnly.message]).to.deep.equal([
      'validation_failed',
      'perDay is required with plan enterprise',
    ]);
    const domain = validateKeyRequest({ plan: 'enterprise', perMinute: 5 });
    expect(thrown(validateKeyRequest).message).to.equal(domain.ok ? '' : domain.error.message);
  });
});

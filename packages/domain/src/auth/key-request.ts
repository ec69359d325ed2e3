import { validationFailed, type ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import { codePoints, checkFields, isObject } from '../text/body.js';
import { isPlanName, PLAN_NAMES, PLAN_QUOTAS, type PlanName, type Quota } from '../quota/plans.js';
import { isPublicKeyId, type KeyRole } from './api-key.js';
import { readKeyOrigins } from './origins.js';

/** Bounds of a key's label, in Unicode code points (docs/rules.md §9). */
export const LABEL_MIN_LENGTH = 1;
export const LABEL_MAX_LENGTH = 100;
/** No lone surrogate anywhere; the JSON Schema carries the same source. */
export const LABEL_PATTERN = '^[^\\uD800-\\uDFFF]*$';
const LABEL_REGEXP = new RegExp(LABEL_PATTERN, 'u');
/** Smallest and largest number a quota may hold: 1 and 2^53 − 1. */
export const QUOTA_MIN = 1;
export const QUOTA_MAX = Number.MAX_SAFE_INTEGER;

const CREATE_FIELDS = ['plan', 'label', 'perMinute', 'perDay', 'role', 'origins'] as const;
const PATCH_FIELDS = ['plan', 'perMinute', 'perDay', 'label', 'origins'] as const;

/** The roles the admin API issues (docs/rules.md §9, §16): admin keys come only from the server's settings. */
export const ISSUED_ROLES = ['client', 'publishable'] as const satisfies readonly KeyRole[];
export type IssuedRole = (typeof ISSUED_ROLES)[number];

/**
 * A checked `POST /admin/keys` body: the role (`client` unless sent), the plan with its quota, the
 * label if one was sent, and a publishable key's origins.
 */
export interface KeyRequest {
  readonly role: IssuedRole;
  readonly plan: PlanName;
  readonly quota: Quota;
  readonly label?: string;
  readonly origins?: readonly string[];
}

/**
 * A checked `PATCH /admin/keys/{keyId}` body, before it meets the key it changes. The numbers may
 * come alone (docs/rules.md §9, "any of"): the other one is then the key's current one.
 */
export interface KeyPatch {
  readonly plan?: PlanName;
  readonly quota?: Partial<Quota>;
  readonly label?: string;
  /** New origins, for a publishable key only (checked against the key: `KeyAdmin.patch`). */
  readonly origins?: readonly string[];
}

const readRole = (value: unknown): Result<IssuedRole, ValidationFailed> => {
  if (value === 'admin')
    return fail(
      validationFailed(
        'role',
        "role admin is not issued through this API: admin keys come only from the server's settings",
      ),
    );
  return typeof value === 'string' && (ISSUED_ROLES as readonly string[]).includes(value)
    ? ok(value as IssuedRole)
    : fail(validationFailed('role', `role must be one of ${ISSUED_ROLES.join(', ')}`));
};

/** `origins` of a creation: required for a publishable key, refused for any other (docs/rules.md §16). */
const readCreateOrigins = (
  role: IssuedRole,
  body: Record<string, unknown>,
): Result<readonly string[] | undefined, ValidationFailed> => {
  const sent = Object.hasOwn(body, 'origins');
  if (role !== 'publishable')
    return sent
      ? fail(validationFailed('origins', 'origins are taken only for a publishable key (role publishable)'))
      : ok(undefined);
  if (!sent)
    return fail(
      validationFailed(
        'origins',
        'a publishable key needs origins: the web sites (https://host[:port]) it is used from',
      ),
    );
  return readKeyOrigins(body['origins']);
};

const readPlan = (value: unknown): Result<PlanName, ValidationFailed> =>
  typeof value === 'string' && isPlanName(value)
    ? ok(value)
    : fail(validationFailed('plan', `plan must be one of ${PLAN_NAMES.join(', ')}`));

const readLabel = (value: unknown): Result<string, ValidationFailed> => {
  if (typeof value !== 'string') return fail(validationFailed('label', 'label must be a string'));
  const length = codePoints(value);
  if (length < LABEL_MIN_LENGTH || length > LABEL_MAX_LENGTH) {
    return fail(
      validationFailed(
        'label',
        `label must be ${LABEL_MIN_LENGTH} to ${LABEL_MAX_LENGTH} characters long (got ${length})`,
      ),
    );
  }
  if (!LABEL_REGEXP.test(value))
    return fail(validationFailed('label', 'label must be well-formed Unicode (it contains a lone surrogate)'));
  return ok(value);
};

const isQuotaNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= QUOTA_MIN && value <= QUOTA_MAX;

/** `perMinute` and `perDay`, whichever were sent: whole numbers, 1 ≤ n ≤ 2^53 − 1, and perMinute ≤ perDay when both came. */
const readQuotaNumbers = (body: Record<string, unknown>): Result<Partial<Quota> | undefined, ValidationFailed> => {
  let quota: { perMinute?: number; perDay?: number } | undefined;
  for (const field of ['perMinute', 'perDay'] as const) {
    if (!Object.hasOwn(body, field)) continue;
    const value = body[field];
    if (!isQuotaNumber(value))
      return fail(validationFailed(field, `${field} must be an integer from ${QUOTA_MIN} to ${QUOTA_MAX}`));
    quota = { ...quota, [field]: value };
  }
  if (quota?.perMinute !== undefined && quota.perDay !== undefined && quota.perMinute > quota.perDay)
    return fail(notOrdered(quota as Quota));
  return ok(quota);
};

/** `perMinute` and `perDay` of a creation: both or neither (an enterprise quota is new, nothing to keep). */
const readQuota = (body: Record<string, unknown>): Result<Quota | undefined, ValidationFailed> => {
  const hasMinute = Object.hasOwn(body, 'perMinute');
  const hasDay = Object.hasOwn(body, 'perDay');
  if (hasMinute !== hasDay) {
    const missing = hasMinute ? 'perDay' : 'perMinute';
    return fail(validationFailed(missing, 'perMinute and perDay are sent together (an enterprise quota needs both)'));
  }
  return readQuotaNumbers(body) as Result<Quota | undefined, ValidationFailed>;
};

const notOrdered = (quota: Quota): ValidationFailed =>
  validationFailed(
    'perMinute',
    `perMinute must not be greater than perDay (1 ≤ perMinute ≤ perDay ≤ ${QUOTA_MAX}; got perMinute ${quota.perMinute}, perDay ${quota.perDay})`,
  );

/** Numbers sent for a fixed plan; names the first number sent. */
const enterpriseOnly = (plan: PlanName, sent: Partial<Quota>): ValidationFailed =>
  validationFailed(
    sent.perMinute === undefined ? 'perDay' : 'perMinute',
    `perMinute and perDay are set only for enterprise keys; the ${plan} plan has fixed numbers`,
  );
const enterpriseNeedsQuota = (missing: 'perMinute' | 'perDay'): ValidationFailed =>
  validationFailed(
    missing,
    'an enterprise key needs perMinute and perDay; a key that is not enterprise yet sends both',
  );

/** Checks a key creation body (docs/rules.md §9): closed, `plan` required, numbers only and both for enterprise. */
export const validateKeyRequest = (body: unknown): Result<KeyRequest, ValidationFailed> => {
  if (!isObject(body)) return fail(validationFailed('body', 'the body must be a JSON object: {"plan": …}'));
  const unknown = checkFields(body, CREATE_FIELDS);
  if (unknown) return fail(unknown);
  if (!Object.hasOwn(body, 'plan')) return fail(validationFailed('plan', 'plan is required'));
  const role = Object.hasOwn(body, 'role') ? readRole(body['role']) : ok<IssuedRole>('client');
  if (!role.ok) return role;
  const plan = readPlan(body['plan']);
  if (!plan.ok) return plan;
  const quota = readQuota(body);
  if (!quota.ok) return quota;
  let label: string | undefined;
  if (Object.hasOwn(body, 'label')) {
    const read = readLabel(body['label']);
    if (!read.ok) return read;
    label = read.value;
  }
  const origins = readCreateOrigins(role.value, body);
  if (!origins.ok) return origins;
  const grant = resolveGrant(plan.value, quota.value, undefined);
  if (!grant.ok) return grant;
  return ok({
    role: role.value,
    ...grant.value,
    ...(label === undefined ? {} : { label }),
    ...(origins.value === undefined ? {} : { origins: origins.value }),
  });
};

/** Checks a key change body on its own: closed, at least one field, each field's rule. */
export const validateKeyPatch = (body: unknown): Result<KeyPatch, ValidationFailed> => {
  if (!isObject(body))
    return fail(validationFailed('body', `the body must be a JSON object with any of ${PATCH_FIELDS.join(', ')}`));
  const unknown = checkFields(body, PATCH_FIELDS);
  if (unknown) return fail(unknown);
  if (Object.keys(body).length === 0)
    return fail(validationFailed('body', `send at least one of ${PATCH_FIELDS.join(', ')}`));
  let patch: { plan?: PlanName; quota?: Partial<Quota>; label?: string; origins?: readonly string[] } = {};
  if (Object.hasOwn(body, 'plan')) {
    const plan = readPlan(body['plan']);
    if (!plan.ok) return plan;
    patch = { ...patch, plan: plan.value };
  }
  const quota = readQuotaNumbers(body);
  if (!quota.ok) return quota;
  if (quota.value !== undefined) patch = { ...patch, quota: quota.value };
  if (Object.hasOwn(body, 'label')) {
    const label = readLabel(body['label']);
    if (!label.ok) return label;
    patch = { ...patch, label: label.value };
  }
  if (Object.hasOwn(body, 'origins')) {
    const origins = readKeyOrigins(body['origins']);
    if (!origins.ok) return origins;
    patch = { ...patch, origins: origins.value };
  }
  if (patch.plan !== undefined && patch.plan !== 'enterprise' && patch.quota !== undefined)
    return fail(enterpriseOnly(patch.plan, patch.quota));
  return ok(patch);
};

/**
 * The plan and quota a key ends up with: `plan` with the numbers sent, or else the current ones
 * (`current`, for a change). Non-enterprise plans take the plan table's numbers and accept none.
 * An enterprise key needs numbers: both sent, or, for a key that is already enterprise, either or
 * none, each number not sent being the key's current one; the result must still be ordered
 * (perMinute ≤ perDay). A key moving to enterprise from a fixed plan sends both: the stricter
 * reading of docs/rules.md §9 (the fixed plan's numbers are not taken as a starting point).
 */
export const resolveGrant = (
  plan: PlanName,
  sent: Partial<Quota> | undefined,
  current: { readonly plan: PlanName; readonly quota: Quota } | undefined,
): Result<{ plan: PlanName; quota: Quota }, ValidationFailed> => {
  if (plan !== 'enterprise')
    return sent === undefined ? ok({ plan, quota: PLAN_QUOTAS[plan] }) : fail(enterpriseOnly(plan, sent));
  const base = current?.plan === 'enterprise' ? current.quota : undefined;
  const perMinute = sent?.perMinute ?? base?.perMinute;
  const perDay = sent?.perDay ?? base?.perDay;
  if (perMinute === undefined) return fail(enterpriseNeedsQuota('perMinute'));
  if (perDay === undefined) return fail(enterpriseNeedsQuota('perDay'));
  const quota = { perMinute, perDay };
  if (perMinute > perDay) return fail(notOrdered(quota));
  return ok({ plan, quota });
};

/**
 * Checks a `keyId` path segment: `key_` and 12 lowercase hex digits. What was sent is not quoted:
 * a key pasted where its id belongs must not come back in an answer (or a log of answers).
 */
export const validateKeyId = (raw: string): Result<string, ValidationFailed> =>
  isPublicKeyId(raw)
    ? ok(raw)
    : fail(
        validationFailed(
          'keyId',
          'keyId must be key_ followed by 12 lowercase hex digits (the public id, never the key itself)',
        ),
      );

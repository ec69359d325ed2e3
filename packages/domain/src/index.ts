// Public API of @petstore/domain: rules, ports and use cases, with no runtime dependency.
export { ok, fail, type Result } from './result.js';
export {
  ERROR_CODES,
  QUOTE_LIMIT,
  quoteInput,
  StoreUnavailableError,
  type ErrorCode,
  type DomainError,
  type ValidationFailed,
  type NotFound,
  type Gone,
  type Unauthorized,
  type Forbidden,
  type Conflict,
  type IdempotencyKeyReused,
} from './errors.js';

export { PetStatus, PET_STATUSES, DEFAULT_PET_STATUS, MAX_CATEGORY_ID, isPetStatus } from './pet/pet.js';
export type { Pet, PetDraft, NewPet } from './pet/pet.js';
export { validateNewPet, parsePetId } from './pet/validate.js';

export { LIMIT_MIN, LIMIT_MAX, LIMIT_DEFAULT } from './pagination/limit.js';
export { encodeCursor, decodeCursor, pageScope } from './pagination/cursor.js';
export { readPageRequest, assemblePage, byId, type Page, type PageInput, type PageRequest } from './pagination/page.js';

export { PLAN_NAMES, PLAN_QUOTAS, ANONYMOUS_QUOTA, isPlanName, isValidQuota } from './quota/plans.js';
export type { PlanName, FixedPlanName, Quota } from './quota/plans.js';
export { MINUTE_MS, DAY_MS, windowStart, type WindowName } from './quota/windows.js';
export { DEFAULT_BAN_RULE, type BanRule } from './quota/ban.js';
export { consumeQuota, isStateExpired } from './quota/subject-state.js';
export type { SubjectState, ConsumeRequest, ConsumeResult, ConsumeOutcome } from './quota/subject-state.js';
export { decideAdmission } from './quota/admission.js';
export type { AdmissionDecision, AdmissionOutcome, WindowView } from './quota/admission.js';

export { GET_PET_DEPRECATION, isSunset, deprecationHeaders, httpDate, type DeprecationPolicy } from './deprecation/sunset.js';

export { sha256Hex, constantTimeEqual } from './auth/sha256.js';
export { apiKeyRecord, publicKeyId, KEY_ROLES, type ApiKeyRecord, type KeyRole, type Caller, type Subject } from './auth/api-key.js';

export type { PetRepository, PetListQuery } from './ports/pet-repository.port.js';
export type { QuotaStore } from './ports/quota-store.port.js';
export type { ApiKeyStore } from './ports/api-key-store.port.js';
export type { Clock } from './ports/clock.port.js';
export type { IdempotencyStore, ClaimOutcome } from './ports/idempotency-store.port.js';

export {
  IDEMPOTENCY_TTL_MS,
  IN_PROGRESS_LEASE_MS,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_KEY_PATTERN,
  checkIdempotencyKey,
  requestFingerprint,
  idempotencyId,
  isKeptStatus,
  decideReplay,
  type KeptAnswer,
  type InProgressRecord,
  type CompletedRecord,
  type IdempotencyRecord,
  type ReplayDecision,
} from './idempotency/idempotency.js';
export { IdempotentRequests, type IdempotentStart, type IdempotencyTicket } from './use-cases/idempotent-requests.js';

export { PetCatalog, type ListPetsInput } from './use-cases/pet-catalog.js';
export { Authenticator, type KeyHasher } from './use-cases/authenticate.js';
export { Admission, anonymousSubject } from './use-cases/admit.js';

export {
  PetStatusSchema,
  NewPetSchema,
  PetSchema,
  PetsSchema,
  ErrorSchema,
  ListPetsQuerySchema,
  PetIdSchema,
  IdempotencyKeySchema,
} from './schemas/index.js';

// Public API of @petstore/domain: rules, ports and use cases, with no runtime dependency.
export { ok, fail, type Result } from './result.js';
export {
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
  type PreconditionFailed,
  type IdempotencyKeyReused,
  type UnsupportedMediaType,
  type InsufficientStorage,
} from './errors.js';

export { PetStatus, PET_STATUSES, MAX_CATEGORY_ID } from './pet/pet.js';
export type { Pet, PetDraft, NewPet, PetRecord, PetChanges } from './pet/pet.js';
export { validateNewPet, validatePetPatch, parsePetId } from './pet/validate.js';
export { entityTag, parseIfMatch, ifMatchAllows, ifNoneMatchHolds } from './conditional/entity-tags.js';
export { deliveryBindsStatus } from './pet/maintenance.js';

export { OrderStatus, ORDER_STATUSES, OrderState, ORDER_STATES, toOrder, timestamp } from './order/order.js';
export type { Order, OrderDraft, OrderRecord } from './order/order.js';
export { TRANSITIONS, repairStep, STATES_OF_STATUS, LISTED_STATES } from './order/transitions.js';
export { ORDER_ACTIONS } from './order/transitions.js';
export type { OrderAction, Transition, Actor, RepairStep } from './order/transitions.js';
export { validateNewOrder, parseOrderId, type NewOrder } from './order/validate.js';

export { categoryNameKey } from './category/category.js';
export type { Category, NewCategory } from './category/category.js';
export { validateNewCategory } from './category/validate.js';
export { INT64_MAX } from './text/id.js';

export { LIMIT_MIN, LIMIT_MAX, LIMIT_DEFAULT } from './pagination/limit.js';
export { encodeCursor, decodeCursor, pageScope } from './pagination/cursor.js';
export { readPageRequest, assemblePage, byId, type Page, type PageInput, type PageRequest } from './pagination/page.js';

export { PLAN_QUOTAS, ANONYMOUS_QUOTA, OWN_STATUS_QUOTA, isPlanName } from './quota/plans.js';
export type { PlanName, FixedPlanName, Quota } from './quota/plans.js';
export { MINUTE_MS, DAY_MS, windowStart, type WindowName } from './quota/windows.js';
export { DEFAULT_BAN_RULE, NO_BAN, type BanRule } from './quota/ban.js';
export { consumeQuota, isStateExpired, stateAt } from './quota/subject-state.js';
export type { SubjectState, ConsumeRequest, ConsumeResult, ConsumeOutcome } from './quota/subject-state.js';
export { decideAdmission, readQuota } from './quota/admission.js';
export type { AdmissionDecision, AdmissionOutcome, WindowView, QuotaReading } from './quota/admission.js';

export {
  GET_PET_DEPRECATION,
  isSunset,
  deprecationHeaders,
  httpDate,
  type DeprecationPolicy,
} from './deprecation/sunset.js';

export {
  apiKeyRecord,
  publicKeyId,
  toApiKey,
  type ApiKey,
  settingsKeyPosition,
  API_KEY_POSITION_BASE,
  type ApiKeyRecord,
  type StoredApiKey,
  type KeyRole,
  type KeySource,
  type Caller,
  type Subject,
  visitorSubject,
} from './auth/api-key.js';
export { generateApiKey, ISSUED_KEY_PATTERN } from './auth/key-format.js';
export { validateKeyRequest, validateKeyPatch, QUOTA_MAX } from './auth/key-request.js';
export { ApiKeyLookupCache, KEY_CACHE_MAX_AGE_MS } from './auth/key-lookup-cache.js';
export { PublishableOrigins, PUBLISHABLE_ORIGINS_MAX_AGE_MS } from './auth/publishable-origins.js';

export type { PetRepository, PetListQuery, PetHold } from './ports/pet-repository.port.js';
export type { CategoryRepository, CategoryListQuery, CategoryNameTaken } from './ports/category-repository.port.js';
export type { OrderRepository, OrderListQuery } from './ports/order-repository.port.js';
export type { QuotaStore } from './ports/quota-store.port.js';
export type { ApiKeyStore, NewApiKey, KeyChanges } from './ports/api-key-store.port.js';
export type { Clock } from './ports/clock.port.js';
export type { Random } from './ports/random.port.js';
export type { Digests } from './ports/digests.port.js';
export { isPromise, type Answer } from './ports/answer.js';
export type { IdempotencyStore } from './ports/idempotency-store.port.js';
export type { StorePorts } from './ports/store-ports.js';
export {
  PORT_METHODS,
  PORT_NAMES,
  wrapPort,
  type NamedPorts,
  type PortName,
  type MethodKind,
  type PortMethods,
  type PortCall,
  type AroundCall,
  withEventPassthrough,
  EVENT_STORE_PASSTHROUGH,
} from './ports/port-calls.js';
export type { EventStore, EventQuery, AppendOutcome } from './ports/event-store.port.js';
export { leaseAllows, type Lease } from './lease.js';

export {
  EVENT_TYPES,
  EVENT_ID,
  isEventType,
  eventSource,
  eventSourceKey,
  sourceKey,
  toEvent,
  eventJson,
  type Event,
  type EventType,
  type EventPayloads,
  type EventSource,
  type Precedent,
  type NewEvent,
  type OutboxEntry,
  type Recorder,
  type ResourceKind,
  type PetRef,
  type PhotoRef,
} from './events/event.js';
export {
  petCreated,
  petUpdated,
  petReserved,
  petReleased,
  petWithdrawn,
  categoryCreated,
  orderReached,
  photoAdded,
  photoRemoved,
  photoWithdrawn,
  keyChanged,
} from './events/recorders.js';
export {
  RELAY_LEASE_MS,
  RELAY_BATCH,
  RELAY_IDLE_DELAYS_MS,
  relayDelay,
  bySource,
  type SourceEntries,
} from './events/outbox.js';
export {
  EVENT_RETENTION_DAYS,
  retentionCutoff,
  expiredPrefix,
  isBehindRetention,
  behindRetentionMessage,
} from './events/retention.js';
export { readFeedQuery, FEED_WAIT_MAX_SECONDS, type FeedInput, type FeedQuery } from './events/feed-query.js';
export {
  EventRelay,
  RelayLoop,
  type RelayOptions,
  type RelayLoopOptions,
  type Timers,
} from './use-cases/event-relay.js';
export { SequenceWaiters } from './events/waiters.js';
export { EventFeed, EventRetention, type FeedPage, type FollowOptions } from './use-cases/event-feed.js';

export {
  IDEMPOTENCY_TTL_MS,
  IN_PROGRESS_LEASE_MS,
  checkIdempotencyKey,
  isKeptStatus,
  decideReplay,
  takeOver,
  settleClaim,
  type ClaimOutcome,
  type KeptAnswer,
  type InProgressRecord,
  type CompletedRecord,
  type IdempotencyRecord,
  type ReplayDecision,
  type IdempotentCreation,
} from './idempotency/idempotency.js';
export { IdempotentRequests, type IdempotentStart, type IdempotencyTicket } from './use-cases/idempotent-requests.js';

export { PetCatalog, type ListPetsInput, type PetPage, type PagePhotos } from './use-cases/pet-catalog.js';
export { CategoryCatalog } from './use-cases/category-catalog.js';
export { Authenticator, type KeyLookup } from './use-cases/authenticate.js';
export { Admission, anonymousSubject, ownStatusSubject, type OwnStatus, type StatusLook } from './use-cases/admit.js';
export { Adoption, type ListOrdersInput } from './use-cases/adoption.js';
export { PetMaintenance } from './use-cases/pet-maintenance.js';
export { KeyAdmin, type CreatedApiKey } from './use-cases/key-admin.js';

export {
  NewPetSchema,
  PetPatchSchema,
  PetSchema,
  ErrorSchema,
  ListPetsQuerySchema,
  PetIdSchema,
  CategorySchema,
  NewCategorySchema,
  CategoryIdSchema,
  ListCategoriesQuerySchema,
  NewOrderSchema,
  OrderSchema,
  ListOrdersQuerySchema,
  OrderIdSchema,
  InventorySchema,
  KeyIdSchema,
  NewApiKeySchema,
  ApiKeyPatchSchema,
  ApiKeySchema,
  CreatedApiKeySchema,
  ListKeysQuerySchema,
  IdempotencyKeySchema,
  OwnStatusSchema,
  PhotoSchema,
  PhotoIdSchema,
  PhotoWidthSchema,
  PhotoViewSchema,
  PetWithPhotosSchema,
} from './schemas/index.js';

export {
  PHOTO_CONTENT_TYPES,
  PHOTO_BODY_LIMIT_BYTES,
  PHOTO_MAX_SIDE,
  PHOTO_MAX_PIXELS,
  PHOTO_STORED_LONG_SIDE,
  PHOTO_WIDTHS,
  PHOTOS_PER_PET,
  IMAGE_FORMATS,
  toPhoto,
  type Photo,
  type PhotoContentType,
  type PhotoFile,
  type PhotoWidth,
  type StoredPhoto,
  type ImageFormat,
} from './photo/photo.js';
export {
  checkImageHeader,
  fitLongSide,
  widthsBelow,
  parsePhotoWidth,
  fileForWidth,
  photoContentTypeOf,
  PHOTO_TYPES_TEXT,
} from './photo/rules.js';
export type { ImageProcessor, ImageHeader, EncodedImage } from './ports/image-processor.port.js';
export type { PhotoStore, PhotoUpload, PhotoBytes, PhotoSweep, PublishOutcome } from './ports/photo-store.port.js';
export { PhotoLibrary, type PhotoDownload, type UploadError, type PetLookup } from './use-cases/photo-library.js';
export { EventSchema, ListEventsQuerySchema, PetRefSchema, PhotoRefSchema } from './schemas/events.js';

export * from './webhooks/webhook.js';
export type { WebhookStore } from './ports/webhook-store.port.js';
export type { WebhookSender, WebhookRequest, WebhookResult, WebhookTargets } from './ports/webhook-sender.port.js';
export {
  CreatedWebhookSchema,
  ListWebhooksQuerySchema,
  NewWebhookSchema,
  WebhookDeliverySchema,
  WebhookIdSchema,
  WebhookPatchSchema,
  WebhookSchema,
} from './schemas/webhooks.js';
export {
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_RETRY_JITTER,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_SPAN_MS,
  afterFailure,
  spanText,
  type RetryDecision,
} from './webhooks/retry-schedule.js';
export {
  WEBHOOK_ID_PATTERN,
  validateWebhookCreate,
  validateWebhookPatch,
  validateWebhookId,
  checkWebhookUrl,
  generateWebhookId,
  generateWebhookSecret,
  type WebhookCreate,
  type WebhookPatch,
} from './webhooks/request.js';
export { WebhookAdmin, type DeliveryView } from './use-cases/webhook-admin.js';
export { WebhookDispatcher, type DispatcherOptions } from './use-cases/webhook-dispatcher.js';

// The public catalogue (docs/rules.md §16): fold, name search, orders, list parameters, publishable keys.
export { foldText, foldWords, compareCodePoints, compareKeyedRows, type KeyedRow } from './pet/fold.js';
export {
  QUERY_MAX_LENGTH,
  readNameQuery,
  nameMatches,
  drivingWord,
  prefixRange,
  type NameQuery,
} from './pet/search.js';
export {
  SHUFFLE_CIRCLE,
  SEED_MAX,
  drawShuffleKey,
  shuffleStart,
  shufflePosition,
  compareShuffled,
  shuffleRanges,
  type ShuffleRange,
} from './pet/shuffle.js';
export {
  CATALOG_SORTS,
  MAX_CATEGORY_IDS,
  readCatalogQuery,
  type CatalogSort,
  type CatalogQuery,
  type CatalogQueryInput,
} from './pet/catalog-query.js';
export {
  nameKeysOf,
  petEntry,
  petEdit,
  type PetNameKeys,
  type PetSearchKeys,
  type PetEntry,
  type PetEdit,
} from './pet/keys.js';
export { MAX_PETS_CURSOR_LENGTH } from './pet/catalog-page.js';
export type { PetOrder, ListedPets } from './ports/pet-repository.port.js';
export type { PhotoLinks, PhotoView } from './ports/photo-links.port.js';
export { srcsetOf } from './photo/links.js';
export type { PhotoUrlSecretStore } from './ports/photo-url-secret-store.port.js';
export { PHOTO_SIGNATURE_LENGTH, signPhoto, signatureHolds, signedPhotoSubject } from './photo/signature.js';
export { PhotoUrls, type PhotoUrlSecretSource } from './use-cases/photo-urls.js';
export {
  PUBLISHABLE_KEY_PATTERN,
  generatePublishableKey,
  ORIGINS_MAX,
  readKeyOrigins,
  originAllowed,
} from './auth/origins.js';

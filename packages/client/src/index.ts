// Public API of @petstore/client: the typed client of the v1 API and the helpers for what the
// OpenAPI document cannot say (paging links, the feed of events, rate-limit headers, retries, idempotent creates).
export { createPetstoreClient, type PetstoreClient, type PetstoreClientOptions } from './client.js';
export {
  pages,
  items,
  PetstoreError,
  type ListPath,
  type ListItem,
  type ListQuery,
  type Page,
  type Pet,
  type PetWithPhotos,
  type PhotoView,
  type PetStatus,
} from './pages.js';
export { events, type Event, type EventType, type FollowOptions } from './events.js';
export { readRateLimit, retryAfterSeconds, type RateLimitState, type RateLimitPolicy } from './rate-limit.js';
export { retryingFetch, backoffDelayMs, type RetryOptions } from './retry.js';
export { IDEMPOTENT_CREATES } from './generated/idempotent-creates.js';
export type { paths, components, operations } from './generated/openapi.js';

import type { ServiceIdentifier } from 'inversify';
import type {
  Admission,
  Adoption,
  ApiKeyStore,
  Authenticator,
  PublishableOrigins,
  CategoryCatalog,
  CategoryRepository,
  Clock,
  Digests,
  EventStore,
  IdempotencyStore,
  IdempotentRequests,
  ImageProcessor,
  KeyAdmin,
  OrderRepository,
  PetCatalog,
  PetMaintenance,
  PetRepository,
  PhotoLibrary,
  PhotoLinks,
  PhotoStore,
  PhotoUrls,
  PhotoUrlSecretStore,
  QuotaStore,
  Random,
  WebhookStore,
} from '@petstore/domain';
import type { HttpApp, HttpLogger, HttpMetrics } from '@petstore/adapters-http';
import type { Settings } from './settings.js';
import type { ServerEvents } from './events.js';
import type { ServerWebhooks } from './webhooks.js';

/** What the composition root needs from a store besides its ports: readiness and shutdown. */
export interface StoreLifecycle {
  /** True when the store answers; never throws (the readiness probe). */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
  /** True when the ports live in this process and do no I/O, so a call cannot hang: no deadline is needed. */
  readonly inProcess?: boolean;
}

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`petstore.${name}`) as ServiceIdentifier<T>;

/** The DI tokens: they live here, in the only package that knows Inversify. */
export const TOKENS = {
  Settings: token<Settings>('Settings'),
  Logger: token<HttpLogger>('Logger'),
  /** What the service counts (a no-op unless the metrics listener is configured). */
  Metrics: token<HttpMetrics>('Metrics'),
  Clock: token<Clock>('Clock'),
  Random: token<Random>('Random'),
  /** SHA-256 and the comparison of secrets (`node:crypto`). */
  Digests: token<Digests>('Digests'),
  /** The longest any one store call may take before the request is answered 503. */
  StoreDeadlineMs: token<number>('StoreDeadlineMs'),
  /** How long a key lookup of a store behind a network may be reused; 0: no cache. */
  KeyCacheMaxAgeMs: token<number>('KeyCacheMaxAgeMs'),
  PetRepository: token<PetRepository>('PetRepository'),
  CategoryRepository: token<CategoryRepository>('CategoryRepository'),
  OrderRepository: token<OrderRepository>('OrderRepository'),
  QuotaStore: token<QuotaStore>('QuotaStore'),
  ApiKeyStore: token<ApiKeyStore>('ApiKeyStore'),
  IdempotencyStore: token<IdempotencyStore>('IdempotencyStore'),
  StoreLifecycle: token<StoreLifecycle>('StoreLifecycle'),
  PetCatalog: token<PetCatalog>('PetCatalog'),
  CategoryCatalog: token<CategoryCatalog>('CategoryCatalog'),
  Adoption: token<Adoption>('Adoption'),
  PetMaintenance: token<PetMaintenance>('PetMaintenance'),
  Authenticator: token<Authenticator>('Authenticator'),
  /** Whether a live publishable key lists an origin, for CORS preflights (docs/rules.md §16). */
  PublishableOrigins: token<PublishableOrigins>('PublishableOrigins'),
  Admission: token<Admission>('Admission'),
  KeyAdmin: token<KeyAdmin>('KeyAdmin'),
  IdempotentRequests: token<IdempotentRequests>('IdempotentRequests'),
  /** The photos' bytes and records (docs/rules.md §13): bound by the store module, beside the other store ports. */
  PhotoStore: token<PhotoStore>('PhotoStore'),
  /** The events' outboxes and feed (docs/rules.md §15): bound by the store module, sharing the store of the repositories that record into it. */
  EventStore: token<EventStore>('EventStore'),
  /** The webhook subscriptions, their leases and deliveries logs (docs/rules.md §15): bound by the store module. */
  WebhookStore: token<WebhookStore>('WebhookStore'),
  /** The image work (sharp), off the event loop's thread. */
  ImageProcessor: token<ImageProcessor>('ImageProcessor'),
  PhotoLibrary: token<PhotoLibrary>('PhotoLibrary'),
  /** How a page with `expand=photos` links each photo (docs/rules.md §16). */
  PhotoLinks: token<PhotoLinks>('PhotoLinks'),
  /** Where the photo URLs' signing secret is kept when no setting gives it (docs/rules.md §16): bound by the store module. */
  PhotoUrlSecretStore: token<PhotoUrlSecretStore>('PhotoUrlSecretStore'),
  /** The signed photo URLs (docs/rules.md §16): the links of `expand=photos`, keyless reads, the rotation. */
  PhotoUrls: token<PhotoUrls>('PhotoUrls'),
  HttpApp: token<HttpApp>('HttpApp'),
  /** The feed, the relay and the retention of this process (docs/rules.md §15); nothing when no event store is bound. */
  Events: token<ServerEvents>('Events'),
  /** The webhooks' API and this process's dispatcher (docs/rules.md §15); nothing without an event store. */
  Webhooks: token<ServerWebhooks>('Webhooks'),
} as const;

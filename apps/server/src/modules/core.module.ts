import { ContainerModule, type ServiceIdentifier } from 'inversify';
import {
  Admission,
  Adoption,
  ApiKeyLookupCache,
  Authenticator,
  PublishableOrigins,
  CategoryCatalog,
  IdempotentRequests,
  KeyAdmin,
  PetCatalog,
  PetMaintenance,
  PhotoLibrary,
  PhotoUrls,
  type EventStore,
  type StorePorts,
  type WebhookStore,
} from '@petstore/domain';
import { createHttpApp, UploadAdmission } from '@petstore/adapters-http';
import { SharpImageProcessor } from '@petstore/adapters-sharp';
import { TOKENS } from '../tokens.js';
import {
  boundedPhotoStore,
  boundedPhotoUrlSecrets,
  boundedPorts,
  boundedWebhookStore,
  withDeadline,
} from '../deadline.js';
import { STORE_CIRCUIT_OPEN_MS, StoreCircuit } from '../store-circuit.js';
import { ServerEvents } from '../events.js';
import { ServerWebhooks } from '../webhooks.js';

/**
 * The store's ports as the use cases see them: every call bounded by the store deadline and
 * guarded by the store circuit (fail fast during an outage, `StoreCircuit`), unless
 * the store is in-process (the memory store answers from memory and cannot hang; a timer per
 * call, three per request, would be pure cost on the hot path). Key lookups of a store behind a
 * network are cached for at most `KEY_CACHE_MAX_AGE_MS` (one cache, shared by authentication and
 * key admin, so a change made here takes effect here at once).
 */
const BOUNDED_PORTS = Symbol.for('petstore.BoundedPorts') as ServiceIdentifier<StorePorts>;
/**
 * The event store as an optional dependency (docs/rules.md §15): stores given by the caller may record
 * no events, and then the server has no feed. (Inversify's type for an optional value is that of `undefined`.)
 */
const OPTIONAL_EVENT_STORE = {
  serviceIdentifier: TOKENS.EventStore as unknown as ServiceIdentifier<undefined>,
  optional: true,
} as const;
/** The webhook store, bound whenever an event store is (docs/rules.md §15). */
const OPTIONAL_WEBHOOK_STORE = {
  serviceIdentifier: TOKENS.WebhookStore as unknown as ServiceIdentifier<undefined>,
  optional: true,
} as const;
/** The store's one circuit (fail fast during an outage): every bounded port and the photo store share it. */
const STORE_CIRCUIT = Symbol.for('petstore.StoreCircuit') as ServiceIdentifier<StoreCircuit>;

/**
 * The use cases and the HTTP app, built from whatever ports the store module bound, each port
 * call bounded by the store deadline (a hanging store yields 503 `unavailable`, never a hung request).
 */
export const coreModule = new ContainerModule(({ bind }) => {
  bind(STORE_CIRCUIT)
    .toResolvedValue(
      (clock, metrics, logger) =>
        new StoreCircuit(clock, STORE_CIRCUIT_OPEN_MS, {
          failure: (port) => metrics.storeFailure(port),
          change: (open) => {
            metrics.storeCircuit(open);
            if (open)
              logger.error(
                { openMs: STORE_CIRCUIT_OPEN_MS },
                'store circuit open: store calls fail fast (503) until a probe call is answered',
              );
            else logger.info({}, 'store circuit closed: the store answers again');
          },
        }),
      [TOKENS.Clock, TOKENS.Metrics, TOKENS.Logger],
    )
    .inSingletonScope();
  bind(BOUNDED_PORTS)
    .toResolvedValue(
      (
        pets,
        categories,
        orders,
        quotas,
        keys,
        idempotency,
        ms,
        store,
        clock,
        keyCacheMs,
        circuit,
        events: EventStore | undefined,
      ) => {
        const ports: StorePorts = {
          pets,
          categories,
          orders,
          quotas,
          keys,
          idempotency,
          ...(events === undefined ? {} : { events }),
        };
        if (store.inProcess === true) return ports;
        const bounded = boundedPorts(ports, ms, circuit);
        return keyCacheMs > 0 ? { ...bounded, keys: new ApiKeyLookupCache(bounded.keys, clock, keyCacheMs) } : bounded;
      },
      [
        TOKENS.PetRepository,
        TOKENS.CategoryRepository,
        TOKENS.OrderRepository,
        TOKENS.QuotaStore,
        TOKENS.ApiKeyStore,
        TOKENS.IdempotencyStore,
        TOKENS.StoreDeadlineMs,
        TOKENS.StoreLifecycle,
        TOKENS.Clock,
        TOKENS.KeyCacheMaxAgeMs,
        STORE_CIRCUIT,
        // The events (docs/rules.md §15): absent when the stores given record none.
        OPTIONAL_EVENT_STORE,
      ],
    )
    .inSingletonScope();
  // The signed photo URLs (docs/rules.md §16): the setting's secret, else the store's (one per database).
  bind(TOKENS.PhotoUrls)
    .toResolvedValue(
      (settings, secrets, digests, random, clock, ms, lifecycle, circuit) =>
        new PhotoUrls(
          settings.photoUrlSecret !== undefined
            ? { setting: settings.photoUrlSecret }
            : { store: lifecycle.inProcess === true ? secrets : boundedPhotoUrlSecrets(secrets, ms, circuit) },
          { digests, random, clock, base: settings.publicUrl },
        ),
      [
        TOKENS.Settings,
        TOKENS.PhotoUrlSecretStore,
        TOKENS.Digests,
        TOKENS.Random,
        TOKENS.Clock,
        TOKENS.StoreDeadlineMs,
        TOKENS.StoreLifecycle,
        STORE_CIRCUIT,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.PhotoLinks).toService(TOKENS.PhotoUrls);
  bind(TOKENS.PetCatalog)
    .toResolvedValue(
      (ports, clock, random, photos, links, ms, lifecycle, circuit) =>
        new PetCatalog(ports.pets, ports.categories, clock, random, {
          store: lifecycle.inProcess === true ? photos : boundedPhotoStore(photos, ms, circuit),
          links,
        }),
      [
        BOUNDED_PORTS,
        TOKENS.Clock,
        TOKENS.Random,
        TOKENS.PhotoStore,
        TOKENS.PhotoLinks,
        TOKENS.StoreDeadlineMs,
        TOKENS.StoreLifecycle,
        STORE_CIRCUIT,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.CategoryCatalog)
    .toResolvedValue((ports, clock) => new CategoryCatalog(ports.categories, clock), [BOUNDED_PORTS, TOKENS.Clock])
    .inSingletonScope();
  bind(TOKENS.Adoption)
    .toResolvedValue(
      (ports, clock, metrics) =>
        new Adoption(ports.pets, ports.orders, clock, (action) => metrics.orderTransition(action)),
      [BOUNDED_PORTS, TOKENS.Clock, TOKENS.Metrics],
    )
    .inSingletonScope();
  // Pet maintenance (docs/rules.md §12). The photos of a withdrawn pet go with it (§13), once the withdrawal has landed.
  bind(TOKENS.PetMaintenance)
    .toResolvedValue(
      (ports, clock, photos) =>
        new PetMaintenance(
          ports.pets,
          ports.orders,
          ports.categories,
          clock,
          async (petId) => void (await photos.removeAllOf(petId)),
        ),
      [BOUNDED_PORTS, TOKENS.Clock, TOKENS.PhotoLibrary],
    )
    .inSingletonScope();
  bind(TOKENS.Authenticator)
    .toResolvedValue((ports, digests) => new Authenticator(ports.keys, digests), [BOUNDED_PORTS, TOKENS.Digests])
    .inSingletonScope();
  bind(TOKENS.PublishableOrigins)
    .toResolvedValue((ports, clock) => new PublishableOrigins(ports.keys, clock), [BOUNDED_PORTS, TOKENS.Clock])
    .inSingletonScope();
  bind(TOKENS.Admission)
    .toResolvedValue(
      (ports, clock, settings) => new Admission(ports.quotas, clock, settings.ban),
      [BOUNDED_PORTS, TOKENS.Clock, TOKENS.Settings],
    )
    .inSingletonScope();
  bind(TOKENS.KeyAdmin)
    .toResolvedValue(
      (ports, random, clock, digests) => new KeyAdmin(ports.keys, random, clock, clock.now(), digests),
      [BOUNDED_PORTS, TOKENS.Random, TOKENS.Clock, TOKENS.Digests],
    )
    .inSingletonScope();
  bind(TOKENS.IdempotentRequests)
    .toResolvedValue(
      (ports, clock, digests) => new IdempotentRequests(ports.idempotency, clock, digests),
      [BOUNDED_PORTS, TOKENS.Clock, TOKENS.Digests],
    )
    .inSingletonScope();
  // sharp, on libvips' threads at a lower priority than the event loop; at most (cores − 1) images
  // at once (see SharpImageProcessor). Each admitted upload has at most one image waiting, so a
  // queue as long as the uploads admitted never refuses one (docs/rules.md §13).
  bind(TOKENS.ImageProcessor)
    .toResolvedValue(
      (settings) => new SharpImageProcessor({ queueLimit: Math.max(32, settings.uploadsInFlight) }),
      [TOKENS.Settings],
    )
    .inSingletonScope();
  bind(TOKENS.PhotoLibrary)
    .toResolvedValue(
      (ports, photos, images, clock, ms, lifecycle, circuit, digests) =>
        new PhotoLibrary(
          ports.pets,
          lifecycle.inProcess === true ? photos : boundedPhotoStore(photos, ms, circuit),
          images,
          clock,
          digests,
        ),
      [
        BOUNDED_PORTS,
        TOKENS.PhotoStore,
        TOKENS.ImageProcessor,
        TOKENS.Clock,
        TOKENS.StoreDeadlineMs,
        TOKENS.StoreLifecycle,
        STORE_CIRCUIT,
        TOKENS.Digests,
      ],
    )
    .inSingletonScope();
  // The feed, the relay and the retention (docs/rules.md §15), over the bounded event store: a store that
  // hangs fails the relay's run (retried), never holds it; a long poll's wait is not bounded (withEventPassthrough).
  bind(TOKENS.Events)
    .toResolvedValue(
      (ports, clock, metrics, logger, settings) =>
        new ServerEvents(ports.events, { clock, metrics, logger, retentionDays: settings.eventRetentionDays }),
      [BOUNDED_PORTS, TOKENS.Clock, TOKENS.Metrics, TOKENS.Logger, TOKENS.Settings],
    )
    .inSingletonScope();
  // The webhooks (docs/rules.md §15): the API, and the dispatcher unless PETSTORE_WEBHOOKS=off. Over the bounded
  // stores: a store that hangs fails a dispatcher's step (retried), never holds it.
  bind(TOKENS.Webhooks)
    .toResolvedValue(
      (ports, webhooks: WebhookStore | undefined, ms, circuit, lifecycle, clock, random, metrics, logger, settings) =>
        new ServerWebhooks(
          webhooks === undefined || lifecycle.inProcess === true
            ? webhooks
            : boundedWebhookStore(webhooks, ms, circuit),
          ports.events,
          { clock, random, metrics, logger, deliver: settings.webhooks, allowHosts: settings.webhookAllowHosts },
        ),
      [
        BOUNDED_PORTS,
        OPTIONAL_WEBHOOK_STORE,
        TOKENS.StoreDeadlineMs,
        STORE_CIRCUIT,
        TOKENS.StoreLifecycle,
        TOKENS.Clock,
        TOKENS.Random,
        TOKENS.Metrics,
        TOKENS.Logger,
        TOKENS.Settings,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.HttpApp)
    .toResolvedValue(
      (
        catalog,
        categories,
        adoption,
        authenticator,
        admission,
        store,
        logger,
        settings,
        ms,
        keyAdmin,
        idempotency,
        metrics,
        maintenance,
        photos,
        events,
        webhooks,
        photoUrls,
        publishableOrigins,
      ) =>
        createHttpApp(
          {
            catalog,
            categories,
            adoption,
            maintenance,
            authenticator,
            admission,
            keyAdmin,
            idempotency,
            metrics,
            photos,
            photoUrls,
            ...(events.feed === undefined ? {} : { events: events.feed }),
            longPolls: events.longPolls,
            ...(webhooks.admin === undefined ? {} : { webhooks: webhooks.admin }),
            // docs/rules.md §13: uploads past these bounds are refused 503 before their body is read.
            uploads: new UploadAdmission({ uploads: settings.uploadsInFlight, bytes: settings.uploadBytesInFlight }),
            publishableOrigins,
            isReady: () => withDeadline(() => store.isReady(), ms, 'readiness probe').catch(() => false),
            logger,
          },
          {
            trustProxy: settings.trustProxy,
            ...(settings.corsOrigins === undefined ? {} : { corsOrigins: settings.corsOrigins }),
          },
        ),
      [
        TOKENS.PetCatalog,
        TOKENS.CategoryCatalog,
        TOKENS.Adoption,
        TOKENS.Authenticator,
        TOKENS.Admission,
        TOKENS.StoreLifecycle,
        TOKENS.Logger,
        TOKENS.Settings,
        TOKENS.StoreDeadlineMs,
        TOKENS.KeyAdmin,
        TOKENS.IdempotentRequests,
        TOKENS.Metrics,
        TOKENS.PetMaintenance,
        TOKENS.PhotoLibrary,
        TOKENS.Events,
        TOKENS.Webhooks,
        TOKENS.PhotoUrls,
        TOKENS.PublishableOrigins,
      ],
    )
    .inSingletonScope();
});

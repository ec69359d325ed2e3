import { hash } from 'node:crypto';
import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { Admission, Authenticator, IdempotentRequests, PetCatalog } from '@petstore/domain';
import { createHttpApp } from '@petstore/adapters-http';
import { TOKENS } from '../tokens.js';
import { boundedPorts, withDeadline, type StorePorts } from '../deadline.js';

/**
 * The store's ports as the use cases see them: every call bounded by the store deadline, unless
 * the store is in-process (the memory store answers synchronously and cannot hang; a timer per
 * call, three per request, would be pure cost on the hot path).
 */
const BOUNDED_PORTS = Symbol.for('petstore.BoundedPorts') as ServiceIdentifier<StorePorts>;

/** Node's one-shot SHA-256: the same hex as the domain's `sha256Hex`, several times faster. */
const nativeSha256 = (key: string): string => hash('sha256', key, 'hex');

/**
 * The use cases and the HTTP app, built from whatever ports the store module bound, each port
 * call bounded by the store deadline (a hanging store yields 503 `unavailable`, never a hung request).
 */
export const coreModule = new ContainerModule(({ bind }) => {
  bind(BOUNDED_PORTS)
    .toResolvedValue(
      (pets, quotas, keys, idempotency, ms, store, metrics) =>
        store.inProcess === true
          ? { pets, quotas, keys, idempotency }
          : boundedPorts({ pets, quotas, keys, idempotency }, ms, (port) => metrics.storeFailure(port)),
      [TOKENS.PetRepository, TOKENS.QuotaStore, TOKENS.ApiKeyStore, TOKENS.IdempotencyStore, TOKENS.StoreDeadlineMs, TOKENS.StoreLifecycle, TOKENS.Metrics],
    )
    .inSingletonScope();
  bind(TOKENS.PetCatalog)
    .toResolvedValue((ports, clock) => new PetCatalog(ports.pets, clock), [BOUNDED_PORTS, TOKENS.Clock])
    .inSingletonScope();
  bind(TOKENS.Authenticator)
    .toResolvedValue((ports) => new Authenticator(ports.keys, nativeSha256), [BOUNDED_PORTS])
    .inSingletonScope();
  bind(TOKENS.Admission)
    .toResolvedValue((ports, clock, settings) => new Admission(ports.quotas, clock, settings.ban), [BOUNDED_PORTS, TOKENS.Clock, TOKENS.Settings])
    .inSingletonScope();
  bind(TOKENS.IdempotentRequests)
    .toResolvedValue((ports, clock) => new IdempotentRequests(ports.idempotency, clock), [BOUNDED_PORTS, TOKENS.Clock])
    .inSingletonScope();
  bind(TOKENS.HttpApp)
    .toResolvedValue(
      (catalog, authenticator, admission, idempotency, store, logger, settings, ms, metrics) =>
        createHttpApp(
          {
            catalog,
            authenticator,
            admission,
            idempotency,
            metrics,
            isReady: () => withDeadline(store.isReady(), ms, 'readiness probe').catch(() => false),
            logger,
          },
          { trustProxy: settings.trustProxy, ...(settings.corsOrigins === undefined ? {} : { corsOrigins: settings.corsOrigins }) },
        ),
      [TOKENS.PetCatalog, TOKENS.Authenticator, TOKENS.Admission, TOKENS.IdempotentRequests, TOKENS.StoreLifecycle, TOKENS.Logger, TOKENS.Settings, TOKENS.StoreDeadlineMs, TOKENS.Metrics],
    )
    .inSingletonScope();
});

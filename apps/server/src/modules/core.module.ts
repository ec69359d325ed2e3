import { ContainerModule } from 'inversify';
import { Admission, Authenticator, PetCatalog } from '@petstore/domain';
import { createHttpApp } from '@petstore/adapters-http';
import { TOKENS } from '../tokens.js';

/** The use cases and the HTTP app, built from whatever ports the store module bound. */
export const coreModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.PetCatalog)
    .toResolvedValue((pets, clock) => new PetCatalog(pets, clock), [TOKENS.PetRepository, TOKENS.Clock])
    .inSingletonScope();
  bind(TOKENS.Authenticator)
    .toResolvedValue((keys) => new Authenticator(keys), [TOKENS.ApiKeyStore])
    .inSingletonScope();
  bind(TOKENS.Admission)
    .toResolvedValue((quotas, clock, settings) => new Admission(quotas, clock, settings.ban), [TOKENS.QuotaStore, TOKENS.Clock, TOKENS.Settings])
    .inSingletonScope();
  bind(TOKENS.HttpApp)
    .toResolvedValue(
      (catalog, authenticator, admission, store, logger, settings) =>
        createHttpApp(
          { catalog, authenticator, admission, isReady: () => store.isReady(), logger },
          { trustProxy: settings.trustProxy },
        ),
      [TOKENS.PetCatalog, TOKENS.Authenticator, TOKENS.Admission, TOKENS.StoreLifecycle, TOKENS.Logger, TOKENS.Settings],
    )
    .inSingletonScope();
});

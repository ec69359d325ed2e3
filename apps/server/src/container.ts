import { Container } from 'inversify';
import type { Clock } from '@petstore/domain';
import { SystemClock } from '@petstore/adapters-memory';
import type { HttpLogger } from '@petstore/adapters-http';
import type { Settings } from './settings.js';
import { TOKENS } from './tokens.js';
import { coreModule } from './modules/core.module.js';
import { memoryStoreModule } from './modules/memory.module.js';
import { mongoStoreModule } from './modules/mongo.module.js';

/** What a caller may supply instead of the defaults (tests inject a manual clock). */
export interface ContainerOverrides {
  readonly clock?: Clock;
  readonly logger: HttpLogger;
}

/** The one container: settings, clock and logger, the store module the settings pick, and the core. */
export const createContainer = async (settings: Settings, overrides: ContainerOverrides): Promise<Container> => {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Settings).toConstantValue(settings);
  container.bind(TOKENS.Logger).toConstantValue(overrides.logger);
  container.bind(TOKENS.Clock).toConstantValue(overrides.clock ?? new SystemClock());
  await container.load(storeModule(settings), coreModule);
  return container;
};

const storeModule = (settings: Settings) => {
  switch (settings.store) {
    case 'memory':
      return memoryStoreModule;
    case 'mongo':
      return mongoStoreModule(settings.mongodbUri ?? '');
  }
};

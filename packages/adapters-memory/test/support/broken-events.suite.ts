// Not a test file of the suite (no `.test` in its name): test/events-contract-strength.test.ts runs
// it in a mocha of its own and reads which tests failed. The exported event store contract, once per
// defect of support/broken-events.ts. A property stops at its first failure here (no shrinking): only
// whether it fails matters.
import fc from 'fast-check';
import { eventStoreContract } from '@petstore/domain/testing';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  MemoryOutbox,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  PhotoStoreInMemory,
} from '../../src/index.js';
import { brokenEvents, EVENT_DEFECTS } from './broken-events.js';

fc.configureGlobal({ ...fc.readConfigureGlobal(), endOnFailure: true });

for (const defect of EVENT_DEFECTS) {
  eventStoreContract(defect.name, async () => {
    const outbox = new MemoryOutbox();
    return {
      subject: {
        pets: new PetRepositoryInMemory(outbox),
        categories: new CategoryRepositoryInMemory(outbox),
        orders: new OrderRepositoryInMemory(outbox),
        photos: new PhotoStoreInMemory(undefined, outbox),
        keys: new ApiKeyStoreInMemory([], outbox),
        events: brokenEvents(outbox, defect.name),
      },
    };
  });
}

// Not a test file of the suite (no `.test` in its name): test/contract-strength.test.ts runs it in a
// mocha of its own and reads which tests failed. Every exported contract suite with a list, once per
// defect of support/broken-lists.ts. A property stops at its first failure here (no shrinking): only
// whether it fails matters.
import fc from 'fast-check';
import {
  adoptionContract,
  apiKeyStoreContract,
  categoryRepositoryContract,
  orderRepositoryContract,
  petRepositoryContract,
} from '@petstore/domain/testing';
import { PetRepositoryInMemory } from '../../src/index.js';
import { brokenCategories, brokenKeys, brokenOrders, brokenPets, LIST_DEFECTS } from './broken-lists.js';

fc.configureGlobal({ ...fc.readConfigureGlobal(), endOnFailure: true });

for (const defect of LIST_DEFECTS) {
  petRepositoryContract(defect.name, async () => ({ subject: brokenPets(defect) }));
  categoryRepositoryContract(defect.name, async () => ({ subject: brokenCategories(defect) }));
  orderRepositoryContract(defect.name, async () => ({ subject: brokenOrders(defect) }));
  adoptionContract(defect.name, async () => ({
    subject: { pets: new PetRepositoryInMemory(), orders: brokenOrders(defect) },
  }));
  apiKeyStoreContract(defect.name, async () => ({ subject: brokenKeys(defect) }));
}

// Not a test file of the suite (no `.test` in its name): test/webhooks-contract-strength.test.ts runs
// it in a mocha of its own and reads which tests failed. The exported webhook store contract, once
// per defect of support/broken-webhooks.ts. A property stops at its first failure here (no
// shrinking): only whether it fails matters.
import fc from 'fast-check';
import { webhookStoreContract } from '@petstore/domain/testing';
import { brokenWebhooks, WEBHOOK_DEFECTS } from './broken-webhooks.js';

fc.configureGlobal({ ...fc.readConfigureGlobal(), endOnFailure: true });

/**
 * Runs of each property: enough that the model-based property finds each defect it must find
 * whatever the seed (a disabled subscription advanced takes an insert, a lease, a disable and an
 * advance from the right cursor, in that order: with the default 100 runs one seed in a few dozen
 * missed it). A broken store fails fast; the real one is held to the default 100 in contracts.test.ts.
 */
const RUNS = 1_000;

for (const defect of WEBHOOK_DEFECTS) {
  describe(defect.name, () => {
    webhookStoreContract(async () => ({ subject: brokenWebhooks(defect.name) }), { numRuns: RUNS });
  });
}

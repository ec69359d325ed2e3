// Not a test file of the suite (no `.test` in its name): test/webhooks-contract-strength.test.ts runs
// it in a mocha of its own and reads which tests failed. The exported webhook store contract, once
// per defect of support/broken-webhooks.ts. A property stops at its first failure here (no
// shrinking): only whether it fails matters.
import fc from 'fast-check';
import { webhookStoreContract } from '@petstore/domain/testing';
import { FlawedWebhookStore, WEBHOOK_DEFECTS } from './broken-webhooks.js';

fc.configureGlobal({ ...fc.readConfigureGlobal(), endOnFailure: true });

for (const defect of WEBHOOK_DEFECTS) {
  describe(defect.name, () => {
    webhookStoreContract(async () => ({ subject: new FlawedWebhookStore(defect.name) }));
  });
}

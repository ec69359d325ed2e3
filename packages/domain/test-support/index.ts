// Test support for adapters and embedders: the port contract suites (mocha + chai + fast-check),
// a manual clock, and generators of valid pets.
export { petRepositoryContract } from './pet-repository.contract.js';
export { categoryRepositoryContract } from './category-repository.contract.js';
export { quotaStoreContract } from './quota-store.contract.js';
export { apiKeyStoreContract } from './api-key-store.contract.js';
export { ManualClock } from './manual-clock.js';
export { entryOf } from './pet-entries.js';
export { testPhotoLinks } from './photo-links.js';
export { SeededRandom } from './seeded-random.js';
export { nodeDigests } from './node-digests.js';
export { petDraftArb, validNameArb, categoryNameArb } from './arbitraries.js';
export type { Fixture, MakeFixture, ContractOptions } from './fixture.js';
export { FaultInjector, FAULT_MODES } from './fault-injection.js';
export type { FaultMode, FaultyPort, PortCall, InjectedCall, FaultInjectorOptions } from './fault-injection.js';
export { orderRepositoryContract } from './order-repository.contract.js';
export { adoptionContract, checkVisibleInvariants } from './adoption.contract.js';
export { checkStoredInvariants, type AdoptionStores } from './adoption-invariants.js';
export { idempotencyStoreContract } from './idempotency-store.contract.js';
export { serialOrderOf, type RaceRequest } from './serial-race.js';
export { photoStoreContract, collectPhotoBytes, type PhotoStoreSubject } from './photo-store.contract.js';
export { TextImageProcessor, textImage } from './text-images.js';
export { forwardingPets, forwardingOrders, forwardingCategories, forwardingKeys } from './forwarding.js';
export { eventStoreContract } from './event-store.contract.js';
export { expectFeedMatchesStore, type EventStores } from './event-store.model.js';
export { forwardingEvents, forwardingWebhooks } from './forwarding.js';
export { webhookStoreContract } from './webhook-store.contract.js';
export { photoUrlSecretStoreContract, type PhotoUrlSecretStores } from './photo-url-secret-store.contract.js';

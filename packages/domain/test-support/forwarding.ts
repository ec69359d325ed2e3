import type {
  ApiKeyStore,
  AroundCall,
  CategoryRepository,
  EventStore,
  OrderRepository,
  PetRepository,
  WebhookStore,
} from '../src/index.js';
import { wrapPort } from '../src/index.js';

// Stores that forward every call to another: plain objects a test spreads and then overrides a
// method of, to stage a race, a broken answer or a check (`{ ...forwardingPets(pets), swapHold: … }`).
// An adapter's own class instance cannot be spread (its methods live on the prototype).

/** Each call made on the wrapped store, with the arguments as passed, and its answer as it answers. */
const forward: AroundCall = (_call, call) => call();

export const forwardingPets = (inner: PetRepository): PetRepository => wrapPort('PetRepository', inner, forward);
export const forwardingOrders = (inner: OrderRepository): OrderRepository =>
  wrapPort('OrderRepository', inner, forward);
export const forwardingCategories = (inner: CategoryRepository): CategoryRepository =>
  wrapPort('CategoryRepository', inner, forward);
export const forwardingKeys = (inner: ApiKeyStore): ApiKeyStore => wrapPort('ApiKeyStore', inner, forward);
export const forwardingEvents = (inner: EventStore): EventStore => wrapPort('EventStore', inner, forward);
export const forwardingWebhooks = (inner: WebhookStore): WebhookStore => wrapPort('WebhookStore', inner, forward);

import type { ApiKeyStore, CategoryRepository, OrderRepository, PetRepository } from '../src/index.js';

// Stores that forward every call to another: plain objects a test spreads and then overrides a
// method of, to stage a race, a broken answer or a check (`{ ...forwardingPets(pets), swapHold: … }`).
// An adapter's own class instance cannot be spread (its methods live on the prototype).

export const forwardingPets = (inner: PetRepository): PetRepository => ({
  create: (draft, token) => inner.create(draft, token),
  findByCreationToken: (token) => inner.findByCreationToken(token),
  findById: (id) => inner.findById(id),
  list: (query) => inner.list(query),
  findHold: (id) => inner.findHold(id),
  swapHold: (id, expected, next) => inner.swapHold(id, expected, next),
  countByStatus: () => inner.countByStatus(),
  update: (id, revision, changes, at) => inner.update(id, revision, changes, at),
  withdraw: (id, revision) => inner.withdraw(id, revision),
});

export const forwardingOrders = (inner: OrderRepository): OrderRepository => ({
  create: (draft, token) => inner.create(draft, token),
  findByCreationToken: (token) => inner.findByCreationToken(token),
  findById: (id) => inner.findById(id),
  updateState: (id, expected, next, updatedAt) => inner.updateState(id, expected, next, updatedAt),
  list: (query) => inner.list(query),
});

export const forwardingCategories = (inner: CategoryRepository): CategoryRepository => ({
  create: (category, token) => inner.create(category, token),
  findByCreationToken: (token) => inner.findByCreationToken(token),
  findById: (id) => inner.findById(id),
  findByName: (name) => inner.findByName(name),
  list: (query) => inner.list(query),
});

export const forwardingKeys = (inner: ApiKeyStore): ApiKeyStore => ({
  findByHash: (keyHash) => inner.findByHash(keyHash),
  findById: (keyId) => inner.findById(keyId),
  list: (afterPosition, limit) => inner.list(afterPosition, limit),
  save: (record) => inner.save(record),
  retainSettingsKeys: (keyHashes) => inner.retainSettingsKeys(keyHashes),
  insert: (key) => inner.insert(key),
  update: (keyId, changes) => inner.update(keyId, changes),
  revoke: (keyId) => inner.revoke(keyId),
});

import type { ApiKeyStore, CategoryRepository, EventStore, OrderRepository, PetRepository } from '../src/index.js';

// Stores that forward every call to another: plain objects a test spreads and then overrides a
// method of, to stage a race, a broken answer or a check (`{ ...forwardingPets(pets), swapHold: … }`).
// An adapter's own class instance cannot be spread (its methods live on the prototype).

export const forwardingPets = (inner: PetRepository): PetRepository => ({
  create: (draft, token, record) => inner.create(draft, token, record),
  findByCreationToken: (token) => inner.findByCreationToken(token),
  findById: (id) => inner.findById(id),
  list: (query) => inner.list(query),
  findHold: (id) => inner.findHold(id),
  swapHold: (id, expected, next, record) => inner.swapHold(id, expected, next, record),
  countByStatus: () => inner.countByStatus(),
  update: (id, revision, changes, at, record) => inner.update(id, revision, changes, at, record),
  withdraw: (id, revision, record) => inner.withdraw(id, revision, record),
});

export const forwardingOrders = (inner: OrderRepository): OrderRepository => ({
  create: (draft, token) => inner.create(draft, token),
  findByCreationToken: (token) => inner.findByCreationToken(token),
  findById: (id) => inner.findById(id),
  updateState: (id, expected, next, updatedAt, record) => inner.updateState(id, expected, next, updatedAt, record),
  list: (query) => inner.list(query),
});

export const forwardingCategories = (inner: CategoryRepository): CategoryRepository => ({
  create: (category, token, record) => inner.create(category, token, record),
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
  insert: (key, record) => inner.insert(key, record),
  update: (keyId, changes, record) => inner.update(keyId, changes, record),
  revoke: (keyId, record) => inner.revoke(keyId, record),
});

export const forwardingEvents = (inner: EventStore): EventStore => ({
  lease: (holder, now, until) => inner.lease(holder, now, until),
  pending: (limit) => inner.pending(limit),
  pendingOf: (source) => inner.pendingOf(source),
  lastSequence: () => inner.lastSequence(),
  append: (event) => inner.append(event),
  clear: (source, ids) => inner.clear(source, ids),
  onRecorded: (listener) => inner.onRecorded(listener),
  after: (sequence, query) => inner.after(sequence, query),
  firstSequence: () => inner.firstSequence(),
  purge: (through) => inner.purge(through),
  waitBeyond: (sequence, timeoutMs, until) => inner.waitBeyond(sequence, timeoutMs, until),
});

import type { Pet } from '../pet/pet.js';
import type { Category } from '../category/category.js';
import { toOrder, type OrderRecord, type OrderStatus } from '../order/order.js';
import { toPhoto, type StoredPhoto } from '../photo/photo.js';
import { toApiKey, type StoredApiKey } from '../auth/api-key.js';
import type { NewEvent, Recorder } from './event.js';

/**
 * The recorders the use cases hand to their decisive writes (docs/rules.md §15): which event each
 * change records, and its `data`, built from the resource as the write leaves it. `at` is the
 * service's clock at the change (RFC 3339 UTC with milliseconds).
 */

/** The `Pet` clients see, whatever else the store keeps beside it (revision, hold). */
const toPet = (pet: Pet): Pet => ({ id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status });

/** `pet.created`, after the `category.created` of its category. */
export const petCreated =
  (at: string): Recorder<Pet> =>
  (pet) => [{ type: 'pet.created', occurredAt: at, data: toPet(pet), follows: [{ kind: 'category', id: pet.categoryId }] }];

/**
 * `pet.updated`, the pet after the change (a `PATCH`, a status move of an order). A change of
 * category comes after that category's `category.created`.
 */
export const petUpdated =
  (at: string, newCategory = false): Recorder<Pet> =>
  (pet) => [
    newCategory
      ? { type: 'pet.updated', occurredAt: at, data: toPet(pet), follows: [{ kind: 'category', id: pet.categoryId }] }
      : { type: 'pet.updated', occurredAt: at, data: toPet(pet) },
  ];

/** `pet.withdrawn`: the pet's id. */
export const petWithdrawn =
  (at: string): Recorder<Pet> =>
  (pet) => [{ type: 'pet.withdrawn', occurredAt: at, data: { id: pet.id } }];

export const categoryCreated =
  (at: string): Recorder<Category> =>
  (category) => [{ type: 'category.created', occurredAt: at, data: { id: category.id, name: category.name } }];

/**
 * `order.<status>`: the order reached `status` as clients see it, its record as the write leaves it
 * (a write-ahead state is shown as the status it settles to). `order.placed` comes after its pet's
 * events so far, among them the `pet.updated` to `pending` of the swap that reserved it.
 */
export const orderReached =
  (status: OrderStatus, at: string): Recorder<OrderRecord> =>
  (record): readonly NewEvent[] => {
    const data = toOrder(record, status);
    switch (status) {
      case 'placed':
        return [{ type: 'order.placed', occurredAt: at, data, follows: [{ kind: 'pet', id: record.petId }] }];
      case 'approved':
        return [{ type: 'order.approved', occurredAt: at, data }];
      case 'delivered':
        return [{ type: 'order.delivered', occurredAt: at, data }];
      case 'cancelled':
        return [{ type: 'order.cancelled', occurredAt: at, data }];
    }
  };

/** `photo.added`, after its pet's events so far (its `pet.created` among them). */
export const photoAdded =
  (at: string): Recorder<StoredPhoto> =>
  (photo) => [{ type: 'photo.added', occurredAt: at, data: toPhoto(photo), follows: [{ kind: 'pet', id: photo.petId }] }];

/** `photo.removed`, after its pet's events so far (its `pet.withdrawn`, when it goes with its pet). */
export const photoRemoved =
  (at: string): Recorder<StoredPhoto> =>
  (photo) => [{ type: 'photo.removed', occurredAt: at, data: { id: photo.id, petId: photo.petId }, follows: [{ kind: 'pet', id: photo.petId }] }];

/** `key.created`, `key.updated`, `key.revoked`: the key's public view (`startedAt`: shown for a key without `createdAt`). */
export const keyChanged =
  (type: 'key.created' | 'key.updated' | 'key.revoked', at: string, startedAt: number): Recorder<StoredApiKey> =>
  (key) => [{ type, occurredAt: at, data: toApiKey(key, startedAt) }];

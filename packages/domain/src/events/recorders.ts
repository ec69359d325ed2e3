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
 *
 * The marks and follows keep the feed in the order of cause and effect across resources (the relay
 * moves what an event follows first, docs/design.md "Events"): a pet's creation before its photos,
 * its category's creation before it, the swap that reserved it for an order before that order's
 * `order.placed`, an order's cancellation or delivery before the pet's release, its withdrawal
 * before the photos that go with it.
 */

/** The `Pet` clients see, whatever else the store keeps beside it (revision, hold). */
const toPet = (pet: Pet): Pet => ({ id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status });

/** The mark of the pet's `pet.updated` that reserved it for order `orderId` (its `order.placed` follows it). */
const reservedFor = (orderId: number): string => `order:${orderId}`;

/** `pet.created`, after the `category.created` of its category. */
export const petCreated =
  (at: string): Recorder<Pet> =>
  (pet) => [
    {
      type: 'pet.created',
      occurredAt: at,
      data: toPet(pet),
      mark: 'created',
      follows: [{ kind: 'category', id: pet.categoryId }],
    },
  ];

/**
 * `pet.updated`, the pet after the change (a `PATCH`, a hand-back). A change of category comes after
 * that category's `category.created`.
 */
export const petUpdated =
  (at: string, newCategory = false): Recorder<Pet> =>
  (pet) => [
    newCategory
      ? { type: 'pet.updated', occurredAt: at, data: toPet(pet), follows: [{ kind: 'category', id: pet.categoryId }] }
      : { type: 'pet.updated', occurredAt: at, data: toPet(pet) },
  ];

/** `pet.updated` to `pending` by the swap that reserves the pet for order `orderId`: marked, for that order's `order.placed`. */
export const petReserved =
  (at: string, orderId: number): Recorder<Pet> =>
  (pet) => [{ type: 'pet.updated', occurredAt: at, data: toPet(pet), mark: reservedFor(orderId) }];

/** `pet.updated` by the swap that releases the pet from order `orderId`, after that order's `order.<status>` (cancelled, delivered). */
export const petReleased =
  (at: string, orderId: number, status: OrderStatus): Recorder<Pet> =>
  (pet) => [
    {
      type: 'pet.updated',
      occurredAt: at,
      data: toPet(pet),
      follows: [{ kind: 'order', id: orderId, through: status }],
    },
  ];

/** `pet.withdrawn`: the pet's id; marked, for the photos that go with it. */
export const petWithdrawn =
  (at: string): Recorder<Pet> =>
  (pet) => [{ type: 'pet.withdrawn', occurredAt: at, data: { id: pet.id }, mark: 'withdrawn' }];

export const categoryCreated =
  (at: string): Recorder<Category> =>
  (category) => [{ type: 'category.created', occurredAt: at, data: { id: category.id, name: category.name } }];

/**
 * `order.<status>`: the order reached `status` as clients see it, its record as the write leaves it
 * (a write-ahead state is shown as the status it settles to), marked by the status. `order.placed`
 * comes after its pet's `pet.updated` to `pending` that reserved the pet for it.
 */
export const orderReached =
  (status: OrderStatus, at: string): Recorder<OrderRecord> =>
  (record): readonly NewEvent[] => {
    const data = toOrder(record, status);
    switch (status) {
      case 'placed':
        return [
          {
            type: 'order.placed',
            occurredAt: at,
            data,
            mark: status,
            follows: [{ kind: 'pet', id: record.petId, through: reservedFor(record.id) }],
          },
        ];
      case 'approved':
        return [{ type: 'order.approved', occurredAt: at, data, mark: status }];
      case 'delivered':
        return [{ type: 'order.delivered', occurredAt: at, data, mark: status }];
      case 'cancelled':
        return [{ type: 'order.cancelled', occurredAt: at, data, mark: status }];
    }
  };

/** `photo.added`, after its pet's `pet.created`. */
export const photoAdded =
  (at: string): Recorder<StoredPhoto> =>
  (photo) => [
    {
      type: 'photo.added',
      occurredAt: at,
      data: toPhoto(photo),
      follows: [{ kind: 'pet', id: photo.petId, through: 'created' }],
    },
  ];

/** `photo.removed` (a photo deleted: its `photo.added` came before, nothing else to wait for). */
export const photoRemoved =
  (at: string): Recorder<StoredPhoto> =>
  (photo) => [{ type: 'photo.removed', occurredAt: at, data: { id: photo.id, petId: photo.petId } }];

/** `photo.removed` of a photo that goes with its withdrawn pet: after the pet's `pet.withdrawn`. */
export const photoWithdrawn =
  (at: string): Recorder<StoredPhoto> =>
  (photo) => [
    {
      type: 'photo.removed',
      occurredAt: at,
      data: { id: photo.id, petId: photo.petId },
      follows: [{ kind: 'pet', id: photo.petId, through: 'withdrawn' }],
    },
  ];

/** `key.created`, `key.updated`, `key.revoked`: the key's public view (`startedAt`: shown for a key without `createdAt`). */
export const keyChanged =
  (type: 'key.created' | 'key.updated' | 'key.revoked', at: string, startedAt: number): Recorder<StoredApiKey> =>
  (key) => [{ type, occurredAt: at, data: toApiKey(key, startedAt) }];

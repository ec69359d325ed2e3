import type { Pet } from '../pet/pet.js';
import type { Category } from '../category/category.js';
import type { Order } from '../order/order.js';
import type { Photo } from '../photo/photo.js';
import type { ApiKey } from '../auth/api-key.js';

/**
 * Events (docs/rules.md §15): what happened to the store's resources, in one numbered feed. This
 * file holds their types and payloads; `outbox.ts` how a write records them and the relay numbers
 * them; `retention.ts` how long they are kept. The store is a port (`EventStore`).
 */

/** A withdrawn pet, as `pet.withdrawn` names it. */
export interface PetRef {
  readonly id: number;
}

/** A removed photo, as `photo.removed` names it. */
export interface PhotoRef {
  readonly id: number;
  readonly petId: number;
}

/** Every event type and its `data` (docs/rules.md §15's table): the one place they are listed. */
export interface EventPayloads {
  /** A pet was created: the `Pet`. */
  readonly 'pet.created': Pet;
  /** Any stored field of a pet changed (a `PATCH`, and the status moves of the adoption flow): the `Pet` after the change. */
  readonly 'pet.updated': Pet;
  /** A pet was withdrawn (`DELETE /v1/pets/{id}`). */
  readonly 'pet.withdrawn': PetRef;
  readonly 'category.created': Category;
  /** An order reached that status as clients see it: the `Order` in it. */
  readonly 'order.placed': Order;
  readonly 'order.approved': Order;
  readonly 'order.delivered': Order;
  readonly 'order.cancelled': Order;
  /** A photo was published: the `Photo`. */
  readonly 'photo.added': Photo;
  /** A photo was deleted, also with its pet's withdrawal. */
  readonly 'photo.removed': PhotoRef;
  /** The admin API of §9 made, changed or revoked a key: its public view, never the key nor its hash. */
  readonly 'key.created': ApiKey;
  readonly 'key.updated': ApiKey;
  readonly 'key.revoked': ApiKey;
}

export type EventType = keyof EventPayloads;

/** Every event type, in the order of docs/rules.md §15's table (a `types` filter is checked against it). */
export const EVENT_TYPES: readonly EventType[] = [
  'pet.created',
  'pet.updated',
  'pet.withdrawn',
  'category.created',
  'order.placed',
  'order.approved',
  'order.delivered',
  'order.cancelled',
  'photo.added',
  'photo.removed',
  'key.created',
  'key.updated',
  'key.revoked',
];

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

export const isEventType = (value: unknown): value is EventType => (KNOWN_TYPES as ReadonlySet<unknown>).has(value);

/** The kinds of resource that have events: an event's type starts with its kind (`pet.updated` → `pet`). */
export type ResourceKind = 'pet' | 'category' | 'order' | 'photo' | 'key';

/**
 * A resource, by kind and id: the document whose decisive write records the resource's events
 * (its outbox). Ids are numbers, but for keys: their public id (`key_…`).
 */
export interface EventSource {
  readonly kind: ResourceKind;
  readonly id: number | string;
}

/**
 * What an event follows: the entries of another resource's outbox recorded before it, up to the
 * one marked `through` (all that wait when absent). The relay moves those first.
 */
export interface Precedent extends EventSource {
  readonly through?: string;
}

type EventOf<T extends EventType> = {
  readonly type: T;
  /** When the change was made, by the service's clock: RFC 3339 UTC with milliseconds. */
  readonly occurredAt: string;
  readonly data: EventPayloads[T];
};

/**
 * An event a write records, before it has an id or a place in the feed. `follows`: the events of
 * other resources that must be in the feed before this one (causal order across documents: a pet's
 * `pet.updated` to `pending` before the `order.placed` that reserved it, an order's
 * `order.delivered` before its pet's `pet.updated` to `sold`). `mark` names this event for the
 * `through` of events that follow it. An event only ever follows events recorded before it (by a
 * write that landed before its own), so following never goes round in a circle.
 */
export type NewEvent = {
  readonly [T in EventType]: EventOf<T> & { readonly follows?: readonly Precedent[]; readonly mark?: string };
}[EventType];

/** An event waiting in its resource's outbox: the recorded event with the id the store gave it when the write recorded it. */
export type OutboxEntry = NewEvent & {
  /** `evt_…`: unique in the store, fixed when recorded, the same in the feed. */
  readonly id: string;
};

/** An event in the feed (`Event` of docs/rules.md §15). Discriminated by `type`: `data` is typed by it. */
export type Event = {
  readonly [T in EventType]: { readonly id: string; readonly sequence: number } & EventOf<T>;
}[EventType];

/**
 * What a decisive write records: the events of its change, built from the resource as the write
 * leaves it (a pet after its swap, an order record after its compare-and-set, a key after its
 * update). A repository calls it only when the write changes the store, inside that same write,
 * and stores what it answers in the resource's outbox; an empty answer records nothing.
 */
export type Recorder<T> = (after: T) => readonly NewEvent[];

/** The kind of resource of each event type (the part of its name before the dot). */
const KIND_OF: Readonly<Record<EventType, ResourceKind>> = {
  'pet.created': 'pet',
  'pet.updated': 'pet',
  'pet.withdrawn': 'pet',
  'category.created': 'category',
  'order.placed': 'order',
  'order.approved': 'order',
  'order.delivered': 'order',
  'order.cancelled': 'order',
  'photo.added': 'photo',
  'photo.removed': 'photo',
  'key.created': 'key',
  'key.updated': 'key',
  'key.revoked': 'key',
};

/** The resource an event is about, which is also the document that records it (docs/design.md, "Events"). */
export const eventSource = (event: NewEvent): EventSource => ({ kind: KIND_OF[event.type], id: event.data.id });

/** A text key for a source, unique per resource (`pet:12`, `key:key_0123456789ab`). */
export const sourceKey = (source: EventSource): string => `${source.kind}:${source.id}`;

/** `sourceKey(eventSource(event))`, without the object in between (a store files every recorded event by it). */
export const eventSourceKey = (event: NewEvent): string => `${KIND_OF[event.type]}:${event.data.id}`;

/** The feed's `Event` of an outbox entry at `sequence` (its `follows` and `mark` stay behind: they only order the relay). */
export const toEvent = (entry: OutboxEntry, sequence: number): Event =>
  ({ id: entry.id, sequence, type: entry.type, occurredAt: entry.occurredAt, data: entry.data }) as Event;

/**
 * The JSON of each frozen event, made once. Events never change, and a store that keeps its feed in
 * memory hands out the same frozen object to every reader: a page of the feed and every webhook
 * delivery of the event then reuse one text. Events that are not frozen (a networked store makes new
 * objects per read) are written each time and not remembered.
 */
const madeJson = new WeakMap<Event, string>();

/**
 * An event as the feed and the webhooks send it (docs/rules.md §15): `id`, `sequence`, `type`,
 * `occurredAt`, `data`, in that order, as `JSON.stringify` writes them.
 */
export const eventJson = (event: Event): string => {
  let json = madeJson.get(event);
  if (json !== undefined) return json;
  const { id, sequence, type, occurredAt, data } = event;
  json = JSON.stringify({ id, sequence, type, occurredAt, data });
  if (Object.isFrozen(event)) madeJson.set(event, json);
  return json;
};

/** An event id (`evt_` and 1–64 characters of base64url): what a store's ids look like. */
export const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,64}$/;

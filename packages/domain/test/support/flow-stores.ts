import type {
  OrderDraft,
  OrderListQuery,
  OrderRecord,
  OrderRepository,
  OrderState,
  ListedPets,
  Pet,
  PetEdit,
  PetEntry,
  PetHold,
  PetListQuery,
  PetRecord,
  PetRepository,
  PetStatus,
} from '../../src/index.js';
import { nameKeysOf } from '../../src/index.js';
import { modelList } from '../../test-support/pet-list.model.js';

/**
 * Plain pet and order stores for the adoption use case's own tests (the adapters prove themselves
 * with the contract suites). Every method is a property, so a test can replace one to stage a race
 * or a store that misbehaves, and the calls that matter are recorded.
 */

/** A pet as the model keeps it: its hold, revision and withdrawal can change. */
interface ModelPet {
  readonly id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
  orderId: number | null;
  revision: number;
  statusPatchedAt: string | null;
  withdrawn: boolean;
  readonly token?: string;
  /** As created (`PetEntry`); 0 for a pet the test adds directly. */
  readonly shuffleKey: number;
}

const asPet = (pet: ModelPet): Pet => ({ id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status });
const asRecord = (pet: ModelPet): PetRecord => ({
  ...asPet(pet),
  revision: pet.revision,
  orderId: pet.orderId,
  statusPatchedAt: pet.statusPatchedAt,
});

export class PetStoreModel implements PetRepository {
  readonly pets = new Map<number, ModelPet>();
  readonly calls: string[] = [];
  private lastId = 0;

  /** A pet with this status and hold, stored directly (no call recorded); answers its id. */
  add(status: PetStatus, orderId: number | null = null, token?: string): number {
    const id = ++this.lastId;
    this.pets.set(id, {
      id,
      name: `p${id}`,
      categoryId: 1,
      status,
      orderId,
      revision: 0,
      statusPatchedAt: null,
      withdrawn: false,
      ...(token === undefined ? {} : { token }),
      shuffleKey: 0,
    });
    return id;
  }

  /** The pet with this id, withdrawn or not (throws when none: a test's own mistake). */
  pet(id: number): ModelPet {
    const pet = this.pets.get(id);
    if (pet === undefined) throw new Error(`the model has no pet ${id}`);
    return pet;
  }

  private live(id: number): ModelPet | undefined {
    const pet = this.pets.get(id);
    return pet === undefined || pet.withdrawn ? undefined : pet;
  }

  create = async (draft: PetEntry, token?: string): Promise<Pet> => {
    const earlier = token === undefined ? undefined : await this.findByCreationToken(token);
    if (earlier !== undefined) return earlier;
    const id = this.add(draft.status, null, token);
    const pet = this.pet(id);
    pet.name = draft.name;
    pet.categoryId = draft.categoryId;
    this.pets.set(id, { ...pet, shuffleKey: draft.shuffleKey });
    return asPet(this.pet(id));
  };
  findByCreationToken = async (token: string): Promise<Pet | undefined> => {
    const pet = [...this.pets.values()].find((p) => p.token === token);
    return pet && asPet(pet);
  };
  findById = async (id: number): Promise<PetRecord | undefined> => {
    const pet = this.live(id);
    return pet && asRecord(pet);
  };
  list = async (query: PetListQuery): Promise<ListedPets> =>
    modelList(
      [...this.pets.values()]
        .filter((p) => !p.withdrawn)
        .map((p) => ({ pet: asPet(p), shuffleKey: p.shuffleKey, ...nameKeysOf(p.name) })),
      query,
    );
  findHold = async (id: number): Promise<PetHold | undefined> => {
    this.calls.push(`findHold ${id}`);
    const pet = this.live(id);
    return pet && { status: pet.status, orderId: pet.orderId };
  };
  swapHold = async (id: number, expected: PetHold, next: PetHold): Promise<boolean> => {
    this.calls.push(`swapHold ${id} ${expected.status}/${expected.orderId}→${next.status}/${next.orderId}`);
    const pet = this.live(id);
    if (pet === undefined || pet.status !== expected.status || pet.orderId !== expected.orderId) return false;
    pet.status = next.status;
    pet.orderId = next.orderId;
    pet.revision++;
    return true;
  };
  update = async (id: number, revision: number, changes: PetEdit, at: string): Promise<PetRecord | undefined> => {
    const pet = this.live(id);
    if (pet === undefined || pet.revision !== revision || (changes.status !== undefined && pet.orderId !== null))
      return undefined;
    if (changes.name !== undefined) pet.name = changes.name;
    if (changes.categoryId !== undefined) pet.categoryId = changes.categoryId;
    if (changes.status !== undefined) {
      pet.status = changes.status;
      pet.statusPatchedAt = at;
    }
    pet.revision++;
    return asRecord(pet);
  };
  withdraw = async (id: number, revision: number): Promise<boolean> => {
    const pet = this.live(id);
    if (pet === undefined || pet.revision !== revision || pet.orderId !== null) return false;
    pet.withdrawn = true;
    return true;
  };
  countByStatus = async (): Promise<Record<PetStatus, number>> => {
    const counts = { available: 0, pending: 0, sold: 0 };
    for (const pet of this.pets.values()) if (!pet.withdrawn) counts[pet.status]++;
    return counts;
  };
}

export class OrderStoreModel implements OrderRepository {
  readonly orders = new Map<number, OrderRecord>();
  readonly tokens = new Map<string, number>();
  readonly queries: OrderListQuery[] = [];
  readonly calls: string[] = [];
  private lastId = 0;

  /** A record stored directly (no call recorded); answers its id. */
  add(draft: OrderDraft, token?: string): number {
    const id = ++this.lastId;
    this.orders.set(id, { id, ...draft });
    if (token !== undefined) this.tokens.set(token, id);
    return id;
  }

  /** The record with this id (throws when none: a test's own mistake). */
  order(id: number): OrderRecord {
    const record = this.orders.get(id);
    if (record === undefined) throw new Error(`the model has no order ${id}`);
    return record;
  }

  create = async (draft: OrderDraft, token?: string): Promise<OrderRecord> => {
    this.calls.push(token === undefined ? 'create' : `create ${token}`);
    const earlier = token === undefined ? undefined : this.tokens.get(token);
    if (earlier !== undefined) return this.order(earlier);
    return this.order(this.add(draft, token));
  };
  findByCreationToken = async (token: string): Promise<OrderRecord | undefined> => {
    this.calls.push(`findByCreationToken ${token}`);
    const id = this.tokens.get(token);
    return id === undefined ? undefined : this.orders.get(id);
  };
  findById = async (id: number): Promise<OrderRecord | undefined> => {
    this.calls.push(`findById ${id}`);
    return this.orders.get(id);
  };
  updateState = async (id: number, expected: OrderState, next: OrderState, updatedAt: string): Promise<boolean> => {
    this.calls.push(`updateState ${id} ${expected}→${next}`);
    const record = this.orders.get(id);
    if (record === undefined || record.state !== expected) return false;
    this.orders.set(id, { ...record, state: next, updatedAt });
    return true;
  };
  list = async (query: OrderListQuery): Promise<readonly OrderRecord[]> => {
    this.queries.push(query);
    return [...this.orders.values()]
      .filter(
        (o) =>
          o.id > query.afterId &&
          (query.owner === undefined || o.owner === query.owner) &&
          query.states.includes(o.state),
      )
      .slice(0, query.limit);
  };
}

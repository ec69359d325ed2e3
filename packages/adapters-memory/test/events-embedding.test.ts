import { expect } from 'chai';
import {
  Adoption,
  CategoryCatalog,
  EventFeed,
  EventRelay,
  PetCatalog,
  RelayLoop,
  type Caller,
  type Event,
} from '@petstore/domain';
import {
  CategoryRepositoryInMemory,
  EventStoreInMemory,
  MemoryOutbox,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  SystemClock,
} from '../src/index.js';
import { SeededRandom } from '@petstore/domain/testing';

/**
 * docs/rules.md §15, embedding: a service that embeds the domain over the memory store reads the feed
 * in-process and reacts to `order.delivered`. The repositories share one outbox with the event
 * store; a `RelayLoop` (on the platform's own timers) moves what they record into the feed.
 */
describe('embedding the events: react to order.delivered in-process', () => {
  it('a follower of the feed hears of a delivery as it happens, with the order, after the events before it', async () => {
    const outbox = new MemoryOutbox();
    const pets = new PetRepositoryInMemory(outbox);
    const categories = new CategoryRepositoryInMemory(outbox);
    const orders = new OrderRepositoryInMemory(outbox);
    const events = new EventStoreInMemory(outbox);
    const clock = new SystemClock();
    const relay = new RelayLoop(new EventRelay(events, clock, 'embedded'), events, globalThis);
    relay.start();
    const admin: Caller = { keyId: 'key_ad00000000ad', role: 'admin' };
    const adoption = new Adoption(pets, orders, clock);

    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const heard: Event[] = [];
    const following = (async () => {
      for await (const event of new EventFeed(events, clock).follow(0, { types: ['order.delivered'], until })) {
        heard.push(event);
        stop();
      }
    })();

    await new CategoryCatalog(categories, clock).createCategory({ name: 'Dogs' });
    const rex = await new PetCatalog(pets, categories, clock, new SeededRandom()).createPet({
      name: 'Rex',
      categoryId: 1,
    });
    if (!rex.ok) throw new Error(rex.error.message);
    const order = await adoption.place({ keyId: 'key_aaaaaaaaaaaa', role: 'client' }, { petId: rex.value.id });
    if (!order.ok) throw new Error(order.error.message);
    await adoption.approve(admin, order.value.id);
    const delivered = await adoption.deliver(admin, order.value.id);

    await following;
    await relay.stop();
    expect(heard.map((e) => [e.type, e.data])).to.deep.equal([['order.delivered', delivered.ok && delivered.value]]);
    // Before it in the feed: the category, the pet, its move to pending, the placement and the approval.
    expect(heard[0]!.sequence, JSON.stringify(events.after(0, { limit: 10 }).map((e) => e.type))).to.equal(6);
    expect(events.after(0, { limit: 10 }).map((e) => e.type)).to.deep.equal([
      'category.created',
      'pet.created',
      'pet.updated',
      'order.placed',
      'order.approved',
      'order.delivered',
      'pet.updated',
    ]);
    expect(outbox.size, 'every outbox emptied').to.equal(0);
    expect(events.waiting, 'no wait left behind').to.equal(0);
  });
});

// docs/rules.md §15: the JSON Schemas of the events say what the rules say. `Event` takes exactly
// the events the recorders make (each type with its own data, nothing else), and the feed's query
// schema accepts exactly what `readFeedQuery` accepts (the HTTP adapter checks a query with both).
import { expect } from 'chai';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Event, NewEvent, OrderRecord, Pet, StoredApiKey, StoredPhoto } from '../src/index.js';
import {
  categoryCreated,
  EVENT_TYPES,
  EventSchema,
  keyChanged,
  ListEventsQuerySchema,
  orderReached,
  petCreated,
  petReleased,
  petReserved,
  petUpdated,
  petWithdrawn,
  photoAdded,
  photoRemoved,
  photoWithdrawn,
  readFeedQuery,
  toEvent,
} from '../src/index.js';

const ajv = new Ajv2020({ strict: true, validateFormats: false });
ajv.addFormat('int64', true);
ajv.addFormat('date-time', true);
const isEvent = ajv.compile(EventSchema);
const isQuery = ajv.compile(ListEventsQuerySchema);

const AT = '2027-01-01T00:00:00.000Z';
const pet: Pet = { id: 7, name: 'Rex', categoryId: 3, status: 'available' };
const order: OrderRecord = {
  id: 12,
  petId: 7,
  owner: 'key_0123456789ab',
  state: 'placed',
  placedAt: AT,
  updatedAt: AT,
};
const photo: StoredPhoto = {
  id: 4,
  petId: 7,
  contentType: 'image/jpeg',
  width: 800,
  height: 600,
  bytes: 51_234,
  createdAt: AT,
  files: [{ width: 800, height: 600, bytes: 51_234, sha256: 'a'.repeat(64) }],
};
const key: StoredApiKey = {
  keyHash: 'b'.repeat(64),
  role: 'client',
  plan: 'pro',
  quota: { perMinute: 300, perDay: 10_000 },
  source: 'api',
  position: 1_000_001,
  createdAt: Date.parse(AT),
  label: 'CI runner',
};

/** One event of every type, as the recorders make them, numbered as the relay numbers them. */
const recorded: readonly NewEvent[] = [
  ...petCreated(AT)(pet),
  ...petUpdated(AT, true)({ ...pet, name: 'Max' }),
  ...petReserved(AT, 12)({ ...pet, status: 'pending' }),
  ...petReleased(AT, 12, 'delivered')({ ...pet, status: 'sold' }),
  ...petWithdrawn(AT)(pet),
  ...categoryCreated(AT)({ id: 3, name: 'Dogs' }),
  ...orderReached('placed', AT)(order),
  ...orderReached('approved', AT)({ ...order, state: 'approved' }),
  ...orderReached('delivered', AT)({ ...order, state: 'delivering' }),
  ...orderReached('cancelled', AT)({ ...order, state: 'cancelling' }),
  ...photoAdded(AT)(photo),
  ...photoRemoved(AT)(photo),
  ...photoWithdrawn(AT)(photo),
  ...keyChanged('key.created', AT, 0)(key),
  ...keyChanged('key.updated', AT, 0)({ ...key, plan: 'business', quota: { perMinute: 1_000, perDay: 100_000 } }),
  ...keyChanged('key.revoked', AT, 0)(key),
];
const events: readonly Event[] = recorded.map((event, i) => toEvent({ ...event, id: `evt_${i.toString(36)}` }, i + 1));

describe('the Event schema (docs/rules.md §15)', () => {
  it('takes every event the recorders make, of every type', () => {
    expect(new Set(events.map((e) => e.type))).to.deep.equal(new Set(EVENT_TYPES));
    for (const event of events)
      expect(isEvent(event), `${event.type}: ${JSON.stringify(isEvent.errors)}`).to.equal(true);
  });

  it('has one closed shape per type, in the order of the table, each fixing its type and saying when it is recorded and what its data is', () => {
    expect(EventSchema.oneOf.map((shape) => shape.properties.type.const)).to.deep.equal(EVENT_TYPES);
    expect(EventSchema.oneOf.map((shape) => shape.title)).to.deep.equal(EVENT_TYPES);
    for (const shape of EventSchema.oneOf) expect(shape.description, shape.title).to.match(/^[A-Z].{20,}`data`: .+\.$/);
  });

  it("refuses an event whose data is another type's, an unknown type, a field too many or missing, a sequence below 1, an id not evt_…", () => {
    const created = events[0]!;
    const withdrawn = events.find((e) => e.type === 'pet.withdrawn')!;
    const placed = events.find((e) => e.type === 'order.placed')!;
    const keyEvent = events.find((e) => e.type === 'key.created')!;
    const bad: readonly unknown[] = [
      { ...created, data: withdrawn.data },
      { ...withdrawn, data: created.data },
      { ...placed, type: 'order.placing' },
      { ...created, type: 'photo.added' },
      { ...created, extra: 1 },
      { ...created, data: { ...pet, revision: 3 } },
      { ...placed, data: { ...placed.data, owner: 'key_0123456789ab' } },
      { ...keyEvent, data: { ...keyEvent.data, keyHash: 'b'.repeat(64) } },
      { ...keyEvent, data: { ...keyEvent.data, key: 'pet_secret' } },
      (({ occurredAt: _at, ...rest }) => rest)(created),
      (({ data: _data, ...rest }) => rest)(created),
      { ...created, sequence: 0 },
      { ...created, sequence: 1.5 },
      { ...created, id: 'event_1' },
      { ...created, id: 'evt_' },
      { ...created, id: 'evt_a b' },
    ];
    for (const event of bad) expect(isEvent(event), JSON.stringify(event)).to.equal(false);
  });
});

/** How the HTTP adapter hands a query to both: `after`, `limit` and `wait` as numbers when written canonically, else as text. */
const CANONICAL = /^(?:0|[1-9][0-9]*)$/;
const asSent = (value: string): string | number => (CANONICAL.test(value) ? Number(value) : value);

const numberText = fc.oneof(
  fc.nat({ max: 40 }).map(String),
  fc.integer({ min: 90, max: 110 }).map(String),
  fc.constantFrom(
    '-1',
    '007',
    '+5',
    '1e1',
    '1.0',
    '0x10',
    '',
    ' 3',
    '9007199254740991',
    '9007199254740992',
    '99999999999999999999',
    'twenty',
  ),
);
const typesText = fc.oneof(
  fc
    .array(fc.constantFrom(...EVENT_TYPES, 'pet', 'order.placing', 'Pet.created', ''), { minLength: 1, maxLength: 4 })
    .map((names) => names.join(',')),
  fc.constantFrom(
    'pet.created,',
    ',pet.created',
    'pet.created, order.placed',
    'pet.created,,order.placed',
    'petXcreated',
    'pet.created\norder.placed',
  ),
);

describe('the query of GET /events: its schema and readFeedQuery agree (docs/rules.md §15)', () => {
  it('on every query, the schema accepts it exactly when readFeedQuery does', () => {
    fc.assert(
      fc.property(
        fc.record({ after: numberText, types: typesText, limit: numberText, wait: numberText }, { requiredKeys: [] }),
        (query) => {
          const sent = Object.fromEntries(
            Object.entries(query).map(([name, value]) => [name, name === 'types' ? value : asSent(value)]),
          );
          expect(isQuery(sent), JSON.stringify(sent)).to.equal(readFeedQuery(sent).ok);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("the defaults are the domain's: after 0, every type, limit 20, no wait", () => {
    const read = readFeedQuery({});
    expect(read.ok && read.value).to.deep.equal({ after: 0, limit: 20, waitMs: 0 });
    const { after, limit, wait } = ListEventsQuerySchema.properties;
    expect([after.default, limit.default, wait.default]).to.deep.equal([0, 20, 0]);
  });
});

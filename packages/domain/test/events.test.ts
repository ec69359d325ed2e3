import { expect } from 'chai';
import fc from 'fast-check';
import type { Event, EventType, NewEvent, OrderRecord, Pet, StoredApiKey, StoredPhoto } from '../src/index.js';
import {
  behindRetentionMessage,
  bySource,
  categoryCreated,
  EVENT_ID,
  EVENT_RETENTION_DAYS,
  EVENT_TYPES,
  eventSource,
  eventSourceKey,
  expiredPrefix,
  FEED_WAIT_MAX_SECONDS,
  isBehindRetention,
  isEventType,
  keyChanged,
  leaseAllows,
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
  RELAY_BATCH,
  RELAY_IDLE_DELAYS_MS,
  RELAY_LEASE_MS,
  relayDelay,
  retentionCutoff,
  sourceKey,
  toEvent,
  eventJson,
} from '../src/index.js';

const AT = '2027-01-01T00:00:00.000Z';
const pet: Pet = { id: 7, name: 'Rex', categoryId: 3, status: 'available' };
const entry = (event: NewEvent, id: string) => ({ ...event, id });

describe('events: types and payloads (docs/rules.md §15)', () => {
  it('the thirteen types of the table, in its order; isEventType knows exactly them', () => {
    expect(EVENT_TYPES).to.deep.equal([
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
    ]);
    for (const type of EVENT_TYPES) expect(isEventType(type), type).to.equal(true);
    for (const other of [
      'pet',
      'pet.',
      'Pet.created',
      'pet.created ',
      'order.placing',
      'toString',
      '',
      1,
      undefined,
      null,
      ['pet.created'],
    ]) {
      expect(isEventType(other), String(other)).to.equal(false);
    }
  });

  it("an event's source is the resource it is about: its type's kind and its data's id; sourceKey names it", () => {
    expect(eventSource({ type: 'pet.updated', occurredAt: AT, data: pet })).to.deep.equal({ kind: 'pet', id: 7 });
    expect(eventSource({ type: 'pet.withdrawn', occurredAt: AT, data: { id: 8 } })).to.deep.equal({
      kind: 'pet',
      id: 8,
    });
    expect(eventSource({ type: 'photo.removed', occurredAt: AT, data: { id: 4, petId: 7 } })).to.deep.equal({
      kind: 'photo',
      id: 4,
    });
    const key = {
      id: 'key_0123456789ab',
      role: 'client',
      plan: 'pro',
      quota: { perMinute: 1, perDay: 2 },
      source: 'api',
      createdAt: AT,
    } as const;
    expect(eventSource({ type: 'key.revoked', occurredAt: AT, data: key })).to.deep.equal({
      kind: 'key',
      id: 'key_0123456789ab',
    });
    expect(eventSource({ type: 'category.created', occurredAt: AT, data: { id: 2, name: 'Cats' } })).to.deep.equal({
      kind: 'category',
      id: 2,
    });
    for (const type of EVENT_TYPES) {
      const event = { type, occurredAt: AT, data: { id: 3 } } as unknown as NewEvent;
      expect(eventSourceKey(event), type)
        .to.equal(sourceKey(eventSource(event)))
        .and.to.equal(`${type.slice(0, type.indexOf('.'))}:3`);
    }
    expect(sourceKey({ kind: 'order', id: 12 })).to.equal('order:12');
    expect(sourceKey({ kind: 'key', id: 'key_0123456789ab' })).to.equal('key:key_0123456789ab');
  });

  it("toEvent: the entry at its sequence, without the relay's follows and mark", () => {
    const recorded = entry(
      { type: 'pet.created', occurredAt: AT, data: pet, mark: 'created', follows: [{ kind: 'category', id: 3 }] },
      'evt_a1',
    );
    const event = toEvent(recorded, 9);
    expect(event).to.deep.equal({ id: 'evt_a1', sequence: 9, type: 'pet.created', occurredAt: AT, data: pet });
    expect(Object.keys(event)).to.deep.equal(['id', 'sequence', 'type', 'occurredAt', 'data']);
  });

  it('eventJson: the five fields in the order of the schema, as JSON.stringify writes them; a frozen event keeps its text, an unfrozen one is written again', () => {
    const frozen = Object.freeze(toEvent(entry({ type: 'pet.created', occurredAt: AT, data: pet }, 'evt_f1'), 4));
    const text = eventJson(frozen);
    expect(text).to.equal(
      '{"id":"evt_f1","sequence":4,"type":"pet.created","occurredAt":"2027-01-01T00:00:00.000Z","data":{"id":7,"name":"Rex","categoryId":3,"status":"available"}}',
    );
    expect(eventJson(frozen)).to.equal(text);
    // Made once: a change deep inside a frozen event (which no store makes) does not show in its text.
    const deep = Object.freeze(toEvent(entry({ type: 'pet.withdrawn', occurredAt: AT, data: { id: 1 } }, 'evt_d1'), 1));
    const before = eventJson(deep);
    (deep.data as { id: number }).id = 2;
    expect(eventJson(deep)).to.equal(before);
    // An object a networked store made for one read: its text is never remembered for it.
    const open: { id: string; sequence: number; type: 'pet.withdrawn'; occurredAt: string; data: { id: number } } = {
      id: 'evt_o1',
      sequence: 5,
      type: 'pet.withdrawn',
      occurredAt: AT,
      data: { id: 7 },
    };
    expect(eventJson(open)).to.equal(
      '{"id":"evt_o1","sequence":5,"type":"pet.withdrawn","occurredAt":"2027-01-01T00:00:00.000Z","data":{"id":7}}',
    );
    open.sequence = 6;
    expect(eventJson(open)).to.include('"sequence":6,');
    fc.assert(
      fc.property(fc.string(), fc.nat(), (name, sequence) => {
        const event = toEvent(
          entry({ type: 'pet.updated', occurredAt: AT, data: { ...pet, name } }, 'evt_p'),
          sequence,
        );
        const { id, type, occurredAt, data } = event;
        expect(eventJson(event)).to.equal(JSON.stringify({ id, sequence, type, occurredAt, data }));
      }),
    );
  });

  it('EVENT_ID: evt_ and 1 to 64 base64url characters, nothing around it', () => {
    for (const id of ['evt_1', 'evt_aZ09-_', `evt_${'x'.repeat(64)}`]) expect(EVENT_ID.test(id), id).to.equal(true);
    for (const id of ['evt_', `evt_${'x'.repeat(65)}`, 'evt_a b', 'xevt_1', 'evt_1\n', 'EVT_1', 'evt_1+', 'evt-1'])
      expect(EVENT_ID.test(id), id).to.equal(false);
  });
});

describe('events: what each change records (recorders)', () => {
  it('pets: created (after its category), updated (after the new category when it changed), reserved for an order, released after its move, withdrawn; the Pet alone, whatever the store keeps beside it', () => {
    const record = { ...pet, revision: 4, orderId: null, statusPatchedAt: null };
    expect(petCreated(AT)(record)).to.deep.equal([
      { type: 'pet.created', occurredAt: AT, data: pet, mark: 'created', follows: [{ kind: 'category', id: 3 }] },
    ]);
    expect(petReserved(AT, 12)(record)).to.deep.equal([
      { type: 'pet.updated', occurredAt: AT, data: pet, mark: 'order:12' },
    ]);
    expect(petReleased(AT, 12, 'cancelled')(record)).to.deep.equal([
      { type: 'pet.updated', occurredAt: AT, data: pet, follows: [{ kind: 'order', id: 12, through: 'cancelled' }] },
    ]);
    expect(petReleased(AT, 13, 'delivered')(record)).to.deep.equal([
      { type: 'pet.updated', occurredAt: AT, data: pet, follows: [{ kind: 'order', id: 13, through: 'delivered' }] },
    ]);
    expect(petUpdated(AT)(record)).to.deep.equal([{ type: 'pet.updated', occurredAt: AT, data: pet }]);
    expect(petUpdated(AT, false)(record)).to.deep.equal([{ type: 'pet.updated', occurredAt: AT, data: pet }]);
    expect(petUpdated(AT, true)(record)).to.deep.equal([
      { type: 'pet.updated', occurredAt: AT, data: pet, follows: [{ kind: 'category', id: 3 }] },
    ]);
    expect(petWithdrawn(AT)(record)).to.deep.equal([
      { type: 'pet.withdrawn', occurredAt: AT, data: { id: 7 }, mark: 'withdrawn' },
    ]);
    expect(categoryCreated(AT)({ id: 3, name: 'Dogs', extra: 1 } as never)).to.deep.equal([
      { type: 'category.created', occurredAt: AT, data: { id: 3, name: 'Dogs' } },
    ]);
  });

  it('orders: the order in the status it reached (a write-ahead record shown as the status it settles to), marked by it; only order.placed follows (its pet, through the swap that reserved it)', () => {
    const record: OrderRecord = {
      id: 5,
      petId: 7,
      owner: 'key_aaaaaaaaaaaa',
      state: 'cancelling',
      placedAt: AT,
      updatedAt: '2027-01-02T00:00:00.000Z',
    };
    const order = (status: string) => ({
      id: 5,
      petId: 7,
      status,
      placedAt: AT,
      updatedAt: '2027-01-02T00:00:00.000Z',
    });
    expect(orderReached('placed', AT)(record)).to.deep.equal([
      {
        type: 'order.placed',
        occurredAt: AT,
        data: order('placed'),
        mark: 'placed',
        follows: [{ kind: 'pet', id: 7, through: 'order:5' }],
      },
    ]);
    for (const status of ['approved', 'delivered', 'cancelled'] as const) {
      expect(orderReached(status, AT)(record), status).to.deep.equal([
        { type: `order.${status}`, occurredAt: AT, data: order(status), mark: status },
      ]);
    }
  });

  it("photos: added with the Photo (not its files) after its pet's creation; removed with its id and pet, after the pet's withdrawal when it goes with it", () => {
    const photo: StoredPhoto = {
      id: 4,
      petId: 7,
      contentType: 'image/png',
      width: 10,
      height: 20,
      bytes: 30,
      createdAt: AT,
      files: [{ width: 10, height: 20, bytes: 30, sha256: 'ab' }],
    };
    expect(photoAdded(AT)(photo)).to.deep.equal([
      {
        type: 'photo.added',
        occurredAt: AT,
        data: { id: 4, petId: 7, contentType: 'image/png', width: 10, height: 20, bytes: 30, createdAt: AT },
        follows: [{ kind: 'pet', id: 7, through: 'created' }],
      },
    ]);
    expect(photoRemoved(AT)(photo)).to.deep.equal([
      { type: 'photo.removed', occurredAt: AT, data: { id: 4, petId: 7 } },
    ]);
    expect(photoWithdrawn(AT)(photo)).to.deep.equal([
      {
        type: 'photo.removed',
        occurredAt: AT,
        data: { id: 4, petId: 7 },
        follows: [{ kind: 'pet', id: 7, through: 'withdrawn' }],
      },
    ]);
  });

  it("keys: the key's public view, never its hash; createdAt from the key, or the process's start", () => {
    const key: StoredApiKey = {
      keyHash: 'ab'.repeat(32),
      role: 'client',
      plan: 'pro',
      quota: { perMinute: 600, perDay: 100_000 },
      source: 'api',
      position: 3,
      createdAt: Date.parse(AT),
      label: 'site',
    };
    const view = {
      id: 'key_abababababab',
      role: 'client',
      plan: 'pro',
      quota: { perMinute: 600, perDay: 100_000 },
      label: 'site',
      source: 'api',
      createdAt: AT,
    };
    for (const type of ['key.created', 'key.updated', 'key.revoked'] as const)
      expect(keyChanged(type, AT, 0)(key)).to.deep.equal([{ type, occurredAt: AT, data: view }]);
    const { createdAt: _, label: __, ...bare } = key;
    const [event] = keyChanged('key.updated', AT, Date.parse('2026-05-05T00:00:00.000Z'))(bare);
    expect(event?.data).to.deep.equal({
      id: 'key_abababababab',
      role: 'client',
      plan: 'pro',
      quota: { perMinute: 600, perDay: 100_000 },
      source: 'api',
      createdAt: '2026-05-05T00:00:00.000Z',
    });
    expect(JSON.stringify(event)).not.to.include('ab'.repeat(32));
  });
});

describe('events: the relay rules (events/outbox.ts)', () => {
  it('an idle relay looks again after 25, 50, 100, 200, then every 400 ms; at once after a run that moved something', () => {
    expect(RELAY_IDLE_DELAYS_MS).to.deep.equal([25, 50, 100, 200, 400]);
    expect([-1, 0, 1, 2, 3, 4, 5, 6, 100].map(relayDelay)).to.deep.equal([0, 0, 25, 50, 100, 200, 400, 400, 400]);
    expect(RELAY_LEASE_MS).to.equal(2_000);
    expect(RELAY_BATCH).to.equal(100);
  });

  it('the lease: free, its own, or run out (at its last millisecond it still holds)', () => {
    expect(leaseAllows(undefined, 'a', 10)).to.equal(true);
    expect(leaseAllows({ holder: 'a', until: 100 }, 'a', 10)).to.equal(true);
    expect(leaseAllows({ holder: 'b', until: 100 }, 'a', 99)).to.equal(false);
    expect(leaseAllows({ holder: 'b', until: 100 }, 'a', 100)).to.equal(true);
    expect(leaseAllows({ holder: 'b', until: 100 }, 'a', 101)).to.equal(true);
  });

  it('bySource: one group per resource (a pet and an order with the same id are two), in the order of its first entry, its entries in order', () => {
    const e = (type: EventType, id: number, n: string) =>
      entry(
        {
          type,
          occurredAt: AT,
          data: { ...pet, id, petId: 1, status: 'placed', placedAt: AT, updatedAt: AT },
        } as unknown as NewEvent,
        n,
      );
    const groups = bySource([
      e('order.placed', 1, 'a'),
      e('pet.updated', 1, 'b'),
      e('order.approved', 1, 'c'),
      e('pet.updated', 2, 'd'),
      e('pet.updated', 1, 'e'),
    ]);
    expect(groups.map((g) => [g.source, g.entries.map((x) => x.id)])).to.deep.equal([
      [{ kind: 'order', id: 1 }, ['a', 'c']],
      [{ kind: 'pet', id: 1 }, ['b', 'e']],
      [{ kind: 'pet', id: 2 }, ['d']],
    ]);
    expect(bySource([])).to.deep.equal([]);
    // One entry (the usual batch: one write woke the relay): one group, of its own resource.
    expect(bySource([e('order.approved', 7, 'f')]).map((g) => [g.source, g.entries.map((x) => x.id)])).to.deep.equal([
      [{ kind: 'order', id: 7 }, ['f']],
    ]);
  });
});

describe('events: retention (docs/rules.md §15, guarantee 5)', () => {
  it('the retention is 1 to 365 whole days, 30 unless configured', () => {
    expect(EVENT_RETENTION_DAYS).to.deep.equal({ default: 30, min: 1, max: 365 });
  });

  it('the cutoff is `days` days before now; the expired prefix ends at the first event at or after it, however old the ones after', () => {
    const now = Date.parse('2027-02-01T00:00:00.000Z');
    expect(retentionCutoff(now, 30)).to.equal('2027-01-02T00:00:00.000Z');
    expect(retentionCutoff(now, 1)).to.equal('2027-01-31T00:00:00.000Z');
    const at = (occurredAt: string, sequence: number) =>
      ({ id: `evt_${sequence}`, sequence, type: 'pet.withdrawn', occurredAt, data: { id: 1 } }) as Event;
    const cutoff = '2027-01-02T00:00:00.000Z';
    const old = at('2027-01-01T23:59:59.999Z', 1);
    expect(expiredPrefix([], cutoff)).to.equal(0);
    expect(expiredPrefix([old, at('2027-01-01T00:00:00.000Z', 2)], cutoff)).to.equal(2);
    expect(
      expiredPrefix([old, at(cutoff, 2), at('2026-01-01T00:00:00.000Z', 3)], cutoff),
      'an event at the cutoff is kept, and so is what follows it',
    ).to.equal(1);
    expect(expiredPrefix([at('2027-01-03T00:00:00.000Z', 1), old], cutoff)).to.equal(0);
  });

  it('a reader is behind when the event after its position is no longer kept; the message names the first kept sequence', () => {
    expect(isBehindRetention(4, 5)).to.equal(false);
    expect(isBehindRetention(3, 5)).to.equal(true);
    expect(isBehindRetention(0, 1)).to.equal(false);
    expect(isBehindRetention(9, 5)).to.equal(false);
    expect(behindRetentionMessage(3, 5)).to.equal(
      'events after 3 are no longer kept; the first kept event is 5: read on from after=4 (what came between is lost to this reader)',
    );
  });
});

describe('events: a read of the feed (readFeedQuery)', () => {
  const refused = (field: string, message: string) => ({
    ok: false,
    error: { code: 'validation_failed', field, message },
  });
  const AFTER = refused(
    'after',
    'after must be a sequence: an integer from 0, written without sign, leading zeros or fraction',
  );
  const TYPES_RULE = `types must be a comma-separated list of distinct event types, each one of ${EVENT_TYPES.join(', ')}`;
  const TYPES = refused('types', TYPES_RULE);
  const LIMIT = refused('limit', 'limit must be an integer from 1 to 100');
  const WAIT = refused('wait', 'wait must be a whole number of seconds from 0 to 30');

  it('defaults: after 0, every type, 20 events, no wait', () => {
    expect(readFeedQuery({})).to.deep.equal({ ok: true, value: { after: 0, limit: 20, waitMs: 0 } });
    expect(FEED_WAIT_MAX_SECONDS).to.equal(30);
  });

  it('after: 0 or more, a number or its canonical text', () => {
    for (const [raw, after] of [
      [0, 0],
      ['0', 0],
      [7, 7],
      ['7', 7],
      ['123', 123],
      [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
      [String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER],
    ] as const) {
      expect(readFeedQuery({ after: raw }), String(raw)).to.deep.equal({
        ok: true,
        value: { after, limit: 20, waitMs: 0 },
      });
    }
    for (const raw of [
      -1,
      '-1',
      1.5,
      '1.5',
      '07',
      '00',
      '+7',
      ' 7',
      '7 ',
      '',
      'seven',
      '1e3',
      2 ** 53,
      String(2 ** 53),
      '9223372036854775808',
      null,
      true,
      [7],
      Number.NaN,
    ]) {
      expect(readFeedQuery({ after: raw }), String(raw)).to.deep.equal(AFTER);
    }
  });

  it('types: comma-separated or a list, each known, each once; anything else lists the known ones and names what broke the rule', () => {
    expect(readFeedQuery({ types: 'order.delivered' })).to.deep.equal({
      ok: true,
      value: { after: 0, types: ['order.delivered'], limit: 20, waitMs: 0 },
    });
    expect(readFeedQuery({ types: ['key.revoked', 'photo.added'] })).to.deep.nested.include({
      'value.types': ['key.revoked', 'photo.added'],
    });
    for (const raw of ['', ',', 'pet.created,', ',pet.created', [], ['pet.created', 5], [''], 5, null, {}])
      expect(readFeedQuery({ types: raw }), JSON.stringify(raw)).to.deep.equal(TYPES);
    for (const [raw, name] of [
      ['pet', 'pet'],
      ['pet.created, order.placed', ' order.placed'],
      ['PET.CREATED', 'PET.CREATED'],
    ] as const)
      expect(readFeedQuery({ types: raw }), raw).to.deep.equal(refused('types', `${TYPES_RULE}: '${name}' is not one`));
    // A type named twice is refused as a subscription's types are (one rule for both), naming it.
    for (const raw of ['pet.created,order.placed,pet.created', ['pet.created', 'pet.created']])
      expect(readFeedQuery({ types: raw }), JSON.stringify(raw)).to.deep.equal(
        refused('types', `${TYPES_RULE}: pet.created is named twice`),
      );
  });

  it('limit 1–100 and wait 0–30 s, as numbers or canonical text', () => {
    expect(readFeedQuery({ limit: 1, wait: 30 })).to.deep.equal({
      ok: true,
      value: { after: 0, limit: 1, waitMs: 30_000 },
    });
    expect(readFeedQuery({ limit: '100', wait: '0' })).to.deep.equal({
      ok: true,
      value: { after: 0, limit: 100, waitMs: 0 },
    });
    expect(readFeedQuery({ wait: '7' })).to.deep.nested.include({ 'value.waitMs': 7_000 });
    for (const raw of [0, 101, '0', '101', '020', 1.5, -1, 'x', null])
      expect(readFeedQuery({ limit: raw }), String(raw)).to.deep.equal(LIMIT);
    for (const raw of [31, '31', -1, '-1', 0.5, '05', 'x', null])
      expect(readFeedQuery({ wait: raw }), String(raw)).to.deep.equal(WAIT);
  });

  it('property: a query of valid parts reads back as those parts', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        fc.uniqueArray(fc.constantFrom(...EVENT_TYPES), { minLength: 1 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 30 }),
        fc.boolean(),
        (after, types, limit, wait, asText) => {
          const input = asText
            ? { after: String(after), types: types.join(','), limit: String(limit), wait: String(wait) }
            : { after, types, limit, wait };
          expect(readFeedQuery(input)).to.deep.equal({ ok: true, value: { after, types, limit, waitMs: wait * 1000 } });
        },
      ),
    );
  });
});

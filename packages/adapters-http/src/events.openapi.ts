/**
 * The OpenAPI part of events.ts (docs/rules.md §15, tag `events`, beta, admin keys only): the feed
 * and the `Event` schema, whose `data` names the resources' own schemas.
 */
import {
  ApiKeySchema,
  CategorySchema,
  EventSchema,
  FEED_WAIT_MAX_SECONDS,
  ListEventsQuerySchema,
  OrderSchema,
  PetSchema,
  PhotoSchema,
} from '@petstore/domain';
import {
  BETA,
  COMMON_HEADERS,
  errorResponse,
  header,
  ref,
  sharedErrors,
  withHeaders,
  type OpenApiPart,
} from './openapi-shared.js';

/** The resources' schemas inside `Event`, by the component that shows them (the document says each once). */
const COMPONENTS = new Map<object, string>([
  [PetSchema, 'Pet'],
  [CategorySchema, 'Category'],
  [OrderSchema, 'Order'],
  [PhotoSchema, 'Photo'],
  [ApiKeySchema, 'ApiKey'],
]);

/** `EventSchema` with each resource's schema in `data` as a reference to its component. */
const eventComponent = () => ({
  ...EventSchema,
  oneOf: EventSchema.oneOf.map((shape) => {
    const name = COMPONENTS.get(shape.properties.data);
    return name === undefined ? shape : { ...shape, properties: { ...shape.properties, data: ref('schemas', name) } };
  }),
});

const EXAMPLE_PAGE = [
  {
    id: 'evt_mbx2k1q0a3f9d2c4e6b8a0c2',
    sequence: 41,
    type: 'pet.updated',
    occurredAt: '2027-01-02T10:00:00.000Z',
    data: { id: 7, name: 'Rex', categoryId: 1, status: 'pending' },
  },
  {
    id: 'evt_mbx2k1q0a4c1e3a5b7d9f1e3',
    sequence: 42,
    type: 'order.placed',
    occurredAt: '2027-01-02T10:00:00.000Z',
    data: {
      id: 12,
      petId: 7,
      status: 'placed',
      placedAt: '2027-01-02T10:00:00.000Z',
      updatedAt: '2027-01-02T10:00:00.000Z',
    },
  },
];

export const eventsPart = (): OpenApiPart => {
  const queryParam = (name: 'after' | 'types' | 'limit' | 'wait', example: number | string) => {
    const { description, ...schema } = ListEventsQuerySchema.properties[name];
    return { name, in: 'query', required: false, description, schema, example };
  };
  return {
    schemas: { Event: eventComponent(), Events: { type: 'array', items: ref('schemas', 'Event') } },
    headers: {
      'Link-Feed': {
        ...header(
          '`</v1/events?after=N&…>; rel="next"` on every page, empty or not: N is the last `sequence` of the page, or its `after` when it is empty; the page\'s `types`, `limit` and `wait` go on. Following it forever reads every event once.',
        ),
        required: true,
      },
    },
    paths: {
      '/events': {
        get: {
          operationId: 'listEvents',
          summary: 'Read the feed of events',
          description:
            'Everything that happens to the store, as one numbered feed (`sequence` 1, 2, 3, … with no gap): animals created, updated and withdrawn, categories created, orders placed, approved, delivered and cancelled, photos added and removed, keys issued, changed and revoked (never a key itself). ' +
            'The events after `after`, oldest first, at most `limit`, of the `types` asked. ' +
            `With \`wait\` (up to ${FEED_WAIT_MAX_SECONDS} s) the answer waits for the first matching event and comes as soon as one arrives, else \`[]\` once the wait is over: a long poll. ` +
            'Every page carries `Link: rel="next"`; a reader saves the last `sequence` it handled and goes on from there. ' +
            'Events are kept `PETSTORE_EVENT_RETENTION_DAYS` days (default 30): a reader behind that gets 410 `gone` with the first sequence kept, never a silent jump. ' +
            `Needs an admin key; a client key gets 403. ${BETA}`,
          tags: ['events'],
          'x-stability': 'beta',
          security: [{ adminKey: [] }],
          parameters: [
            queryParam('after', 41),
            queryParam('types', 'order.placed,order.delivered'),
            queryParam('limit', 20),
            queryParam('wait', 30),
          ],
          responses: {
            '200': withHeaders(COMMON_HEADERS, {
              description: 'A page of events in ascending `sequence` (empty when none matched within the wait).',
              headers: { Link: ref('headers', 'Link-Feed') },
              content: {
                'application/json': {
                  schema: ref('schemas', 'Events'),
                  examples: {
                    page: { summary: 'An order placed: its animal became pending first', value: EXAMPLE_PAGE },
                    empty: { summary: 'Nothing new within the wait', value: [] },
                  },
                },
              },
            }),
            '400': errorResponse(
              ['validation_failed'],
              'A parameter breaks its rule, or is given twice; the message names it (for `types`, every known type).',
              [],
              'wait must be a whole number of seconds from 0 to 30',
            ),
            '403': ref('responses', 'Forbidden'),
            '410': errorResponse(
              ['gone'],
              '`after` is behind the retention: events after it were removed. The message gives the first `sequence` kept; what came between is lost to this reader.',
              [],
              'events after 0 are no longer kept; the first kept event is 1043: read on from after=1042 (what came between is lost to this reader)',
            ),
            ...sharedErrors,
          },
        },
      },
    },
  };
};

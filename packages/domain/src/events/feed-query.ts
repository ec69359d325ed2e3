import { validationFailed, type ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN } from '../pagination/limit.js';
import { EVENT_TYPES, type EventType } from './event.js';
import { readEventTypes } from './types-list.js';

/** The longest a read of the feed waits for an event (`wait`, seconds). */
export const FEED_WAIT_MAX_SECONDS = 30;

/** A read of the feed as the client sent it (`GET /v1/events`): each field checked here, whatever its type. */
export interface FeedInput {
  /** A sequence: a non-negative integer, or its canonical decimal text. Default 0. */
  readonly after?: unknown;
  /** Event types: comma-separated text, or a list of them. Default: every type. */
  readonly types?: unknown;
  /** 1–100, default 20 (a number or its canonical text). */
  readonly limit?: unknown;
  /** Seconds, 0–30, default 0 (a number or its canonical text). */
  readonly wait?: unknown;
}

/** A checked read of the feed. */
export interface FeedQuery {
  readonly after: number;
  /** Absent (or undefined): every type. Never empty, no type twice. */
  readonly types?: readonly EventType[] | undefined;
  readonly limit: number;
  /** How long to wait for a matching event when none is there yet, in ms (0: answer at once). */
  readonly waitMs: number;
}

const CANONICAL_NATURAL = /^(?:0|[1-9][0-9]*)$/;

/** A non-negative safe integer, given as a number or as canonical decimal text; `undefined` for anything else. */
const naturalOf = (value: unknown): number | undefined => {
  const number = typeof value === 'string' && CANONICAL_NATURAL.test(value) ? Number(value) : value;
  return Number.isSafeInteger(number) && (number as number) >= 0 ? (number as number) : undefined;
};

const TYPES_RULE = `types must be a comma-separated list of distinct event types, each one of ${EVENT_TYPES.join(', ')}`;

/** Comma-separated text or a list of names, by the one rule of a list of types (`readEventTypes`). */
const typesOf = (value: unknown): Result<readonly EventType[], ValidationFailed> =>
  typeof value === 'string' || Array.isArray(value)
    ? readEventTypes(typeof value === 'string' ? value.split(',') : (value as readonly unknown[]), TYPES_RULE)
    : fail(validationFailed('types', TYPES_RULE));

/** Checks a read of the feed (docs/rules.md §15): every field within its rule, else `validation_failed` naming it. */
export const readFeedQuery = (input: FeedInput): Result<FeedQuery, ValidationFailed> => {
  const after = input.after === undefined ? 0 : naturalOf(input.after);
  if (after === undefined)
    return fail(
      validationFailed(
        'after',
        'after must be a sequence: an integer from 0, written without sign, leading zeros or fraction',
      ),
    );
  let types: readonly EventType[] | undefined;
  if (input.types !== undefined) {
    const read = typesOf(input.types);
    if (!read.ok) return read;
    types = read.value;
  }
  const limit = input.limit === undefined ? LIMIT_DEFAULT : naturalOf(input.limit);
  if (limit === undefined || limit < LIMIT_MIN || limit > LIMIT_MAX)
    return fail(validationFailed('limit', `limit must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}`));
  const wait = input.wait === undefined ? 0 : naturalOf(input.wait);
  if (wait === undefined || wait > FEED_WAIT_MAX_SECONDS)
    return fail(validationFailed('wait', `wait must be a whole number of seconds from 0 to ${FEED_WAIT_MAX_SECONDS}`));
  return ok({ after, ...(types === undefined ? {} : { types }), limit, waitMs: wait * 1000 });
};

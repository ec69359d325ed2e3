import type { ParameterizedContext } from 'koa';
import type { Caller, DomainError, IdempotentCreation, Result } from '@petstore/domain';
import { ok } from '@petstore/domain';
import { HttpError } from './errors.js';
import { answerJson } from './answer.js';
import { answerReplayed } from './middleware/idempotency.js';
import type { AppState } from './state.js';

/** What every route's steps share: reading the caller, answering a refusal, answering a create. */

/** A refusal of the domain, answered with the status of its code (docs/rules.md §3). */
export const fromDomain = (error: DomainError): HttpError => new HttpError(error.code, error.message);

/** The key holder the gate authenticated (every route runs after it). */
export const callerOf = (ctx: { state: AppState }): Caller => {
  const { caller } = ctx.state;
  if (caller === undefined) throw new Error('a route ran without an authenticated caller');
  return caller;
};

/** A resource a `*CreatedUnder` found, as a result (`undefined`: none was). */
export const found = <T>(value: T | undefined): Result<T, never> | undefined =>
  value === undefined ? undefined : ok(value);

/** How a create route creates, and how it answers what it created. */
export interface CreateSteps<T> {
  /**
   * What an earlier attempt of the request created under its `Idempotency-Key` (the use case's
   * `*CreatedUnder`, which looks it up by the creation token only when the claim was taken over).
   */
  readonly earlier: (creation: IdempotentCreation) => Promise<Result<T, DomainError> | undefined>;
  /** Creates it, under the key's creation token when the request has one. */
  readonly create: (creation: IdempotentCreation | undefined) => Promise<Result<T, DomainError>>;
  /** Where it is (`Location`) and its JSON. */
  readonly answer: (created: T) => { readonly location: string; readonly body: string };
}

/**
 * The end of a create's path (docs/rules.md §10; drawn in docs/design.md): under an
 * `Idempotency-Key` (`ctx.state.creation`, set by the key's step), what an earlier attempt
 * created is answered as a replay (201, `Idempotent-Replayed: true`), nothing created; otherwise
 * the create runs and its resource is answered 201 at its `Location`. The key's step then keeps
 * the answer.
 */
export const answerCreate = async <T>(ctx: ParameterizedContext<AppState>, steps: CreateSteps<T>): Promise<void> => {
  const { creation } = ctx.state;
  const earlier = creation === undefined ? undefined : await steps.earlier(creation);
  const result = earlier ?? (await steps.create(creation));
  if (!result.ok) throw fromDomain(result.error);
  const { location, body } = steps.answer(result.value);
  if (earlier !== undefined) return answerReplayed(ctx, { status: 201, body, location });
  ctx.set('Location', location);
  answerJson(ctx, body, 201);
};

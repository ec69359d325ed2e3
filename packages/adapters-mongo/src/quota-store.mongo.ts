import type { ConsumeOutcome, ConsumeRequest, ConsumeResult, QuotaStore, SubjectState } from '@petstore/domain';
import { DAY_MS, MINUTE_MS, windowStart } from '@petstore/domain';
import type { Collection, Db, Document } from 'mongodb';
import { upsertWithRetry } from './errors.js';
import { COLLECTIONS } from './indexes.js';

/**
 * The rate-limit state of one subject: both windows and the ban in ONE document. (The issue
 * sketched a document per subject and window; one document is what makes the rule atomic across
 * both windows in a single round trip, since MongoDB updates one document atomically.)
 */
interface QuotaDocument extends SubjectState {
  readonly _id: string;
  /** What the update that wrote this version did: how `consume` learns its own result. */
  readonly outcome: ConsumeOutcome;
  /** When the TTL index may delete the document: the end of its day or of its ban, whichever is later. */
  readonly expireAt: Date;
}

/** The pipeline's internal name for "this rejection reaches the threshold and starts a ban". */
const BAN_STARTS = 'ban_starts';

/**
 * `consumeQuota` (packages/domain/src/quota/subject-state.ts) as an update pipeline, step for step.
 * Every number comes from the request (its `now` included): the server's clock decides nothing.
 * Within a `$set` stage every expression reads the document as it was before that stage.
 */
export const consumePipeline = (request: ConsumeRequest): Document[] => {
  const { now, quota, ban } = request;
  const minuteStart = windowStart(now, MINUTE_MS);
  const dayStart = windowStart(now, DAY_MS);
  const sameMinute = { $eq: ['$minuteStart', minuteStart] };
  const outcomeIs = (outcome: string) => ({ $eq: ['$outcome', outcome] });
  return [
    // 1. Windows that have ended are reset (a new document has no state: all zero).
    {
      $set: {
        minuteStart,
        minuteCount: { $cond: [sameMinute, '$minuteCount', 0] },
        minuteRejections: { $cond: [sameMinute, '$minuteRejections', 0] },
        dayStart,
        dayCount: { $cond: [{ $eq: ['$dayStart', dayStart] }, '$dayCount', 0] },
        bannedUntil: { $ifNull: ['$bannedUntil', 0] },
      },
    },
    // 2.–4. Decide: banned; admitted when both windows have room; else rejected, or the ban starts.
    {
      $set: {
        outcome: {
          $switch: {
            branches: [
              { case: { $gt: ['$bannedUntil', now] }, then: 'banned' },
              {
                case: { $and: [{ $lt: ['$minuteCount', quota.perMinute] }, { $lt: ['$dayCount', quota.perDay] }] },
                then: 'admitted',
              },
              { case: { $gte: [{ $add: ['$minuteRejections', 1] }, ban.threshold] }, then: BAN_STARTS },
            ],
            default: 'rejected',
          },
        },
      },
    },
    // Apply the decision: an admission takes one unit of each window; a rejection is counted in
    // the minute window; the rejection that reaches the threshold starts the ban and resets the count.
    {
      $set: {
        minuteCount: { $cond: [outcomeIs('admitted'), { $add: ['$minuteCount', 1] }, '$minuteCount'] },
        dayCount: { $cond: [outcomeIs('admitted'), { $add: ['$dayCount', 1] }, '$dayCount'] },
        minuteRejections: {
          $switch: {
            branches: [
              { case: outcomeIs('rejected'), then: { $add: ['$minuteRejections', 1] } },
              { case: outcomeIs(BAN_STARTS), then: 0 },
            ],
            default: '$minuteRejections',
          },
        },
        bannedUntil: { $cond: [outcomeIs(BAN_STARTS), now + ban.seconds * 1000, '$bannedUntil'] },
        outcome: { $cond: [outcomeIs(BAN_STARTS), 'banned', '$outcome'] },
      },
    },
    { $set: { expireAt: { $toDate: { $max: [dayStart + DAY_MS, '$bannedUntil'] } } } },
  ];
};

/**
 * Rate-limit state in MongoDB. `consume` is one `findOneAndUpdate` with an update pipeline on the
 * subject's document, upserted: atomic per document, so concurrent calls from any number of
 * processes serialize, and with limit L exactly min(N, L) of N simultaneous calls are admitted.
 * A TTL index on `expireAt` drops state that can no longer matter.
 */
export class QuotaStoreMongo implements QuotaStore {
  private readonly subjects: Collection<QuotaDocument>;

  constructor(db: Db) {
    this.subjects = db.collection<QuotaDocument>(COLLECTIONS.quotas);
  }

  async consume(request: ConsumeRequest): Promise<ConsumeResult> {
    const pipeline = consumePipeline(request);
    const doc = await upsertWithRetry(() =>
      this.subjects.findOneAndUpdate({ _id: request.subject }, pipeline, { upsert: true, returnDocument: 'after' }),
    );
    if (doc === null) throw new Error('the quota update returned no document');
    return { outcome: doc.outcome, minuteCount: doc.minuteCount, dayCount: doc.dayCount, bannedUntil: doc.bannedUntil };
  }
}

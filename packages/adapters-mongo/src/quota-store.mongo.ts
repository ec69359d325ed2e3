import type { ConsumeRequest, ConsumeResult, QuotaStore, SubjectState } from '@petstore/domain';
import { consumeQuota, DAY_MS, MINUTE_MS, StoreUnavailableError, windowStart } from '@petstore/domain';
import type { Collection, Db, Filter, UpdateFilter } from 'mongodb';
import { classifyMongoError, guard } from './errors.js';
import { COLLECTIONS } from './indexes.js';

/**
 * The rate-limit state of one subject: both windows and the ban in ONE document, so that one
 * conditional update decides atomically across both windows (MongoDB updates one document
 * atomically, on every version and on compatible engines).
 */
interface QuotaDocument extends SubjectState {
  readonly _id: string;
  /** When the TTL index may delete the document: the end of its day or of its ban, whichever is later. */
  readonly expireAt: Date;
}

/** A conditional update: it applies only to a document in the state the filter describes. */
interface Step {
  readonly filter: Filter<QuotaDocument>;
  readonly update: UpdateFilter<QuotaDocument>;
}

/**
 * The two common cases of `consumeQuota` as single conditional `$inc`s (classic update operators,
 * MongoDB 4.0), for a subject already in the request's windows and not banned:
 * - `admit`: both windows have room → one unit of each is taken (consumeQuota's step 3);
 * - `reject`: a window is full and this rejection does not reach the ban threshold → the rejection
 *   is counted (step 4 without the ban).
 *
 * THE ONE PLACE WHERE THE MONGO STEPS AND THE PURE RULE COULD DRIFT: these filters restate the
 * branch conditions of `consumeQuota` (same windows, `bannedUntil <= now`, `count < limit`,
 * `rejections + 1 < threshold`) and the `$inc`s restate its next state. Every other case (no
 * document, a window to roll, a ban to start or already running, a clock behind the stored
 * window) is decided by `consumeQuota` itself over the document as read. A test without a database
 * (test/quota-steps.test.ts) checks these two steps against `consumeQuota` over random states; the
 * shared contract suite and its model-based property check the whole store against it.
 */
export const quotaFastSteps = (request: ConsumeRequest): { readonly admit: Step; readonly reject: Step } => {
  const { subject, now, quota, ban } = request;
  const current = {
    _id: subject,
    minuteStart: windowStart(now, MINUTE_MS),
    dayStart: windowStart(now, DAY_MS),
    bannedUntil: { $lte: now },
  };
  return {
    admit: {
      filter: { ...current, minuteCount: { $lt: quota.perMinute }, dayCount: { $lt: quota.perDay } },
      update: { $inc: { minuteCount: 1, dayCount: 1 } },
    },
    reject: {
      filter: {
        ...current,
        $or: [{ minuteCount: { $gte: quota.perMinute } }, { dayCount: { $gte: quota.perDay } }],
        minuteRejections: { $lt: ban.threshold - 1 },
      },
      update: { $inc: { minuteRejections: 1 } },
    },
  };
};

const STATE_FIELDS = ['minuteStart', 'minuteCount', 'minuteRejections', 'dayStart', 'dayCount', 'bannedUntil'] as const;
const STATE_PROJECTION = {
  _id: 0,
  minuteStart: 1,
  minuteCount: 1,
  minuteRejections: 1,
  dayStart: 1,
  dayCount: 1,
  bannedUntil: 1,
} as const;

/** Rounds of the slow path (read, then a conditional write) lost to other writers before giving up. */
const MAX_ATTEMPTS = 16;
/** Bans remembered in this process at most; past it the oldest is forgotten (and asked for again). */
const MAX_REMEMBERED_BANS = 10_000;

const toState = (doc: Partial<Record<(typeof STATE_FIELDS)[number], unknown>>): SubjectState => {
  for (const field of STATE_FIELDS) {
    if (typeof doc[field] !== 'number' || !Number.isFinite(doc[field]))
      throw new Error(`a stored quota state is malformed (${field})`);
  }
  return doc as SubjectState;
};

const expireAt = (state: SubjectState): Date => new Date(Math.max(state.dayStart + DAY_MS, state.bannedUntil));

const resultOf = (outcome: ConsumeResult['outcome'], doc: SubjectState): ConsumeResult => ({
  outcome,
  minuteCount: doc.minuteCount,
  dayCount: doc.dayCount,
  bannedUntil: doc.bannedUntil,
});

/**
 * Rate-limit state in MongoDB with classic update operators only (no update pipeline, no
 * transaction): MongoDB 4.0+ and compatible engines. Exact across processes: every write is
 * conditional on the state it was decided from, and MongoDB applies each to one document
 * atomically, so concurrent calls serialize and with limit L exactly min(N, L) of N simultaneous
 * calls are admitted.
 *
 * Round trips per `consume`:
 * - admitted in the current windows: 1 (the `admit` step);
 * - rejected: 2 (`admit` fails, `reject` succeeds);
 * - a subject whose ban this process knows of: 0 (answered by `consumeQuota` over the state
 *   remembered with the ban, since a ban ends only by time and nothing is counted while it runs);
 *   a ban this process has not seen yet (another process started it): 3, then it is remembered;
 * - anything else (first request, a window to roll, the rejection that starts a ban, a clock
 *   behind the stored window): both steps fail, then the document is read, `consumeQuota`
 *   decides, and its next state is written only if the document is still exactly as read (or
 *   inserted if there was none): 4. A lost race goes round again.
 *
 * A TTL index on `expireAt` drops state that can no longer matter.
 */
export class QuotaStoreMongo implements QuotaStore {
  private readonly subjects: Collection<QuotaDocument>;
  /** Subject → its state when the ban was seen (the ban's end and the counts it froze). */
  private readonly bans = new Map<string, SubjectState>();

  constructor(db: Db) {
    this.subjects = db.collection<QuotaDocument>(COLLECTIONS.quotas);
  }

  async consume(request: ConsumeRequest): Promise<ConsumeResult> {
    const steps = quotaFastSteps(request);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const banned = this.rememberedBan(request);
      if (banned !== undefined) return banned;

      const admitted = await this.apply(steps.admit);
      if (admitted !== null) return resultOf('admitted', admitted);
      const rejected = await this.apply(steps.reject);
      if (rejected !== null) return resultOf('rejected', rejected);

      const decided = await this.decide(request);
      if (decided !== undefined) return decided;
    }
    throw new StoreUnavailableError(
      'the rate-limit state of one subject kept changing under every attempt; retry shortly',
    );
  }

  /**
   * The stored document's state, read only (docs/rules.md §14): one `find`, nothing written; a ban
   * this process remembers is in the document too (the write that started it put it there).
   */
  async peek(subject: string): Promise<SubjectState | undefined> {
    const doc = await guard(
      () => this.subjects.findOne({ _id: subject }, { projection: STATE_PROJECTION }),
      `find on ${COLLECTIONS.quotas}`,
    );
    return doc === null ? undefined : toState(doc);
  }

  private apply(step: Step): Promise<SubjectState | null> {
    return guard(
      () =>
        this.subjects.findOneAndUpdate(step.filter, step.update, {
          returnDocument: 'after',
          projection: STATE_PROJECTION,
        }),
      `findAndModify on ${COLLECTIONS.quotas}`,
    );
  }

  /**
   * The slow path: reads the document, lets `consumeQuota` decide, and writes its next state on
   * condition that the document is still exactly as read. Undefined when another writer got there
   * first (the caller starts over).
   */
  private async decide(request: ConsumeRequest): Promise<ConsumeResult | undefined> {
    const doc = await guard(
      () => this.subjects.findOne({ _id: request.subject }, { projection: STATE_PROJECTION }),
      `find on ${COLLECTIONS.quotas}`,
    );
    const current = doc === null ? undefined : toState(doc);
    const { state, result } = consumeQuota(current, request);
    const banRunning =
      result.outcome === 'banned' && current !== undefined && current.bannedUntil === state.bannedUntil;
    // A ban already running counts nothing, so there is nothing to write.
    const written =
      banRunning ||
      (current === undefined
        ? await this.insert(request.subject, state)
        : await this.replaceIfUnchanged(request.subject, current, state));
    if (!written) return undefined;
    if (result.outcome === 'banned') this.rememberBan(request.subject, state);
    return result;
  }

  private insert(subject: string, state: SubjectState): Promise<boolean> {
    return guard(async () => {
      try {
        await this.subjects.insertOne({ _id: subject, ...state, expireAt: expireAt(state) });
        return true;
      } catch (error) {
        if (classifyMongoError(error) === 'duplicate_key') return false; // another first request won
        throw error;
      }
    }, `insert on ${COLLECTIONS.quotas}`);
  }

  private async replaceIfUnchanged(subject: string, current: SubjectState, next: SubjectState): Promise<boolean> {
    const { minuteStart, minuteCount, minuteRejections, dayStart, dayCount, bannedUntil } = current;
    const unchanged = { _id: subject, minuteStart, minuteCount, minuteRejections, dayStart, dayCount, bannedUntil };
    const { matchedCount } = await guard(
      () => this.subjects.updateOne(unchanged, { $set: { ...next, expireAt: expireAt(next) } }),
      `update on ${COLLECTIONS.quotas}`,
    );
    return matchedCount === 1;
  }

  /** `consumeQuota` over the state remembered with a ban that still runs at `request.now`. */
  private rememberedBan(request: ConsumeRequest): ConsumeResult | undefined {
    const state = this.bans.get(request.subject);
    if (state === undefined) return undefined;
    if (state.bannedUntil <= request.now) {
      this.bans.delete(request.subject);
      return undefined;
    }
    return consumeQuota(state, request).result;
  }

  private rememberBan(subject: string, state: SubjectState): void {
    this.bans.delete(subject);
    if (this.bans.size >= MAX_REMEMBERED_BANS) {
      const oldest = this.bans.keys().next();
      if (oldest.done !== true) this.bans.delete(oldest.value);
    }
    this.bans.set(subject, state);
  }
}

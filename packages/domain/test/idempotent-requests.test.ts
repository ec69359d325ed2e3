import { expect } from 'chai';
import {
  IdempotentRequests,
  type ClaimOutcome,
  type CompletedRecord,
  type IdempotencyStore,
  type InProgressRecord,
  type KeptAnswer,
} from '../src/index.js';
import { ManualClock, nodeDigests } from '../test-support/index.js';

/** Records what IdempotentRequests hands a store to keep; every claim is granted. */
class KeptAnswers implements IdempotencyStore {
  readonly completed: CompletedRecord[] = [];
  async claim(_id: string, claim: InProgressRecord): Promise<ClaimOutcome> {
    return { claimed: true, record: claim, resumed: false };
  }
  async complete(_id: string, _claim: InProgressRecord, record: CompletedRecord): Promise<void> {
    this.completed.push(record);
  }
  async release(): Promise<void> {}
  async discard(): Promise<void> {}
}

describe('IdempotentRequests: what a kept answer holds (docs/rules.md §10)', () => {
  it('an answer without a Location is kept without one (no location field a store could write as null and replay); one with it keeps it', async () => {
    const store = new KeptAnswers();
    const requests = new IdempotentRequests(store, new ManualClock(), nodeDigests);
    // A Location read off a response that has none is `undefined` (a caller in plain JavaScript, or past exact optional types).
    const noLocation = {
      status: 400,
      body: '{"code":"validation_failed"}',
      location: undefined,
    } as unknown as KeptAnswer;
    for (const answer of [noLocation, { status: 201, body: '{"id":1}', location: '/v1/pets/1' }]) {
      const started = await requests.start('key_a', `k${answer.status}`, 'fp');
      if (started.kind !== 'process') throw new Error('expected a claim');
      await requests.finish(started.ticket, answer);
    }
    const [refused, created] = store.completed.map((record) => record.answer);
    expect(refused).to.deep.equal({ status: 400, body: '{"code":"validation_failed"}' });
    expect(Object.keys(refused!)).to.deep.equal(['status', 'body']);
    expect(created).to.deep.equal({ status: 201, body: '{"id":1}', location: '/v1/pets/1' });
  });
});

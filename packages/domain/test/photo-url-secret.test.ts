// The signing secret of `PhotoUrls` kept in the store (docs/rules.md §16): read at most once a
// second, a rotation here in force at once (even against a read begun before it), and the refusal
// of a rotation to anyone but an admin key.
import { expect } from 'chai';
import { PhotoUrls, signPhoto, type Caller, type PhotoUrlSecretStore } from '../src/index.js';
import { ManualClock, SeededRandom, nodeDigests } from '../test-support/index.js';
import { expectRefusal } from './support/refusals.js';
import { photoOf, signatureOf } from './support/photo-urls.js';

const ADMIN: Caller = { keyId: 'key_00000000000a', role: 'admin' };
const CLIENT: Caller = { keyId: 'key_00000000000c', role: 'client' };
const OLD = 'o'.repeat(43);
/** docs/rules.md §16: a rotation is in force in every process within 1 second. */
const ROTATION_BOUND_MS = 1_000;

/** A store in memory that counts its reads, and whose reads can be held after they looked. */
class HeldStore implements PhotoUrlSecretStore {
  reads = 0;
  private held: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;
  constructor(public secret: string | undefined) {}
  /** Until `letGo`, a read takes the secret the store holds then, and answers it later. */
  hold(): void {
    this.held = new Promise((resolve) => (this.release = resolve));
  }
  letGo(): void {
    this.release();
  }
  async read(): Promise<string | undefined> {
    this.reads++;
    const secret = this.secret;
    await this.held;
    return secret;
  }
  async create(secret: string): Promise<string> {
    this.secret ??= secret;
    return this.secret;
  }
  async rotate(secret: string): Promise<void> {
    this.secret = secret;
  }
}

const make = (store: PhotoUrlSecretStore, clock = new ManualClock()) =>
  new PhotoUrls({ store }, { digests: nodeDigests, random: new SeededRandom(), clock });

describe('PhotoUrls: the kept secret (docs/rules.md §16)', () => {
  it('a rotation here is in force at once and costs no read: the store is still read at most once a second', async () => {
    const store = new HeldStore(OLD);
    const clock = new ManualClock();
    const urls = make(store, clock);
    await urls.links([photoOf(1, 1)]);
    expect(store.reads).to.equal(1);
    clock.advance(400);
    expect((await urls.rotate(ADMIN)).ok).to.equal(true);
    const [view] = await urls.links([photoOf(1, 1)]);
    expect(signatureOf(view!.url)).to.equal(signPhoto(nodeDigests, store.secret!, '1', '1'));
    expect(await urls.verify('1', '1', signPhoto(nodeDigests, OLD, '1', '1'))).to.equal(false);
    clock.advance(ROTATION_BOUND_MS - 401);
    expect(await urls.verify('1', '1', signatureOf(view!.url))).to.equal(true);
    expect(store.reads, 'within a second of the first read').to.equal(1);
  });

  it('a rotation voids the old URLs at once even while a read begun before it is in flight', async () => {
    const store = new HeldStore(OLD);
    const urls = make(store);
    store.hold();
    const page = urls.links([photoOf(1, 1)]);
    expect(store.reads, 'the read has looked').to.equal(1);
    expect((await urls.rotate(ADMIN)).ok).to.equal(true);
    const rotated = store.secret!;
    store.letGo();
    const [view] = await page;
    expect(signatureOf(view!.url), 'the page answered after the rotation').to.equal(
      signPhoto(nodeDigests, rotated, '1', '1'),
    );
    expect(await urls.verify('1', '1', signPhoto(nodeDigests, OLD, '1', '1')), 'the old secret is not kept').to.equal(
      false,
    );
    expect(await urls.verify('1', '1', signatureOf(view!.url))).to.equal(true);
  });

  it('a client key or no key is told that rotating needs an admin key (§3, §4)', async () => {
    const urls = make(new HeldStore(OLD));
    for (const caller of [CLIENT, undefined])
      expect(expectRefusal(await urls.rotate(caller), 'forbidden')).to.include('admin key');
  });
});

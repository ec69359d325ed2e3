import { expect } from 'chai';
import { SystemRandom } from '../src/system-random.js';

describe('SystemRandom: the CSPRNG, small requests cut from a pool', () => {
  it('answers exactly as many bytes as asked, small or large, each answer a copy of its own', () => {
    const random = new SystemRandom();
    for (const length of [0, 1, 4, 32, 63, 64, 65, 100, 1000]) expect(random.bytes(length)).to.have.length(length);
    const [a, b] = [random.bytes(4), random.bytes(4)];
    expect(a.buffer, 'two answers share no memory with each other or the pool').to.not.equal(b.buffer);
    expect(a.buffer.byteLength).to.equal(4);
  });

  it('hands out no byte twice: 20,000 shuffle keys of 4 bytes, across hundreds of refills of the pool, are distinct but for chance', () => {
    // 20,000 keys of 32 random bits share a value about 0.05 times (n² / 2^33); more than 3 times
    // has a chance under 1 in a million. A byte handed out twice, or a wiped pool, gives thousands.
    const random = new SystemRandom();
    const keys = new Set<number>();
    for (let i = 0; i < 20_000; i++) keys.add(Buffer.from(random.bytes(4)).readUInt32BE());
    expect(20_000 - keys.size).to.be.at.most(3);
  });

  it('refuses a negative, NaN or infinite length, as randomBytes does, and draws on unharmed', () => {
    const random = new SystemRandom();
    for (const length of [-1, Number.NaN, Infinity])
      expect(() => random.bytes(length), String(length)).to.throw(RangeError);
    const keys = new Set(Array.from({ length: 100 }, () => Buffer.from(random.bytes(8)).toString('hex')));
    expect(keys.size).to.equal(100);
  });

  it('mixes sizes without repeating bytes: draws of 8 to 64 bytes in turn never begin with the same 8 bytes', () => {
    const random = new SystemRandom();
    const starts = new Set<string>();
    for (let i = 0; i < 5_000; i++) starts.add(Buffer.from(random.bytes(8 + (i % 57)).subarray(0, 8)).toString('hex'));
    expect(starts.size).to.equal(5_000);
  });
});

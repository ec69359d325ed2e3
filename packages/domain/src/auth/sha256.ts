/**
 * SHA-256 (FIPS 180-4) of a string's UTF-8 bytes, as lowercase hex. Pure code so that the domain
 * needs no platform module; tests hold it to `node:crypto` over random inputs.
 */
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const utf8 = (text: string): number[] => {
  const bytes: number[] = [];
  for (const ch of text) {
    let cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // a lone surrogate encodes as U+FFFD, as TextEncoder does
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return bytes;
};

const W = new Uint32Array(64);

export const sha256Hex = (text: string): string => sha256HexOfBytes(utf8(text));

/** SHA-256 of bytes, as lowercase hex (the same digest as `sha256Hex` of the text they encode). */
export const sha256HexOfBytes = (message: ArrayLike<number>): string => {
  const length = message.length;
  // The message, 0x80, zeros, and its length in bits (64-bit big-endian): a whole number of 64-byte blocks.
  const bytes = new Uint8Array(Math.ceil((length + 9) / 64) * 64);
  bytes.set(message);
  bytes[length] = 0x80;
  const bitLength = length * 8;
  const high = Math.floor(bitLength / 0x100000000);
  const end = bytes.length;
  bytes[end - 8] = (high >>> 24) & 255;
  bytes[end - 7] = (high >>> 16) & 255;
  bytes[end - 6] = (high >>> 8) & 255;
  bytes[end - 5] = high & 255;
  bytes[end - 4] = (bitLength >>> 24) & 255;
  bytes[end - 3] = (bitLength >>> 16) & 255;
  bytes[end - 2] = (bitLength >>> 8) & 255;
  bytes[end - 1] = bitLength & 255;

  let h0 = 0x6a09e667,
    h1 = 0xbb67ae85,
    h2 = 0x3c6ef372,
    h3 = 0xa54ff53a;
  let h4 = 0x510e527f,
    h5 = 0x9b05688c,
    h6 = 0x1f83d9ab,
    h7 = 0x5be0cd19;
  for (let offset = 0; offset < bytes.length; offset += 64) {
    let a = h0,
      b = h1,
      c = h2,
      d = h3,
      e = h4,
      f = h5,
      g = h6,
      h = h7;
    for (let i = 0; i < 64; i++) {
      // The message schedule, word by word: the block's 16 words, then each from four before it.
      if (i < 16) {
        const j = offset + i * 4;
        W[i] = (bytes[j]! << 24) | (bytes[j + 1]! << 16) | (bytes[j + 2]! << 8) | bytes[j + 3]!;
      } else {
        const w15 = W[i - 15]!,
          w2 = W[i - 2]!;
        const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
        const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
        W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
      }
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + K[i]! + W[i]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  return [h0, h1, h2, h3, h4, h5, h6, h7].map((x) => (x >>> 0).toString(16).padStart(8, '0')).join('');
};

/** Compares two strings in time that depends only on the first one's length, never on where they differ. */
export const constantTimeEqual = (a: string, b: string): boolean => {
  let diff = a.length ^ b.length;
  // Stryker disable next-line EqualityOperator: i <= a.length adds charCodeAt(a.length) (NaN, read as 0) ^ b's code there: 0 when the lengths are equal, and when they differ diff is already non-zero
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ (b.charCodeAt(i) | 0);
  return diff === 0;
};

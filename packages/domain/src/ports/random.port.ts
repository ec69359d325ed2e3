/** Randomness, as a port: key material comes from a CSPRNG in production and from a seeded source in tests. */
export interface Random {
  /** `length` bytes from a cryptographically secure generator. */
  bytes(length: number): Uint8Array;
}

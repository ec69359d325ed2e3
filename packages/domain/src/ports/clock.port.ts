/** Time, as a port, so that every rule about windows, bans and sunsets stays deterministic. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** How a contract suite gets a fresh, empty instance of the adapter under test, and lets it go. */
export interface Fixture<T> {
  readonly subject: T;
  dispose?(): Promise<void>;
}
export type MakeFixture<T> = () => Promise<Fixture<T>>;

export interface ContractOptions {
  /** Runs of each property; stores behind a network want fewer than the in-process ones. */
  readonly numRuns?: number;
}

/** Runs `body` with a fresh fixture and always disposes of it. */
export const withFixture = async <T, R>(make: MakeFixture<T>, body: (subject: T) => Promise<R>): Promise<R> => {
  const fixture = await make();
  try {
    return await body(fixture.subject);
  } finally {
    await fixture.dispose?.();
  }
};

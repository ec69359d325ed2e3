/**
 * Where the service keeps the signing secret of its photo URLs (docs/rules.md §16) when no setting
 * gives it: one secret per database, shared by every process on it. The store caches nothing: a
 * read after a rotation elsewhere sees the new secret (the service's own cache bounds how often it reads).
 */
export interface PhotoUrlSecretStore {
  /** The secret in force, or `undefined` when none was made yet. */
  read(): Promise<string | undefined>;
  /**
   * Keeps `secret` as the one in force unless a secret exists already, and answers the one in
   * force: of two processes creating at once, both get the winner's (a unique insert).
   */
  create(secret: string): Promise<string>;
  /** Replaces the secret in force by `secret` (every URL signed with the old one stops working). */
  rotate(secret: string): Promise<void>;
}

/** The ban rule: `threshold` rejections (429) within one UTC minute window ban the subject for `seconds`. */
export interface BanRule {
  readonly threshold: number;
  readonly seconds: number;
}

export const DEFAULT_BAN_RULE: BanRule = { threshold: 10, seconds: 900 };

/** A rule that never bans: no number of rejections reaches an infinite threshold (the allowance of `GET /v1/me`, docs/rules.md §14). */
export const NO_BAN: BanRule = { threshold: Number.POSITIVE_INFINITY, seconds: 0 };

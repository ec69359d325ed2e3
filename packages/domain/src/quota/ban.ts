/** The ban rule: `threshold` rejections (429) within one UTC minute window ban the subject for `seconds`. */
export interface BanRule {
  readonly threshold: number;
  readonly seconds: number;
}

export const DEFAULT_BAN_RULE: BanRule = { threshold: 10, seconds: 900 };

/** A deprecated operation: when it was deprecated, when it goes away, and what replaces it. */
export interface DeprecationPolicy {
  /** Epoch ms at which the operation was marked deprecated (earlier than the sunset). */
  readonly deprecatedAt: number;
  /** Epoch ms from which the operation answers 410 `gone`. */
  readonly sunsetAt: number;
  /** Path of the replacement. */
  readonly successor: string;
}

/** `GET /pets/{petId}`: deprecated, sunsets on 5 December 2030 (docs/rules.md §2), replaced by `GET /pets`. */
export const GET_PET_DEPRECATION: DeprecationPolicy = {
  deprecatedAt: Date.UTC(2026, 0, 1),
  sunsetAt: Date.UTC(2030, 11, 5),
  successor: '/v1/pets',
};

export const isSunset = (policy: DeprecationPolicy, now: number): boolean => now >= policy.sunsetAt;

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number): string => String(n).padStart(2, '0');

/** An HTTP-date (RFC 9110 IMF-fixdate), computed without locale or host time zone. */
export const httpDate = (epochMs: number): string => {
  const d = new Date(epochMs);
  return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} GMT`;
};

/**
 * The headers every response of a deprecated operation carries: `Deprecation` (RFC 9745),
 * `Sunset` (RFC 8594) and the successor `Link`.
 */
export const deprecationHeaders = (
  policy: DeprecationPolicy,
): Readonly<Record<'Deprecation' | 'Sunset' | 'Link', string>> => ({
  Deprecation: `@${Math.floor(policy.deprecatedAt / 1000)}`,
  Sunset: httpDate(policy.sunsetAt),
  Link: `<${policy.successor}>; rel="successor-version"`,
});

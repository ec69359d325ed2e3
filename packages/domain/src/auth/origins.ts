/**
 * Publishable keys (docs/rules.md §16): keys meant to sit in a web page, told apart by their
 * prefix, each usable only from the origins listed when it was made. Origins are parsed by hand:
 * the domain's library (ES2023) has no `URL`, and only a small, strict grammar is taken anyway.
 */
import { quoteInput, validationFailed, type ValidationFailed } from '../errors.js';
import type { Random } from '../ports/random.port.js';
import { fail, ok, type Result } from '../result.js';
import { base64UrlOfBytes } from '../text/base64url.js';

/** A publishable key starts with this (a secret key with `pet_`), so that a secret scanner tells them apart. */
const PUBLISHABLE_KEY_PREFIX = 'pk_';
/** Bytes of key material: 256 bits, as every key. */
const KEY_BYTES = 32;
/** The shape of a publishable key: `pk_` and 43 base64url characters (32 bytes). */
export const PUBLISHABLE_KEY_PATTERN = /^pk_[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** A new publishable key: `pk_` + base64url of 32 bytes from `random`. */
export const generatePublishableKey = (random: Random): string => {
  const bytes = random.bytes(KEY_BYTES);
  if (bytes.length !== KEY_BYTES)
    throw new Error(`the random source gave ${bytes.length} bytes instead of ${KEY_BYTES}`);
  return `${PUBLISHABLE_KEY_PREFIX}${base64UrlOfBytes(bytes)}`;
};

/** Bounds of a key's list of origins. */
const ORIGINS_MIN = 1;
export const ORIGINS_MAX = 20;

/** The hosts `http` is taken for: this machine, in development. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1']);
const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443' };
/** scheme `://` authority, then the rest (path, query, fragment) from the first `/`, `?` or `#`. */
const URL_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)/s;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4_PART = /^(?:0|[1-9][0-9]{0,2})$/;
/** A label a URL parser reads as a number (decimal, octal or hex), which makes the host an IPv4 address. */
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/;

/** Why `host` (lower-cased) is not a domain name or a dotted IPv4 address; `undefined` when it is one. */
const hostProblem = (host: string): string | undefined => {
  if (host.startsWith('[')) return 'an IPv6 address is not taken as a host';
  if (/[^\x00-\x7f]/.test(host)) return 'write an international domain name in its ASCII (xn--) form';
  const labels = host.split('.');
  if (NUMERIC_LABEL.test(labels[labels.length - 1]!)) {
    const ipv4 = labels.length === 4 && labels.every((part) => IPV4_PART.test(part) && Number(part) <= 255);
    return ipv4 ? undefined : 'a numeric host must be an IPv4 address such as 127.0.0.1';
  }
  if (host.length > 253 || !labels.every((label) => LABEL.test(label)))
    return 'the host must be a domain name: labels of letters, digits and inner hyphens, separated by dots';
  return undefined;
};

/**
 * The origin `scheme://host[:port]` that `text` starts with, normalised (scheme and host lower-case,
 * no default port, no leading zeros): `https` with a domain name or IPv4 address, or `http` with
 * `localhost` or `127.0.0.1`. After the authority comes nothing or `/`, or, with `inUrl` (a
 * `Referer`), anything. A string saying why it is not one otherwise.
 */
const parseOrigin = (text: string, inUrl: boolean): Result<string, string> => {
  const match = URL_SHAPE.exec(text);
  if (match === null) return fail('it must be scheme://host[:port], such as https://shelter.example');
  const scheme = match[1]!.toLowerCase();
  const authority = match[2]!;
  if (scheme !== 'https' && scheme !== 'http')
    return fail('it must start with https:// (or http:// for localhost and 127.0.0.1)');
  if (authority.includes('@')) return fail('it must not carry a user name or password');
  if (!inUrl && match[3] !== '' && match[3] !== '/')
    return fail('it must be an origin alone: no path, query or fragment');
  const colon = authority.lastIndexOf(':');
  const bracket = authority.lastIndexOf(']');
  const hasPort = colon > bracket;
  const host = (hasPort ? authority.slice(0, colon) : authority).toLowerCase();
  const problem = hostProblem(host);
  if (problem !== undefined) return fail(problem);
  if (scheme === 'http' && !LOOPBACK_HOSTS.has(host))
    return fail('http:// is taken only for localhost and 127.0.0.1; use https://');
  let port = '';
  if (hasPort) {
    const digits = authority.slice(colon + 1);
    const number = /^[0-9]{1,5}$/.test(digits) ? Number(digits) : 0;
    if (number < 1 || number > 65535) return fail('the port must be a number from 1 to 65535');
    if (String(number) !== DEFAULT_PORTS[scheme]) port = `:${number}`;
  }
  return ok(`${scheme}://${host}${port}`);
};

/**
 * Checks the `origins` of a publishable key (docs/rules.md §16): a list of 1 to 20 distinct origins,
 * each `https://host[:port]`, or `http://localhost[:port]` or `http://127.0.0.1[:port]`, without user
 * name, path, query or fragment. A trailing `/` (as an address bar shows one) is dropped, and each
 * origin normalised as a browser's `Origin` header spells it: scheme and host lower-case, no default
 * port. Two entries that normalise alike are a duplicate. A refusal says why, naming the entry.
 */
export const readKeyOrigins = (value: unknown): Result<readonly string[], ValidationFailed> => {
  if (!Array.isArray(value) || value.length < ORIGINS_MIN || value.length > ORIGINS_MAX) {
    return fail(validationFailed('origins', `origins must be a list of ${ORIGINS_MIN} to ${ORIGINS_MAX} origins`));
  }
  const origins: string[] = [];
  for (const [index, entry] of (value as readonly unknown[]).entries()) {
    if (typeof entry !== 'string') return fail(validationFailed('origins', `origins[${index}] must be a string`));
    const origin = parseOrigin(entry, false);
    if (!origin.ok)
      return fail(
        validationFailed('origins', `origins[${index}] is not taken: ${origin.error} (got '${quoteInput(entry)}')`),
      );
    const before = origins.indexOf(origin.value);
    if (before >= 0)
      return fail(
        validationFailed('origins', `origins[${index}] repeats origins[${before}] (${quoteInput(origin.value)})`),
      );
    origins.push(origin.value);
  }
  return ok(origins);
};

/**
 * Whether a request may use a publishable key with these (normalised) origins: its `Origin` header,
 * or, when it has none, the origin of its `Referer`, must be one of them. An `Origin` of `null` (a
 * sandboxed or local page) or anything else that is no origin of the listed kind is never allowed.
 */
export const originAllowed = (
  origins: readonly string[],
  request: { readonly origin?: string | undefined; readonly referer?: string | undefined },
): boolean => {
  const sent =
    request.origin === undefined ? parseOrigin(request.referer ?? '', true) : parseOrigin(request.origin, false);
  return sent.ok && origins.includes(sent.value);
};

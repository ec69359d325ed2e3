import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { WebhookTargets } from '@petstore/domain';
import { WEBHOOK_URL_MAX_LENGTH } from '@petstore/domain';

export interface WebhookUrlPolicyOptions {
  /**
   * `host[:port]` entries (`PETSTORE_WEBHOOK_ALLOW_HOSTS`, read with `parseAllowHosts`) whose
   * addresses are not checked, and which may be reached over `http`: for local development and
   * tests. An entry without a port allows every port of its host. Hosts compare case-insensitively;
   * an IPv6 address is written in brackets (`[::1]:8080`).
   */
  readonly allowHosts: readonly string[];
  /**
   * The addresses a host name resolves to, every one of them. Default: the system's resolver
   * (`dns.lookup`, all addresses, in the resolver's order), as a connection would ask it.
   */
  readonly resolve?: (hostname: string) => Promise<readonly string[]>;
}

/** Where a delivery may go: the URL, parsed, and the address that was checked, to connect to and nowhere else. */
export interface CheckedTarget {
  readonly kind: 'allowed';
  readonly url: URL;
  /** The URL's host as a connection names it (an IPv6 address without its brackets). */
  readonly hostname: string;
  /** An IP address in its canonical form. */
  readonly address: string;
  readonly family: 4 | 6;
}

/** Why a URL may not be delivered to: `refused` by the rules, or `unresolved` (its host name has no address now). */
export interface RefusedTarget {
  readonly kind: 'refused' | 'unresolved';
  /** A sentence for a 400's message: never the URL whole, never its user info. */
  readonly reason: string;
}

const systemResolve = async (hostname: string): Promise<readonly string[]> =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((found) => found.address);

/**
 * The words for each range `ipaddr.js` names (its `range()`): any range but `unicast` is refused,
 * a range missing here with the generic words.
 */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  reserved: 'a reserved or documentation address',
  as112: 'an AS112 (reserved) address',
  as112v6: 'an AS112 (reserved) address',
  amt: 'an AMT (reserved) address',
  benchmarking: 'a benchmarking address',
  uniqueLocal: 'a unique local address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  rfc6145: 'an IPv4-translated address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  deprecatedOrchid: 'an ORCHID (reserved) address',
  orchid2: 'an ORCHID (reserved) address',
  droneRemoteIdProtocolEntityTags: 'a reserved address',
  segmentRouting: 'a segment-routing address',
};
const words = (range: string): string => RANGE_WORDS[range] ?? 'a special-purpose address';

/** The well-known NAT64 prefix of RFC 6052 (`64:ff9b::/96`): the IPv4 address is the last 32 bits. */
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
/** IPv6's global unicast space (RFC 4291): nothing outside it is a public address (`::/96`, IPv4-compatible, among them). */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** The deprecated IPv4-compatible addresses (`::a.b.c.d`, RFC 4291 §2.5.5.1). */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

const lastFour = (v6: ipaddr.IPv6): ipaddr.IPv4 => {
  const bytes = v6.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12));
};

/**
 * Why an address may not be delivered to (a phrase: "a private address"), or `undefined` for a
 * public unicast address. An IPv4-mapped address (`::ffff:a.b.c.d`), and one of the well-known
 * NAT64 prefix (`64:ff9b::a.b.c.d`), are judged by the IPv4 address they carry; every other range
 * that embeds an IPv4 address (6to4, Teredo, IPv4-translated, IPv4-compatible) is refused whole.
 */
const refusal = (address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined => {
  if (address.kind() === 'ipv4') {
    const range = address.range();
    return range === 'unicast' ? undefined : words(range);
  }
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) {
    const inner = v6.toIPv4Address();
    const why = refusal(inner);
    return why === undefined ? undefined : `an IPv4-mapped form of ${inner.toString()}, ${why}`;
  }
  if (v6.match(NAT64)) {
    const inner = lastFour(v6);
    const why = refusal(inner);
    return why === undefined ? undefined : `a NAT64 form of ${inner.toString()}, ${why}`;
  }
  const range: string = v6.range();
  if (range !== 'unicast') return words(range);
  if (v6.match(IPV4_COMPATIBLE)) return 'an IPv4-compatible address';
  if (!v6.match(GLOBAL_UNICAST)) return 'an address outside the global unicast range';
  return undefined;
};

/** The address a connection goes to: an IPv4-mapped address as its IPv4 address. */
const connectable = (address: ipaddr.IPv4 | ipaddr.IPv6): { address: string; family: 4 | 6 } => {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return { address: (address as ipaddr.IPv6).toIPv4Address().toString(), family: 4 };
  }
  return address.kind() === 'ipv4'
    ? { address: address.toString(), family: 4 }
    : { address: address.toString(), family: 6 };
};

/**
 * An IP address as a resolver writes it (`net.isIP`: no shorthand IPv4 forms, no zone index), parsed;
 * else undefined. An IPv6 address is first written as URLs write it (hexadecimal groups only):
 * ipaddr.js reads an IPv4-compatible `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`, which it is not.
 */
const parseAddress = (text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined => {
  try {
    switch (isIP(text)) {
      case 4:
        return ipaddr.IPv4.parse(text);
      case 6:
        return ipaddr.IPv6.parse(new URL(`http://[${text}]/`).hostname.slice(1, -1));
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
};

interface AllowEntry {
  /** As `URL.hostname` writes it: lowercase, punycode, an IPv6 address compressed in brackets. */
  readonly host: string;
  /** Absent: every port. */
  readonly port?: number;
}

const ENTRY = /^(\[[^\]]*\]|[^\s:[\]@/?#\\%]+)(?::(\d{1,5}))?$/;
const DOMAIN = /^(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.?$/;

const parseEntry = (entry: string, where: string): AllowEntry => {
  const match = ENTRY.exec(entry);
  if (match === null) throw new Error(`${where} must be host or host:port (an IPv6 address in brackets)`);
  const [, rawHost = '', rawPort] = match;
  let host: string;
  try {
    host = new URL(`http://${rawHost}/`).hostname;
  } catch {
    throw new Error(`${where}: "${rawHost.slice(0, 60)}" is not a host name or IP address`);
  }
  const bracketed = host.startsWith('[');
  if (bracketed ? !ipaddr.IPv6.isValid(host.slice(1, -1)) : !DOMAIN.test(host))
    throw new Error(`${where}: "${rawHost.slice(0, 60)}" is not a host name or IP address`);
  if (rawPort === undefined) return { host };
  const port = Number(rawPort);
  if (port < 1 || port > 65_535) throw new Error(`${where}: the port must be from 1 to 65535`);
  return { host, port };
};

/**
 * The hosts of `PETSTORE_WEBHOOK_ALLOW_HOSTS`: comma-separated `host[:port]` entries (spaces around
 * them ignored; empty text, none), each written as URLs write it (lowercase, an IPv6 address
 * compressed in brackets). Throws an Error naming the entry that is not one.
 */
export const parseAllowHosts = (text: string): readonly string[] => {
  if (text.trim() === '') return [];
  return text.split(',').map((raw, i) => {
    const entry = raw.trim();
    const where = `entry ${i + 1} ("${entry.slice(0, 60)}")`;
    if (entry === '') throw new Error(`entry ${i + 1} is empty: write host or host:port between the commas`);
    const { host, port } = parseEntry(entry, where);
    return port === undefined ? host : `${host}:${port}`;
  });
};

/**
 * The URL rules of docs/rules.md §15, after OWASP's SSRF prevention rules: an absolute `https` URL
 * (`http` for an allowed host only) without user info, at most `WEBHOOK_URL_MAX_LENGTH` characters,
 * whose host — the IP address written, or every address its name resolves to — is a public unicast
 * address (`ipaddr.js`'s ranges, any but `unicast` refused), unless its `host[:port]` is allowed.
 * `target` answers the address that was checked, so that a delivery connects to it and to nothing
 * a later answer of the resolver could name.
 */
export class WebhookUrlPolicy implements WebhookTargets {
  private readonly allowed: readonly AllowEntry[];
  private readonly resolve: (hostname: string) => Promise<readonly string[]>;

  constructor(options: WebhookUrlPolicyOptions) {
    this.allowed = options.allowHosts.map((entry, i) => parseEntry(entry.trim(), `allowHosts entry ${i + 1}`));
    this.resolve = options.resolve ?? systemResolve;
  }

  async check(url: string): Promise<string | undefined> {
    const target = await this.target(url);
    return target.kind === 'allowed' ? undefined : target.reason;
  }

  /** The rules applied now (the host name resolved now): the address to connect to, or why not. */
  async target(text: string): Promise<CheckedTarget | RefusedTarget> {
    if (text.length > WEBHOOK_URL_MAX_LENGTH)
      return refused(`the URL is longer than ${WEBHOOK_URL_MAX_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return refused('the URL is not an absolute URL');
    }
    if (url.username !== '' || url.password !== '') return refused('the URL may not hold a user name or password');
    const isHttps = url.protocol === 'https:';
    if (!isHttps && url.protocol !== 'http:') return refused(`the URL's scheme must be https, not ${url.protocol}`);
    const port = url.port === '' ? (isHttps ? 443 : 80) : Number(url.port);
    const allowed = this.allowed.some((entry) => entry.host === url.hostname && (entry.port ?? port) === port);
    if (!isHttps && !allowed) return refused(`the URL's scheme must be https (http only for an allowed host)`);

    const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (isIP(literal) !== 0) {
      const address = parseAddress(literal);
      if (address === undefined) return refused('the host is not a valid IP address');
      const why = allowed ? undefined : refusal(address);
      if (why !== undefined) return refused(`the host ${address.toString()} is ${why}`);
      return { kind: 'allowed', url, hostname: literal, ...connectable(address) };
    }

    let found: readonly string[];
    try {
      found = await this.resolve(url.hostname);
    } catch {
      found = [];
    }
    const addresses: (ipaddr.IPv4 | ipaddr.IPv6)[] = [];
    for (const text of found) {
      const address = parseAddress(text);
      if (address === undefined) return refused('the host name resolves to something that is not a plain IP address');
      const why = allowed ? undefined : refusal(address);
      if (why !== undefined) return refused(`the host resolves to ${address.toString()}, ${why}`);
      addresses.push(address);
    }
    // Every address passed: the first, in the resolver's order, is the one connected to.
    const [first] = addresses;
    if (first === undefined) return { kind: 'unresolved', reason: 'the host name does not resolve to any address' };
    return { kind: 'allowed', url, hostname: url.hostname, ...connectable(first) };
  }
}

const refused = (reason: string): RefusedTarget => ({ kind: 'refused', reason });

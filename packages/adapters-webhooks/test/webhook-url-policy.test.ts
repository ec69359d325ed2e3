// The URL rules of docs/rules.md §15 (after OWASP's SSRF prevention rules): the scheme, user info,
// length, the allow list, and the address check of an IP literal and of every address a name
// resolves to. Nothing here connects anywhere: names resolve through an injected resolver (only the
// default resolver's test asks the system, for `localhost`).
import { expect } from 'chai';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { WEBHOOK_URL_MAX_LENGTH } from '@petstore/domain';
import { parseAllowHosts, WebhookUrlPolicy } from '../src/index.js';

/** A policy whose names resolve as the table says (a name missing from it does not resolve). */
const policyWith = (names: Readonly<Record<string, readonly string[]>>, allowHosts: readonly string[] = []) =>
  new WebhookUrlPolicy({
    allowHosts,
    resolve: async (hostname) => {
      const found = names[hostname];
      if (found === undefined)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return found;
    },
  });

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:4700:4700::1111';
const policy = policyWith({ 'hooks.example.com': [PUBLIC_V4, PUBLIC_V6] });

/** An address as a URL's host. */
const host = (address: string): string => (address.includes(':') ? `[${address}]` : address);

/** Every class of address refused, with literals of it: IPv4, IPv6, and IPv4-mapped where the class is IPv4's. */
const REFUSED: readonly { readonly words: string; readonly addresses: readonly string[] }[] = [
  { words: 'a loopback address', addresses: ['127.0.0.1', '127.255.255.254', '::1', '::ffff:127.0.0.1'] },
  {
    words: 'a private address',
    addresses: ['10.0.0.5', '172.16.0.1', '172.31.255.255', '192.168.1.1', '::ffff:10.0.0.5', '::ffff:192.168.0.1'],
  },
  { words: 'a link-local address', addresses: ['169.254.169.254', '169.254.0.1', 'fe80::1', '::ffff:169.254.169.254'] },
  { words: 'a multicast address', addresses: ['224.0.0.1', '239.255.255.250', 'ff02::1', '::ffff:224.0.0.1'] },
  { words: 'an unspecified address', addresses: ['0.0.0.0', '0.1.2.3', '::', '::ffff:0.0.0.0'] },
  { words: 'a broadcast address', addresses: ['255.255.255.255', '::ffff:255.255.255.255'] },
  { words: 'a carrier-grade NAT address', addresses: ['100.64.0.1', '100.127.255.254', '::ffff:100.64.0.1'] },
  { words: 'a unique local address', addresses: ['fc00::1', 'fd12:3456:789a::1'] },
  {
    words: 'a reserved or documentation address',
    addresses: [
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.9',
      '240.0.0.1',
      '198.18.0.1',
      '2001:db8::1',
      '::ffff:192.0.2.1',
    ],
  },
  { words: 'an IPv4-compatible address', addresses: ['::127.0.0.1', '::10.0.0.5', '::8.8.8.8'] },
  { words: 'a NAT64 form of 127.0.0.1, a loopback address', addresses: ['64:ff9b::127.0.0.1'] },
  { words: 'a NAT64 form of 10.0.0.5, a private address', addresses: ['64:ff9b::a00:5'] },
  { words: 'a 6to4 address', addresses: ['2002:7f00:1::1', '2002:a00:5::1', '2002:5db8:d70e::1'] },
  { words: 'a Teredo address', addresses: ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1'] },
  { words: 'an IPv4-translated address', addresses: ['::ffff:0:7f00:1', '::ffff:0:a00:5'] },
  { words: 'a site-local address', addresses: ['fec0::1'] },
  { words: 'a discard-only address', addresses: ['100::1'] },
  { words: 'an address outside the global unicast range', addresses: ['4000::1', 'e000::1', '1::1'] },
];

/** IPv4 ranges that are never a public unicast address: a hand-kept list, beside ipaddr.js's. */
const REFUSED_V4_CIDRS = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
];
/** The same for IPv6 (IANA's special-purpose registry, and everything outside 2000::/3). */
const REFUSED_V6_CIDRS = [
  '::/3',
  '4000::/2',
  '8000::/1',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  '3fff::/20',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
];

/** A random address inside an IPv4 CIDR. */
const inV4 = (cidr: string) => {
  const [base, bits] = ipaddr.IPv4.parseCIDR(cidr);
  const start = base.toByteArray().reduce((n, b) => n * 256 + b, 0);
  const size = 2 ** (32 - bits);
  return fc.integer({ min: 0, max: size - 1 }).map((offset) => {
    const n = start + offset;
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  });
};
/** A random address inside an IPv6 CIDR. */
const inV6 = (cidr: string) => {
  const [base, bits] = ipaddr.IPv6.parseCIDR(cidr);
  return fc.uint8Array({ minLength: 16, maxLength: 16 }).map((random) => {
    const bytes = base.toByteArray().map((b, i) => {
      const fixed = Math.max(0, Math.min(8, bits - i * 8));
      const mask = (0xff << (8 - fixed)) & 0xff;
      return (b & mask) | ((random[i] ?? 0) & ~mask & 0xff);
    });
    return ipaddr.fromByteArray(bytes).toString();
  });
};
const inside = (address: string, cidrs: readonly string[]): boolean => {
  const parsed = ipaddr.parse(address);
  return cidrs.some((cidr) => {
    const range = ipaddr.parseCIDR(cidr);
    return parsed.kind() === range[0].kind() && parsed.match(range);
  });
};

describe('WebhookUrlPolicy (docs/rules.md §15, the URL)', () => {
  it('allows an https URL whose name resolves to public unicast addresses only', async () => {
    expect(await policy.check('https://hooks.example.com/petstore?x=1')).to.equal(undefined);
    expect(await policy.check('https://HOOKS.example.com:8443/')).to.equal(undefined);
    for (const literal of [PUBLIC_V4, PUBLIC_V6, '::ffff:8.8.8.8', '64:ff9b::808:808', '2a00:1450:4001::200e'])
      expect(await policy.check(`https://${host(literal)}/hook`), literal).to.equal(undefined);
  });

  it('answers the address that was checked, the first the resolver gave, to connect to', async () => {
    const target = await policy.target('https://hooks.example.com/petstore');
    expect(target).to.deep.include({ kind: 'allowed', hostname: 'hooks.example.com', address: PUBLIC_V4, family: 4 });
    const v6 = await policyWith({ 'v6.example.com': [PUBLIC_V6, PUBLIC_V4] }).target('https://v6.example.com/');
    expect(v6).to.deep.include({ address: PUBLIC_V6, family: 6 });
    // An IPv4-mapped address is connected to as its IPv4 address; an IPv6 literal without its brackets.
    expect(await policy.target('https://[::ffff:8.8.8.8]/')).to.deep.include({
      hostname: '::ffff:808:808',
      address: '8.8.8.8',
      family: 4,
    });
  });

  it('refuses a URL that is not absolute, or does not parse', async () => {
    for (const url of [
      '/hooks',
      'hooks.example.com/petstore',
      '//hooks.example.com/',
      '',
      'https://',
      'https://exa mple.com/',
    ])
      expect(await policy.check(url), url).to.equal('the URL is not an absolute URL');
  });

  it('refuses every scheme but https (http only for an allowed host)', async () => {
    expect(await policy.check('ftp://hooks.example.com/')).to.equal("the URL's scheme must be https, not ftp:");
    expect(await policy.check('file:///etc/passwd')).to.equal("the URL's scheme must be https, not file:");
    expect(await policy.check('ws://hooks.example.com/')).to.equal("the URL's scheme must be https, not ws:");
    expect(await policy.check('http://hooks.example.com/')).to.equal(
      "the URL's scheme must be https (http only for an allowed host)",
    );
    const allowing = policyWith({ 'hooks.example.com': [PUBLIC_V4] }, ['hooks.example.com']);
    expect(await allowing.check('http://hooks.example.com/')).to.equal(undefined);
  });

  it('refuses a user name or password, without repeating them', async () => {
    for (const url of [
      'https://alice:s3cr3t@hooks.example.com/',
      'https://alice@hooks.example.com/',
      'https://:s3cr3t@hooks.example.com/',
    ]) {
      const reason = await policy.check(url);
      expect(reason, url).to.equal('the URL may not hold a user name or password');
    }
  });

  it(`refuses a URL longer than ${WEBHOOK_URL_MAX_LENGTH} characters, and allows one of exactly that length`, async () => {
    const start = 'https://hooks.example.com/';
    const exact = start + 'a'.repeat(WEBHOOK_URL_MAX_LENGTH - start.length);
    expect(exact).to.have.length(WEBHOOK_URL_MAX_LENGTH);
    expect(await policy.check(exact)).to.equal(undefined);
    expect(await policy.check(`${exact}a`)).to.equal(`the URL is longer than ${WEBHOOK_URL_MAX_LENGTH} characters`);
  });

  describe('the address check', () => {
    for (const { words, addresses } of REFUSED) {
      it(`refuses ${words}, written or resolved`, async () => {
        for (const address of addresses) {
          const canonical = new URL(`http://${host(address)}/`).hostname.replace(/^\[(.*)\]$/, '$1');
          const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
          const why = mapped === undefined ? words : `an IPv4-mapped form of ${mapped}, ${words}`;
          expect(await policy.check(`https://${host(address)}/hook`), address).to.equal(
            `the host ${canonical} is ${why}`,
          );
          // On another port too.
          expect(await policy.check(`https://${host(address)}:8443/`), address).to.equal(
            `the host ${canonical} is ${why}`,
          );
          const named = policyWith({ 'hooks.example.com': [address] });
          expect(await named.check('https://hooks.example.com/hook'), address).to.equal(
            `the host resolves to ${canonical}, ${why}`,
          );
        }
      });
    }

    it('reads an IPv4 address written in any form a URL accepts as the address it is', async () => {
      // The URL parser turns each into 127.0.0.1 (or 10.0.0.5); the check sees that.
      for (const url of ['https://2130706433/', 'https://0x7f.1/', 'https://0177.0.0.1/', 'https://127.1/'])
        expect(await policy.check(url), url).to.equal('the host 127.0.0.1 is a loopback address');
      expect(await policy.check('https://0xa000005/')).to.equal('the host 10.0.0.5 is a private address');
    });

    it('refuses a name that resolves to one refused address among public ones, wherever it comes', async () => {
      const refused = REFUSED.flatMap(({ addresses }) => addresses);
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom(PUBLIC_V4, PUBLIC_V6, '8.8.8.8', '2a00:1450:4001::200e'), { maxLength: 4 }),
          fc.constantFrom(...refused),
          fc.nat(),
          async (good, bad, at) => {
            const answer: string[] = [...good];
            answer.splice(at % (good.length + 1), 0, bad);
            const reason = await policyWith({ 'mixed.example.com': answer }).check('https://mixed.example.com/');
            const canonical = new URL(`http://${host(bad)}/`).hostname.replace(/^\[(.*)\]$/, '$1');
            expect(reason).to.be.a('string').and.contain(`resolves to ${canonical}, `);
          },
        ),
      );
    });

    it('refuses a name that does not resolve, or resolves to something other than an address, saying so', async () => {
      expect(await policy.check('https://nowhere.example.com/')).to.equal(
        'the host name does not resolve to any address',
      );
      expect(await policyWith({ 'empty.example.com': [] }).check('https://empty.example.com/')).to.equal(
        'the host name does not resolve to any address',
      );
      expect(await policyWith({ 'odd.example.com': ['127.1'] }).check('https://odd.example.com/')).to.equal(
        'the host name resolves to something that is not a plain IP address',
      );
      expect(await policy.target('https://nowhere.example.com/')).to.deep.equal({
        kind: 'unresolved',
        reason: 'the host name does not resolve to any address',
      });
    });

    it('asks the resolver again at every check: a changed answer is refused', async () => {
      const answers = [[PUBLIC_V4], ['10.0.0.5']];
      const changing = new WebhookUrlPolicy({ allowHosts: [], resolve: async () => answers.shift() ?? [] });
      expect(await changing.check('https://hooks.example.com/')).to.equal(undefined);
      expect(await changing.check('https://hooks.example.com/')).to.equal(
        'the host resolves to 10.0.0.5, a private address',
      );
    });

    it('resolves with the system resolver by default (localhost is loopback)', async () => {
      const reason = await new WebhookUrlPolicy({ allowHosts: [] }).check('https://localhost/');
      expect(reason).to.match(/^the host resolves to (127\.0\.0\.1|::1), a loopback address$/);
    });

    it('property: every address of a refused IPv4 range is refused, written, resolved and IPv4-mapped', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...REFUSED_V4_CIDRS).chain((cidr) => inV4(cidr)),
          async (address) => {
            expect(await policy.check(`https://${address}/`)).to.be.a('string');
            expect(await policy.check(`https://[::ffff:${address}]/`)).to.be.a('string');
            expect(await policyWith({ 'h.example.com': [address] }).check('https://h.example.com/')).to.be.a('string');
          },
        ),
      );
    });

    it('property: every address of a refused IPv6 range is refused, written and resolved', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...REFUSED_V6_CIDRS).chain((cidr) => inV6(cidr)),
          async (address) => {
            // Addresses of ::/3 that are IPv4-mapped or NAT64 forms of a public address are its exceptions.
            fc.pre(!ipaddr.IPv6.parse(address).isIPv4MappedAddress() && !inside(address, ['64:ff9b::/96']));
            expect(await policy.check(`https://[${address}]/`)).to.be.a('string');
            expect(await policyWith({ 'h.example.com': [address] }).check('https://h.example.com/')).to.be.a('string');
          },
        ),
      );
    });

    it('property: an IPv4-mapped or NAT64 address is judged as the IPv4 address it carries', async () => {
      await fc.assert(
        fc.asyncProperty(fc.ipV4(), async (v4) => {
          const plain = await policy.check(`https://${v4}/`);
          const mapped = await policy.check(`https://[::ffff:${v4}]/`);
          const nat64 = await policy.check(`https://[64:ff9b::${v4}]/`);
          expect(mapped === undefined, `::ffff:${v4}`).to.equal(plain === undefined);
          expect(nat64 === undefined, `64:ff9b::${v4}`).to.equal(plain === undefined);
          if (plain !== undefined) expect(mapped).to.contain(plain.replace(/^the host [^ ]+ is /, ''));
        }),
      );
    });

    it('property: an address is allowed only if it is plain unicast and in no refused range; written or resolved alike', async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.ipV4(), fc.ipV6()), async (text) => {
          const address = ipaddr.parse(text);
          const literal = await policy.check(`https://${host(text)}/`);
          const resolved = await policyWith({ 'h.example.com': [text] }).check('https://h.example.com/');
          expect(resolved === undefined, text).to.equal(literal === undefined);
          if (literal !== undefined) return;
          const v4 =
            address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
              ? (address as ipaddr.IPv6).toIPv4Address()
              : address;
          if (v4.kind() === 'ipv4') {
            expect(v4.range(), text).to.equal('unicast');
            expect(inside(v4.toString(), REFUSED_V4_CIDRS), text).to.equal(false);
          } else if (!inside(text, ['64:ff9b::/96'])) {
            expect(v4.range(), text).to.equal('unicast');
            expect(inside(text, REFUSED_V6_CIDRS), text).to.equal(false);
          }
        }),
      );
    });

    it('never echoes the URL whole in a reason', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('10.0.0.5', '[::1]', 'nowhere.example.com', '127.0.0.1:8080'),
          fc.webPath(),
          async (where, path) => {
            const url = `https://${where}/secret-path-${path}`;
            const reason = (await policy.check(url)) ?? '';
            expect(reason).not.to.contain(url);
            expect(reason).not.to.contain('secret-path');
          },
        ),
      );
    });
  });

  describe('the allow list (PETSTORE_WEBHOOK_ALLOW_HOSTS)', () => {
    const local = policyWith({ localhost: ['127.0.0.1', '::1'], 'receiver.test': ['10.1.2.3'] }, [
      'LocalHost',
      '127.0.0.1:8080',
      '[::1]:9000',
      'receiver.test:443',
    ]);

    it('lets an allowed host through the address check, over http or https, on every port when no port is given', async () => {
      for (const url of [
        'http://localhost/',
        'http://LOCALHOST:3000/hook',
        'https://localhost:1/',
        'http://127.0.0.1:8080/',
      ])
        expect(await local.check(url), url).to.equal(undefined);
      expect(await local.target('http://localhost:3000/')).to.deep.include({ address: '127.0.0.1', family: 4 });
    });

    it('allows only the port an entry names (the default port of the scheme when the URL has none)', async () => {
      expect(await local.check('http://127.0.0.1:8081/')).to.equal(
        "the URL's scheme must be https (http only for an allowed host)",
      );
      expect(await local.check('https://127.0.0.1:8081/')).to.equal('the host 127.0.0.1 is a loopback address');
      expect(await local.check('https://127.0.0.1/')).to.equal('the host 127.0.0.1 is a loopback address');
      expect(await local.check('https://receiver.test/')).to.equal(undefined);
      expect(await local.check('https://receiver.test:443/')).to.equal(undefined);
      expect(await local.check('https://receiver.test:8443/')).to.equal(
        'the host resolves to 10.1.2.3, a private address',
      );
      expect(await local.check('http://receiver.test:443/')).to.equal(undefined);
      expect(await local.check('http://receiver.test/')).to.equal(
        "the URL's scheme must be https (http only for an allowed host)",
      );
    });

    it('compares IPv6 addresses as addresses, in brackets', async () => {
      expect(await local.check('http://[::1]:9000/')).to.equal(undefined);
      expect(await local.check('http://[0:0:0:0:0:0:0:1]:9000/')).to.equal(undefined);
      expect(await local.check('https://[::1]:9001/')).to.equal('the host ::1 is a loopback address');
    });

    it('does not allow another host for being like an allowed one', async () => {
      const names = policyWith({ 'localhost.evil.example': ['127.0.0.1'], 'evil.localhost': ['127.0.0.1'] }, [
        'localhost',
      ]);
      expect(await names.check('https://localhost.evil.example/')).to.equal(
        'the host resolves to 127.0.0.1, a loopback address',
      );
      expect(await names.check('https://evil.localhost/')).to.equal(
        'the host resolves to 127.0.0.1, a loopback address',
      );
      expect(await names.check('http://localhost@evil.localhost/')).to.equal(
        'the URL may not hold a user name or password',
      );
    });

    it('refuses a malformed entry when constructed', () => {
      expect(() => new WebhookUrlPolicy({ allowHosts: ['localhost:99999'] })).to.throw(
        'allowHosts entry 1: the port must be from 1 to 65535',
      );
    });
  });

  describe('parseAllowHosts', () => {
    it('reads comma-separated host[:port] entries, written as URLs write them', () => {
      expect(parseAllowHosts('')).to.deep.equal([]);
      expect(parseAllowHosts('   ')).to.deep.equal([]);
      expect(parseAllowHosts('localhost')).to.deep.equal(['localhost']);
      expect(
        parseAllowHosts(' LocalHost:8080 , [0:0::1]:9000,Receiver.Example.COM,127.0.0.1,[::1],bücher.example,host_1'),
      ).to.deep.equal([
        'localhost:8080',
        '[::1]:9000',
        'receiver.example.com',
        '127.0.0.1',
        '[::1]',
        'xn--bcher-kva.example',
        'host_1',
      ]);
      // What it answers is what the policy takes.
      expect(() => new WebhookUrlPolicy({ allowHosts: parseAllowHosts('a.example:1,[::1]') })).not.to.throw();
    });

    it('refuses a malformed entry with an Error naming it', () => {
      const cases: readonly [string, string][] = [
        ['a,,b', 'entry 2 is empty'],
        ['a,', 'entry 2 is empty'],
        ['host:0', 'entry 1 ("host:0"): the port must be from 1 to 65535'],
        ['host:65536', 'entry 1 ("host:65536"): the port must be from 1 to 65535'],
        ['host:abc', 'entry 1 ("host:abc") must be host or host:port'],
        ['host:', 'entry 1 ("host:") must be host or host:port'],
        ['host:123456', 'entry 1 ("host:123456") must be host or host:port'],
        ['user@host', 'entry 1 ("user@host") must be host or host:port'],
        ['http://host', 'entry 1 ("http://host") must be host or host:port'],
        ['host/path', 'entry 1 ("host/path") must be host or host:port'],
        ['ok,a b', 'entry 2 ("a b") must be host or host:port'],
        ['::1', 'entry 1 ("::1") must be host or host:port'],
        ['[::1', 'entry 1 ("[::1") must be host or host:port'],
        ['[zz::1]:80', 'entry 1 ("[zz::1]:80"): "[zz::1]" is not a host name or IP address'],
        ['[127.0.0.1]', 'entry 1 ("[127.0.0.1]"): "[127.0.0.1]" is not a host name or IP address'],
        ['*.example.com', 'entry 1 ("*.example.com"): "*.example.com" is not a host name or IP address'],
        ['-bad-.example', 'entry 1 ("-bad-.example"): "-bad-.example" is not a host name or IP address'],
        ['%41', 'entry 1 ("%41") must be host or host:port'],
      ];
      for (const [text, message] of cases) expect(() => parseAllowHosts(text), text).to.throw(Error, message);
    });

    it('property: what it reads, it reads again unchanged', () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.tuple(
              fc.oneof(
                fc.domain(),
                fc.ipV4(),
                fc.ipV6().map((v6) => `[${v6}]`),
              ),
              fc.option(fc.integer({ min: 1, max: 65_535 })),
            ),
            {
              minLength: 1,
              maxLength: 5,
            },
          ),
          (entries) => {
            const text = entries.map(([h, port]) => (port === null ? h : `${h}:${port}`)).join(',');
            const once = parseAllowHosts(text);
            expect(once).to.have.length(entries.length);
            expect(parseAllowHosts(once.join(','))).to.deep.equal(once);
          },
        ),
      );
    });
  });
});

import { describe, expect, it } from 'vitest';
import { isPublicUnicast } from '../../src/egress/address-policy.js';
import { checkHost, resolveAllowed, type EgressPolicy } from '../../src/egress/egress-policy.js';
import type { Resolver } from '../../src/egress/resolver.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

describe('isPublicUnicast', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback, end of /8'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'cloud metadata (link-local)'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast (SSDP)'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['198.51.100.1', 'TEST-NET-2'],
    ['203.0.113.1', 'TEST-NET-3'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%lo', 'link-local with zone'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fec0::1', 'deprecated site-local'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:0:7f00:1', 'SIIT (RFC 6145) loopback'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hex'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated, never routed)'],
    ['64:ff9b::7f00:1', 'NAT64 to loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 to metadata'],
    ['64:ff9b:1::808:808', 'local-use NAT64 prefix'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a00:1::1', '6to4 of 10.0.0.1'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo with client 127.0.0.1'],
    ['2001:0:7f00:1:8000:63bf:3fff:fdd2', 'Teredo with server 127.0.0.1'],
    ['2001:db8::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['100::1', 'discard-only'],
    ['5f00::1', 'segment routing'],
    ['127.1', 'short IPv4 spelling (a dialer would resolve it)'],
    ['0x7f.0.0.1', 'hex IPv4 spelling'],
    ['2130706433', 'integer IPv4 spelling'],
    ['017700000001', 'octal IPv4 spelling'],
    ['localhost', 'a name, not an address'],
    ['', 'empty'],
    ['1.2.3.4.5', 'garbage'],
    ['[::1]', 'bracketed form'],
  ])('refuses %s (%s)', (address) => {
    expect(isPublicUnicast(address)).toBe(false);
  });

  it.each([
    ['93.184.216.34'],
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['100.63.255.255'], // just below carrier-grade NAT
    ['100.128.0.1'], // just above it
    ['172.32.0.1'], // just above 172.16/12
    ['169.253.255.255'],
    ['2606:4700::1'],
    ['2a00:1450:4001:81c::200e'],
    ['::ffff:8.8.8.8'], // mapped, but reaches a public address
    ['64:ff9b::808:808'], // NAT64 to 8.8.8.8
    ['2002:808:808::1'], // 6to4 of 8.8.8.8
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7'], // Teredo, server 65.54.227.120, client 8.8.8.8
  ])('allows %s', (address) => {
    expect(isPublicUnicast(address)).toBe(true);
  });
});

/** A resolver with a fixed answer book; unknown names fail like NXDOMAIN. */
function book(entries: Record<string, string[]>): Resolver {
  return async (hostname) => {
    await new Promise(setImmediate); // answers arrive later, like real DNS
    const answer = entries[hostname];
    if (answer === undefined) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer;
  };
}

const policy = (resolver: Resolver, extra: Partial<EgressPolicy> = {}): EgressPolicy => ({
  allowPrivateNetworks: false,
  resolver,
  ...extra,
});

describe('resolveAllowed', () => {
  const resolver = book({
    'public.test': ['93.184.216.34', '2606:4700::1'],
    'mixed.test': ['93.184.216.34', '10.0.0.5'],
    'mixed6.test': ['2606:4700::1', '::ffff:127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'empty.test': [],
    'junk.test': ['not-an-ip'],
    'short.test': ['127.1'],
  });

  it('returns every address of a public name', async () => {
    await expect(resolveAllowed(new URL('https://public.test/'), policy(resolver))).resolves.toEqual([
      '93.184.216.34',
      '2606:4700::1',
    ]);
  });

  it.each(['mixed.test', 'mixed6.test', 'metadata.test', 'junk.test', 'short.test'])(
    'refuses %s when any answer is not public',
    async (host) => {
      const error = await resolveAllowed(new URL(`http://${host}/x`), policy(resolver)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CaptureError);
      expect((error as CaptureError).code).toBe('URL_NOT_ALLOWED');
      const details = (error as CaptureError).details as { url: string; hint: string };
      expect(details).toEqual({ url: `http://${host}/x`, hint: expect.stringContaining('CAPTURE_ALLOW_ADDRESSES=ADDRESS:80') });
      // What the name resolved to is never told: that would make the guard a probe of the inside network.
      expect(details.hint).not.toMatch(/\d+\.\d+\.\d+\.\d+|::/);
    },
  );

  it.each(['nxdomain.test', 'empty.test'])('reports %s as a DNS failure', async (host) => {
    const error = await resolveAllowed(new URL(`http://${host}/`), policy(resolver)).catch((e: unknown) => e);
    expect((error as CaptureError).code).toBe('CAPTURE_FAILED');
    expect((error as CaptureError).details).toEqual({ reason: 'dns' });
  });

  it('does not resolve IP literals or localhost names', async () => {
    const never: Resolver = () => Promise.reject(new Error('must not resolve'));
    await expect(resolveAllowed(new URL('http://[2606:4700::1]/'), policy(never))).resolves.toEqual(['2606:4700::1']);
    for (const raw of ['http://[::1]/', 'http://127.0.0.1/', 'http://app.localhost/', 'http://LOCALHOST./']) {
      await expect(resolveAllowed(new URL(raw), policy(never))).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    }
  });

  it('allows everything resolvable with allowPrivateNetworks, but still only literals', async () => {
    const open = policy(resolver, { allowPrivateNetworks: true });
    await expect(resolveAllowed(new URL('http://mixed.test/'), open)).resolves.toEqual(['93.184.216.34', '10.0.0.5']);
    const local = { ...open, resolver: book({ localhost: ['127.0.0.1'] }) };
    await expect(resolveAllowed(new URL('http://localhost:3000/'), local)).resolves.toEqual(['127.0.0.1']);
    await expect(resolveAllowed(new URL('http://junk.test/'), open)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
  });

  it('lets the isAllowed hook admit one address and port, not the others', async () => {
    const hooked = policy(book({ 'fixture.test': ['127.0.0.1'] }), {
      isAllowed: (address, port) => address === '127.0.0.1' && port === 8080,
    });
    await expect(resolveAllowed(new URL('http://fixture.test:8080/'), hooked)).resolves.toEqual(['127.0.0.1']);
    await expect(resolveAllowed(new URL('http://fixture.test/'), hooked)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    await expect(resolveAllowed(new URL('https://fixture.test:8080/'), hooked)).resolves.toEqual(['127.0.0.1']);
  });

  it('refuses schemes it cannot reason about', async () => {
    await expect(resolveAllowed(new URL('ftp://public.test/'), policy(resolver))).rejects.toMatchObject({
      code: 'URL_NOT_ALLOWED',
    });
  });
});

describe('checkHost', () => {
  it('answers with a verdict instead of throwing', async () => {
    const p = policy(book({ 'a.test': ['8.8.8.8'], 'b.test': ['8.8.8.8', '192.168.0.1'] }));
    expect(await checkHost('a.test', 443, p)).toEqual({ ok: true, addresses: ['8.8.8.8'] });
    expect(await checkHost('b.test', 443, p)).toEqual({ ok: false, reason: 'refused' });
    expect(await checkHost('c.test', 443, p)).toEqual({ ok: false, reason: 'dns' });
    expect(await checkHost('[::ffff:a9fe:a9fe]', 80, p)).toEqual({ ok: false, reason: 'refused' });
  });
});

describe('embedded IPv4 forms', () => {
  it('classify like the IPv4 address they reach', async () => {
    const fc = (await import('fast-check')).default;
    const hex = (a: number, b: number): string => ((a << 8) | b).toString(16);
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
        const expected = isPublicUnicast(v4);
        expect(isPublicUnicast(`::ffff:${v4}`)).toBe(expected);
        expect(isPublicUnicast(`64:ff9b::${hex(a, b)}:${hex(c, d)}`)).toBe(expected);
        expect(isPublicUnicast(`2002:${hex(a, b)}:${hex(c, d)}::1`)).toBe(expected);
        // Teredo stores the client inverted; the server here is a public one.
        const teredoClient = `${hex(255 - a, 255 - b)}:${hex(255 - c, 255 - d)}`;
        expect(isPublicUnicast(`2001:0:4136:e378:8000:63bf:${teredoClient}`)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IANA's allocated global unicast space. ipaddr.js calls every address outside its named special
 * ranges "unicast", which would let through IPv4-compatible (::a.b.c.d), 100::/64 and other
 * unallocated space; nothing public lives outside 2000::/3, so a stricter rule costs nothing.
 */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/**
 * True when `address` is an IP literal that reaches the public internet: a plain unicast address,
 * or an IPv6 form whose embedded IPv4 address is public unicast. Anything unparseable is refused,
 * because the caller is about to dial it and must never fall back to name resolution.
 */
export function isPublicUnicast(address: string): boolean {
  // net.isIP accepts only canonical spellings; "127.1" or "0x7f.1" would make a dialer resolve
  // them through getaddrinfo, which then reads them as loopback.
  const family = isIP(address);
  if (family === 4) return ipaddr.IPv4.parse(address).range() === 'unicast';
  // A zone only means something for link-scoped destinations.
  if (family !== 6 || address.includes('%')) return false;
  try {
    return isPublicIPv6(ipaddr.IPv6.parse(hexIPv6(address)));
  } catch {
    return false;
  }
}

/**
 * ipaddr.js reads "::a.b.c.d" as IPv4-mapped (it is IPv4-compatible, a different address), so
 * dotted tails are rewritten to hex by the WHATWG serializer before classification.
 */
function hexIPv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

function isPublicIPv6(ip: ipaddr.IPv6): boolean {
  const embedded = embeddedIPv4(ip);
  if (embedded !== undefined) return embedded.length > 0 && embedded.every((v4) => v4.range() === 'unicast');
  return ip.range() === 'unicast' && ip.match(IPV6_GLOBAL_UNICAST);
}

/**
 * The IPv4 addresses an IPv6 form routes to (translators and tunnels deliver to them), `[]` for a
 * form refused outright, `undefined` when the address embeds nothing.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const p = ip.parts;
  switch (ip.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (SIIT)
      return [v4(p[6]!, p[7]!)];
    case 'rfc6052':
      // 64:ff9b::/96 is the well-known NAT64 prefix; 64:ff9b:1::/48 is for local use only.
      return p[2] === 0 ? [v4(p[6]!, p[7]!)] : [];
    case '6to4': // 2002:AABB:CCDD::/48
      return [v4(p[1]!, p[2]!)];
    case 'teredo': // 2001:0:server:server:flags:port:~client:~client
      return [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
    default:
      return undefined;
  }
}

function v4(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

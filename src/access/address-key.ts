import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The key under which requests without a valid key are counted. One IPv6 host usually holds a
 * whole /64 (often more), so counting single IPv6 addresses would let one client rotate through
 * billions of them; the /64 is counted instead. IPv4-mapped IPv6 (what a dual-stack socket
 * reports for IPv4 clients) counts as the IPv4 address.
 */
export function addressKey(address: string): string {
  // Sockets report IPv4 in canonical form already: the common case needs no parsing.
  if (isIPv4(address) || !ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}

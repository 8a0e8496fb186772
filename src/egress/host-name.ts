/** WHATWG keeps IPv6 hosts in brackets; dialers and classifiers want the bare address. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * RFC 6761 reserves `localhost` and every name under it for loopback, and Chromium answers them
 * itself without asking DNS, so they are refused by name. Trailing dots are the same name.
 */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

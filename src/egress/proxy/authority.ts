/** `host:port` as the browser writes it in CONNECT; the host is normalised like a URL host. */
export function parseAuthority(raw: string): { hostname: string; port: string } | undefined {
  const match = /^([^/?#@\\\s]+):(\d{1,5})$/.exec(raw);
  if (match === null) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  try {
    return { hostname: new URL(`http://${match[1]}/`).hostname, port: String(port) };
  } catch {
    return undefined;
  }
}

/** The key under which a session remembers a host and port's last failure. */
export function authority(hostname: string, port: string): string {
  return `${hostname.toLowerCase()}:${port}`;
}

/** The port a URL connects to, its scheme's default when it names none. */
export function portOf(url: URL): string {
  if (url.port !== '') return url.port;
  return url.protocol === 'https:' || url.protocol === 'wss:' ? '443' : '80';
}

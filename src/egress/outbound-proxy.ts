import type { OutboundProxy } from '../core/ports.js';
import { CaptureError } from '../core/errors/catalogue.js';
import { captureErrors } from '../core/errors/factories.js';
import { checkHost, type EgressPolicy } from './egress-policy.js';
import { allowedFor } from '../core/schema/capture-params.js';

/** The schemes a proxy may have, with the port each one listens on when the URL names none. */
const PROXY_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443, 'socks5:': 1080, 'socks5h:': 1080 };
function invalidProxy(message: string): CaptureError {
  return captureErrors.invalidParameter('proxy', `Invalid parameter 'proxy': ${message}`, allowedFor('proxy'));
}

/** A proxy URL as the dialer wants it (socks5h is socks5: the proxy resolves names either way); never echoes credentials. */
export function parseProxyUrl(raw: string, what = 'proxy'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidProxy(`not a proxy URL (${what})`);
  }
  const port = PROXY_PORTS[url.protocol];
  if (port === undefined) throw invalidProxy(`scheme ${url.protocol} is not one of http, https, socks5`);
  if (url.hostname === '' || (url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') throw invalidProxy('a proxy URL is scheme://[user:pass@]host:port and nothing more');
  const normal = new URL(`${url.protocol === 'socks5h:' ? 'socks5:' : url.protocol}//${url.host}`);
  normal.port = url.port === '' ? String(port) : url.port;
  normal.username = url.username;
  normal.password = url.password;
  return normal;
}

/**
 * The proxy a capture asked for: one of the operator's by name (trusted: its address is the
 * operator's choice), or a URL of the caller's, whose address must pass the guard like a target's.
 * Errors name the proxy's host at most, never its credentials.
 */
export async function resolveOutboundProxy(raw: string, named: ReadonlyMap<string, URL>, policy: EgressPolicy): Promise<OutboundProxy> {
  const own = named.get(raw);
  if (own !== undefined) return { url: own, trusted: true };
  if (!raw.includes(':')) throw invalidProxy(`no proxy is named '${raw}'${named.size > 0 ? ` (named proxies: ${[...named.keys()].join(', ')})` : ''}`);
  const url = parseProxyUrl(raw);
  const verdict = await checkHost(url.hostname, Number(url.port), policy);
  if (verdict.ok) return { url, trusted: false };
  if (verdict.reason === 'dns') throw captureErrors.dnsFailed(url.hostname);
  throw new CaptureError('URL_NOT_ALLOWED', `The proxy ${url.hostname} resolves to an address that is not allowed`, { details: { param: 'proxy' } });
}

/** Named proxies checked once, at start: a name is a word, its URL a proxy URL. */
export function namedProxies(proxies: Readonly<Record<string, string>> = {}): Map<string, URL> {
  return new Map(
    Object.entries(proxies).map(([name, raw]) => {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new Error(`proxy name '${name}' must be 1-64 letters, digits, '-' or '_'`);
      try {
        return [name, parseProxyUrl(raw, name)];
      } catch (error) {
        throw new Error(`proxy '${name}': ${error instanceof Error ? error.message : String(error)}`);
      }
    }),
  );
}

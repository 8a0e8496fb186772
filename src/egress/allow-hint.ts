import { isIP } from 'node:net';
import { bareHost, isLocalhostName } from './host-name.js';
import { portOf } from './proxy/authority.js';

/**
 * How an operator allows a target the guard refused, for the error's `hint` (issue 50: a new user's
 * first capture of a local page answered "not allowed" and nothing said how to allow it). It names
 * the address only when the URL itself is one: the addresses a name resolved to stay unsaid, as
 * they would tell any caller how the service's network resolves names.
 */
export function allowHint(url: URL): string {
  const port = portOf(url);
  const host = bareHost(url.hostname);
  const every = 'or every private address with --allow-private-networks (capture-engine shot, serve), CAPTURE_ALLOW_PRIVATE_NETWORKS=true, allowPrivateNetworks: true';
  const ways = (entry: string): string => `CAPTURE_ALLOW_ADDRESSES=${entry} (the service, capture-engine shot), allowAddress: ['${entry}'] (the library), ${every}`;
  if (isLocalhostName(host)) return `${host} is refused by its name: capture its address instead (http://127.0.0.1:${port}/) and allow it with ${ways(`127.0.0.1:${port}`)}`;
  if (isIP(host) === 4) return `Allow ${host}:${port} with ${ways(`${host}:${port}`)}`;
  if (isIP(host) === 6) return `Allow [${host}]:${port} with ${ways(`[${host}]:${port}`)}`;
  return `Allow the address ${host} resolves to, on port ${port}, with ${ways(`ADDRESS:${port}`)}`;
}

import { isIP } from 'node:net';
import { captureErrors } from '../core/errors/factories.js';
import { isPublicUnicast } from './address-policy.js';
import { bareHost, isLocalhostName } from './host-name.js';
import { allowHint } from './allow-hint.js';
import type { Resolver } from './resolver.js';

export interface EgressPolicy {
  /** Operator opt-out for captures of their own network: every resolvable address is allowed. */
  allowPrivateNetworks: boolean;
  resolver: Resolver;
  /** test hook: extra allowed address:port pairs even if not public */
  isAllowed?: (address: string, port: number) => boolean;
}

/** `ok` carries the checked addresses: the only ones a connection to this host may dial. */
export type HostVerdict = { ok: true; addresses: string[] } | { ok: false; reason: 'refused' | 'dns' };

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };

export function isAddressAllowed(address: string, port: number, policy: EgressPolicy): boolean {
  // Even when private networks are allowed, the dial target must be a literal: a string that
  // still needs resolving would be resolved again, unchecked.
  if (isIP(address) === 0) return false;
  return policy.allowPrivateNetworks || isPublicUnicast(address) || policy.isAllowed?.(address, port) === true;
}

/**
 * Decides one connection to `hostname:port`. Every answer must be allowed, not just one: the
 * dialer may fall back to any of them, and an attacker controls the order of their own records.
 * `resolve` lets the proxy pass its pinning resolver; it defaults to the policy's.
 */
export async function checkHost(
  hostname: string,
  port: number,
  policy: EgressPolicy,
  resolve: Resolver = policy.resolver,
): Promise<HostVerdict> {
  const host = bareHost(hostname).toLowerCase();
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else if (!policy.allowPrivateNetworks && isLocalhostName(host)) {
    return { ok: false, reason: 'refused' };
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, reason: 'dns' };
    }
    if (addresses.length === 0) return { ok: false, reason: 'dns' };
  }
  const allowed = addresses.every((address) => isAddressAllowed(address, port, policy));
  return allowed ? { ok: true, addresses } : { ok: false, reason: 'refused' };
}

/**
 * Up-front check of a capture target, for an early and precise error before a browser is
 * involved. It does not replace the proxy: the page may connect anywhere after this.
 */
export async function resolveAllowed(url: URL, policy: EgressPolicy): Promise<string[]> {
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  if (port === undefined) {
    throw captureErrors.urlNotAllowed(url.href, 'Only http and https URLs are allowed');
  }
  const verdict = await checkHost(url.hostname, port, policy);
  if (verdict.ok) return verdict.addresses;
  if (verdict.reason === 'dns') throw captureErrors.dnsFailed(url.hostname);
  throw captureErrors.urlNotAllowed(url.href, 'Target resolves to an address that is not allowed', allowHint(url));
}

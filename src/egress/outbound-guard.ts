import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { checkHost, resolveAllowed, type EgressPolicy } from './egress-policy.js';
import { systemResolver, type Resolver } from './resolver.js';
import { parseTargetUrl } from './target-url.js';

/**
 * The egress guard for the service's own requests to a caller's URL (webhooks, uploads): the URL is judged
 * like a capture target, and the connection dials only addresses checked at connect time, so a
 * name that re-points to a private address after the first check gets nowhere.
 */
export interface OutboundGuard {
  /** Parses and checks a caller's URL; throws INVALID_PARAMETER (naming `param`) or URL_NOT_ALLOWED. */
  check(raw: string, param: string): Promise<URL>;
  /** A `lookup` for `http.request` that resolves through the guard and fails for refused hosts. */
  lookupFor(url: URL): LookupFunction;
}

export function createOutboundGuard(options: { allowPrivateNetworks: boolean; resolver?: Resolver; allowAddress?: (address: string, port: number) => boolean }): OutboundGuard {
  const policy: EgressPolicy = { allowPrivateNetworks: options.allowPrivateNetworks, resolver: options.resolver ?? systemResolver, isAllowed: options.allowAddress };
  return {
    async check(raw, param) {
      const url = parseTargetUrl(raw, { allowPrivateNetworks: options.allowPrivateNetworks, param });
      await resolveAllowed(url, policy);
      return url;
    },
    lookupFor(url) {
      const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
      return (hostname, lookupOptions, callback) => {
        checkHost(hostname, port, policy).then(
          (verdict) => {
            if (!verdict.ok) {
              const refusal: NodeJS.ErrnoException = new Error(verdict.reason === 'dns' ? `Could not resolve ${hostname}` : `${hostname} resolves to an address that is not allowed`);
              refusal.code = verdict.reason === 'dns' ? 'ENOTFOUND' : 'EACCES';
              callback(refusal, '', 0);
              return;
            }
            const answers = verdict.addresses.map((address) => ({ address, family: isIP(address) }));
            if (lookupOptions.all) (callback as unknown as (error: null, answers: { address: string; family: number }[]) => void)(null, answers);
            else callback(null, answers[0]?.address ?? '', answers[0]?.family ?? 4);
          },
          (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
        );
      };
    },
  };
}

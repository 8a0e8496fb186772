import { CaptureError } from './errors.js';
import {
  createEgressProxy,
  parseTargetUrl,
  resolveAllowed,
  systemResolver,
  type EgressFailure,
  type EgressPolicy,
  type EgressSession,
} from './egress/index.js';
import type { PreparedContext } from './pool.js';
import type { ResolvedEngineOptions } from './options.js';

/**
 * How the engine applies the egress guard: the target is checked before any browser work, and
 * every connection of the page goes through a per-context proxy session that dials only checked
 * addresses. With `allowPrivateNetworks` the proxy is left out (nothing to refuse but schemes).
 */
export interface Egress {
  prepareContext?: () => Promise<PreparedContext>;
  /** Parses and checks a capture target; throws INVALID_PARAMETER or URL_NOT_ALLOWED. */
  checkTarget(raw: string): Promise<URL>;
  /** Why the proxy did not carry the connection `url` needed, if it did not. */
  failureFor(session: unknown, url: string): EgressFailure | undefined;
  close(): Promise<void>;
}

export async function createEgress(options: Readonly<ResolvedEngineOptions>): Promise<Egress> {
  const policy: EgressPolicy = {
    allowPrivateNetworks: options.allowPrivateNetworks,
    resolver: options.resolver ?? systemResolver,
    isAllowed: options.allowAddress,
  };
  const checkTarget = async (raw: string): Promise<URL> => {
    const url = parseTargetUrl(raw, { allowPrivateNetworks: options.allowPrivateNetworks });
    await resolveAllowed(url, policy);
    return url;
  };
  if (options.allowPrivateNetworks) {
    return { checkTarget, failureFor: () => undefined, close: async () => undefined };
  }
  const proxy = createEgressProxy(policy);
  return {
    checkTarget,
    prepareContext: async () => {
      const session = await proxy.openSession();
      return {
        options: { proxy: { server: session.server, bypass: '<-loopback>' } },
        attachment: session,
        dispose: () => session.close(),
      };
    },
    failureFor: (session, url) => (session as EgressSession | undefined)?.failureFor(url),
    close: () => proxy.close(),
  };
}

export function urlNotAllowed(url: string): CaptureError {
  return new CaptureError('URL_NOT_ALLOWED', 'The page led to an address that is not allowed', { details: { url } });
}

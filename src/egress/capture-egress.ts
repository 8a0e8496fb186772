import type { EgressGuard, OutboundProxy, PreparedContext } from '../core/ports.js';
import { writeEgressPreferences } from './chromium-preferences.js';
import { resolveAllowed, type EgressPolicy } from './egress-policy.js';
import { createEgressProxy } from './proxy/egress-proxy.js';
import type { EgressSession } from './proxy/session.js';
import { systemResolver, type Resolver } from './resolver.js';
import { createOutboundGuard } from './outbound-guard.js';
import { putToPresignedUrl } from './presigned-upload.js';
import { parseTargetUrl } from './target-url.js';
import { namedProxies, resolveOutboundProxy } from './outbound-proxy.js';
import { compileUrlLists, type UrlListOptions } from './url-lists.js';
import { downloadFile } from './download-file.js';
import { captureErrors } from '../core/errors/factories.js';
import { createRobotsRules, type RobotsLimits } from './robots-rules.js';

export interface CaptureEgressOptions {
  /** Allow targets on private, loopback and link-local networks (tests, intranets). */
  allowPrivateNetworks: boolean;
  /** DNS resolver of the guard. @default the system resolver */
  resolver?: Resolver;
  /** Allows chosen non-public addresses without opening all private networks. */
  allowAddress?: (address: string, port: number) => boolean;
  /** The operator's proxies, by the name a capture's `proxy` gives. */
  proxies?: Readonly<Record<string, string>>;
  /** The operator's URL allow and deny lists, on top of the address checks. */
  urlLists?: UrlListOptions;
  /** Bounds of `robots_txt=respect`'s fetches and cache. @default ROBOTS_LIMITS */
  robots?: RobotsLimits;
}

/** The guard as the engine uses it, plus what the browser layer needs to route every context through it. */
export interface CaptureEgress extends EgressGuard {
  /** Per-context proxy session (through the capture's own proxy when given). */
  prepareContext: (upstream?: OutboundProxy) => Promise<PreparedContext>;
  /** Profile preferences a local Chromium needs for the guard to hold (WebRTC only through the proxy). */
  prepareProfile(profileDir: string): Promise<void>;
}

/**
 * The target is checked before any browser work, and every connection of the page goes through a
 * per-context proxy session that dials only checked addresses. With `allowPrivateNetworks` the
 * session is left out (nothing to refuse but schemes) unless the capture has a proxy of its own.
 */
export async function createCaptureEgress(options: CaptureEgressOptions): Promise<CaptureEgress> {
  const policy: EgressPolicy = {
    allowPrivateNetworks: options.allowPrivateNetworks,
    resolver: options.resolver ?? systemResolver,
    isAllowed: options.allowAddress,
  };
  const named = namedProxies(options.proxies);
  const lists = compileUrlLists(options.urlLists ?? {});
  const proxy = createEgressProxy(policy);
  const uploads = createOutboundGuard({ allowPrivateNetworks: options.allowPrivateNetworks, resolver: policy.resolver, allowAddress: options.allowAddress });
  const robots = createRobotsRules(uploads, options.robots);
  return {
    checkTarget: async (raw) => {
      const url = parseTargetUrl(raw, { allowPrivateNetworks: options.allowPrivateNetworks });
      if (lists.refuses(url.href)) throw captureErrors.urlNotAllowed(url.href, "The operator's URL allow or deny list refuses this URL");
      await resolveAllowed(url, policy);
      return url;
    },
    checkProxy: (raw) => resolveOutboundProxy(raw, named, policy),
    prepareProfile: writeEgressPreferences,
    prepareContext: async (upstream) => {
      if (options.allowPrivateNetworks && upstream === undefined) return { options: {}, dispose: async () => undefined };
      const session = await proxy.openSession(upstream);
      return {
        options: { proxy: { server: session.server, bypass: '<-loopback>' } },
        attachment: session,
        reset: () => session.forgetFailures(),
        dispose: () => session.close(),
      };
    },
    failureFor: (session, url) => (session as EgressSession | undefined)?.failureFor(url),
    ...(lists.active ? { refusesUrl: lists.refuses } : {}),
    checkRobots: (url) => robots.check(url),
    checkUpload: (raw) => uploads.check(raw, 'upload_url'),
    download: (raw, download) => downloadFile(raw, uploads, download),
    upload: (url, file, signal) => putToPresignedUrl(url, file, uploads, signal),
    close: () => proxy.close(),
  };
}

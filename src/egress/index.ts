export { isPublicUnicast } from './address-policy.js';
export { writeEgressPreferences } from './chromium-preferences.js';
export { checkHost, isAddressAllowed, resolveAllowed, type EgressPolicy, type HostVerdict } from './egress-policy.js';
export { createEgressProxy, type EgressFailure, type EgressProxy, type EgressProxyOptions, type EgressSession } from './proxy/egress-proxy.js';
export { createCaptureEgress, type CaptureEgress, type CaptureEgressOptions } from './capture-egress.js';
export { isLocalhostName } from './host-name.js';
export { systemResolver, type Resolver } from './resolver.js';
export { parseTargetUrl } from './target-url.js';
export { createOutboundGuard, type OutboundGuard } from './outbound-guard.js';

import type { Route } from 'playwright-core';
import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import type { WebBotAuth } from '../../src/core/web-bot-auth.js';

/**
 * Web Bot Auth (the operator's `webBotAuth`): every http(s) request the page makes, its document
 * and subresources, carries `Signature`, `Signature-Input` and `Signature-Agent`, so a site can
 * verify who is asking against the key directory the service serves. Requests the engine makes
 * itself (`upload_url`, webhooks) and proxies never see a signature. Without an identity the
 * plugin has no stage: nothing is intercepted.
 */
export function webBotAuth(identity: WebBotAuth | undefined): CapturePlugin {
  return {
    name: 'web-bot-auth',
    stages: identity === undefined ? [] : [{ name: 'sign-requests', phase: 'prepare', leavesContextState: false, run: (ctx) => signRequests(ctx, identity) }],
  };
}

async function signRequests({ page, defer }: CaptureContext, identity: WebBotAuth): Promise<void> {
  const isWeb = (url: URL): boolean => url.protocol === 'http:' || url.protocol === 'https:';
  // Registered first of the capture's routes, it runs last: after the caller's headers were added.
  const sign = async (route: Route): Promise<void> => {
    const request = route.request();
    const signature = await identity.requestHeaders(request.method(), request.url());
    await route.fallback({ headers: { ...request.headers(), ...signature } });
  };
  await page.route(isWeb, sign);
  defer(() => page.unroute(isWeb, sign));
}

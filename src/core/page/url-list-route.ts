import type { Route } from 'playwright-core';
import type { CaptureContext } from '../plugin-api.js';
import { DOCUMENT_ORIGIN } from '../document/capture-document.js';
import type { EgressGuard } from '../ports.js';

/** Whether the operator's URL lists refuse `url`; a document's own origin is served from memory and never is. */
export function isListRefused(egress: EgressGuard, url: string): boolean {
  return egress.refusesUrl !== undefined && !url.startsWith(`${DOCUMENT_ORIGIN}/`) && egress.refusesUrl(url);
}

/**
 * The operator's URL lists on every request of the page: a refused one fails as blocked
 * (`net::ERR_BLOCKED_BY_CLIENT`), so diagnostics and the failure rules see it as the ad blocker's, and
 * a refused main-frame hop is the capture's URL_NOT_ALLOWED. Registered as the page navigates, after
 * every other route, so it is asked first: no route of a stage, `intercept` or a hook answers a
 * refused URL.
 */
export async function refuseListedUrls(ctx: CaptureContext, egress: EgressGuard): Promise<void> {
  const onRoute = async (route: Route): Promise<void> => {
    try {
      const url = route.request().url();
      await (isListRefused(egress, url) ? route.abort('blockedbyclient') : route.fallback());
    } catch {
      // The page or its context closed while the request waited.
    }
  };
  await ctx.page.route('**/*', onRoute);
  ctx.defer(() => ctx.page.unroute('**/*', onRoute).catch(() => undefined));
}
